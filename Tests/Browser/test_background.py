"""Background images the server fetches (docs/API.md "Document state", PRODUCT.md §1.4).

A stub image server on 127.0.0.1 plays the third-party site; the emojiart server may fetch from
it because conftest starts it with EMOJIART_FETCH_ALLOW=127.0.0.1/32. The page must draw only the
server's stored copy (/api/images/<sha256>) and never ask the stub itself.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from helpers import drop_data, drop_files, open_editor, view

IMAGES = Path(__file__).resolve().parents[1] / "Fixtures" / "images"
CAT = (IMAGES / "red-7x5.png").read_bytes()
OTHER = (IMAGES / "red-7x5.gif").read_bytes()  # different bytes, so a different stored image
SLOW = 1.5  # seconds the slow images take
STORED = re.compile(r"^/api/images/[0-9a-f]{64}$")
SHOTS = os.environ.get("EMOJIART_SHOTS")  # a folder: save screenshots of the indicator and the alert


def stored(data: bytes) -> str:
    return "/api/images/" + hashlib.sha256(data).hexdigest()


class StubHandler(BaseHTTPRequestHandler):
    hits: list[str] = []
    # /held.gif answers only when a test sets this (or after 30 s), so a test that needs the fetch
    # still under way does not race a fixed delay on a loaded machine.
    release = threading.Event()

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = urlsplit(self.path).path
        StubHandler.hits.append(self.path)
        if path == "/cat.png":
            self.reply(200, CAT, "image/png")
        elif path == "/slow.png":
            time.sleep(SLOW)
            self.reply(200, CAT, "image/png")
        elif path == "/slow.gif":
            time.sleep(SLOW)
            self.reply(200, OTHER, "image/gif")
        elif path == "/held.gif":
            StubHandler.release.wait(30)
            self.reply(200, OTHER, "image/gif")
        elif path == "/slow-missing.png":
            time.sleep(SLOW)
            self.reply(404, b"not here", "text/plain")
        elif path == "/page.html":
            self.reply(200, b"<!doctype html><title>Not an image</title><p>Hello</p>", "text/html; charset=utf-8")
        else:  # /missing.png and anything else
            self.reply(404, b"not found", "text/plain")

    def reply(self, status: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server gave up on this fetch (superseded): fine

    def log_message(self, *args):
        pass


class Stub:
    def __init__(self, port: int):
        self.port = port
        self.origin = f"http://127.0.0.1:{port}"

    def url(self, path: str) -> str:
        """A URL the server has never fetched (fetched URLs may be served from its image store)."""
        return f"{self.origin}{path}?n={uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="module")
def stub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Stub(server.server_address[1])
    server.shutdown()
    server.server_close()


@pytest.fixture
def page_requests(page):
    """Every URL the browser requested for this test's pages."""
    urls: list[str] = []
    page.context.on("request", lambda request: urls.append(request.url))
    return urls


def assert_never_asked_the_stub(urls: list[str], stub: Stub) -> None:
    asked = [u for u in urls if f":{stub.port}" in (urlsplit(u).netloc or "")]
    assert not asked, f"the page requested the third-party image itself: {asked}"


def background(page):
    return page.locator("#canvas img.background")


def progress(page):
    return page.get_by_role("status").filter(has_text="Loading background")


def alert(page):
    return page.get_by_role("alertdialog", name="Set Background")


def drop_url(page, url: str) -> None:
    drop_data(page, "#canvas", {"text/uri-list": url})


def shoot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name))


