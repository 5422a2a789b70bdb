#!/usr/bin/env python3
"""Measures the editor at two document sizes in one run (issue #21, item 1): opening to the first
full frame, and the frame times while panning, zooming and dragging one emoji.

Starts the server ($EMOJIART_BIN, default .build/release/emojiart) with a fresh data folder — or
uses a running one with --url — creates one document per --counts size through the API (random
emojis over 3,000 × 2,000 points, the last one a 60-point emoji at the middle), and for each opens
the editor in headless chromium at 1280×800 and, for about --seconds each, pans (a middle-button
drag in a circle), zooms (Ctrl+wheel in and out around the middle) and drags the middle emoji in a
circle, recording requestAnimationFrame deltas. Prints each phase's median and p95 frame time,
then the ratio of the biggest size's medians to the smallest's (the target: ≤ 1.5×).

    python3 Tests/Browser/measure_editor.py [--counts 1000,50000] [--seconds 3] [--url http://127.0.0.1:8080]

`scripts/benchmark editor` builds the release binary and runs this.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time

from playwright.sync_api import sync_playwright

from measure_pan import EMOJIS, RECORDER, call, graphemes, percentile, serving


def make_document(base: str, count: int) -> dict:
    """`count` emojis: random ones, then one of size 60 at (0, 0), drawn on top of the rest."""
    rng = random.Random(count)
    palette = graphemes(EMOJIS)
    doc = call(base, "POST", "/api/documents", {"title": f"{count} emojis"})
    specs = [
        {"text": rng.choice(palette), "position": {"x": rng.randint(-1500, 1500), "y": rng.randint(-1000, 1000)}, "size": rng.randint(20, 80)}
        for _ in range(count - 1)
    ] + [{"text": "🍎", "position": {"x": 0, "y": 0}, "size": 60}]
    for start in range(0, count, 400):  # each request under the 64 KiB body limit
        edits = [{"type": "addEmoji", **spec} for spec in specs[start : start + 400]]
        doc = call(base, "POST", f"/api/documents/{doc['id']}/edits", {"baseVersion": doc["version"], "edits": edits})
    assert len(doc["emojis"]) == count, len(doc["emojis"])
    return doc


def record(page, move, seconds: float) -> list[float]:
    """Calls `move(t)` as fast as it goes for `seconds`, recording the frames; returns their times."""
    page.evaluate(RECORDER)
    began = time.monotonic()
    while (t := time.monotonic() - began) < seconds:
        move(t)
    return page.evaluate("() => { window.__recording = false; return window.__frames; }")[1:]


def measure(page, base: str, doc: dict, seconds: float) -> dict:
    count = len(doc["emojis"])
    began = time.monotonic()
    page.goto(f"{base}/documents/{doc['id']}")
    page.wait_for_selector('body[data-ready="true"]', timeout=120_000)
    # The first full frame: the scene drawn (or, in the editor before the canvas, every emoji's element).
    page.wait_for_function(
        f"""() => document.querySelector('#canvas canvas.scene[data-draws]') ||
                  document.querySelectorAll('#canvas .emoji').length === {count}""",
        timeout=120_000,
    )
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    figures = {"open": time.monotonic() - began}
    page.wait_for_timeout(300)
    box = page.locator("#canvas").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    # Pan: a middle-button drag in a slow circle of radius 150 px.
    page.mouse.move(cx, cy)
    page.mouse.down(button="middle")
    figures["pan"] = record(page, lambda t: page.mouse.move(cx + 150 * math.sin(t * 2.1), cy + 150 * (1 - math.cos(t * 2.1))), seconds)
    page.mouse.up(button="middle")
    page.wait_for_timeout(300)

    # Zoom: Ctrl+wheel around the middle, six notches in, six out (between 100% and about 30%).
    page.keyboard.down("Control")
    steps = {"n": 0}

    def wheel(_t: float) -> None:
        page.mouse.wheel(0, 20 if steps["n"] % 12 < 6 else -20)
        steps["n"] += 1
        page.wait_for_timeout(8)

    page.mouse.move(cx, cy)
    figures["zoom"] = record(page, wheel, seconds)
    page.keyboard.up("Control")
    page.wait_for_timeout(500)

    # Drag one emoji: the one at the middle of the document, back to 100% and centred first.
    page.locator("#canvas").focus()
    page.keyboard.press("0")  # zoom to 100%
    page.wait_for_timeout(300)
    zoom = float(page.locator("#canvas").get_attribute("data-zoom"))
    pan_x = float(page.locator("#canvas").get_attribute("data-pan-x"))
    pan_y = float(page.locator("#canvas").get_attribute("data-pan-y"))
    ex, ey = cx + pan_x, cy + pan_y  # document (0, 0) on the screen
    assert zoom > 0
    version = int(page.locator("body").get_attribute("data-version"))
    page.mouse.move(ex, ey)
    page.mouse.down()
    page.mouse.move(ex + 5, ey, steps=2)
    figures["drag"] = record(page, lambda t: page.mouse.move(ex + 120 * math.sin(t * 2.1), ey + 120 * (1 - math.cos(t * 2.1))), seconds)
    page.mouse.move(ex + 40, ey + 40, steps=2)  # the circle may have come back to where it began: no move
    page.mouse.up()
    page.wait_for_selector(f'body[data-version="{version + 1}"]', state="attached", timeout=60_000)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server's base URL (default: start one)")
    parser.add_argument("--counts", default="1000,50000", help="document sizes, comma-separated")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--chromium", default=os.environ.get("EMOJIART_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()
    os.environ.setdefault("EMOJIART_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "release", "emojiart"))
    counts = [int(c) for c in args.counts.split(",")]

    with serving(args.url) as base:
        docs = [make_document(base, count) for count in counts]
        results = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            for doc in docs:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                results[len(doc["emojis"])] = measure(page, base, doc, args.seconds)
                page.close()
            browser.close()
        print(f"{'emojis':>8}  {'open':>7}  {'pan p50/p95':>14}  {'zoom p50/p95':>14}  {'drag one p50/p95':>17}")
        for count, f in results.items():
            cells = [f"{percentile(f[k], 50):5.1f}/{percentile(f[k], 95):5.1f} ms" for k in ("pan", "zoom", "drag")]
            print(f"{count:>8}  {f['open']:6.2f}s  {cells[0]:>14}  {cells[1]:>14}  {cells[2]:>17}")
        if len(results) > 1:
            small, big = results[min(results)], results[max(results)]
            ratios = ", ".join(f"{k} {percentile(big[k], 50) / percentile(small[k], 50):.2f}×" for k in ("pan", "zoom", "drag"))
            print(f"median frame at {max(results):,} ÷ at {min(results):,}: {ratios}")


if __name__ == "__main__":
    sys.exit(main())
