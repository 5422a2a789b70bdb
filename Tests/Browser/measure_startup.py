#!/usr/bin/env python3
"""Measures how soon the editor and the document list are ready (issue #38, item 6): from the
navigation's start to the first full frame of the document as the server sent it ("live"), in
headless Chromium, on loopback and with 50 ms of added latency each way (CDP's network
emulation), with a cold cache (a new browser profile: no HTTP cache, no service worker) and
warm (the same profile again: the page and its scripts from the service worker).

Starts the server ($EMOJIART_BIN, default .build/debug/emojiart; `scripts/benchmark startup` sets
the release one) with a fresh data folder — or
uses a running one with --url — makes one empty document, and for each case opens it --runs
times, printing the median and the slowest.

    python3 Tests/Browser/measure_startup.py [--runs 7] [--url http://127.0.0.1:8080]

`scripts/benchmark startup` builds the release binary and runs this.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile

from playwright.sync_api import sync_playwright

from measure_pan import call, serving

# Records when the page is ready: the editor once the server's state is drawn (data-source is
# "server", a frame later), the list once it has listed (data-listed), both in ms since the
# navigation began — and says so on the console, which the measurement listens to rather than
# asking the page (asking would run Playwright's own script in the page while it loads).
READY = """
(() => {
  const done = () => requestAnimationFrame(() => {
    window.__ready = performance.now();
    console.debug("emojiart-ready " + window.__ready);
  });
  const check = () => {
    const body = document.body;
    if (!body || window.__ready !== undefined || window.__waiting) return;
    const editor = body.classList.contains("editor-page");
    if ((editor && body.dataset.source === "server") || (!editor && body.dataset.listed !== undefined)) {
      window.__waiting = true;
      done();
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, attributes: true, childList: true });
})();
"""


def open_once(browser_type, profile: str, url: str, latency: int, chromium: str) -> float:
    context = browser_type.launch_persistent_context(
        profile, executable_path=chromium, args=["--no-sandbox"], headless=True, viewport={"width": 1280, "height": 800},
        bypass_csp=True)  # the measuring script is evaluated in the page
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.add_init_script(READY)
        if latency:
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.emulateNetworkConditions", {
                "offline": False, "latency": latency, "downloadThroughput": -1, "uploadThroughput": -1})
        with page.expect_console_message(lambda message: message.text.startswith("emojiart-ready"), timeout=30_000) as said:
            page.goto(url, wait_until="commit")
        ready = float(said.value.text.split()[1])
        # Let the service worker finish installing, so the next (warm) open has it.
        page.evaluate("navigator.serviceWorker?.ready.then(() => true)")
        page.wait_for_timeout(300)
        return ready
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    with serving(args.url) as base, sync_playwright() as p:
        doc = call(base, "POST", "/api/documents", {"title": "Start-up"})
        pages = {"editor": f"{base}/documents/{doc['id']}", "list": f"{base}/"}
        print(f"{'page':8} {'latency':>8} {'cache':6} {'median ms':>10} {'slowest ms':>11}")
        for name, url in pages.items():
            for latency in (0, 50):
                cold, warm = [], []
                for _ in range(args.runs):
                    with tempfile.TemporaryDirectory(prefix="emojiart-startup-") as profile:
                        cold.append(open_once(p.chromium, profile, url, latency, args.chromium))
                        warm.append(open_once(p.chromium, profile, url, latency, args.chromium))
                for label, times in (("cold", cold), ("warm", warm)):
                    print(f"{name:8} {latency:>6}ms {label:6} {statistics.median(times):>10.0f} {max(times):>11.0f}", flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
