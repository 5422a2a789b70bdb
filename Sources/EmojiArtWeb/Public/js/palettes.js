// The shared palettes, live (docs/API.md, "Live palettes"): every window holds the list the
// server last sent and hears each change, whoever made it (any window, a script, the CLI).
// Changes go through the HTTP API; their result comes back here like everyone else's. The last
// list is kept in the browser for whoever was signed in (docs/OFFLINE.md), so with no server
// the palette bar still offers it.
import { Backoff } from "./backoff.js";
import { socketURL } from "./live.js";
import { LocalStore } from "./offline/local-store.js";

/** The `meta` key the palettes of `owner` are kept under (./offline/identity.js names owners). */
export const palettesKey = (owner) => "palettes:" + owner;

export class PaletteFeed {
  constructor() {
    /** The palettes in order: [{id, name, emojis}]. */
    this.palettes = [];
    this.loaded = false;
    this.listeners = new Set();
    this.socket = null;
    this.backoff = new Backoff(); // as the document's connection: 250 ms doubling to 15 s, ±20 %
    this.closing = false;
    this.store = new LocalStore();
  }

  /** The list as this browser last had it, for whoever it last knew was signed in; until the server sends one. */
  async remembered() {
    const owner = await this.store.readMeta("identity").catch(() => undefined);
    const palettes = owner ? await this.store.readMeta(palettesKey(owner)).catch(() => undefined) : undefined;
    if (this.loaded || !Array.isArray(palettes)) return;
    this.show(palettes, { fromBrowser: true });
  }

  /** `fromBrowser`: the list kept in the browser, shown while the server can't be reached. */
  show(palettes, { fromBrowser = false } = {}) {
    this.palettes = palettes;
    this.loaded = true;
    this.fromBrowser = fromBrowser;
    for (const listener of this.listeners) listener(this.palettes);
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
      this.show(message.palettes);
      this.keep(message.palettes);
    });
    socket.addEventListener("close", () => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (!this.loaded) this.remembered();
      if (this.closing) return;
      setTimeout(() => this.open(), this.backoff.next());
    });
  }

  async keep(palettes) {
    const owner = await this.store.readMeta("identity").catch(() => undefined);
    if (owner) await this.store.writeMeta(palettesKey(owner), palettes).catch(() => {});
  }

  close() {
    this.closing = true;
    if (this.socket) this.socket.close(1000, "Leaving.");
  }
}


/** Whether `text` holds at least one emoji (the server keeps only those). */
export const containsEmoji = (text) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(text);
