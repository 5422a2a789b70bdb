"""Offline first (docs/OFFLINE.md): the changes a window made are kept in the browser's IndexedDB
before they are sent, and the next window of the document sends what a closed tab, a reload or a
killed browser left — each once, in order — or names what the server refused.

These tests run Chromium processes of their own on a profile folder (connected to over CDP), so
a browser can be killed with SIGKILL and started again on the same profile, as a crash would."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
import urllib.request

import requests
from playwright.sync_api import expect

from browser_server import free_port, start_serve
from helpers import drop_files
from conftest import CHROMIUM
from test_accounts import PASSWORD, accounts_server, drop_text, session, sign_in  # noqa: F401 (accounts_server: a fixture)

# The queue's records, read in the page (whatever their owner).
QUEUE = """async () => {
  const database = await new Promise((resolve, reject) => {
    const request = indexedDB.open("emojiart");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  if (!database.objectStoreNames.contains("queue")) { database.close(); return []; }
  const records = await new Promise((resolve) => {
    const request = database.transaction("queue").objectStore("queue").getAll();
    request.onsuccess = () => resolve(request.result);
  });
  database.close();
  return records;
}"""

# The browser's copies of documents, read in the page (whatever their owner).
COPIES = QUEUE.replace('"queue"', '"documents"')

# The addresses the shell's caches hold besides the shell's own files: "/" and each kept document's.
ADDRESSES = """async () => {
  const found = [];
  for (const name of (await caches.keys()).filter((name) => name.startsWith("emojiart-shell-"))) {
    for (const request of await (await caches.open(name)).keys()) {
      const path = new URL(request.url).pathname;
      if (path === "/" || path.startsWith("/documents/")) found.push(path);
    }
  }
  return found.sort();
}"""

# Where the browser took the page and its files from ("cache": a static route, no worker started).
SOURCES = """() => Object.fromEntries([performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")]
  .map((entry) => [new URL(entry.name).pathname, entry.workerFinalSourceType || "-"]))"""

# Adds a record to the queue as a window that is gone would have left it.
ADD_RECORD = """async (record) => {
  const database = await new Promise((resolve) => {
    const request = indexedDB.open("emojiart");
    request.onsuccess = () => resolve(request.result);
  });
  await new Promise((resolve, reject) => {
    const transaction = database.transaction("queue", "readwrite");
    transaction.objectStore("queue").add(record);
    transaction.oncomplete = resolve;
    transaction.onerror = () => reject(transaction.error);
  });
  database.close();
}"""


@contextlib.contextmanager
def chromium(browser, profile):
    """A Chromium process of our own on the profile folder `profile`: (its browser over CDP, the process)."""
    port = free_port()
    process = subprocess.Popen(
        [CHROMIUM, "--headless=new", "--no-sandbox", f"--remote-debugging-port={port}", f"--user-data-dir={profile}",
         "--no-first-run", "--no-default-browser-check", "--disable-gpu", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise AssertionError("Chromium did not start")
            time.sleep(0.1)
    connected = browser.browser_type.connect_over_cdp(f"http://127.0.0.1:{port}")
    try:
        yield connected, process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        with contextlib.suppress(Exception):
            connected.close()


@contextlib.contextmanager
def own_server(tmp_path, *options):
    """`emojiart serve` on a port of its own, with a data folder that outlives a restart."""
    port = free_port()
    log = open(tmp_path / "server.log", "ab")
    data = ["--data", str(tmp_path / "data"), *options]
    handle = {"process": start_serve(port, log, *data), "base": f"http://127.0.0.1:{port}"}

    def stop():
        handle["process"].terminate()
        handle["process"].wait(timeout=15)

    def start():
        handle["process"] = start_serve(port, log, *data)

    handle["stop"], handle["start"] = stop, start
    try:
        yield handle
    finally:
        if handle["process"].poll() is None:
            handle["process"].terminate()
            handle["process"].wait(timeout=15)
        log.close()


def document_with_a_dog(base: str, title: str) -> dict:
    """A new document with 🐶 (id 1) at 0, 0; its state."""
    doc = requests.post(base + "/api/documents", json={"title": title}, timeout=10).json()
    return requests.post(f"{base}/api/documents/{doc['id']}/edits", timeout=10, json={
        "baseVersion": doc["version"],
        "edits": [{"type": "addEmoji", "text": "🐶", "position": {"x": 0, "y": 0}, "size": 40}]}).json()


def editor(context, base, doc_id):
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{base}/documents/{doc_id}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    # The server has said who is signed in, and what closed windows left is taken over.
    expect(page.locator("body")).to_have_attribute("data-restored", re.compile(r"\d+"))
    return page


def kept(page) -> list:
    return page.evaluate(QUEUE)


def wait_kept(page, count: int) -> None:
    deadline = time.monotonic() + 10
    while len(kept(page)) != count:
        assert time.monotonic() < deadline, f"{len(kept(page))} records kept, not {count}"
        page.wait_for_timeout(50)


def test_edits_made_offline_survive_a_killed_browser_and_are_applied_once_in_order(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Before")
        profile = tmp_path / "profile"
        with chromium(browser, profile) as (chrome, process):
            context = chrome.contexts[0]
            first = editor(context, base, doc["id"])
            second = editor(context, base, doc["id"])  # another tab of the same document
            expect(first.locator(".palette-emoji").first).to_be_visible()
            server["stop"]()
            for page in (first, second):
                expect(page.locator("#save-status")).to_have_attribute("data-state", "offline")

            # The first tab moves the dog right three times and renames the document…
            first.locator('#canvas .emoji[data-id="1"]').click()
            for _ in range(3):
                first.keyboard.press("Shift+ArrowRight")
            title = first.locator("#doc-title")
            title.fill("After")
            title.press("Enter")
            expect(first.locator("#save-status")).to_contain_text("4 changes waiting")
            # …and the second adds an emoji from the palette.
            second.locator(".palette-emoji").first.click()
            expect(second.locator("#save-status")).to_contain_text("1 change waiting")
            wait_kept(first, 5)
            assert [json.loads(r["message"])["type"] for r in kept(first)] == ["edit"] * 5
            first.close()
            process.kill()  # a crash: nothing is closed cleanly

        server["start"]()
        with chromium(browser, profile) as (chrome, _):
            page = editor(chrome.contexts[0], base, doc["id"])
            expect(page.locator("#save-status")).to_have_attribute("data-state", "saved", timeout=20_000)
            expect(page.locator("body")).to_have_attribute("data-restored", "5")
            state = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            assert state["title"] == "After"
            assert state["version"] == doc["version"] + 5, "each kept change applied once"
            assert [(e["text"], e["x"]) for e in state["emojis"]][0] == ("🐶", 30)
            assert len(state["emojis"]) == 2
            expect(page.locator("body")).to_have_attribute("data-version", str(state["version"]))
            wait_kept(page, 0)
            # The server's log has them in the order they were made: the moves, the rename, the add
            # (the tabs' records in the order they were written).
            history = requests.get(f"{base}/api/documents/{doc['id']}/history/changes?after={doc['version']}",
                                   timeout=10).json()
            kinds = ["title" if "title" in c["patch"] else "added" if c["patch"]["inserted"] else "moved"
                     for c in history["changes"]]
            assert kinds == ["moved", "moved", "moved", "title", "added"]


def test_kept_changes_are_drawn_on_a_page_opened_offline_and_a_tab_closed_meanwhile_is_sent_by_the_one_open(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Two tabs")
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            context = chrome.contexts[0]
            first = opened_then_offline(context, server, doc)
            first.locator('#canvas .emoji[data-id="1"]').click()
            first.keyboard.press("Shift+ArrowRight")
            first.keyboard.press("Shift+ArrowRight")
            wait_kept(first, 2)
            first.reload()  # still no server: what it kept is drawn at once, pending, and counted
            expect(first.locator("body")).to_have_attribute("data-source", "copy")
            expect(first.locator("#canvas .emoji.pending")).to_have_count(1)
            expect(first.locator("#save-status")).to_contain_text("2 changes waiting")

            # Another tab, opened offline, adds an emoji and is closed before the server is back.
            second = context.new_page()
            second.goto(f"{base}/documents/{doc['id']}")
            expect(second.locator("body")).to_have_attribute("data-source", "copy")
            second.locator(".palette-emoji").first.click()
            wait_kept(second, 3)
            second.close()

            server["start"]()
            first.locator("#save-status").click()  # try now
            expect(first.locator("#save-status")).to_have_attribute("data-state", "saved", timeout=20_000)
            wait_kept(first, 0)
            state = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            assert state["version"] == doc["version"] + 3, "the closed tab's change sent too, each once"
            assert [(e["text"], e["x"]) for e in state["emojis"]][0] == ("🐶", 20) and len(state["emojis"]) == 2

            # Again with the open tab's server known: the connection lost, a tab opened, edited, closed.
            server["stop"]()
            expect(first.locator("#save-status")).to_have_attribute("data-state", "offline")
            third = context.new_page()
            third.goto(f"{base}/documents/{doc['id']}")
            expect(third.locator("body")).to_have_attribute("data-source", "copy")
            third.locator(".palette-emoji").first.click()
            wait_kept(third, 1)
            third.close()
            server["start"]()
            first.locator("#save-status").click()
            expect(first.locator("#save-status")).to_have_attribute("data-state", "saved", timeout=20_000)
            wait_kept(first, 0)
            assert requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["version"] == doc["version"] + 4


def test_a_kept_change_already_applied_is_not_applied_again_and_bad_records_are_skipped(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = requests.post(base + "/api/documents", json={"title": "Once"}, timeout=10).json()
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            context = chrome.contexts[0]
            page = editor(context, base, doc["id"])
            page.locator(".palette-emoji").first.click()
            expect(page.locator("#save-status")).to_have_text("All changes saved")
            wait_kept(page, 0)  # answered, so forgotten
            applied = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            # The request as the server saw it (its id is in the log), left behind by a window that
            # closed before the answer came; a record that can't be read; one from an older page.
            owner = page.evaluate("""async () => {
              const database = await new Promise((r) => { const q = indexedDB.open("emojiart"); q.onsuccess = () => r(q.result); });
              const value = await new Promise((r) => { const q = database.transaction("meta").objectStore("meta").get("identity"); q.onsuccess = () => r(q.result.value); });
              database.close();
              return value;
            }""")
            message = {"type": "edit", "requestId": "gone-window-1", "baseVersion": applied["version"],
                       "edits": [{"type": "addEmoji", "text": "🐱", "position": {"x": 5, "y": 5}, "size": 40}]}
            record = {"format": 1, "owner": owner, "documentId": doc["id"], "window": "gone-window",
                      "requestId": "gone-window-1", "message": json.dumps(message), "edits": message["edits"],
                      "label": "Add 🐱", "madeAt": 0}
            page.evaluate(ADD_RECORD, record)
            page.reload()
            expect(page.locator("body")).to_have_attribute("data-restored", "1")
            expect(page.locator("#save-status")).to_have_text("All changes saved")
            once = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            assert len(once["emojis"]) == 2
            page.evaluate(ADD_RECORD, record)  # the same request again: recognised by its id
            page.evaluate(ADD_RECORD, {**record, "window": "x", "requestId": "broken", "message": "{"})
            page.evaluate(ADD_RECORD, {**record, "window": "y", "requestId": "old-1", "format": 0})
            page.reload()
            expect(page.locator("#notices")).to_contain_text("1 change this browser kept couldn’t be read")
            expect(page.locator("#notices")).to_contain_text("kept by an older version of EmojiArt")
            expect(page.locator("#save-status")).to_have_text("All changes saved")
            wait_kept(page, 0)
            again = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            assert again["version"] == once["version"] and len(again["emojis"]) == 2, "applied exactly once"


def test_a_kept_change_the_server_refuses_is_named_in_a_notice(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Refused")
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            page = editor(chrome.contexts[0], base, doc["id"])
            server["stop"]()
            expect(page.locator("#save-status")).to_have_attribute("data-state", "offline")
            page.locator('#canvas .emoji[data-id="1"]').click()
            page.keyboard.press("Shift+ArrowRight")
            wait_kept(page, 1)
            # Beside it, what a window that is gone left half-written: what it draws isn't edits
            # — one record, kept as sent, names no edits; another names a run of ids beyond any
            # document — neither may hide the refusal.
            mine = {key: value for key, value in kept(page)[0].items() if key != "seq"}
            move = json.loads(mine["message"])
            page.evaluate(ADD_RECORD, {**mine, "window": "gone", "requestId": "gone-1",
                                       "message": json.dumps({**move, "requestId": "gone-1"}), "edits": [None]})
            runs = {**move, "requestId": "gone-2", "edits": [{"type": "moveEmojis", "idRanges": [[-5, 10**12]], "offset": {"x": 1, "y": 0}}]}
            page.evaluate(ADD_RECORD, {**mine, "window": "gone", "requestId": "gone-2",
                                       "message": json.dumps(runs), "edits": runs["edits"], "label": "Move a run"})
            page.close()
            server["start"]()
            # Meanwhile someone else deleted the dog.
            requests.post(f"{base}/api/documents/{doc['id']}/edits", timeout=10, json={
                "baseVersion": doc["version"], "edits": [{"type": "deleteEmojis", "ids": [1]}]}).raise_for_status()
            page = chrome.contexts[0].new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{base}/documents/{doc['id']}")
            expect(page.locator("body")).to_have_attribute("data-restored", "2")
            expect(page.locator("#notices")).to_contain_text("1 change this browser kept couldn’t be read")
            notice = page.locator("#notices .notice-error")
            expect(notice).to_contain_text("2 changes couldn’t be applied: Move 🐶 — it was deleted; Move a run")
            wait_kept(page, 0)
            assert errors == []


def test_storage_refused_works_in_memory_with_a_warning(page, api):
    doc = api.create("Private", emojis=[("🦊", 0, 0, 40)])
    page.add_init_script("Object.defineProperty(window, 'indexedDB', { value: { open() { throw new DOMException('refused', 'SecurityError'); } } })")
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#notices .notice-warning")).to_contain_text("won’t keep changes for this site")
    page.locator(".palette-emoji").first.click()
    expect(page.locator("#save-status")).to_have_text("All changes saved")
    assert len(api.get(doc)["emojis"]) == 2


# An older page's connection to the database (version 2), held in a worker that doesn't close it
# when asked: as a tab busy or frozen would, until it is closed (`window.older.terminate()`).
OLDER_PAGE = """async () => {
  const source = `const request = indexedDB.open("emojiart", 2);
    request.onupgradeneeded = () => request.result.createObjectStore("meta", { keyPath: "key" });
    request.onsuccess = () => postMessage("open");`;
  window.older = new Worker(URL.createObjectURL(new Blob([source])));
  await new Promise((resolve) => (window.older.onmessage = resolve));
}"""


# Spoils every copy of documents the browser keeps, as a half-written record would be: its state's
# emojis not a list.
SPOIL_COPIES = """async () => {
  const database = await new Promise((resolve) => (indexedDB.open("emojiart").onsuccess = (event) => resolve(event.target.result)));
  const transaction = database.transaction("documents", "readwrite");
  const store = transaction.objectStore("documents");
  store.getAll().onsuccess = (event) => event.target.result.forEach((copy) => store.put({ ...copy, state: { ...copy.state, emojis: "junk" } }));
  await new Promise((resolve) => (transaction.oncomplete = resolve));
  database.close();
}"""


def test_an_unreadable_copy_is_skipped_with_a_notice_and_the_server_opens_the_document(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Spoilt")
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            page = editor(chrome.contexts[0], base, doc["id"])
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            wait_worker(page)
            wait_copied(page, doc["id"], doc["version"])
            page.evaluate(SPOIL_COPIES)
            server["stop"]()
            page.reload()
            expect(page.locator("#notices .notice-warning")).to_contain_text("The copy of this document kept in this browser couldn’t be read")
            expect(page.locator("#save-status")).to_have_attribute("data-state", "offline")
            assert page.evaluate(COPIES) == [], "the unreadable copy goes"
            server["start"]()
            page.locator("#save-status").click()
            expect(page.locator("body")).to_have_attribute("data-source", "server")
            expect(page.locator('#canvas .emoji[data-id="1"]')).to_be_visible()
            wait_copied(page, doc["id"], doc["version"])  # kept again, readable
            assert errors == []


def test_a_page_upgrading_storage_waits_a_moment_for_an_older_tab_to_let_go(page, api):
    doc = api.create("Upgraded", emojis=[("🦊", 0, 0, 40)])
    page.route("**/older-page", lambda route: route.fulfill(body="<!doctype html><title>older</title>", content_type="text/html"))
    page.goto("/older-page")

    # The older tab lets go a moment after the editor asked: the editor upgrades and keeps its copy.
    page.evaluate(OLDER_PAGE)
    editor = page.context.new_page()
    editor.goto(f"/documents/{doc['id']}")
    page.wait_for_timeout(500)
    page.evaluate("() => window.older.terminate()")
    expect(editor.locator("body")).to_have_attribute("data-storage", "kept")
    expect(editor.locator("#notices .notice-warning")).to_have_count(0)
    deadline = time.monotonic() + 10
    while doc["id"] not in [copy["id"] for copy in editor.evaluate(COPIES)]:
        assert time.monotonic() < deadline, "the editor kept no copy"
        editor.wait_for_timeout(100)
    assert editor.evaluate("() => new Promise((resolve) => (indexedDB.open('emojiart').onsuccess = (event) => resolve(event.target.result.version)))") == 3
    editor.close()
    page.evaluate("() => new Promise((resolve) => (indexedDB.deleteDatabase('emojiart').onsuccess = resolve))")

    # One that never lets go: after a few seconds the editor works without, and says so.
    page.evaluate(OLDER_PAGE)
    stuck = page.context.new_page()
    stuck.goto(f"/documents/{doc['id']}")
    expect(stuck.locator("body")).to_have_attribute("data-ready", "true")
    expect(stuck.locator("body")).to_have_attribute("data-storage", "refused")
    expect(stuck.locator("#notices .notice-warning")).to_contain_text("won’t keep changes for this site")
    stuck.locator(".palette-emoji").first.click()
    expect(stuck.locator("#save-status")).to_have_text("All changes saved")
    assert len(api.get(doc)["emojis"]) == 2


class LiveLink:
    """The documents' live connections of a browser context, which a test cuts and lets through
    again (the palettes' connection stays)."""

    def __init__(self, context):
        self.up, self.sockets = True, []
        context.route_web_socket("**/api/documents/*/live*", self.route)

    def route(self, ws):
        if not self.up:
            ws.close(code=1013, reason="Down for the test.")
            return
        ws.connect_to_server()
        self.sockets.append(ws)

    def cut(self, page) -> None:
        self.up = False
        for ws in self.sockets:
            ws.close(code=1001, reason="Gone for the test.")
        expect(page.locator("#save-status")).to_have_attribute("data-state", "offline")


def test_changes_waiting_for_a_document_deleted_meanwhile_are_named_as_discarded(page, api):
    doc = api.create("Deleted meanwhile", emojis=[("🐶", 0, 0, 40)])
    link = LiveLink(page.context)
    page.goto(f"/documents/{doc['id']}")
    ready_to_edit(page)
    wait_copied(page, doc["id"], doc["version"])
    link.cut(page)
    page.locator('#canvas .emoji[data-id="1"]').click()
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator("#save-status")).to_contain_text("1 change waiting")
    wait_kept(page, 1)
    page.reload()  # still cut off: the change is taken over by the page opened again
    expect(page.locator("#save-status")).to_contain_text("1 change waiting")
    api.call("DELETE", f"/api/documents/{doc['id']}")
    link.up = True
    page.locator("#save-status").click()  # try now: the server has no such document any more
    expect(page.locator("#notices")).to_contain_text("1 change made here that hadn’t reached the server was discarded: Move 🐶.")
    page.wait_for_timeout(300)
    expect(page.locator("#notices")).not_to_contain_text("couldn’t be applied")  # named once
    assert page.evaluate(QUEUE) == [] and page.evaluate(COPIES) == []


def ready_to_edit(page) -> None:
    """The editor has the document, knows who is asking, and shows the palette."""
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("body")).to_have_attribute("data-restored", "0")
    expect(page.locator(".palette-emoji").first).to_be_visible()


def sign_in_as(page, name: str) -> None:
    page.goto("/signin")
    page.fill("#signin-name", name)
    page.fill("#signin-password", PASSWORD)
    page.click("#signin-submit")
    expect(page.locator("#account-name")).to_have_text(name)


def test_a_queue_is_kept_per_account_and_signing_out_deletes_it(browser, accounts_server):
    """A shared computer: what ada left unsent is never sent as bob, is sent once ada is back, and
    is gone from the browser when she signs out."""
    base = accounts_server
    ada_http = session(base, "ada")
    doc = ada_http.post(base + "/api/documents", json={"title": "Shared"}, timeout=10).json()
    ada_http.put(f"{base}/api/documents/{doc['id']}/members/bob", json={"role": "editor"}, timeout=10).raise_for_status()
    context = browser.new_context(base_url=base, viewport={"width": 1100, "height": 760})
    link = LiveLink(context)

    def offline_edit(page):
        page.goto(f"/documents/{doc['id']}")
        ready_to_edit(page)
        link.cut(page)
        page.locator(".palette-emoji").first.click()
        expect(page.locator("#save-status")).to_contain_text("1 change waiting")
        wait_kept(page, 1)
        page.goto("/")  # the editor closes with the change unsent
        link.up = True

    page = context.new_page()
    sign_in(page, base, "ada")
    ada_key = page.evaluate(QUEUE.replace('"queue"', '"meta"'))[0]["value"]
    assert ada_key.startswith("user:")
    page.goto(f"/documents/{doc['id']}")  # ada opens it: the browser keeps a copy for her
    wait_copied(page, doc["id"], doc["version"])
    wait_worker(page)
    address = f"/documents/{doc['id']}"  # where a copy opens from (its page in the shell's cache)
    page.wait_for_function(f"({ADDRESSES})().then((found) => found.includes('{address}'))")
    offline_edit(page)
    assert [c["owner"] for c in page.evaluate(COPIES)] == [ada_key]

    # Ada's session ends without her signing out (it expired); bob signs in on the same browser.
    page.goto("/signin")
    context.clear_cookies()
    sign_in_as(page, "bob")
    assert page.evaluate(COPIES) == []  # someone else signed in: ada's copies went
    assert page.evaluate(ADDRESSES) == ["/"]  # and where they opened from
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-restored", "0")  # ada's change is not bob's to send
    expect(page.locator("#save-status")).to_have_text("All changes saved")
    wait_copied(page, doc["id"], doc["version"])  # bob's copy now
    page.wait_for_function(f"({ADDRESSES})().then((found) => found.includes('{address}'))")
    assert [r["owner"] for r in kept(page)] == [ada_key]
    assert ada_http.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["version"] == doc["version"]
    page.goto("/")
    page.click("#sign-out")  # bob has nothing unsent: no question
    expect(page).to_have_url(base + "/signin")
    assert [r["owner"] for r in kept(page)] == [ada_key]
    assert page.evaluate(COPIES) == [] and page.evaluate(ADDRESSES) == ["/"]  # nothing of bob's

    # Ada is back: her change is sent.
    sign_in_as(page, "ada")
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-restored", "1")
    expect(page.locator("#save-status")).to_have_text("All changes saved")
    assert len(ada_http.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["emojis"]) == 1
    wait_kept(page, 0)  # answered, so forgotten (a window closed before that would leave it to be sent again, once)

    # Unsent again, she signs out with the server out of reach: she is told she is still signed
    # in, and nothing is deleted — the next person here would otherwise find her session.
    offline_edit(page)
    away = lambda route: route.abort() if route.request.method == "DELETE" else route.fallback()  # noqa: E731
    context.route("**/api/session", away)
    page.click("#sign-out")
    page.get_by_role("alertdialog").get_by_role("button", name="Sign out and discard").click()
    expect(page.locator("#notices .notice-error")).to_contain_text("Couldn’t sign out")
    expect(page.locator("#notices .notice-error")).to_contain_text("you are still signed in, and nothing was deleted")
    assert page.url == base + "/" and len(kept(page)) == 1
    assert page.evaluate(QUEUE.replace('"queue"', '"meta"')) != []  # who was signed in: still known
    expect(page.locator("#account-name")).to_have_text("ada")
    context.unroute("**/api/session", away)

    # Back in reach: asked first, then nothing of hers remains in the browser.
    page.click("#sign-out")
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("1 change made in this browser hasn’t reached the server yet")
    dialog.get_by_role("button", name="Sign out and discard").click()
    expect(page).to_have_url(base + "/signin")
    assert kept(page) == []
    assert page.evaluate(COPIES) == []
    assert page.evaluate(QUEUE.replace('"queue"', '"meta"')) == []
    context.close()


def test_a_link_visitors_queue_goes_when_the_link_is_revoked(browser, accounts_server):
    base = accounts_server
    ada_http = session(base, "ada")
    doc = ada_http.post(base + "/api/documents", json={"title": "Linked"}, timeout=10).json()
    url = ada_http.post(f"{base}/api/documents/{doc['id']}/links", json={"role": "edit"}, timeout=10).json()["url"]
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    link = LiveLink(context)
    page = context.new_page()
    page.goto(url)
    ready_to_edit(page)
    wait_worker(page)  # the editor's page opens from it: its script finds out the link is gone
    link.cut(page)
    page.locator(".palette-emoji").first.click()
    wait_kept(page, 1)
    assert [r["owner"] for r in kept(page)] == ["guest"]
    links = ada_http.get(f"{base}/api/documents/{doc['id']}/links", timeout=10).json()["links"]
    ada_http.delete(f"{base}/api/documents/{doc['id']}/links/{links[0]['id']}", timeout=10).raise_for_status()
    link.up = True
    page.reload()
    expect(page).to_have_url(re.compile(r"/signin"))  # the link no longer opens it
    wait_kept(page, 0)
    assert ada_http.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["emojis"] == []
    context.close()


def wait_copied(page, doc_id: str, version: int) -> None:
    deadline = time.monotonic() + 15
    while not any(c["id"] == doc_id and c["version"] == version for c in page.evaluate(COPIES)):
        assert time.monotonic() < deadline, f"no copy of {doc_id} at version {version}: {page.evaluate(COPIES)}"
        page.wait_for_timeout(100)


def wait_worker(page) -> None:
    """The service worker controls the page and has the app shell."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")  # it claims the pages it finds


def opened_then_offline(context, server, doc):
    """The editor on `doc`, kept by the browser (worker and copy), then reloaded with no server:
    the page from the service worker, the document from its copy."""
    page = editor(context, server["base"], doc["id"])
    wait_worker(page)
    wait_copied(page, doc["id"], doc["version"])
    server["stop"]()
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-source", "copy")
    return page


def test_a_document_opened_once_opens_and_edits_with_no_server(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Café away")
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            context = chrome.contexts[0]
            page = opened_then_offline(context, server, doc)
            expect(page.locator('#canvas .emoji[data-id="1"]')).to_be_visible()
            status = page.locator("#save-status")
            expect(status).to_have_text("Offline — changes will be sent")
            expect(page.locator(".palette-emoji").first).to_be_visible()  # the palettes, as last kept
            page.locator('#canvas .emoji[data-id="1"]').click()
            page.keyboard.press("Shift+ArrowRight")
            expect(status).to_contain_text("1 change waiting")
            wait_kept(page, 1)

            # The document list, offline: what this browser keeps.
            listing = context.new_page()
            listing.goto(base + "/")
            expect(listing.locator(f'tr[data-id="{doc["id"]}"] .offline-badge')).to_have_text("Available offline")
            expect(listing.locator("#notices")).to_contain_text("Showing the documents available in this browser")
            # Searched here as the server searches: case and accents ignored.
            search = listing.get_by_role("searchbox", name="Search documents by title")
            search.fill("CAFE")
            expect(listing.locator(f'tr[data-id="{doc["id"]}"]')).to_be_visible()
            search.fill("tea")
            expect(listing.locator(f'tr[data-id="{doc["id"]}"]')).to_have_count(0)
            listing.close()

            server["start"]()
            status.click()  # retry now rather than after the backoff
            expect(status).to_have_text("All changes saved", timeout=20_000)
            expect(page.locator("body")).to_have_attribute("data-source", "server")
            state = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
            assert state["version"] == doc["version"] + 1 and state["emojis"][0]["x"] == 10


def test_a_kept_document_opens_from_the_shell_cache_before_the_worker_starts(browser, tmp_path):
    """Item 6, warm: a new browser opens a kept document's page and files from the shell's cache
    by the worker's static routes, its worker not started — with no server too; a new shell's
    worker writes the addresses from the copies kept; a copy forgotten takes its address with it."""
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Routed")
        address = f"/documents/{doc['id']}"
        profile = tmp_path / "profile"
        with chromium(browser, profile) as (chrome, _):
            page = editor(chrome.contexts[0], base, doc["id"])
            wait_worker(page)
            wait_copied(page, doc["id"], doc["version"])
            page.wait_for_function(f"({ADDRESSES})().then((found) => found.includes('{address}'))")
            assert page.evaluate(ADDRESSES) == ["/", address]
        with chromium(browser, profile) as (chrome, _):  # a new browser process: no worker running
            page = editor(chrome.contexts[0], base, doc["id"])
            sources = page.evaluate(SOURCES)
            assert (sources[address], sources["/bundles/editor.js"], sources["/css/editor.css"]) == ("cache",) * 3, sources
            assert sources["/api/session"] == "network"  # the API is never answered from a cache

            # A new shell (here: the old one gone), installed from a page that writes no address
            # itself: the worker writes them from the copies.
            page.goto(base + "/jokes")  # the Jokes app: no code of ours about addresses
            page.evaluate("""async () => {
              for (const name of await caches.keys()) await caches.delete(name);
              const registration = await navigator.serviceWorker.register("/sw.js?again");  // a new script: installed
              const worker = registration.installing || registration.waiting;
              if (worker) await new Promise((resolve) => worker.addEventListener("statechange", () => worker.state === "activated" && resolve()));
            }""")
            assert page.evaluate(ADDRESSES) == ["/", address]
        server["stop"]()
        with chromium(browser, profile) as (chrome, _):  # no worker running, and no server
            page = chrome.contexts[0].new_page()
            page.goto(base + address)
            expect(page.locator("body")).to_have_attribute("data-source", "copy")
            expect(page.locator('#canvas .emoji[data-id="1"]')).to_be_visible()
            assert page.evaluate(SOURCES)[address] == "cache"

            # The document deleted: its copy goes, and its address with it.
            server["start"]()
            requests.delete(base + "/api/documents/" + doc["id"], timeout=10).raise_for_status()
            page.reload()
            page.wait_for_function(f"({ADDRESSES})().then((found) => !found.includes('{address}'))")
            assert page.evaluate(COPIES) == [] and page.evaluate(ADDRESSES) == ["/"]


def test_palette_changes_made_offline_are_kept_then_sent_once(browser, tmp_path):
    """Item 1's palette changes: made with no server, they are drawn at once and kept in the
    browser; after the tab is closed and the server is back, the next window sends them, in
    order, each applied once — a palette made offline (under the id the browser chose), renamed,
    given emojis, one removed, and another palette deleted."""
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Palettes away")
        before = requests.get(base + "/api/palettes", timeout=10).json()["palettes"]
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            context = chrome.contexts[0]
            page = opened_then_offline(context, server, doc)
            expect(page.locator("#palette-name")).to_have_text(before[0]["name"])  # as last kept

            page.locator("#palette-menu-button").click()
            page.get_by_role("menuitem", name="New Palette").click()
            dialog = page.locator("#palette-editor")
            expect(dialog).to_be_visible()
            page.locator("#palette-editor-name").fill("Made offline")
            page.locator("#palette-editor-add").press_sequentially("🐶🐱🐭")
            expect(dialog.locator(".palette-editor-emoji")).to_have_text(["🐶", "🐱", "🐭"])
            dialog.get_by_role("listitem", name="Remove 🐱").click()
            expect(dialog.locator(".palette-editor-emoji")).to_have_text(["🐶", "🐭"])
            page.keyboard.press("Escape")
            expect(page.locator("#palette-name")).to_have_text("Made offline")  # drawn before the server has it
            expect(page.locator("#palette-bar .palette-emoji")).to_have_text(["🐶", "🐭"])
            # And the last palette of the list goes.
            page.locator("#palette-menu-button").click()
            page.get_by_role("menuitemradio", name=before[-1]["name"], exact=True).click()
            page.locator("#palette-menu-button").click()
            page.get_by_role("menuitem", name=f"Delete “{before[-1]['name']}”").click()
            page.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
            expect(page.get_by_role("menuitemradio", name=before[-1]["name"], exact=True)).to_have_count(0)
            waiting = page.evaluate(QUEUE)
            assert [r["documentId"] for r in waiting] == ["palettes"] * len(waiting) and len(waiting) >= 5
            page.close()

            server["start"]()
            page = editor(context, base, doc["id"])  # a new window sends what the closed one kept
            deadline = time.monotonic() + 20
            while page.evaluate(QUEUE):
                assert time.monotonic() < deadline, f"still waiting: {page.evaluate(QUEUE)}"
                page.wait_for_timeout(200)
        after = requests.get(base + "/api/palettes", timeout=10).json()["palettes"]
        names = [p["name"] for p in after]
        assert names.count("Made offline") == 1 and before[-1]["name"] not in names
        made = next(p for p in after if p["name"] == "Made offline")
        assert made["emojis"] == "🐶🐭"
        assert len(after) == len(before)  # one made, one deleted


def noise_png(width: int, height: int) -> bytes:
    """A PNG of random pixels: it can't be compressed, so it is as big as its pixels."""
    import io
    import random

    from PIL import Image

    picture = Image.frombytes("RGB", (width, height), random.Random(38).randbytes(width * height * 3))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def test_a_background_file_chosen_offline_is_set_once_when_back(browser, tmp_path):
    """Item 1's backgrounds: an image file dropped with no server can't be uploaded, so it is kept
    as a change — this one, 1 MB, made smaller to fit a live request — and set, once, in its
    place after the edit made before it, when the server is back."""
    big = noise_png(600, 600)
    assert len(big) > 1_000_000  # over 1 MiB as a data: URL
    with own_server(tmp_path) as server:
        base = server["base"]
        doc = document_with_a_dog(base, "Background away")
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            context = chrome.contexts[0]
            page = opened_then_offline(context, server, doc)
            page.locator('#canvas .emoji[data-id="1"]').click()
            page.keyboard.press("Shift+ArrowRight")
            drop_files(page, "#canvas", [("noise.png", big, "image/png")])
            expect(page.locator("#notices")).to_contain_text("It was made smaller to be kept in the browser")
            wait_kept(page, 2)
            record = kept(page)[1]
            assert record["label"] == "Set Background" and len(record["message"]) <= 1_048_576

            server["start"]()
            status = page.locator("#save-status")
            status.click()
            expect(status).to_have_text("All changes saved", timeout=20_000)
            wait_kept(page, 0)
        state = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
        assert state["version"] == doc["version"] + 2
        assert state["background"]["kind"] == "image" and state["background"]["mimeType"] == "image/webp"
        assert state["emojis"][0]["x"] == 10
        found = state["backgroundState"]
        assert found["status"] == "found" and found["width"] <= 600 and found["width"] == found["height"]
        changes = requests.get(f"{base}/api/documents/{doc['id']}/history/changes?after=0", timeout=10).json()
        names = [change.get("actionName") for change in changes.get("changes", [])]
        assert names.count("Set Background") == 1, names


def test_the_app_is_installable(browser, server, tmp_path):
    with chromium(browser, tmp_path / "profile") as (chrome, _):  # a profile: Chromium installs nothing from incognito
        page = chrome.contexts[0].new_page()
        page.goto(server + "/")
        expect(page.locator("body")).to_have_attribute("data-listed", re.compile(r"\d+"))
        installable(page, server)


def installable(page, server) -> None:
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    parsed = json.loads(manifest["data"])
    assert parsed["display"] == "standalone" and parsed["start_url"] == "/"
    sizes = {icon["sizes"] for icon in parsed["icons"]}
    assert {"192x192", "512x512"} <= sizes
    deadline = time.monotonic() + 10
    while (errors := cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert errors == [], errors
    # Each icon the manifest names is a PNG of its stated size.
    from PIL import Image
    import io
    for icon in parsed["icons"]:
        if icon["type"] != "image/png":
            continue
        picture = Image.open(io.BytesIO(requests.get(server + icon["src"], timeout=10).content))
        assert f"{picture.width}x{picture.height}" == icon["sizes"]


def test_a_document_kept_offline_from_the_list_opens_with_its_background_and_no_server(browser, tmp_path):
    from PIL import Image
    import io

    with own_server(tmp_path) as server:
        base = server["base"]
        doc = requests.post(base + "/api/documents", json={"title": "Pinned"}, timeout=10).json()
        picture = io.BytesIO()
        Image.new("RGB", (64, 48), (200, 30, 60)).save(picture, "PNG")
        doc = requests.put(f"{base}/api/documents/{doc['id']}/background?baseVersion={doc['version']}", timeout=10,
                           data=picture.getvalue(), headers={"Content-Type": "image/png"}).json()
        deadline = time.monotonic() + 10
        while doc["backgroundState"]["status"] != "found":  # stored, then checked and found
            assert time.monotonic() < deadline, doc["backgroundState"]
            time.sleep(0.1)
            doc = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            page = chrome.contexts[0].new_page()
            page.goto(base + "/")
            wait_worker(page)
            keep = page.locator(f'tr[data-id="{doc["id"]}"] .offline-toggle')
            expect(keep).to_have_attribute("aria-pressed", "false")
            keep.click()  # never opened here: fetched now, with its background
            expect(keep).to_have_attribute("aria-pressed", "true")
            expect(page.locator(f'tr[data-id="{doc["id"]}"] .offline-badge')).to_be_visible()
            assert [c["pinned"] for c in page.evaluate(COPIES)] == [True]
            server["stop"]()

            page.goto(f"{base}/documents/{doc['id']}")
            expect(page.locator("body")).to_have_attribute("data-source", "copy")
            expect(page.locator("#doc-title")).to_have_value("Pinned")
            image = page.locator("#canvas img.background")
            expect(image).to_have_attribute("src", doc["backgroundState"]["imageURL"])
            page.wait_for_function("document.querySelector('#canvas img.background').naturalWidth === 64")


def test_a_new_document_made_offline_is_made_on_the_server_with_its_edits(browser, tmp_path):
    with own_server(tmp_path) as server:
        base = server["base"]
        with chromium(browser, tmp_path / "profile") as (chrome, _):
            page = chrome.contexts[0].new_page()
            page.set_default_timeout(15_000)
            page.goto(base + "/")
            wait_worker(page)
            expect(page.locator("body")).to_have_attribute("data-listed", "0")
            server["stop"]()

            page.click("#new-document")  # no server: made in the browser, under an id made here
            expect(page).to_have_url(re.compile(r"/documents/[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$"))
            doc_id = page.url.rsplit("/", 1)[-1]
            expect(page.locator("body")).to_have_attribute("data-source", "copy")
            status = page.locator("#save-status")
            expect(status).to_have_text("Offline — changes will be sent")
            title = page.locator("#doc-title")
            title.fill("Made offline")
            title.press("Enter")
            expect(title).to_have_value("Made offline")  # drawn pending, not the title the server last sent
            page.wait_for_timeout(200)
            expect(title).to_have_value("Made offline")
            drop_text(page, "🦊")
            # The fox has no id from the server yet; it is moved all the same.
            fox = page.locator("#canvas .emoji.pending")
            fox.click()
            page.keyboard.press("Shift+ArrowRight")
            expect(status).to_contain_text("3 changes waiting")
            wait_kept(page, 3)
            assert [c["unsaved"] for c in page.evaluate(COPIES)] == [True]
            page.close()  # the tab closes: the next one sends it all

            server["start"]()
            # The list heads with it, the server up or failing: this browser is the only place it is.
            page = chrome.contexts[0].new_page()
            failing = lambda route: route.fulfill(status=503, body="down")  # noqa: E731
            chrome.contexts[0].route("**/api/documents?*", failing)
            page.goto(base + "/")
            expect(page.locator("#notices")).to_contain_text("The server isn’t answering")
            row = page.locator(f'tr[data-id="{doc_id}"]')
            expect(row).to_contain_text("Not on the server yet")
            chrome.contexts[0].unroute("**/api/documents?*", failing)
            page.reload()
            expect(page.locator("body")).to_have_attribute("data-listed", "0")  # the server has none
            expect(row).to_contain_text("Not on the server yet")
            expect(row.get_by_role("button", name="Delete")).to_be_hidden()  # nothing to delete there yet
            row.locator("a.doc-title").click()
            expect(page).to_have_url(f"{base}/documents/{doc_id}")
            expect(page.locator("body")).to_have_attribute("data-restored", "3")
            status = page.locator("#save-status")
            expect(status).to_have_text("All changes saved", timeout=20_000)
            state = requests.get(f"{base}/api/documents/{doc_id}", timeout=10).json()
            assert state["title"] == "Made offline" and state["version"] == 3
            assert [e["text"] for e in state["emojis"]] == ["🦊"]
            added = requests.get(f"{base}/api/documents/{doc_id}/history/changes?after=1", timeout=10).json()
            placed = added["changes"][0]["patch"]["inserted"][0]["emoji"]
            assert (state["emojis"][0]["id"], state["emojis"][0]["x"]) == (placed["id"], placed["x"] + 10)
            wait_kept(page, 0)
            assert [c["unsaved"] for c in page.evaluate(COPIES)] == [False]


def test_temporary_ids_wait_for_their_emojis_and_become_real(page, server):
    """The rules of ids for emojis added offline (js/editor/temporary-ids.js), run in the page."""
    page.goto(server + "/")
    result = page.evaluate("""async () => {
      const { TemporaryIds, namesTemporary } = await import("/js/editor/temporary-ids.js");
      const ids = new TemporaryIds();
      const [fox] = ids.allocate([{ type: "addEmoji", text: "🦊", position: { x: 0, y: 0 }, size: 40 }]);
      const pair = ids.allocate([{ type: "paste", emojis: [{ text: "🐶" }, { text: "🐱" }] }]);
      const moves = [{ type: "moveEmojis", ids: [3, fox], offset: { x: 1, y: 0 } }];
      const texts = [{ type: "setEmojiTexts", texts: [{ id: pair[1], text: "🐯" }] }];
      const ranges = [{ type: "deleteEmojis", idRanges: [[pair[1], pair[0]]] }];
      const before = ids.resolve(moves);
      ids.learn([fox], [41]);
      const after = ids.resolve(moves);
      const stillWaiting = ids.resolve(texts);
      ids.refuse(pair);
      return {
        fox, pair, distinct: new Set([fox, ...pair]).size === 3, named: namesTemporary(moves), plain: namesTemporary([{ type: "retitle", title: "x" }]),
        before, after, stillWaiting, never: ids.resolve(texts), rangesNever: ids.resolve(ranges),
        other: new TemporaryIds().allocate([{ type: "addEmoji" }])[0] !== fox,
      };
    }""")
    assert result["fox"] < 0 and all(i < 0 for i in result["pair"]) and result["distinct"] and result["other"]
    assert result["named"] and not result["plain"]
    assert result["before"] == {"ready": False}
    assert result["after"] == {"ready": True, "edits": [{"type": "moveEmojis", "ids": [3, 41], "offset": {"x": 1, "y": 0}}]}
    assert result["stillWaiting"] == {"ready": False}
    assert result["never"] == {"ready": False, "never": True} and result["rangesNever"] == result["never"]
