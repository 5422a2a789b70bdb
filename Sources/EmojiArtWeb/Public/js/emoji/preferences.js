// What the emoji picker remembers for its user: the skin tone chosen (0 none, 1–5 light to
// dark) and the emojis used last (most recent first, at most RECENT_LIMIT).
//
// Someone signed in (accounts mode) keeps them in the store, through
// GET/PUT /api/session/preferences, so they follow them to every browser. In local mode, and for
// someone who opened a share link without an account, they stay in this browser (localStorage,
// one key per user).
//
// A window never saves what it merely holds: it keeps the choices made in it that are not saved
// yet, and each save reads the stored copy first and applies those choices to it. So a window
// that places an emoji before it has read anything adds that emoji to the stored recents instead
// of replacing them, two windows don't undo each other's choices, and a window whose browser
// has since signed in as someone else drops its unsaved choices rather than give them to them.
import { request, session } from "../api.js";

const RECENT_LIMIT = 36;
const STORAGE_PREFIX = "emojiart:emoji-preferences:";
const SAVE_DELAY = 300; // ms: a burst of choices is one save
const SERVER = "server:";

const clean = (value) => ({
  skinTone: Number.isInteger(value?.skinTone) && value.skinTone >= 0 && value.skinTone <= 5 ? value.skinTone : 0,
  recentEmojis: Array.isArray(value?.recentEmojis)
    ? value.recentEmojis.filter((emoji) => typeof emoji === "string" && emoji.length > 0 && emoji.length <= 64).slice(0, RECENT_LIMIT)
    : [],
});

/** `newer` (most recent first) before `older`, each emoji once, at most RECENT_LIMIT. */
const mergeRecents = (newer, older) => [...new Set([...newer, ...older])].slice(0, RECENT_LIMIT);

const noChoices = () => ({ skinTone: null, recentEmojis: [] });

export class EmojiPreferences {
  constructor() {
    this.skinTone = 0;
    this.recentEmojis = [];
    /** Whose they are, once known: "server:<user id>", or the localStorage key. */
    this.where = null;
    /** Whether the stored copy has been read (what this window shows includes it). */
    this.loaded = false;
    /** Choices made in this window and not saved yet: a tone (or null), emojis most recent first. */
    this.pending = noChoices();
    this.syncing = null;
    this.saveTimer = 0;
    this.listeners = new Set();
    addEventListener("pagehide", () => this.flush());
  }

  /** Calls `listener()` after every change (a choice here, or what a read found). */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed() {
    for (const listener of this.listeners) listener();
  }

  /** Reads the stored copy (another window may have chosen since) and saves this window's choices onto it. */
  load() {
    this.syncing ??= this.sync().finally(() => (this.syncing = null));
    return this.syncing;
  }

  /** Whose preferences these are now ("server:<id>" or a localStorage key), or null when that can't be told. */
  async locate() {
    let who = null;
    try {
      who = await session();
    } catch (error) {
      if (!(error?.status >= 400 && error.status < 500)) return null; // unreachable: ask again later
    }
    if (who?.access === "accounts" && who.user) return SERVER + who.user.id;
    return STORAGE_PREFIX + (who?.user?.id ?? "visitor");
  }

  async readStored(where) {
    if (where.startsWith(SERVER)) return clean(await request("GET", "/api/session/preferences"));
    try {
      return clean(JSON.parse(localStorage.getItem(where) || "null"));
    } catch {
      return clean(null);
    }
  }

  async writeStored(where, value) {
    if (where.startsWith(SERVER)) {
      await request("PUT", "/api/session/preferences", { json: value });
      return;
    }
    try {
      localStorage.setItem(where, JSON.stringify(value));
    } catch {
      /* storage full or refused: remembered for this window only */
    }
  }

  async sync() {
    const where = await this.locate();
    if (!where) return;
    if (this.where !== null && where !== this.where) {
      // The browser is someone else's now: what was chosen here was not theirs.
      this.pending = noChoices();
      this.loaded = false;
    }
    this.where = where;
    let stored;
    try {
      stored = await this.readStored(where);
    } catch {
      return; // keep the choices; the next one tries again
    }
    const choices = this.pending;
    this.pending = noChoices();
    const merged = {
      skinTone: choices.skinTone ?? stored.skinTone,
      recentEmojis: mergeRecents(choices.recentEmojis, stored.recentEmojis),
    };
    // Choices made while reading stay on top of what was read.
    this.skinTone = this.pending.skinTone ?? merged.skinTone;
    this.recentEmojis = mergeRecents(this.pending.recentEmojis, merged.recentEmojis);
    this.loaded = true;
    this.changed();
    if (choices.skinTone === null && !choices.recentEmojis.length) return;
    try {
      await this.writeStored(where, merged);
    } catch {
      // Not saved: they wait for the next save, under whatever was chosen since.
      this.pending = {
        skinTone: this.pending.skinTone ?? choices.skinTone,
        recentEmojis: mergeRecents(this.pending.recentEmojis, choices.recentEmojis),
      };
    }
  }

  setSkinTone(tone) {
    if (tone === this.skinTone) return;
    this.skinTone = tone;
    this.pending.skinTone = tone;
    this.save();
  }

  /** Puts `emoji` first among the recent ones (moving it if it was there). */
  addRecent(emoji) {
    if (this.recentEmojis[0] === emoji && this.loaded) return;
    this.recentEmojis = mergeRecents([emoji], this.recentEmojis);
    this.pending.recentEmojis = mergeRecents([emoji], this.pending.recentEmojis);
    this.save();
  }

  save() {
    this.changed();
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = 0;
      (this.syncing ?? Promise.resolve()).then(() => this.load());
    }, SAVE_DELAY);
  }

  /**
   * The page is going away: what waits to be saved is saved now, as this window shows it (the
   * stored copy as last read, with the choices on top), with a request that outlives the page.
   * Before anything was read there is nothing safe to write, and the choices are dropped.
   */
  flush() {
    if (!this.saveTimer && !this.pending.recentEmojis.length && this.pending.skinTone === null) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = 0;
    if (!this.loaded || !this.where) return;
    const value = { skinTone: this.skinTone, recentEmojis: this.recentEmojis };
    if (this.where.startsWith(SERVER)) {
      fetch("/api/session/preferences", {
        method: "PUT", keepalive: true, body: JSON.stringify(value),
        headers: { "Content-Type": "application/json", Accept: "application/json" },
      }).catch(() => {});
    } else {
      this.writeStored(this.where, value);
    }
  }
}
