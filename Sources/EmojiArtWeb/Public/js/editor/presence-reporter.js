// This window's pointer, selection and view, told to the other windows on the document
// (docs/API.md, "Presence"; none of it is an edit) — the view so they can follow it. At most 20 updates a second, since the server drops more:
// a change within 50 ms of the last update waits, and the one that waits sends the latest.

const PRESENCE_INTERVAL_MS = 50;
const SELECTION_SENT = 1000; // ids of the selection sent at most
const VIEW_REACH = 4_000_000; // the server's bound on a view's middle and size (document points)

/** `area` ({x, y, width, height}) rounded to hundredths, or null if it isn't one the server takes. */
function viewToSend(area) {
  const round = (value) => Math.round(value * 100) / 100;
  const view = { x: round(area.x), y: round(area.y), width: round(area.width), height: round(area.height) };
  const fine = Object.values(view).every(Number.isFinite) && view.width > 0 && view.height > 0 &&
    Math.abs(view.x) <= VIEW_REACH && Math.abs(view.y) <= VIEW_REACH && view.width <= VIEW_REACH && view.height <= VIEW_REACH;
  return fine ? view : null;
}

export class PresenceReporter {
  /**
   * @param {import("../live.js").LiveConnection} live
   * @param {import("../canvas/canvas.js").CanvasView} canvas whose selection is sent
   */
  constructor(live, canvas, following = () => null) {
    this.live = live;
    this.canvas = canvas;
    /** Whom this window follows now (a peer id), or null. */
    this.following = following;
    this.pointer = null;
    this.timer = 0;
    this.sentAt = -Infinity;
  }

  /** The pointer moved (`pointer`: a document point, or null when it left the canvas), or the selection or the view changed (no `pointer`). */
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
    const presence = { pointer: this.pointer, selection: [...this.canvas.selection].slice(0, SELECTION_SENT) };
    const view = viewToSend(this.canvas.viewport.visibleArea());
    if (view) presence.view = view;
    if (this.following()) presence.following = this.following();
    this.live.sendPresence(presence);
  }
}
