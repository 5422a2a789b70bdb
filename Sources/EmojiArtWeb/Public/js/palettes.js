// The shared palettes, live (docs/API.md, "Live palettes"): every window holds the list the
// server last sent and hears each change, whoever made it (any window, a script, the CLI).
// Changes go through the HTTP API; their result comes back here like everyone else's. The last
// list is kept in the browser for whoever was signed in (docs/OFFLINE.md), so with no server
// the palette bar still offers it.
//
// A change made here (`change`) is kept in the browser first (./offline/palette-queue.js), shown
// at once over the server's list, and sent in order when the server can be reached — now, or
// after a reload, a closed tab or a crash, with the next window to open. One the server refuses
// is named: to the caller when it is sent at once, in a notice when it was waiting.
import * as api from "./api.js";
import { Backoff } from "./backoff.js";
import { notify } from "./dom.js";
import { graphemes } from "./intl.js";
import { socketURL } from "./live.js";
import { PaletteQueue } from "./offline/palette-queue.js";

/** The `meta` key the palettes of `owner` are kept under (./offline/identity.js names owners). */
export const palettesKey = (owner) => "palettes:" + owner;

/** Whether an answer means "not now" (kept, sent again later) rather than "no". */
const notNow = (error) => error.status === 0 || error.status === 429 || error.status >= 500;

export class PaletteFeed {
  /** @param {{store: import("./offline/local-store.js").LocalStore, identity: import("./offline/identity.js").Identity}} kept what this browser keeps, and for whom */
  constructor({ store, identity }) {
    /** The palettes in order, as shown: the server's list with the changes still waiting made on it: [{id, name, emojis}]. */
    this.palettes = [];
    /** The list as the server (or, offline, the browser) last had it. */
    this.server = [];
    /** The changes made here that wait for the server (./offline/palette-queue.js records), oldest first. */
    this.waiting = [];
    this.loaded = false;
    this.listeners = new Set();
    this.socket = null;
    this.backoff = new Backoff(); // as the document's connection: 250 ms doubling to 15 s, ±20 %
    this.sendBackoff = new Backoff();
    this.retryTimer = 0;
    this.flushing = null; // the flush running (one at a time in the page)
    this.waitingRead = null; // reading what waits from earlier windows, once
    this.heard = false; // the server has sent the list since the connection opened
    this.closing = false;
    this.store = store;
    this.identity = identity;
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
    this.server = palettes;
    this.loaded = true;
    this.fromBrowser = fromBrowser;
    this.redraw();
  }

  /** Shows the server's list with the changes that wait made on it. */
  redraw() {
    this.palettes = this.waiting.reduce((list, record) => changed(list, record.change), this.server);
    if (!this.loaded) return;
    for (const listener of this.listeners) listener(this.palettes);
  }

  // MARK: - Changes

  /**
   * Makes a change (see ./offline/palette-queue.js for its shape; `label` names it in a notice:
   * "Rename “Faces”"): kept in the browser, shown at once, sent in order after what waits.
   * Resolves the palette as the server answered — or, when the server can't be reached now, as
   * shown (the change is sent later) — or null when it's gone; rejects with the server's refusal.
   */
  async change(change, label) {
    const who = await this.identity.whoIsAsking();
    // Nobody to keep it for (never signed in here, or a link visitor, who keeps no palettes), or a
    // browser that keeps nothing: straight to the server, as ever.
    if (!who.key.startsWith("user:")) return this.send(change, { signIn: true });
    const queue = new PaletteQueue(this.store, who.key);
    const record = await queue.keep(change, label).catch(() => null);
    if (!record) return this.send(change, { signIn: true });
    this.waiting.push(record);
    this.redraw();
    const outcome = await this.flush(queue, record.seq);
    if (outcome?.error) throw outcome.error;
    return outcome?.answer ?? this.find(change.id);
  }

  /**
   * Sends what waits, oldest first, one window at a time (and one flush at a time in this page);
   * stops at the first that can't be sent now (no server: tried again later; signed out: sent
   * when the same account is back). Resolves what the server said to the change `mine`
   * ({answer} or {error}), if it was sent.
   */
  flush(queue = null, mine = null) {
    this.flushing = (this.flushing ?? Promise.resolve()).then(() => this.flushNow(queue, mine), () => this.flushNow(queue, mine));
    return this.flushing;
  }

