// Translating: dragging the selection. The emojis follow the pointer on screen only; the move is
// one edit, sent when the pointer is released.
import { GestureState } from "./gesture-state.js";

export class Translating extends GestureState {
  static id = "translating";

  onEnter({ start, event }) {
    this.start = start;
    this.ids = [...this.canvas.selection];
    this.dx = 0;
    this.dy = 0;
    this.onPointerMove(event);
  }

  onPointerMove(event) {
    const zoom = this.canvas.viewport.zoom;
    this.dx = Math.round((event.clientX - this.start.x) / zoom);
    this.dy = -Math.round((event.clientY - this.start.y) / zoom);
    this.canvas.layer.showOffset(this.ids, this.dx, this.dy);
    this.canvas.overlay.setFeedback({ dx: this.dx, dy: this.dy });
  }

  onPointerUp() {
    this.canvas.commitMove(this.ids, this.dx, this.dy);
    this.transition("idle");
  }

  onCancel() {
    this.canvas.layer.showOffset(this.ids, 0, 0);
    this.canvas.overlay.setFeedback(null);
    this.transition("idle");
  }
}
