// Translating: dragging the selection. The emojis follow the pointer on screen only; the move is
// one edit, sent when the pointer is released. The selection snaps to other emojis' edges and
// centres and to the background's centre, with guides drawn (./snapping.js); Alt turns it off.
import { boundsOf } from "../viewport.js";
import { SnapTargets } from "../snapping.js";
import { GestureState } from "./gesture-state.js";

const SNAP_PIXELS = 6; // screen px within which a line snaps

export class Translating extends GestureState {
  static id = "translating";

  onEnter({ start, event }) {
    const canvas = this.canvas;
    this.start = start;
    this.ids = [...canvas.selection];
    this.dx = 0;
    this.dy = 0;
    const moving = new Set(this.ids);
    this.bounds = boundsOf(canvas.selectedBoxes());
    // Targets are what can be seen: the emojis in the view and a view's width and height round it.
    const v = canvas.viewport.visibleWorldRect();
    const near = { left: v.left - v.width, top: v.top - v.height, right: v.left + 2 * v.width, bottom: v.top + 2 * v.height };
    this.targets = new SnapTargets(
      canvas.layer.boxesTouching(near).filter((box) => !moving.has(box.id)),
      canvas.background.box,
    );
    canvas.layer.lift(this.ids);
    this.onPointerMove(event);
  }

  onPointerMove(event) {
    const canvas = this.canvas;
    const zoom = canvas.viewport.zoom;
    // World offsets (y down) of the pointer, then snapped unless Alt is held.
    let dx = (event.clientX - this.start.x) / zoom;
    let dy = (event.clientY - this.start.y) / zoom;
    let guides = [];
    if (!event.altKey && this.bounds) ({ dx, dy, guides } = this.targets.snap(this.bounds, dx, dy, SNAP_PIXELS / zoom));
    this.dx = Math.round(dx);
    this.dy = -Math.round(dy);
    canvas.layer.showOffset(this.dx, this.dy);
    canvas.overlay.setFeedback({ dx: this.dx, dy: this.dy });
    canvas.overlay.showGuides(guides);
  }

  onPointerUp() {
    this.canvas.overlay.showGuides([]);
    this.canvas.commitMove(this.ids, this.dx, this.dy);
    this.transition("idle");
  }

  onCancel() {
    this.canvas.overlay.showGuides([]);
    this.canvas.layer.showOffset(0, 0);
    this.canvas.layer.drop();
    this.canvas.overlay.setFeedback(null);
    this.transition("idle");
  }
}
