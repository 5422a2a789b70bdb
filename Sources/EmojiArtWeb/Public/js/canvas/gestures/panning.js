// Panning: the view follows the pointer (Space+drag, middle-button drag, a finger on empty canvas,
// or any drag where the document can't be changed). The scene's canvas moves with the view and is
// drawn again only when the view outruns it.
import { GestureState } from "./gesture-state.js";

export class Panning extends GestureState {
  static id = "panning";

  onEnter({ start, event }) {
    const viewport = this.canvas.viewport;
    this.start = start ?? { x: event.clientX, y: event.clientY };
    this.pan = { x: viewport.panX, y: viewport.panY };
    this.canvas.layer.beginViewGesture();
    if (event) this.onPointerMove(event);
  }

  onPointerMove(event) {
    this.canvas.viewport.set(
      { panX: this.pan.x + event.clientX - this.start.x, panY: this.pan.y + event.clientY - this.start.y },
      { notify: false },
    );
  }

  onPointerUp() {
    this.onCancel();
  }

  /** A pan is kept where it got to, whatever ended it. */
  onCancel() {
    this.canvas.layer.endViewGesture();
    this.canvas.viewport.finished();
    this.transition("idle");
  }
}
