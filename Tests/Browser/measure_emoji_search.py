#!/usr/bin/env python3
"""Measures the emoji picker in Chromium (issue #34, item 5): the page's search per keystroke for
every 1–3 letter query in English and German, opening the picker to its first group drawn, and
the frame times while its grid scrolls.

Starts the server ($EMOJIART_BIN, default .build/release/emojiart) with a fresh data folder — or
uses a running one with --url — and opens the editor on an empty document in headless chromium
at 1280×800. For each language it times `search(query, 500)` (what the picker asks for) for every
one-letter query and a sample of --sample two- and three-letter prefixes of the language's own
emoji names, --rounds times each after one warm-up round (every sample, and each query's median
over its rounds); then it opens the picker (the first time,
and --opens more times) until the frame after it is drawn; then it scrolls the grid top to bottom
and back, 48 px a frame, recording requestAnimationFrame deltas. Prints p50/p95/max of each (the
targets: search p95 ≤ 4 ms, opening ≤ 100 ms, scrolling at 60 fps).

    python3 Tests/Browser/measure_emoji_search.py [--sample 300] [--rounds 3] [--url http://127.0.0.1:8080]
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from playwright.sync_api import sync_playwright

from measure_pan import RECORDER, call, percentile, serving

LETTERS = {"en": "abcdefghijklmnopqrstuvwxyz", "de": "abcdefghijklmnopqrstuvwxyzäöüß"}

QUERIES = """async ([language, letters]) => {
  const { loadCatalogue, words } = await import("/js/emoji/catalogue.js");
  const { fold } = await import("/js/search-fold.js");
  const catalogue = await loadCatalogue([language]);
  const started = performance.now();
  catalogue.prepareSearch();
  const prepare = performance.now() - started;
  // Two- and three-letter prefixes of the words of the language's own names, as people type them.
  const prefixes = [new Set(), new Set()];
  for (const group of catalogue.groups) for (const emoji of group.emojis) {
    for (const word of words(fold(catalogue.name(emoji)))) {
      if (word.length >= 2) prefixes[0].add(word.slice(0, 2));
      if (word.length >= 3) prefixes[1].add(word.slice(0, 3));
    }
  }
  return { language: catalogue.language, prepare, single: [...letters], two: [...prefixes[0]], three: [...prefixes[1]] };
}"""

TIME_SEARCHES = """async ([language, queries, rounds]) => {
  const { loadCatalogue } = await import("/js/emoji/catalogue.js");
  const catalogue = await loadCatalogue([language]);
  for (const query of queries) catalogue.search(query, 500); // warm up
  const times = [];
  let results = 0;
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const started = performance.now();
      results += catalogue.search(query, 500).length;
      times.push(performance.now() - started);
    }
  }
  return { times, results };
}"""

OPEN = """async () => {
  const button = document.getElementById("emoji-picker-button");
  const picker = () => document.getElementById("emoji-picker");
  if (picker() && !picker().hidden) document.querySelector("#emoji-picker .picker-close").click();
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  const started = performance.now();
  button.click();
  // Drawn: the frame after the click has been produced.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  const drawn = performance.now() - started;
  return { drawn, cells: document.querySelectorAll("#emoji-picker .picker-emoji").length };
}"""

SCROLL = """async () => {
  const scroller = document.querySelector("#emoji-picker .picker-scroll");
  const frames = [];
  let last = performance.now();
  let direction = 1;
  let passes = 0;
  await new Promise((resolve) => {
    const tick = (now) => {
      frames.push(now - last);
      last = now;
      const bottom = scroller.scrollHeight - scroller.clientHeight;
      scroller.scrollTop = Math.max(0, Math.min(bottom, scroller.scrollTop + 48 * direction));
      if ((direction > 0 && scroller.scrollTop >= bottom) || (direction < 0 && scroller.scrollTop <= 0)) {
        direction = -direction;
        passes += 1;
      }
      if (passes < 2) requestAnimationFrame(tick);
      else resolve();
    };
    requestAnimationFrame((now) => { last = now; requestAnimationFrame(tick); });
  });
  return { frames: frames.slice(1), height: scroller.scrollHeight, drawn: document.querySelectorAll("#emoji-picker .picker-emoji").length };
}"""


def figures(values: list[float]) -> str:
    return f"p50 {percentile(values, 50):5.2f}  p95 {percentile(values, 95):5.2f}  max {max(values):6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server's base URL (default: start one)")
    parser.add_argument("--sample", type=int, default=300, help="two- and three-letter prefixes per language, each")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--opens", type=int, default=10)
    parser.add_argument("--chromium", default=os.environ.get("EMOJIART_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()
    os.environ.setdefault("EMOJIART_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "release", "emojiart"))
    rng = random.Random(34)

    with serving(args.url) as base:
        doc = call(base, "POST", "/api/documents", {"title": "Emoji search"})
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/documents/{doc['id']}")
            page.wait_for_selector("body[data-ready=true]")
            print("search(query, 500), per keystroke:")
            for language in ("en", "de"):
                found = page.evaluate(QUERIES, [language, LETTERS[language]])
                queries = {"1 letter": found["single"]}
                for name, key in (("2 letters", "two"), ("3 letters", "three")):
                    pool = sorted(found[key])
                    queries[name] = rng.sample(pool, min(args.sample, len(pool)))
                every = []
                print(f"  {found['language']}: folding the terms once took {found['prepare']:.1f} ms")
                medians = []
                for name, batch in queries.items():
                    timed = page.evaluate(TIME_SEARCHES, [language, batch, args.rounds])
                    every += timed["times"]
                    # Each query's median over the rounds: what the query costs, without the odd
                    # sample another process on the machine took the CPU during.
                    each = [percentile(timed["times"][i :: len(batch)], 50) for i in range(len(batch))]
                    medians += each
                    print(f"    {name:>9} ({len(batch):3} queries × {args.rounds}): {figures(timed['times'])}"
                          f"  ({timed['results'] / len(timed['times']):.0f} results each); per query's median: {figures(each)}")
                print(f"    {'all':>9} ({len(every):4} searches):  {figures(every)}; per query's median: {figures(medians)}")

            first = page.evaluate(OPEN)
            opens = [page.evaluate(OPEN)["drawn"] for _ in range(args.opens)]
            print(f"opening the picker to its first group drawn: first {first['drawn']:.1f} ms ({first['cells']} emojis drawn), "
                  f"then {figures(opens)}")
            scrolled = page.evaluate(SCROLL)
            frames = scrolled["frames"]
            slow = sum(1 for f in frames if f > 1000 / 60 * 1.5)
            print(f"scrolling the grid ({scrolled['height']} px, top to bottom and back, 48 px a frame): "
                  f"{len(frames)} frames, {figures(frames)}, {slow} over 25 ms; {scrolled['drawn']} emojis drawn at the end")
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
