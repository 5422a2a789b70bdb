// The mosaic dialog's live picture: the server's drawing of what the mosaic would make
// (`POST /api/documents/{id}/mosaic?preview=1`, docs/API.md), asked for again a moment after the
// last change of a control. A request overtaken by a newer one is aborted, so the picture shown
// is always the one of the controls as they are; when the server is busy it is asked again once
// it says it may be.
import * as api from "../api.js";

const QUIET_MS = 250; // a preview is asked for this long after the last change
const LONGEST_RETRY_S = 10;

export class MosaicPreview {
  /**
   * @param {string} documentId
   * @param {{loading: () => void, shown: (preview: {url: string, columns: number, rows: number, emojis: number}) => void,
   *   failed: (error: {code: string, message: string, retryAfter?: number}) => void}} listeners (the error: ../api.js's)
   */
  constructor(documentId, listeners) {
    this.documentId = documentId;
    this.listeners = listeners;
    this.timer = 0;
    this.controller = null; // the request under way
    this.url = null; // the object URL of the picture shown
  }

  /** Asks for the picture of `options` once the controls have been still a moment (at once with `now`). */
  ask(options, { now = false } = {}) {
    this.cancel();
    this.listeners.loading();
    this.timer = setTimeout(() => this.fetch(options), now ? 0 : QUIET_MS);
  }

  async fetch(options) {
    const controller = new AbortController();
    this.controller = controller;
    try {
      const preview = await api.mosaicPreview(this.documentId, options, controller.signal);
      if (controller !== this.controller) return;
      this.controller = null;
      this.release();
      this.url = URL.createObjectURL(preview.picture);
      this.listeners.shown({ url: this.url, columns: preview.columns, rows: preview.rows, emojis: preview.emojis });
    } catch (error) {
      if (controller !== this.controller || error?.name === "AbortError") return;
      this.controller = null;
      this.listeners.failed(error);
      if (error.retryAfter) this.timer = setTimeout(() => this.fetch(options), Math.min(error.retryAfter, LONGEST_RETRY_S) * 1000);
    }
  }

  /** Forgets any request waiting or under way. */
  cancel() {
    clearTimeout(this.timer);
    this.controller?.abort();
    this.controller = null;
  }

  /** Stops, and lets the picture go (the dialog closed). */
  stop() {
    this.cancel();
    this.release();
  }

  release() {
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
  }
}
