// The wheel (a mouse wheel, or a trackpad's two-finger scroll and pinch): scrolling pans, Ctrl/⌘
// (which is how a trackpad pinch arrives) zooms around the pointer, Alt resizes the selection —
// its steps close together are one resize. A wheel has no end event, so each of these ends after
// a short quiet.
import { clamp } from "./viewport.js";

const WHEEL_RESIZE_MS = 350; // Alt+wheel steps this close together are one resize
const WHEEL_GESTURE_MS = 250; // the wheel this quiet ends its pan or zoom

export class WheelInput {
  /** @param {import("./canvas.js").CanvasView} canvas */
  constructor(canvas) {
    this.canvas = canvas;
    this.resize = null; // {ids, scale, timer} while Alt+wheel resizes
    this.quiet = 0;
  }

  turned(event) {
    event.preventDefault();
    const { viewport, layer } = this.canvas;
    const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? viewport.height : 1;
    let dx = clamp(event.deltaX * unit, -600, 600);
    let dy = clamp(event.deltaY * unit, -600, 600);
    if (event.altKey && !event.ctrlKey && !event.metaKey) {
      if (this.canvas.selection.size && !this.canvas.readOnly) this.resizeBy(dy || dx);
      return;
    }
    layer.beginViewGesture();
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => {
      layer.endViewGesture();
      viewport.finished();
    }, WHEEL_GESTURE_MS);
    if (event.ctrlKey || event.metaKey) {
      // A trackpad pinch arrives as Ctrl+wheel with small deltas; a mouse wheel notch is ~100.
      viewport.zoomAround(Math.exp(-clamp(dy, -300, 300) * 0.01), event.clientX, event.clientY, { notify: false });
    } else {
      if (event.shiftKey && !dx) [dx, dy] = [dy, 0]; // Shift+wheel scrolls sideways
      viewport.panBy(-dx, -dy, { notify: false });
    }
  }

  resizeBy(delta) {
    const canvas = this.canvas;
    if (!this.resize) {
      this.resize = { ids: [...canvas.selection], scale: 1, timer: 0 };
      canvas.layer.lift(this.resize.ids);
    }
    const w = this.resize;
    w.scale = clamp(w.scale * Math.exp(-clamp(delta, -300, 300) * 0.002), 1 / 64, 64);
    canvas.layer.showScale(w.scale);
    canvas.overlay.setFeedback({ scale: w.scale });
    clearTimeout(w.timer);
    w.timer = setTimeout(() => {
      this.resize = null;
      canvas.commitResize(w.ids, w.scale);
    }, WHEEL_RESIZE_MS);
  }
}
