// Pinching: two fingers zoom around where they started and pan as their midpoint moves. When one
// lifts, the gesture ends and the other finger does nothing until it lifts too.
import { clamp, MAX_ZOOM, MIN_ZOOM } from "../viewport.js";
import { GestureState } from "./gesture-state.js";

export class Pinching extends GestureState {
  static id = "pinching";

  onEnter() {
    const [a, b] = this.fingers();
    this.distance = Math.max(1, Math.hypot(a.x - b.x, a.y - b.y));
    this.mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    this.view = this.canvas.viewport.view;
    this.canvas.layer.beginViewGesture();
  }

  fingers() {
    return [...this.canvas.pointers.values()];
  }

  onPointerMove() {
    const [a, b] = this.fingers();
    if (!b) return;
    const viewport = this.canvas.viewport;
    const rect = viewport.root.getBoundingClientRect();
    const mx = this.mid.x - rect.left - viewport.width / 2;
    const my = this.mid.y - rect.top - viewport.height / 2;
    const scale = Math.hypot(a.x - b.x, a.y - b.y) / this.distance;
    const zoom = clamp(this.view.zoom * scale, MIN_ZOOM, MAX_ZOOM);
    const ratio = zoom / this.view.zoom;
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    viewport.set(
      {
        zoom,
        panX: mx - (mx - this.view.panX) * ratio + (mid.x - this.mid.x),
        panY: my - (my - this.view.panY) * ratio + (mid.y - this.mid.y),
      },
      { notify: false },
    );
  }

  onPointerUp() {
    if (this.canvas.pointers.size < 2) this.onCancel();
  }

  /** Like a pan, a pinch keeps the view it got to. */
  onCancel() {
    this.canvas.layer.endViewGesture();
    this.canvas.viewport.finished();
    this.transition("idle");
  }
}