  async flushNow(queue, mine) {
    clearTimeout(this.retryTimer);
    // Asked of the server now, not as the page first heard: another tab may have signed in as
    // someone else since, and changes are only ever sent as the account that made them.
    const who = await this.identity.whoIsAsking({ fresh: true });
    queue ??= new PaletteQueue(this.store, who.key);
    if (!who.confirmed || who.key !== queue.owner) return null; // sent when the server says it is them
    return queue.exclusively(async () => {
      const { records, skipped } = await queue.waiting();
      this.waiting = records;
      let outcome = null;
      const refused = [];
      for (const record of records) {
        let answer;
        try {
          answer = await this.send(record.change);
        } catch (error) {
          if (notNow(error)) {
            this.retryTimer = setTimeout(() => this.flush(), this.sendBackoff.next());
            break;
          }
          if (error.status === 401) break; // signed out meanwhile: kept for when they are back
          // A palette deleted again is deleted; any other refusal is named.
          if (!(record.change.kind === "delete" && error.status === 404)) {
            if (record.seq === mine) outcome = { error };
            else refused.push(`${record.label} — ${error.message}`);
          }
        }
        await queue.forget(record.seq);
        this.waiting = this.waiting.filter((waiting) => waiting.seq !== record.seq);
        if (record.seq === mine && !outcome) outcome = { answer: answer ?? null };
        this.sendBackoff.reset();
      }
      if (skipped) refused.push(`${skipped} unreadable ${skipped === 1 ? "change" : "changes"} (from an older page)`);
      if (refused.length) {
        const count = refused.length === 1 ? "1 palette change" : `${refused.length} palette changes`;
        notify(`${count} couldn’t be applied: ${refused.join("; ")}.`, { kind: "error", title: "Palettes" });
      }
      this.redraw();
      return outcome;
    });
  }

  /** The request of one change (every one idempotent: ./offline/palette-queue.js); `signIn`: a 401 goes to sign in. */
  send({ kind, id, name, emojis, index, changes }, { signIn = false } = {}) {
    const path = "/api/palettes/" + encodeURIComponent(id);
    if (kind === "create") {
      return api.request("POST", "/api/palettes", { json: { id, name, emojis, ...(index === undefined ? {} : { index }) }, signIn });
    }
    if (kind === "update") return api.request("PATCH", path, { json: changes, signIn });
    return api.request("DELETE", path, { signIn });
  }

  /** The changes this browser keeps for whoever it last knew, drawn over the list (before the server says). */
  async loadWaiting() {
    const who = await this.identity.whoIsAsking();
    const { records } = await new PaletteQueue(this.store, who.key).waiting().catch(() => ({ records: [] }));
    if (!this.waiting.length && records.length) {
      this.waiting = records;
      this.redraw();
    }
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
    this.waitingRead ??= this.loadWaiting();
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
      const first = !this.heard;
      this.heard = true;
      this.show(message.palettes);
      this.keep(message.palettes, { fresh: first });
      // What waits from earlier (this window, or a closed one) is sent now the server is there.
      if (first) this.waitingRead.then(() => this.waiting.length && this.flush());
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.heard = false; // when it is back, what waits is sent
      if (!this.loaded) this.remembered();
      if (this.closing) return;
      setTimeout(() => this.open(), this.backoff.afterClose(event.code));
    });
  }

  /**
   * Keeps the list, for offline, for whoever the server says is asking: asked again on each
   * connection's first list (another tab may have signed in as someone else meanwhile, and the
   * socket came back with their cookie), and kept for no one until the server has said.
   */
  async keep(palettes, { fresh = false } = {}) {
    const who = await this.identity.whoIsAsking(fresh ? { fresh } : { again: true }).catch(() => null);
    if (who?.confirmed) await this.store.writeMeta(palettesKey(who.key), palettes).catch(() => {});
  }

  close() {
    this.closing = true;
    if (this.socket) this.socket.close(1000, "Leaving.");
  }
}


/** Whether `text` holds at least one emoji (the server keeps only those). */
export const containsEmoji = (text) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(text);

/** The list `palettes` with `change` made on it, as the server would (EmojiArtKit's PaletteList). */
function changed(palettes, change) {
  const list = palettes.map((palette) => ({ ...palette }));
  const at = list.findIndex((palette) => palette.id === change.id);
  const emojis = (text) => [...new Set(graphemes(text ?? "").filter(containsEmoji))];
  if (change.kind === "create") {
    if (at < 0) list.splice(Math.min(change.index ?? list.length, list.length), 0, { id: change.id, name: change.name, emojis: emojis(change.emojis).join("") });
    return list;
  }
  if (at < 0) return list;
  if (change.kind === "delete") {
    if (list.length > 1) list.splice(at, 1);
    return list;
  }
  const palette = list[at];
  const { name, addEmojis, removeEmoji, index } = change.changes;
  if (name !== undefined) palette.name = name;
  if (addEmojis !== undefined) {
    const have = graphemes(palette.emojis);
    palette.emojis = [...emojis(addEmojis).filter((emoji) => !have.includes(emoji)), ...have].join("");
  }
  if (removeEmoji !== undefined) palette.emojis = graphemes(palette.emojis).filter((emoji) => emoji !== removeEmoji).join("");
  if (index !== undefined) {
    list.splice(at, 1);
    list.splice(Math.min(index, list.length), 0, palette);
  }
  return list;
}
