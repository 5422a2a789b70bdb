#!/usr/bin/env python3
"""Measures how soon the editor and the document list are ready (issue #38, item 6): from the
navigation's start to the first full frame of the document as the server sent it ("live") —
and to the first frame of the whole first screen, the palette bar filled too ("whole") — in
headless Chromium, on loopback and with 50 ms of added latency each way (CDP's network
emulation), with a cold cache (a new browser profile: no HTTP cache, no service worker) and
warm (the same profile again: the page and its scripts from the service worker), and again
(a second tab in that warm browser, still running) — and cold in a browser already running
("cold-tab": a new browser context, its cache, worker and storage empty, the browser's own start
already paid, as when someone follows a link to the editor for the first time).

Starts the server ($EMOJIART_BIN, default .build/debug/emojiart; `scripts/benchmark startup` sets
the release one) with a fresh data folder — or
uses a running one with --url — makes one empty document, and for each case opens it --runs
times, printing the median and the slowest.

    python3 Tests/Browser/measure_startup.py [--runs 7] [--emojis N] [--floor] [--url http://127.0.0.1:8080]

`--floor` adds each page as its markup and styles alone, served with its script tag removed
and marked ready at once: what Chromium takes to show the page before any of its work.

`--against URL` compares two servers — `--url` (A) and URL (B), say one serving the code before
a change and one after — opening both in turn, in random order, --runs times: each case's medians
and the median of the paired differences (B − A), with how often B was sooner. This machine's
speed drifts by ±15 % from one minute to the next; interleaved and paired, the drift falls on
both alike, and a difference smaller than the spread is seen as such. Its "warm-page" and
"warm-script" rows are when a warm open's page and its script had arrived (Resource Timing's
responseEnd): a change to how they are served (the service worker) shows there first.

`scripts/benchmark startup` builds the release binary and runs this.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import random
import re
import statistics
import tempfile
import threading
import urllib.error
import urllib.request

from playwright.sync_api import sync_playwright

from measure_pan import call, make_document, serving

# Records when the page is ready: the editor once the server's state is drawn (data-source is
# "server", a frame later), the list once it has listed (data-listed), both in ms since the
# navigation began — and says so on the console, which the measurement listens to rather than
# asking the page (asking would run Playwright's own script in the page while it loads).
READY = """
(() => {
  const done = (what) => requestAnimationFrame(() => console.debug(`emojiart-${what} ${performance.now()}`));
  const check = () => {
    const body = document.body;
    if (!body) return;
    const editor = body.classList.contains("editor-page");
    const ready = (editor && body.dataset.source === "server") || (!editor && body.dataset.listed !== undefined);
    if (ready && !window.__ready) {
      window.__ready = true;
      done("ready");
    }
    // The whole first screen: the editor's palette bar filled too (the list has none, and a
    // floor page no script).
    const filled = !editor || body.dataset.floor !== undefined || document.querySelector("#palette-emojis .palette-emoji");
    if (ready && !window.__whole && filled) {
      window.__whole = true;
      done("whole");
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, attributes: true, childList: true });
})();
"""


# How long a first open stays before its browser is closed, as a person would have it open: long
# enough for the page to keep its copy of the document (2 s after the snapshot, js/editor/
# offline-copy.js), which lets the next browser open it from the shell's cache.
LINGER_MS = 2500


def open_once(browser_type, profile: str, url: str, latency: int, chromium: str, again: bool = False) -> list[float]:
    """Opens `url` in a new browser on `profile`: how long it took to be ready — and with `again`,
    then how long in a second tab of that same running browser. A first open (not `again`) stays
    LINGER_MS before its browser closes."""
    context = browser_type.launch_persistent_context(
        profile, executable_path=chromium, args=["--no-sandbox"], headless=True, viewport={"width": 1280, "height": 800},
        bypass_csp=True)  # the measuring script is evaluated in the page
    try:
        context.add_init_script(READY)
        page = context.pages[0] if context.pages else context.new_page()
        times = [timed_open(context, page, url, latency)]
        if again:
            second = context.new_page()
            times.append(timed_open(context, second, url, latency))
        else:
            page.wait_for_timeout(LINGER_MS)
        return times
    finally:
        context.close()


def timed_open(context, page, url: str, latency: int) -> tuple:
    if latency:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": latency, "downloadThroughput": -1, "uploadThroughput": -1})
    said = {}
    page.on("console", lambda message: said.setdefault(message.text.split()[0], float(message.text.split()[-1]))
            if message.text.startswith("emojiart-") else None)
    with page.expect_console_message(lambda message: message.text.startswith("emojiart-whole"), timeout=30_000):
        page.goto(url, wait_until="commit")
    # When the page's response and its script had arrived (Resource Timing), for the -page and
    # -script rows of a comparison.
    arrived = page.evaluate("""() => [performance.getEntriesByType("navigation")[0],
      performance.getEntriesByType("resource").find((entry) => entry.name.includes("/bundles/"))].map((entry) => entry?.responseEnd ?? 0)""")
    # Let the service worker finish installing, so the next (warm) open has it (a page with no
    # script registers none).
    page.evaluate("() => navigator.serviceWorker?.getRegistration().then((r) => r && navigator.serviceWorker.ready)")
    page.wait_for_timeout(300)
    return said["emojiart-ready"], said["emojiart-whole"], *arrived


@contextlib.contextmanager
def floor_pages(base: str, pages: dict[str, str]):
    """A server beside `base` serving each page of `pages` as its markup and styles only — its
    script tag removed, marked ready at once — and everything else from `base`: what Chromium
    alone takes to show the page, the floor under what the page's own work can reach."""
    floors = {}
    for name, url in pages.items():
        with urllib.request.urlopen(url, timeout=30) as response:
            html = response.read().decode()
        html = re.sub(r'<script type="module" src="/bundles/[a-z]+\.js"></script>', "", html)
        floors["/floor/" + name] = re.sub(r"<body ", '<body data-source="server" data-listed="" ', html, count=1).replace(
            "<body ", '<body data-floor="" ', 1).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path in floors:
                status, headers, body = 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"}, floors[self.path]
            else:
                forwarded = {k: v for k, v in self.headers.items() if k.lower() in ("if-none-match", "accept")}
                try:
                    with urllib.request.urlopen(urllib.request.Request(base + self.path, headers=forwarded), timeout=30) as response:
                        status, headers, body = response.status, dict(response.headers), response.read()
                except urllib.error.HTTPError as error:
                    status, headers, body = error.code, dict(error.headers), error.read()
            self.send_response(status)
            for key in ("Content-Type", "Cache-Control", "ETag"):
                if key in headers:
                    self.send_header(key, headers[key])
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield {name: f"http://127.0.0.1:{server.server_port}/floor/{name}" for name in pages}
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--url", help="a running server (else one is started)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", choices=["editor", "list"], help="measure this page alone")
    parser.add_argument("--emojis", type=int, default=0,
                        help="the document opened holds this many emojis (default: none)")
    parser.add_argument("--floor", action="store_true",
                        help="also each page's markup and styles with no script: what Chromium alone takes")
    parser.add_argument("--against", help="a second running server (B) to compare with --url (A), interleaved")
    args = parser.parse_args()
    if args.against:
        if not args.url:
            parser.error("--against compares with a running server: give --url too")
        with sync_playwright() as p:
            compare(p, args.url.rstrip("/"), args.against.rstrip("/"), args)
        return
    with serving(args.url) as base, sync_playwright() as p:
        doc = opened_document(base, args.emojis)
        pages = {"editor": f"{base}/documents/{doc['id']}", "list": f"{base}/"}
        print(f"{'page':14} {'latency':>8} {'cache':8} {'median ms':>10} {'slowest ms':>11}"
              f" {'whole: med.':>12} {'whole: slow.':>13}")
        with floor_pages(base, pages) as floors:
            cases = [(name, url) for name, url in pages.items() if args.only in (None, name)]
            if args.floor:
                cases += [(name + " floor", url) for name, url in floors.items() if args.only in (None, name)]
            measure(p, cases, args)


