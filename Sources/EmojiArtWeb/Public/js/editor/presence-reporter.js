// This window's pointer and selection, told to the other windows on the document (docs/API.md,
// "Presence"; none of it is an edit). At most 20 updates a second, since the server drops more:
// a change within 50 ms of the last update waits, and the one that waits sends the latest.

const PRESENCE_INTERVAL_MS = 50;
const SELECTION_SENT = 1000; // ids of the selection sent at most

export class PresenceReporter {
  /**
   * @param {import("../live.js").LiveConnection} live
   * @param {import("../canvas/canvas.js").CanvasView} canvas whose selection is sent
   */
  constructor(live, canvas) {
    this.live = live;
    this.canvas = canvas;
    this.pointer = null;
    this.timer = 0;
    this.sentAt = -Infinity;
  }

  /** The pointer moved (`pointer`: a document point, or null when it left the canvas), or the selection changed (no `pointer`). */
  changed({ pointer } = {}) {
    if (pointer !== undefined) this.pointer = pointer;
    if (this.timer) return; // the one already waiting will send the latest
    const wait = PRESENCE_INTERVAL_MS - (performance.now() - this.sentAt);
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => this.send(), wait);
  }

  send() {
    this.timer = 0;
    this.sentAt = performance.now();
    this.live.sendPresence({ pointer: this.pointer, selection: [...this.canvas.selection].slice(0, SELECTION_SENT) });
  }
}
