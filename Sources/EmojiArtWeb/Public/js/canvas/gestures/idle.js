// Idle: nothing pressed. A press decides what the gesture may become (while a dialog asks for a
// rectangle, a drag frames one).
import { GestureState } from "./gesture-state.js";

export class Idle extends GestureState {
  static id = "idle";

  onPointerDown(event) {
    const canvas = this.canvas;
    if (event.button === 1 || canvas.spaceHeld) {
      this.transition("panning", { event });
    } else if (canvas.region.active) {
      this.transition("framing", { event }); // a dialog asked for a rectangle: nothing else happens
    } else if (event.target.closest(".resize-handle") && canvas.selection.size && !canvas.readOnly) {
      this.transition("resizing", { event });
    } else if (event.target.closest(".rotate-handle") && canvas.selection.size && !canvas.readOnly) {
      this.transition("rotating", { event });
    } else {
      // An emoji added offline (a negative, temporary id) is pressed like any other.
      const id = canvas.emojiUnder(event);
      this.transition("pointing", { event, id });
    }
  }
}
