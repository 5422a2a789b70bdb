"""Accounts mode in Chromium: signing in, documents of one's own and shared ones, a read-only
editor for viewers, the Share dialog's links, and a revoked link ending a live window at once —
also across two servers on one PostgreSQL database, which share sessions."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from browser_server import DEFAULT_BIN, POSTGRES, fresh_database, running_server

PASSWORD = "correct horse battery"
ACCOUNTS = {"EMOJIART_ACCESS": "accounts"}


def emojiart(*args: str, password: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    return subprocess.run([binary, *args], input=password, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def add_user(name: str, *store: str, admin: bool = False, env: dict | None = None) -> None:
    result = emojiart("users", "add", name, *(["--admin"] if admin else []), *store, password=PASSWORD + "\n", env=env)
    assert result.returncode == 0, result.stderr


def sign_in(page, base: str, name: str) -> None:
    page.goto(base + "/")
    expect(page).to_have_url(base + "/signin")
    page.fill("#signin-name", name)
    page.fill("#signin-password", PASSWORD)
    page.click("#signin-submit")
    expect(page.locator("#account-name")).to_have_text(name)


def session(base: str, name: str) -> requests.Session:
    http = requests.Session()
    reply = http.post(base + "/api/session", json={"name": name, "password": PASSWORD}, timeout=10)
    assert reply.status_code == 200, reply.text
    return http


def add_emoji(http: requests.Session, base: str, doc_id: str, text: str, x: int = 0) -> dict:
    state = http.get(f"{base}/api/documents/{doc_id}", timeout=10).json()
    reply = http.post(f"{base}/api/documents/{doc_id}/edits", timeout=10, json={
        "baseVersion": state["version"],
        "edits": [{"type": "addEmoji", "text": text, "position": {"x": x, "y": 0}, "size": 40}]})
    assert reply.status_code == 200, reply.text
    return reply.json()


def new_document_as(browser, base: str, name: str):
    """A window of `name`'s, signed in, on a new document of theirs: (context, page, id)."""
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    sign_in(page, base, name)
    page.click("#new-document")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return context, page, page.url.rsplit("/", 1)[-1]


def drop_text(page, text: str) -> None:
    """Drops `text` on the canvas, as dragging it from another application does."""
    page.evaluate("""(text) => {
      const data = new DataTransfer();
      data.setData("text/plain", text);
      document.querySelector("#canvas").dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, clientX: 400, clientY: 300}));
    }""", text)


@pytest.fixture
def accounts_server():
    folder = tempfile.mkdtemp(prefix="emojiart-accounts-")
    add_user("ada", "--data", folder, admin=True)
    add_user("bob", "--data", folder)
    with running_server(data=folder, env=ACCOUNTS) as base:
        yield base


