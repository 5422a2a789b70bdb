// The copy of this document the browser keeps (../offline/document-copies.js): drawn as soon as
// the editor opens — before the server's snapshot, which then brings only what changed since,
// or instead of it when there is no server — and kept up to date with what the server sends, a
// couple of seconds after it changes and when the page goes. Edits made on a copy offline are
// drawn pending and kept until sent (./unsent-changes.js).
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
    this.owner = identity.whoIsAsking().then((who) => who.key);
    this.savedVersion = null;
    this.timer = 0;
  }

  /** Draws the kept copy, if there is one and the server hasn't sent the document first. */
  async open() {
    try {
      const copy = await this.copies.read(await this.owner, this.editor.documentId);
      if (!copy || this.editor.state) return;
      this.savedVersion = copy.version;
      this.show(copy);
    } catch {
      /* no copy to show: the server's snapshot will do */
    }
  }

  /** Shows the copy, with the role it was opened with, until the server answers. */
  show(copy) {
    const editor = this.editor;
    editor.access.assume(copy.role);
    editor.canvas.readOnly = editor.readOnly;
    editor.render(copy.state);
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
    this.savedVersion = state.version;
    await this.copies.save(await this.owner, state, { role: editor.access.role ?? "owner" }).catch(() => {});
  }

  /** The document can't be seen here any more: its copy goes. */
  async forget() {
    clearTimeout(this.timer);
    await this.copies.forget(await this.owner, this.editor.documentId).catch(() => {});
  }
}
