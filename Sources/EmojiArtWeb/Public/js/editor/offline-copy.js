// The copy of this document the browser keeps (../offline/document-copies.js): drawn as soon as
// the editor opens — before the server's snapshot, which then brings only what changed since,
// or instead of it when there is no server — and kept up to date with what the server sends, a
// couple of seconds after it changes and when the page goes. Edits made on a copy offline are
// drawn pending and kept until sent (./unsent-changes.js). A document made offline, which the
// server doesn't have yet, is made there first (`PUT /api/documents/{id}`, retried with the
// connection's backoff); only then does the live connection open.
import * as api from "../api.js";
import { Backoff } from "../backoff.js";
import { notify } from "../dom.js";
import { DocumentCopies } from "../offline/document-copies.js";

const SAVE_DELAY_MS = 2000;

export class OfflineCopy {
  /**
   * @param {import("./document-editor.js").DocumentEditor} editor
   * @param {{store: import("../offline/local-store.js").LocalStore, identity: import("../offline/identity.js").Identity}} kept
   */
  constructor(editor, { store, identity }) {
    this.editor = editor;
    this.copies = new DocumentCopies(store);
    this.identity = identity;
    this.owner = identity.whoIsAsking().then((who) => who.key);
    this.savedVersion = null;
    this.timer = 0;
    this.making = null; // {retry, timer} while the server is asked to make the document
    this.placed = null; // onServer's answer, once asked
    this.reconnected = false; // the connection was told once to try again, the document made
  }

  /**
   * Resolves once the document is on the server: at once, unless this browser made it offline
   * and the server doesn't have it yet — then it is made there first, as its maker. True when it
   * was made from here just now (a first connection that found nothing may try again); asked
   * once, the same answer to every caller.
   */
  onServer() {
    this.placed ??= this.place();
    return this.placed;
  }

  async place() {
    const owners = await this.copies.unsavedOwners(this.editor.documentId).catch(() => []);
    if (!owners.length) return false;
    const backoff = new Backoff();
    for (;;) {
      const who = await this.identity.whoIsAsking({ again: true });
      if (who.confirmed && !owners.includes(who.key)) return false; // someone else's: not theirs to make
      const made = who.confirmed ? await this.make(who.key) : undefined;
      if (made !== undefined) return made;
      await new Promise((resolve) => {
        this.making = { retry: resolve, timer: setTimeout(resolve, backoff.next()) };
      });
      clearTimeout(this.making.timer);
      this.making = null;
    }
  }

  /**
   * The live connection found no document: true once, when this browser has just made it on the
   * server (connect again); false after — a document deleted later is gone, not made again.
   */
  async missing() {
    const made = await this.onServer();
    if (!made || this.reconnected) return false;
    this.reconnected = true;
    return true;
  }

  /** Asks the server to make the document: true once it has it, false if it can't, undefined to try again later. */
  async make(owner) {
    try {
      const state = await api.createDocumentWithID(this.editor.documentId, (await this.copies.read(owner, this.editor.documentId))?.title);
      await this.copies.save(owner, state, { role: "owner" });
      return true;
    } catch (error) {
      if (error.status === 0 || error.status >= 500) return undefined;
      notify(error.message, { kind: "error", title: "Couldn’t save this new document" });
      return false; // it can't be made: the live connection says what there is
    }
  }

  /** The user asked to try the server now. */
  retryNow() {
    if (this.making) this.making.retry();
    else this.editor.live.retryNow();
  }

  /** Draws the kept copy, if there is one and the server hasn't sent the document first. */
  async open() {
    try {
      const copy = await this.copies.read(await this.owner, this.editor.documentId);
      if (copy?.unreadable) return this.skipUnreadable(copy);
      if (!copy || this.editor.state) return;
      this.savedVersion = copy.version;
      this.show(copy);
    } catch {
      /* no copy to show: the server's snapshot will do */
    }
  }

  /**
   * The record kept for this document isn't one: the server's snapshot (or nothing, offline) is
   * shown instead, and it goes — unless it marks a document made offline, which is still made on
   * the server (its copy then written again).
   */
  async skipUnreadable({ unsaved }) {
    notify("The copy of this document kept in this browser couldn’t be read, so it was skipped; the server’s version opens once it can be reached.", { kind: "warning", title: "Offline copy" });
    if (!unsaved) await this.copies.forget(await this.owner, this.editor.documentId);
  }

  /** Shows the copy, with the role it was opened with, until the server answers. */
  show(copy) {
    const editor = this.editor;
    editor.access.assume(copy.role);
    editor.canvas.readOnly = editor.readOnly;
    editor.render(copy.state);
    if (!editor.readOnly) editor.palettes.load(); // before the server answers (offline: the palettes kept)
    Object.assign(document.body.dataset, { ready: "true", source: "copy" });
    editor.connectionChanged({ state: editor.live.socket ? "connecting" : "offline", waiting: editor.live.waiting });
  }

  /** The document as the server last described it is `state`: kept soon. */
  changed(state) {
    if (state.version === this.savedVersion || this.timer) return;
    this.timer = setTimeout(() => this.saveNow(), SAVE_DELAY_MS);
  }

  async saveNow() {
    clearTimeout(this.timer);
    this.timer = 0;
    const editor = this.editor;
    const state = editor.state;
    if (!state || editor.gone || state.version === this.savedVersion) return;
    // Kept for whoever the server says is asking: nothing while it hasn't said.
    const who = await this.identity.whoIsAsking();
    if (!who.confirmed) return;
    this.savedVersion = state.version;
    await this.copies.save(who.key, state, { role: editor.access.role ?? "owner" }).catch(() => {});
  }

  /** The document can't be seen here any more: its copy goes. */
  async forget() {
    clearTimeout(this.timer);
    await this.copies.forget(await this.owner, this.editor.documentId).catch(() => {});
  }
}