def test_signing_in_sharing_by_name_and_a_read_only_editor(browser, accounts_server):
    base = accounts_server
    ada_context, ada, doc_id = new_document_as(browser, base, "ada")
    expect(ada.locator("#share")).to_be_visible()
    expect(ada.locator("#view-only")).to_be_hidden()

    # Ada shares it with Bob as a viewer, in the Share dialog.
    ada.click("#share")
    ada.fill("#share-name", "bob")
    ada.select_option("#share-role", "viewer")
    ada.click("#share-add")
    expect(ada.locator("#share-people li[data-member=bob]")).to_be_visible()
    ada.fill("#share-name", "nobody")
    ada.click("#share-add")
    expect(ada.locator("#share-error")).to_contain_text("no one by that name")
    ada.click("#share-dialog button[value=done]")

    bob_context = browser.new_context(viewport={"width": 1100, "height": 760})
    bob = bob_context.new_page()
    sign_in(bob, base, "bob")
    expect(bob.locator("#shared-rows tr")).to_have_count(1)
    expect(bob.locator("#document-rows tr")).to_have_count(0)
    expect(bob.locator("#shared-rows .role-badge")).to_have_text("View only")
    expect(bob.locator("#shared-rows button.danger")).to_have_count(0)
    bob.locator("#shared-rows a.doc-title").click()
    expect(bob.locator("body")).to_have_attribute("data-role", "viewer")
    expect(bob.locator("#view-only")).to_be_visible()
    expect(bob.locator("#palette-bar")).to_be_hidden()
    expect(bob.locator("#share")).to_be_hidden()
    expect(bob.locator("#doc-title")).to_be_disabled()

    # Ada's edits reach Bob live; Bob's keys and drops change nothing.
    add_emoji(session(base, "ada"), base, doc_id, "🦊")
    expect(bob.locator(".emoji")).to_have_count(1)
    bob.locator(".emoji").first.click()
    bob.keyboard.press("Delete")
    bob.keyboard.press("Control+z")
    drop_text(bob, "🐸")
    bob.wait_for_timeout(500)
    state = session(base, "ada").get(f"{base}/api/documents/{doc_id}", timeout=10).json()
    assert [e["text"] for e in state["emojis"]] == ["🦊"]
    assert state["version"] == 1

    # After signing in, the page goes back where it was going — on this site only.
    visitor = browser.new_context().new_page()
    # Issue #33: `/.//other.example/x` went to //other.example/x.
    visitor.goto(base + "/signin?next=/.//other.example/x")
    visitor.fill("#signin-name", "bob")
    visitor.fill("#signin-password", PASSWORD)
    visitor.click("#signin-submit")
    expect(visitor).to_have_url(base + "/")
    visitor.context.close()

    # Signing out ends the session: the next page goes to sign-in.
    bob.goto(base + "/")
    bob.click("#sign-out")
    expect(bob).to_have_url(base + "/signin")
    bob.goto(base + "/documents/" + doc_id)
    expect(bob).to_have_url(f"{base}/signin?next=/documents/{doc_id}")
    ada_context.close()
    bob_context.close()


