#!/usr/bin/env python3
"""Measures moving, resizing and rotating a big selection in the editor: frame times while 2,000
selected emojis follow the pointer (issue #18: median frame ≤ 20 ms).

Starts the server ($EMOJIART_BIN, default .build/debug/emojiart) with a fresh data folder — or
uses a running one with --url — creates a document with --count emojis, opens the editor in
headless chromium at 1280×800, zooms to fit, selects everything (Ctrl+A) and then, for about
--seconds each, drags the selection in a circle, drags the resize handle in and out and drags
the rotation handle round, recording requestAnimationFrame deltas. Prints p50/p95/max frame time
per phase; each phase ends with its one edit, which is waited for.

    python3 Tests/Browser/measure_drag.py [--url http://127.0.0.1:8080] [--count 2000] [--seconds 3]
"""

from __future__ import annotations

import argparse
import math
import os
import time

from playwright.sync_api import sync_playwright

from measure_pan import FIRST_FRAME, RECORDER, make_document, report, serving


def gesture(page, start: tuple[float, float], path, seconds: float) -> list[float]:
    """Presses at `start`, moves along `path(t)` for `seconds`, releases; returns frame times."""
    page.mouse.move(*start)
    page.mouse.down()
    page.evaluate(RECORDER)
    began = time.monotonic()
    while (t := time.monotonic() - began) < seconds:
        page.mouse.move(*path(t))
    page.mouse.up()
    frames = page.evaluate("() => { window.__recording = false; return window.__frames; }")
    return frames[1:]


def centre(box: dict) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def wait_for_version(page, version: int) -> None:
    page.wait_for_selector(f'body[data-version="{version}"]', state="attached", timeout=120_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server's base URL (default: start one)")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--chromium", default=os.environ.get("EMOJIART_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()

    with serving(args.url) as base:
        doc = make_document(base, args.count)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/documents/{doc['id']}")
            page.wait_for_selector('body[data-ready="true"]', timeout=120_000)
            page.wait_for_function(FIRST_FRAME, arg=args.count, timeout=120_000)
            page.locator("#zoom-fit").click()
            page.locator("#canvas").focus()
            page.keyboard.press("Control+a")
            page.wait_for_selector("#canvas .selection-box:not([hidden])")
            page.wait_for_timeout(300)  # the options round the view, once it is still
            version = doc["version"]

            # Move: press on a selected emoji and drag the whole selection in a circle.
            options = page.locator("#canvas .emoji.selected")
            sx, sy = centre(options.nth(options.count() // 2).bounding_box())
            frames = gesture(page, (sx, sy), lambda t: (sx + 120 * math.sin(t * 2.1), sy + 120 * (1 - math.cos(t * 2.1))), args.seconds)
            report(f"move {args.count} selected emojis", frames)
            version += 1
            wait_for_version(page, version)

            # Resize: the corner handle in and out.
            hx, hy = centre(page.locator(".resize-handle").bounding_box())
            bx, by = centre(page.locator(".selection-box").bounding_box())
            frames = gesture(page, (hx, hy), lambda t: (bx + (hx - bx) * (1 + 0.25 * math.sin(t * 2.1)),
                                                         by + (hy - by) * (1 + 0.25 * math.sin(t * 2.1))), args.seconds)
            report(f"resize {args.count} selected emojis", frames)
            version += 1
            wait_for_version(page, version)

            # Rotate: the rotation handle round the selection's middle, less than a turn.
            rx, ry = centre(page.locator(".rotate-handle").bounding_box())
            bx, by = centre(page.locator(".selection-box").bounding_box())
            radius = math.hypot(rx - bx, ry - by)
            begin = math.atan2(ry - by, rx - bx)
            frames = gesture(page, (rx, ry), lambda t: (bx + radius * math.cos(begin + 0.6 * math.sin(t * 2.1)),
                                                         by + radius * math.sin(begin + 0.6 * math.sin(t * 2.1))), args.seconds)
            report(f"rotate {args.count} selected emojis", frames)
            browser.close()


if __name__ == "__main__":
    main()
