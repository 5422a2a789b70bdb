// How long to wait before connecting again after failures in a row — the one backoff of every
// WebSocket the pages keep open (the document's, the palettes', the game's). The delay starts at
// `first` and doubles with each failure up to `last`; each is moved by up to ±`jitter` of itself,
// so that the windows a server restart dropped together don't all come back at the same moment.
// A success resets it. The defaults are the live connections' (docs/API.md, "Live documents"): 250 ms, 500 ms,
// 1 s, … 8 s, then 15 s each time, ±20 %.

export class Backoff {
  constructor({ first = 250, last = 15_000, jitter = 0.2 } = {}) {
    this.first = first;
    this.last = last;
    this.jitter = jitter;
    this.failures = 0;
  }

  /** The delay before the next attempt (ms), counting one more failure. */
  next() {
    const delay = Math.min(this.first * 2 ** Math.min(this.failures, 30), this.last);
    this.failures += 1;
    return Math.round(delay * (1 - this.jitter + Math.random() * 2 * this.jitter));
  }

  /** Connected: the next failure waits `first` again. */
  reset() {
    this.failures = 0;
  }
}
