"""The editor through a server restart: edits made just before SIGTERM or SIGKILL are resent by
the window when it reconnects, and each is applied exactly once — the server recognises from
its log the ones it had committed."""

import pytest
import requests
from playwright.sync_api import expect

from browser_server import free_port, start_serve, window


@pytest.mark.parametrize("signal", ["terminate", "kill"])
def test_edits_made_as_the_server_stops_are_applied_exactly_once(browser, tmp_path, signal):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp_path / "server.log", "ab")

    def start():
        return start_serve(port, log, "--data", str(tmp_path))

    server = start()
    try:
        doc = requests.post(base + "/api/documents", json={"title": "Restart"}, timeout=10).json()
        context, page = window(browser, base, doc["id"])
        palette = page.locator(".palette-emoji").first
        expect(palette).to_be_visible()
        clicks = 12
        palette.click()
        expect(page.locator("#canvas .emoji")).to_have_count(1)
        # The rest in one go, and the server stopped at once: some of them are still being
        # sent, committed or answered.
        palette.evaluate(f"element => {{ for (let i = 1; i < {clicks}; i++) element.click() }}")
        getattr(server, signal)()
        server.wait(timeout=30)
        server = start()
        status = page.locator("#save-status")
        status.click()  # retry now rather than after the backoff
        expect(status).to_have_attribute("data-state", "saved", timeout=20_000)
        state = requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()
        assert len(state["emojis"]) == clicks, f"{len(state['emojis'])} emojis for {clicks} adds"
        expect(page.locator("body")).to_have_attribute("data-version", str(state["version"]))
        expect(page.locator("#canvas .emoji")).to_have_count(clicks)
        context.close()
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=15)
        log.close()
