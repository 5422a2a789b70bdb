// What the emoji picker remembers for its user: the skin tone chosen (0 none, 1–5 light to
// dark) and the emojis used last (most recent first, at most RECENT_LIMIT).
//
// Someone signed in (accounts mode) keeps them in the store, through
// GET/PUT /api/session/preferences, so they follow them to every browser. In local mode, and for
// someone who opened a share link without an account, they stay in this browser (localStorage,
// one key per user).
import { request, session } from "../api.js";

export const RECENT_LIMIT = 36;
const STORAGE_PREFIX = "emojiart:emoji-preferences:";
const SAVE_DELAY = 300; // ms: a burst of choices is one PUT

const clean = (value) => ({
  skinTone: Number.isInteger(value?.skinTone) && value.skinTone >= 0 && value.skinTone <= 5 ? value.skinTone : 0,
  recentEmojis: Array.isArray(value?.recentEmojis)
    ? value.recentEmojis.filter((emoji) => typeof emoji === "string" && emoji.length > 0 && emoji.length <= 64).slice(0, RECENT_LIMIT)
    : [],
});

export class EmojiPreferences {
  constructor() {
    this.skinTone = 0;
    this.recentEmojis = [];
    /** "server" (accounts mode, signed in) or a localStorage key. */
    this.where = null;
    this.loading = null;
    this.saveTimer = 0;
    this.listeners = new Set();
    addEventListener("pagehide", () => this.flush());
  }

  /** Calls `listener()` after every change (a choice here, or what load() found). */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    for (const listener of this.listeners) listener();
  }

  /** Learns where this user's preferences live and reads them; again on each call (another window may have chosen). */
  load() {
    this.loading ??= this.read().finally(() => (this.loading = null));
    return this.loading;
  }

  /** Where this user's preferences live: "server", or the localStorage key. */
  async locate() {
    if (this.where === null) {
      const who = await session().then((answer) => answer, () => null);
      this.where ??= who?.access === "accounts" && who.user ? "server" : STORAGE_PREFIX + (who?.user?.id ?? "visitor");
    }
    return this.where;
  }

  async read() {
    await this.locate();
    let stored = null;
    if (this.where === "server") {
      try {
        stored = await request("GET", "/api/session/preferences");
      } catch {
        return; // keep what this window has; the next choice tries to save again
      }
    } else {
      try {
        stored = JSON.parse(localStorage.getItem(this.where) || "null");
      } catch {
        stored = null;
      }
    }
    if (!stored || this.saveTimer) return; // a choice made meanwhile wins
    Object.assign(this, clean(stored));
    this.changed();
  }

  setSkinTone(tone) {
    if (tone === this.skinTone) return;
    this.skinTone = tone;
    this.save();
  }

  /** Puts `emoji` first among the recent ones (moving it if it was there). */
  addRecent(emoji) {
    if (this.recentEmojis[0] === emoji) return;
    this.recentEmojis = [emoji, ...this.recentEmojis.filter((e) => e !== emoji)].slice(0, RECENT_LIMIT);
    this.save();
  }

  save() {
    this.changed();
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.write(), SAVE_DELAY);
  }

  async write() {
    this.saveTimer = 0;
    const body = { skinTone: this.skinTone, recentEmojis: this.recentEmojis };
    if ((await this.locate()) === "server") {
      await request("PUT", "/api/session/preferences", { json: body }).catch(() => {});
    } else {
      try {
        localStorage.setItem(this.where, JSON.stringify(body));
      } catch {
        /* storage full or refused: remembered for this window only */
      }
    }
  }

  /** Saves at once what waits to be saved (the page is going away). */
  flush() {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.write();
    }
  }
}