def opened_document(base: str, emojis: int) -> dict:
    """The document each open shows: empty, or holding `emojis` emojis."""
    return make_document(base, emojis) if emojis else call(base, "POST", "/api/documents", {"title": "Start-up"})


def open_in_new_context(browser, url: str, latency: int) -> float:
    """Opens `url` in a new context of a browser already running — no HTTP cache, no service
    worker, no storage, but the browser's own start already paid (a first visit from a browser
    in use): how long it took to be ready."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
    try:
        context.add_init_script(READY)
        return timed_open(context, context.new_page(), url, latency)
    finally:
        context.close()


def measure(p, cases, args) -> None:
    """Prints, for each (name, url) of `cases`, its median and slowest times cold and warm, on
    loopback and with 50 ms of latency."""
    browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"], headless=True)
    for name, url in cases:
        for latency in (0, 50):
            cold, warm, again, tab = [], [], [], []
            for _ in range(args.runs):
                with tempfile.TemporaryDirectory(prefix="emojiart-startup-") as profile:
                    cold += open_once(p.chromium, profile, url, latency, args.chromium)
                    first, second = open_once(p.chromium, profile, url, latency, args.chromium, again=True)
                    warm.append(first)
                    again.append(second)
                tab.append(open_in_new_context(browser, url, latency))
            for label, times in (("cold", cold), ("warm", warm), ("again", again), ("cold-tab", tab)):
                ready, whole = [t[0] for t in times], [t[1] for t in times]
                print(f"{name:14} {latency:>6}ms {label:8} {statistics.median(ready):>10.0f} {max(ready):>11.0f}"
                      f" {statistics.median(whole):>12.0f} {max(whole):>13.0f}", flush=True)


def compare(p, a: str, b: str, args) -> None:
    """Prints, for each page, latency and case, the medians of servers `a` and `b` opened in turn
    (random order each round) and the median of their paired differences. The two may be the
    same server (an A/A run: what the spread alone gives)."""
    pages = []  # A's pages, then B's
    for base in (a, b):
        doc = opened_document(base, args.emojis)
        pages.append({"editor": f"{base}/documents/{doc['id']}", "list": f"{base}/"})
    browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"], headless=True)
    print(f"{'page':8} {'latency':>8} {'cache':8} {'A ms':>6} {'B ms':>6} {'B - A':>7}  B sooner")
    for name in [page for page in ("editor", "list") if args.only in (None, page)]:
        for latency in (0, 50):
            cases = ("cold", "warm", "warm-page", "warm-script", "again", "cold-tab")
            times = [{case: [] for case in cases} for _ in pages]
            for _ in range(args.runs):
                for side in random.sample([0, 1], 2):
                    url = pages[side][name]
                    with tempfile.TemporaryDirectory(prefix="emojiart-startup-") as profile:
                        times[side]["cold"] += [t[0] for t in open_once(p.chromium, profile, url, latency, args.chromium)]
                        warm, again = open_once(p.chromium, profile, url, latency, args.chromium, again=True)
                    times[side]["warm"].append(warm[0])
                    times[side]["warm-page"].append(warm[2])
                    times[side]["warm-script"].append(warm[3])
                    times[side]["again"].append(again[0])
                    times[side]["cold-tab"].append(open_in_new_context(browser, url, latency)[0])
            for case in cases:
                before, after = times[0][case], times[1][case]
                differences = [y - x for x, y in zip(before, after)]
                print(f"{name:8} {latency:>6}ms {case:8} {statistics.median(before):>6.0f} {statistics.median(after):>6.0f}"
                      f" {statistics.median(differences):>+7.0f}  {sum(d < 0 for d in differences)}/{len(differences)}", flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
