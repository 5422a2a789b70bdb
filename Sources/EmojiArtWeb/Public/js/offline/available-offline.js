// The document list's side of offline copies (./document-copies.js): which documents open with
// no connection, keeping one available offline for good ("Keep offline"), and the list itself
// when the server can't be reached — the documents this browser has copies of.
import * as api from "../api.js";
import { DocumentCopies } from "./document-copies.js";

export class AvailableOffline {
  /**
   * @param {import("./local-store.js").LocalStore} store
   * @param {import("./identity.js").Identity} identity
   */
  constructor(store, identity) {
    this.copies = new DocumentCopies(store);
    this.identity = identity;
  }

  async owner() {
    return (await this.identity.whoIsAsking()).key;
  }

  /** id → {pinned, …} for every document this browser has a copy of (for whoever is signed in). */
  async byId() {
    try {
      return new Map((await this.copies.list(await this.owner())).map((copy) => [copy.id, copy]));
    } catch {
      return new Map();
    }
  }

  /** The documents this browser has copies of, as the document list's summaries (offline). */
  async summaries() {
    const copies = await this.copies.list(await this.owner()).catch(() => []);
    return copies.map(({ id, title, version, updatedAt, emojiCount, role }) => ({ id, title, version, updatedAt, emojiCount, role }));
  }

  /**
   * Makes document `id` in this browser (no server): an empty document, kept as a copy the
   * server doesn't have yet, which the editor makes there once it can.
   */
  async createHere(id) {
    if (!(await this.copies.store.database())) {
      throw new Error("With no connection, a new document is kept in the browser, and this one keeps nothing for this site (a private window?).");
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    const state = {
      id, title: "Untitled", version: 0, background: null, emojis: [], backgroundState: { status: "none" },
      nextEmojiId: 1, undoActionName: null, redoActionName: null, createdAt: now, updatedAt: now,
    };
    await this.copies.save(await this.owner(), state, { role: "owner", unsaved: true });
  }

  /**
   * Keeps document `id` available offline (or lets it age out with the other recent ones). A
   * document not opened here yet is fetched now, and so is its background image (which the
   * service worker keeps).
   */
  async keep(id, pinned) {
    const owner = await this.owner();
    if (pinned && !(await this.copies.read(owner, id))?.state) {
      const state = await api.getDocument(id);
      await this.copies.save(owner, state, { role: state.role ?? "owner", opened: false });
      const image = state.backgroundState?.imageURL;
      if (typeof image === "string" && image.startsWith("/api/images/")) await fetch(image).catch(() => {});
    }
    await this.copies.pin(owner, id, pinned);
  }
}
