// The shared palettes, live (docs/API.md, "Live palettes"): every window holds the list the
// server last sent and hears each change, whoever made it (any window, a script, the CLI).
// Changes go through the HTTP API; their result comes back here like everyone else's.
import { Backoff } from "./backoff.js";
import { socketURL } from "./live.js";

export class PaletteFeed {
  constructor() {
    /** The palettes in order: [{id, name, emojis}]. */
    this.palettes = [];
    this.loaded = false;
    this.listeners = new Set();
    this.socket = null;
    this.backoff = new Backoff(); // as the document's connection: 250 ms doubling to 15 s, ±20 %
    this.closing = false;
  }

  /** Calls `listener(palettes)` now (if loaded) and after every change. Returns an unsubscribe function. */
  subscribe(listener) {
    this.listeners.add(listener);
    if (this.loaded) listener(this.palettes);
    return () => this.listeners.delete(listener);
  }

  find(id) {
    return this.palettes.find((palette) => palette.id === id) || null;
  }

  open() {
    if (this.socket || this.closing) return;
    if (!this.pageHideHeard) {
      this.pageHideHeard = true;
      addEventListener("pagehide", (event) => {
        if (!event.persisted) this.close();
      });
    }
    const socket = new WebSocket(socketURL("/api/palettes/live"));
    this.socket = socket;
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type !== "palettes" || !Array.isArray(message.palettes)) return;
      this.backoff.reset();
      this.palettes = message.palettes;
      this.loaded = true;
      for (const listener of this.listeners) listener(this.palettes);
    });
    socket.addEventListener("close", () => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.closing) return;
      setTimeout(() => this.open(), this.backoff.next());
    });
  }

  close() {
    this.closing = true;
    if (this.socket) this.socket.close(1000, "Leaving.");
  }
}


/** Whether `text` holds at least one emoji (the server keeps only those). */
export const containsEmoji = (text) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(text);