def test_a_share_link_followed_from_another_site_asks_before_it_opens(browser, accounts_server, other_site):
    """Issue #33: another site's page navigated a window through its own /s/ links and pushed the
    visitor's real links out. Now nothing is granted until the visitor clicks on our page."""
    base = accounts_server
    ada = session(base, "ada")
    doc = ada.post(base + "/api/documents", json={"title": "Shared from afar"}, timeout=10).json()["id"]
    link = ada.post(f"{base}/api/documents/{doc}/links", json={"role": "view"}, timeout=10).json()["url"]
    context = browser.new_context()
    page = context.new_page()
    page.goto(other_site)
    page.evaluate("(url) => { location.href = url; }", link)
    expect(page.locator("#link-open")).to_be_visible()
    expect(page).to_have_url(link)
    assert context.cookies() == [], "nothing granted, no cookie set"
    page.click("#link-open")
    expect(page).to_have_url(f"{base}/documents/{doc}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    assert [c["name"] for c in context.cookies()] == ["emojiart_browser"]
    # Opened again from the address bar, it goes straight on.
    page.goto(link)
    expect(page).to_have_url(f"{base}/documents/{doc}")
    context.close()


RETURN_PATHS = Path(__file__).resolve().parents[1] / "Fixtures" / "security" / "return-paths.json"


def test_the_sign_in_pages_next_follows_the_same_table_as_the_server(browser, accounts_server):
    """Issue #33: the page checks `next` again with the server's rules (ReturnPathTests.swift)."""
    cases = json.loads(RETURN_PATHS.read_text())["cases"]
    page = browser.new_context().new_page()
    page.goto(accounts_server + "/signin")
    got = page.evaluate("""async (cases) => {
      const { returnPath } = await import("/js/signin.js");
      return cases.map((c) => returnPath(c.next.replaceAll("127.0.0.1:8080", location.host)));
    }""", cases)
    assert got == [case["path"] for case in cases]
    page.context.close()


def test_without_an_account_the_live_palettes_and_the_game_close_with_4401(browser, accounts_server):
    context = browser.new_context()
    page = context.new_page()
    page.goto(accounts_server + "/signin")
    codes = page.evaluate("""async () => {
      const code = (path) => new Promise((resolve) => {
        const socket = new WebSocket(location.origin.replace("http", "ws") + path);
        socket.onmessage = () => resolve("message");
        socket.onclose = (event) => resolve(event.code);
      });
      return [await code("/api/palettes/live"), await code("/api/game/live"), await code("/api/documents/" + crypto.randomUUID() + "/live")];
    }""")
    assert codes == [4401, 4401, 4401]
    context.close()


def test_a_view_link_opens_read_only_and_revoking_it_ends_the_window_at_once(browser, accounts_server):
    base = accounts_server
    ada_context, ada, doc_id = new_document_as(browser, base, "ada")
    ada.click("#share")
    ada.click("#share-new-view")
    link = ada.locator("#share-links li[data-role=view] input")
    expect(link).to_have_count(1)
    url = link.input_value()
    assert url.startswith(base + "/s/")

    visitor_context = browser.new_context(viewport={"width": 1000, "height": 700})
    visitor = visitor_context.new_page()
    visitor.goto(url)
    expect(visitor).to_have_url(f"{base}/documents/{doc_id}")
    expect(visitor.locator("body")).to_have_attribute("data-ready", "true")
    expect(visitor.locator("#view-only")).to_be_visible()
    expect(visitor.locator("#palette-bar")).to_be_hidden()
    add_emoji(session(base, "ada"), base, doc_id, "🐙")
    expect(visitor.locator(".emoji")).to_have_count(1)

    # Revoked in the dialog: the visitor's live window is told within a second or two.
    started = time.monotonic()
    ada.locator("#share-links li[data-role=view] button.danger").click()
    expect(ada.locator("#share-links li[data-role=view]")).to_have_count(0)
    expect(visitor.locator("#save-status")).to_have_attribute("data-state", "error", timeout=5000)
    expect(visitor.locator("#notices")).to_contain_text("revoked")
    print(f"revocation reached the window after {(time.monotonic() - started) * 1000:.0f} ms")
    assert visitor.evaluate("fetch(location.pathname.replace('/documents/', '/api/documents/')).then(r => r.status)") == 401
    ada_context.close()
    visitor_context.close()


@pytest.mark.skipif(not POSTGRES, reason="needs $EMOJIART_TEST_POSTGRES (scripts/test starts one)")
def test_two_servers_on_one_database_share_sessions_and_see_a_revocation_at_once(browser):
    database = fresh_database()
    env = {**ACCOUNTS, "EMOJIART_DATABASE_URL": database}
    add_user("ada", "--database", database, admin=True)
    with running_server(env=env) as a, running_server(env=env) as b:
        http = session(a, "ada")
        cookie = http.cookies.get("emojiart_session")
        # The session made on A works on B.
        on_b = requests.get(b + "/api/session", cookies={"emojiart_session": cookie}, timeout=10)
        assert on_b.status_code == 200 and on_b.json()["user"]["name"] == "ada"
        doc = http.post(a + "/api/documents", json={"title": "Shared"}, timeout=10).json()
        link = http.post(f"{a}/api/documents/{doc['id']}/links", json={"role": "edit"}, timeout=10).json()
        token = link["url"].rsplit("/", 1)[-1]

        # A visitor opens the edit link on server B and edits live there.
        context = browser.new_context(viewport={"width": 1000, "height": 700})
        page = context.new_page()
        page.goto(f"{b}/s/{token}")
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("body")).to_have_attribute("data-role", "editor")
        drop_text(page, "🐸")
        expect(page.locator(".emoji")).to_have_count(1)

        # Revoked through server A: the window on server B ends within seconds.
        started = time.monotonic()
        assert http.delete(f"{a}/api/documents/{doc['id']}/links/{link['id']}", timeout=10).status_code == 204
        expect(page.locator("#save-status")).to_have_attribute("data-state", "error", timeout=5000)
        print(f"revocation on A reached the window on B after {(time.monotonic() - started) * 1000:.0f} ms")
        status = requests.get(f"{b}/api/documents/{doc['id']}", cookies={"emojiart_links": token}, timeout=10)
        assert status.status_code == 401
        # Signing out on B ends the session on A too.
        assert requests.delete(b + "/api/session", cookies={"emojiart_session": cookie}, timeout=10).status_code == 204
        assert http.get(a + "/api/documents", timeout=10).status_code == 401
        context.close()
