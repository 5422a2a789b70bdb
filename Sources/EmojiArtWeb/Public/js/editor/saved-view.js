// Zoom and pan, remembered per window and document (sessionStorage): a reload, or coming back
// to the document in the same tab, shows the same part of it. Saved a moment after the view
// stops changing, and at once when the page is hidden.

const SAVE_DELAY_MS = 100;

export class SavedView {
  /**
   * @param {string} documentId
   * @param {import("../canvas/canvas.js").CanvasView} canvas
   */
  constructor(documentId, canvas) {
    this.key = "emojiart:view:" + documentId;
    this.canvas = canvas;
    this.timer = 0;
  }

  /** The view changed: saved once it has been still a moment. */
  changed(view) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => sessionStorage.setItem(this.key, JSON.stringify(view)), SAVE_DELAY_MS);
  }

  saveNow() {
    sessionStorage.setItem(this.key, JSON.stringify(this.canvas.view));
  }

  /** Shows the view this window last had of the document, if any. */
  restore() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.key) || "null");
      if (saved) this.canvas.setView(saved, { notify: false });
    } catch {
      /* a bad saved view just means the default one */
    }
  }
}