def wait_drawn(page) -> None:
    page.wait_for_function(
        "() => { const i = document.querySelector('#canvas img.background');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )


def test_a_slow_url_shows_progress_then_the_servers_copy(page, api, stub, page_requests):
    doc = api.create("Slow")
    open_editor(page, doc)
    expect(progress(page)).to_be_hidden()
    url = stub.url("/slow.png")
    drop_url(page, url)

    expect(progress(page)).to_be_visible()
    expect(background(page)).to_have_count(0)  # nothing drawn while fetching
    shoot(page, "background-progress.png")

    expect(background(page)).to_have_attribute("src", stored(CAT))
    expect(progress(page)).to_be_hidden()
    wait_drawn(page)
    state = api.get(doc)
    assert state["background"] == {"kind": "url", "url": url}
    found = state["backgroundState"]
    assert (found["status"], found["imageURL"], found["width"], found["height"]) == ("found", stored(CAT), 7, 5)

    # The window saw the fetch, so it zoomed to fit the 7×5 image once: centred, filling the view.
    v = view(page)
    assert v["zoom"] > 20
    box = background(page).bounding_box()
    assert box["width"] == pytest.approx(7 * v["zoom"], abs=1)
    assert box["height"] == pytest.approx(5 * v["zoom"], abs=1)
    centre_x = v["box"]["x"] + v["box"]["width"] / 2 + v["panX"]
    centre_y = v["box"]["y"] + v["box"]["height"] / 2 + v["panY"]
    assert box["x"] + box["width"] / 2 == pytest.approx(centre_x, abs=1)
    assert box["y"] + box["height"] / 2 == pytest.approx(centre_y, abs=1)
    # …and only once: zooming out by hand sticks.
    page.get_by_role("button", name="Zoom out").click()
    time.sleep(0.8)
    assert view(page)["zoom"] < v["zoom"]

    assert any(urlsplit(path).path == "/slow.png" for path in StubHandler.hits), "the server never fetched"
    assert_never_asked_the_stub(page_requests, stub)
    expect(alert(page)).to_be_hidden()


def test_a_404_shows_the_set_background_alert_once(page, api, stub, page_requests):
    doc = api.create("Missing")
    open_editor(page, doc)
    drop_url(page, stub.url("/missing.png"))

    dialog = alert(page)
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("404")
    ok = dialog.get_by_role("button", name="OK")
    expect(ok).to_be_focused()
    shoot(page, "background-alert.png")
    assert api.get(doc)["backgroundState"]["status"] == "failed"
    expect(background(page)).to_have_count(0)
    expect(progress(page)).to_be_hidden()

    ok.click()
    expect(dialog).to_be_hidden()
    # Once per failure: a reload of the state (another GET) does not raise it again.
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    time.sleep(0.8)
    expect(dialog).to_be_hidden()

    # A new failure raises it again; Escape dismisses it too.
    drop_url(page, stub.url("/missing.png"))
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert_never_asked_the_stub(page_requests, stub)


def test_a_page_that_is_not_an_image_fails_with_a_readable_reason(page, api, stub, page_requests):
    doc = api.create("Not an image")
    open_editor(page, doc)
    url = stub.url("/page.html")
    drop_url(page, url)
    dialog = alert(page)
    expect(dialog).to_be_visible()
    reason = page.locator("#background-alert-reason").text_content()
    state = api.get(doc)["backgroundState"]
    assert state["status"] == "failed"
    assert reason == state["reason"]
    assert reason.startswith("Couldn"), reason
    assert "127.0.0.1" in reason, reason
    assert "image" in reason.lower(), reason
    dialog.get_by_role("button", name="OK").click()
    expect(dialog).to_be_hidden()
    expect(background(page)).to_have_count(0)
    assert_never_asked_the_stub(page_requests, stub)


def test_a_newer_background_supersedes_a_fetch_in_flight(page, api, stub, page_requests):
    doc = api.create("Supersede")
    open_editor(page, doc)

    # Late success: the slow image (a GIF, so a different stored image) must never replace cat.
    drop_url(page, stub.url("/slow.gif"))
    cat = stub.url("/cat.png")
    drop_url(page, cat)
    expect(background(page)).to_have_attribute("src", stored(CAT))
    time.sleep(SLOW + 1)
    expect(background(page)).to_have_attribute("src", stored(CAT))
    state = api.get(doc)
    assert state["background"]["url"] == cat
    assert state["backgroundState"]["status"] == "found" and state["backgroundState"]["imageURL"] == stored(CAT)

    # The same with the slow PNG.
    drop_url(page, stub.url("/slow.png"))
    cat = stub.url("/cat.png")
    drop_url(page, cat)
    time.sleep(SLOW + 1)
    expect(background(page)).to_have_attribute("src", stored(CAT))
    assert api.get(doc)["background"]["url"] == cat

    # Late failure: no alert.
    drop_url(page, stub.url("/slow-missing.png"))
    cat = stub.url("/cat.png")
    drop_url(page, cat)
    time.sleep(SLOW + 1)
    state = api.get(doc)
    assert state["background"]["url"] == cat
    assert state["backgroundState"]["status"] == "found"
    expect(alert(page)).to_be_hidden()
    expect(background(page)).to_have_attribute("src", stored(CAT))
    expect(progress(page)).to_be_hidden()
    assert_never_asked_the_stub(page_requests, stub)


def test_a_second_window_shows_the_image_too(page, api, stub, page_requests):
    doc = api.create("Two windows")
    open_editor(page, doc)
    StubHandler.release.clear()
    url = stub.url("/held.gif")
    drop_url(page, url)
    expect(progress(page)).to_be_visible()

    # A window opened while the server fetches shows the indicator, polls, then draws the image.
    second = page.context.new_page()
    second.goto(f"/documents/{doc['id']}")
    expect(second.locator("body")).to_have_attribute("data-ready", "true")
    expect(progress(second)).to_be_visible()
    StubHandler.release.set()
    expect(background(second)).to_have_attribute("src", stored(OTHER))
    expect(progress(second)).to_be_hidden()
    expect(background(page)).to_have_attribute("src", stored(OTHER))

    # A window opened afterwards draws it straight away; a reload too.
    third = page.context.new_page()
    third.goto(f"/documents/{doc['id']}")
    expect(background(third)).to_have_attribute("src", stored(OTHER))
    page.reload()
    expect(background(page)).to_have_attribute("src", stored(OTHER))
    wait_drawn(page)
    for p in (page, second, third):
        expect(alert(p)).to_be_hidden()
    assert_never_asked_the_stub(page_requests, stub)


def test_dropping_an_image_file_draws_the_servers_copy(page, api, page_requests, stub):
    doc = api.create("File")
    open_editor(page, doc)
    drop_files(page, "#canvas", [("cat.png", CAT, "image/png")])
    expect(background(page)).to_have_attribute("src", stored(CAT))
    wait_drawn(page)
    state = api.get(doc)
    assert state["background"]["kind"] == "image"
    assert state["backgroundState"]["status"] == "found" and state["backgroundState"]["imageURL"] == stored(CAT)
    assert not any(u.startswith("data:") for u in page_requests), "the page drew the data: URL"
    expect(alert(page)).to_be_hidden()
    expect(progress(page)).to_be_hidden()


def test_opening_a_document_with_a_failed_background_set_elsewhere_says_so_without_an_alert(page, api, stub):
    doc = api.create("Failed elsewhere", background=stub.url("/missing.png"))
    deadline = time.monotonic() + 10
    while api.get(doc)["backgroundState"]["status"] == "fetching" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert api.get(doc)["backgroundState"]["status"] == "failed"
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    time.sleep(0.5)
    expect(alert(page)).to_be_hidden()  # the modal alert is for the window that set it…
    expect(background(page)).to_have_count(0)
    note = page.locator("#background-failed")  # …but every window that opens it is told why it is blank
    expect(note).to_be_visible()
    expect(note).to_contain_text("404")
    note.get_by_role("button", name="Dismiss").click()
    expect(note).to_be_hidden()
    page.reload()
    expect(page.locator("#background-failed")).to_be_visible()  # a new look at the document tells again
