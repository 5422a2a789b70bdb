// Framing: dragging a rectangle for a dialog that asked the canvas for one (../region-frame.js),
// drawn as the marquee. Nothing is selected; the rectangle goes to the request when released.
import { GestureState } from "./gesture-state.js";

export class Framing extends GestureState {
  static id = "framing";

  onEnter({ event }) {
    this.origin = this.canvas.viewport.worldPoint(event.clientX, event.clientY);
    this.rect = null;
    this.onPointerMove(event);
  }

  onPointerMove(event) {
    const { viewport, overlay } = this.canvas;
    const point = viewport.worldPoint(event.clientX, event.clientY);
    this.rect = {
      left: Math.min(this.origin.x, point.x),
      right: Math.max(this.origin.x, point.x),
      top: Math.min(this.origin.y, point.y),
      bottom: Math.max(this.origin.y, point.y),
    };
    overlay.showMarquee(viewport.screenPoint(this.origin.x, this.origin.y), viewport.screenPoint(point.x, point.y));
  }

  onPointerUp(event) {
    this.onPointerMove(event);
    this.canvas.overlay.showMarquee(null);
    const rect = this.rect;
    this.transition("idle");
    this.canvas.region.chosen(rect);
  }

  onCancel() {
    this.canvas.overlay.showMarquee(null);
    this.transition("idle");
  }
}
