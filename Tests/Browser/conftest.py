"""Browser tests: a real browser (Debian's chromium, driven by Playwright) against a real server.

The `server` fixture starts `$EMOJIART_BIN serve` on a free port with a fresh data folder and
yields its base URL. Each test makes its own documents through the API (`api` fixture). When a
test fails, a screenshot of its page goes to screenshots/<test name>.png.
"""

from __future__ import annotations

import http.server
import os
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from browser_server import Api, free_port, running_server

HERE = Path(__file__).resolve().parent
SCREENSHOTS = HERE / "screenshots"
CHROMIUM = os.environ.get("EMOJIART_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def server():
    with running_server() as base:
        yield base


@pytest.fixture
def api(server) -> Api:
    return Api(server)


@pytest.fixture
def other_site():
    """A page on another origin (http://localhost:PORT, while the editor is on 127.0.0.1)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<!doctype html><title>Another site</title><p>Nothing to see here.</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    port = free_port()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{port}/"
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "report_" + report.when, report)


@pytest.fixture
def page(request, browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 1200, "height": 800}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    yield page
    failed = any(
        getattr(request.node, "report_" + when, None) is not None and getattr(request.node, "report_" + when).failed
        for when in ("setup", "call")
    )
    if failed:
        SCREENSHOTS.mkdir(exist_ok=True)
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.node.name)
        try:
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        except Exception:  # the page may be gone; the failure itself is what matters
            pass
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
