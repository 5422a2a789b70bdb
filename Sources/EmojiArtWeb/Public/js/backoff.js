// How long to wait before connecting again after failures in a row — the one backoff of every
// WebSocket the pages keep open (the document's, the palettes', the game's). The delay starts at
// `first` and doubles with each failure up to `last`; each is moved by up to ±`jitter` of itself,
// so that the windows a server restart dropped together don't all come back at the same moment.
// A success resets it. The defaults are the live connections' (docs/API.md, "Live documents"): 250 ms, 500 ms,
// 1 s, … 8 s, then 15 s each time, ±20 %. A connection the server closed with 4503 — it is there,
// but its database or its copy of the document isn't yet (an outage, a copy being read again) —
// waits at most 2 s each time, so a window is back within about that of the database's return.

/** A live connection's close code for "the server will serve again soon" (docs/API.md). */
const SERVER_BACK_SOON = 4503;

export class Backoff {
  constructor({ first = 250, last = 15_000, jitter = 0.2 } = {}) {
    this.first = first;
    this.last = last;
    this.jitter = jitter;
    this.failures = 0;
  }

  /** The delay before the next attempt (ms), counting one more failure; at most `cap` (±jitter). */
  next({ cap = this.last } = {}) {
    const delay = Math.min(this.first * 2 ** Math.min(this.failures, 30), this.last, cap);
    this.failures += 1;
    return Math.round(delay * (1 - this.jitter + Math.random() * 2 * this.jitter));
  }

  /** The delay before connecting again after a live connection closed with `code` (ms). */
  afterClose(code) {
    return this.next(code === SERVER_BACK_SOON ? { cap: Math.min(2_000, this.last) } : {});
  }

  /** Connected: the next failure waits `first` again. */
  reset() {
    this.failures = 0;
  }
}
