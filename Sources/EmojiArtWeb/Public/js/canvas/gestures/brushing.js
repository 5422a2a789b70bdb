// Brushing: dragging a marquee over empty canvas. Every emoji the marquee touches is selected
// while it is drawn (added to the selection there was, with Shift, Ctrl or ⌘).
import { GestureState } from "./gesture-state.js";

export class Brushing extends GestureState {
  static id = "brushing";

  onEnter({ start, additive, event }) {
    const canvas = this.canvas;
    this.before = new Set(canvas.selection);
    this.kept = additive ? this.before : new Set();
    this.origin = canvas.viewport.worldPoint(start.x, start.y);
    this.onPointerMove(event);
  }

  onPointerMove(event) {
    const canvas = this.canvas;
    const point = canvas.viewport.worldPoint(event.clientX, event.clientY);
    const rect = {
      left: Math.min(this.origin.x, point.x),
      right: Math.max(this.origin.x, point.x),
      top: Math.min(this.origin.y, point.y),
      bottom: Math.max(this.origin.y, point.y),
    };
    canvas.setSelection(new Set([...this.kept, ...canvas.layer.idsTouching(rect)]));
    canvas.overlay.showMarquee(canvas.viewport.screenPoint(this.origin.x, this.origin.y), canvas.viewport.screenPoint(point.x, point.y));
  }

  onPointerUp() {
    this.canvas.overlay.showMarquee(null);
    this.transition("idle");
  }

  onCancel() {
    this.canvas.setSelection(this.before);
    this.canvas.overlay.showMarquee(null);
    this.transition("idle");
  }
}
