#!/usr/bin/env python3
"""Measures panning a 5,000-emoji document in the editor: frame times while dragging the canvas.

Starts the server ($EMOJIART_BIN, default .build/debug/emojiart) on a free port with a fresh data
folder — or uses a running one with --url — creates a document with 5,000 emojis through the
API, opens the editor in headless chromium and pans with the mouse for about 3 s per phase while
recording requestAnimationFrame deltas. Prints p50/p95/max frame time in ms and frames per second.

    python3 Tests/Browser/measure_pan.py [--url http://127.0.0.1:8080] [--count 5000] [--seconds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

EMOJIS = "😀😃😄😁😆🥹😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘🐶🐱🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵🌲🌴🌿🍀🍁🍄🌷🌹🌻🌼🚗🚕🚙🚌🚎🏎🚓🚑🚒⚽🏀🏈⚾🎾🏐🎱🎸🎹🎺🎻🥁"


def graphemes(text: str) -> list[str]:
    out: list[str] = []
    for ch in text:
        if out and ch == "\ufe0f":
            out[-1] += ch
        else:
            out.append(ch)
    return out


def call(base: str, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"null")


def start_server() -> tuple[subprocess.Popen, str, str]:
    binary = os.environ.get("EMOJIART_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "emojiart"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tempfile.mkdtemp(prefix="emojiart-measure-")
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            call(base, "GET", "/api/health")
            return process, base, data
        except OSError:
            if process.poll() is not None:
                sys.exit(f"the server exited with status {process.returncode}")
            time.sleep(0.2)
    process.kill()
    sys.exit("the server did not answer /api/health")


@contextlib.contextmanager
def serving(url: str | None):
    """The base URL of the server at `url`, or of one started for the measurement (stopped, its
    data folder removed, when the block ends)."""
    if url:
        yield url.rstrip("/")
        return
    process, base, data = start_server()
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)


def make_document(base: str, count: int) -> dict:
    rng = random.Random(5000)
    palette = graphemes(EMOJIS)
    doc = call(base, "POST", "/api/documents", {"title": f"{count} emojis"})
    batch = 400  # keeps each request under the 64 KiB body limit
    for start in range(0, count, batch):
        edits = [
            {
                "type": "addEmoji",
                "text": rng.choice(palette),
                "position": {"x": rng.randint(-1500, 1500), "y": rng.randint(-1000, 1000)},
                "size": rng.randint(20, 80),
            }
            for _ in range(min(batch, count - start))
        ]
        doc = call(base, "POST", f"/api/documents/{doc['id']}/edits", {"baseVersion": doc["version"], "edits": edits})
    assert len(doc["emojis"]) == count, len(doc["emojis"])
    return doc


# The first full frame: the scene's canvas drawn (or, in the editor before it, every emoji's element).
FIRST_FRAME = """count => document.querySelector('#canvas canvas.scene[data-draws]') ||
                         document.querySelectorAll('#canvas .emoji').length === count"""

RECORDER = """() => {
    window.__frames = [];
    let last = performance.now();
    window.__recording = true;
    const tick = (now) => {
        window.__frames.push(now - last);
        last = now;
        if (window.__recording) requestAnimationFrame(tick);
    };
    requestAnimationFrame((now) => { last = now; requestAnimationFrame(tick); });
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[index]


def pan(page, seconds: float) -> list[float]:
    box = page.locator("#canvas").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    # Start the press on empty canvas: find a spot with no emoji under it.
    start = page.evaluate(
        """([cx, cy]) => {
            for (let r = 0; r < 400; r += 7) for (let a = 0; a < 6.283; a += 0.3) {
                const x = cx + r * Math.cos(a), y = cy + r * Math.sin(a);
                const hit = document.elementFromPoint(x, y);
                if (hit && hit.closest("#canvas") && !hit.closest(".emoji")) return [x, y];
            }
            return [cx, cy];
        }""",
        [cx, cy],
    )
    page.mouse.move(*start)
    page.mouse.down(button="middle")  # a middle-button drag pans (a left drag on empty canvas selects)
    page.evaluate(RECORDER)
    began = time.monotonic()
    t = 0.0
    while (t := time.monotonic() - began) < seconds:
        # A slow circle of radius 150 px around the start point: continuous panning.
        page.mouse.move(start[0] + 150 * math.sin(t * 2.1), start[1] + 150 * (1 - math.cos(t * 2.1)))
    page.mouse.up(button="middle")
    frames = page.evaluate("() => { window.__recording = false; return window.__frames; }")
    return frames[1:]  # the first delta straddles the recorder's start


def report(label: str, frames: list[float]) -> None:
    total = sum(frames)
    fps = len(frames) / (total / 1000) if total else 0
    print(
        f"{label}: {len(frames)} frames in {total / 1000:.2f} s — frame time p50 {percentile(frames, 50):.1f} ms, "
        f"p95 {percentile(frames, 95):.1f} ms, max {max(frames):.1f} ms (frame {frames.index(max(frames)) + 1}); {fps:.1f} FPS"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server's base URL (default: start one)")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--chromium", default=os.environ.get("EMOJIART_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()

    with serving(args.url) as base:
        began = time.monotonic()
        doc = make_document(base, args.count)
        print(f"created a document with {len(doc['emojis'])} emojis in {time.monotonic() - began:.2f} s")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            began = time.monotonic()
            page.goto(f"{base}/documents/{doc['id']}")
            page.wait_for_selector('body[data-ready="true"]', timeout=120_000)
            page.wait_for_function(FIRST_FRAME, arg=args.count, timeout=120_000)
            page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            print(f"opened the editor to its first full frame of {args.count} emojis in {time.monotonic() - began:.2f} s")
            report("pan at zoom 100%", pan(page, args.seconds))
            page.locator("#zoom-fit").click()
            page.wait_for_timeout(500)
            zoom = float(page.locator("#canvas").get_attribute("data-zoom"))
            report(f"pan at zoom-to-fit {zoom * 100:.0f}% (all {args.count} on screen)", pan(page, args.seconds))
            browser.close()


if __name__ == "__main__":
    main()
