// Rotating: dragging the selection's rotation handle turns the selection about its centre by the
// angle the pointer has swept. With Shift the turn snaps to 15° (one emoji: its rotation lands on
// a multiple of 15°). One step when released: the emojis' turns and, for several, their moves.
import { GestureState } from "./gesture-state.js";

const SNAP_DEGREES = 15;

export class Rotating extends GestureState {
  static id = "rotating";

  onEnter({ event }) {
    const canvas = this.canvas;
    this.ids = [...canvas.selection];
    this.centre = canvas.overlay.centreClient();
    this.pivot = canvas.viewport.worldPoint(this.centre.x, this.centre.y);
    this.start = this.angle(event);
    // One emoji snaps its own rotation; several snap the turn.
    this.base = this.ids.length === 1 ? canvas.layer.emojis.get(this.ids[0])?.rotation || 0 : 0;
    this.degrees = 0;
    canvas.layer.lift(this.ids);
  }

  angle(event) {
    return (Math.atan2(event.clientY - this.centre.y, event.clientX - this.centre.x) * 180) / Math.PI;
  }

  onPointerMove(event) {
    let degrees = Math.round(this.angle(event) - this.start);
    if (event.shiftKey) degrees = Math.round((this.base + degrees) / SNAP_DEGREES) * SNAP_DEGREES - this.base;
    degrees = ((degrees % 360) + 540) % 360 - 180; // −180…179: the short way round
    this.degrees = degrees;
    this.canvas.layer.showTurn(degrees, this.pivot);
    this.canvas.root.dataset.turn = String(degrees);
  }

  onPointerUp() {
    this.canvas.commitTurn(this.ids, this.degrees, this.pivot);
    this.finish();
  }

  onCancel() {
    this.canvas.layer.drop();
    this.finish();
  }

  finish() {
    delete this.canvas.root.dataset.turn;
    this.transition("idle");
  }
}
