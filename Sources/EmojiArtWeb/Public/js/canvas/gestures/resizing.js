// Resizing: dragging the selection box's handle scales the selection about its centre by how far
// the pointer is from the centre, compared with where the drag began. One edit when released.
import { clamp } from "../viewport.js";
import { GestureState } from "./gesture-state.js";

export class Resizing extends GestureState {
  static id = "resizing";

  onEnter({ event }) {
    this.ids = [...this.canvas.selection];
    this.centre = this.canvas.overlay.centreClient();
    this.startDistance = Math.max(8, Math.hypot(event.clientX - this.centre.x, event.clientY - this.centre.y));
    this.scale = 1;
    this.canvas.layer.lift(this.ids);
  }

  onPointerMove(event) {
    const distance = Math.hypot(event.clientX - this.centre.x, event.clientY - this.centre.y);
    this.scale = clamp(distance / this.startDistance, 1 / 64, 64);
    this.canvas.layer.showScale(this.scale);
    this.canvas.overlay.setFeedback({ scale: this.scale });
  }

  onPointerUp() {
    this.canvas.commitResize(this.ids, this.scale);
    this.transition("idle");
  }

  onCancel() {
    this.canvas.layer.drop();
    this.canvas.overlay.setFeedback(null);
    this.transition("idle");
  }
}
