// Gestures as explicit states, after tldraw's StateNode: the canvas is always in exactly one
// state (idle, pointing, translating, brushing, resizing, rotating, panning, pinching, framing);
// each state is a module with enter, pointer down/move/up and cancel handlers, and states change
// by name.

const DRAG_THRESHOLD = { mouse: 4, pen: 4, touch: 8 }; // screen px before a press becomes a drag

/** The distance a pointer event is from a start point {x, y} (client px). */
const distanceFrom = (start, event) => Math.hypot(event.clientX - start.x, event.clientY - start.y);

/** True once the pointer of `event` has moved far enough from `start` to be a drag. */
export const isDrag = (start, event) => distanceFrom(start, event) >= (DRAG_THRESHOLD[event.pointerType] ?? 4);

export class GestureState {
  /** The state's name, used by `transition`. */
  static id = "";

  /**
   * @param {GestureMachine} machine
   * @param {import("../canvas.js").CanvasView} canvas
   */
  constructor(machine, canvas) {
    this.machine = machine;
    this.canvas = canvas;
  }

  get id() {
    return this.constructor.id;
  }

  /** Entered with what the previous state knew (`info`). */
  onEnter(_info) {}
  onExit() {}
  onPointerDown(_event) {}
  onPointerMove(_event) {}
  onPointerUp(_event) {}
  /** The gesture is abandoned (Escape, a lost pointer, a second finger): undo its live feedback. */
  onCancel() {}

  transition(id, info = {}) {
    this.machine.transition(id, info);
  }
}

export class GestureMachine {
  /**
   * @param {import("../canvas.js").CanvasView} canvas
   * @param {Array<typeof GestureState>} states; the one named "idle" is the first
   */
  constructor(canvas, states) {
    this.canvas = canvas;
    this.states = new Map(states.map((State) => [State.id, new State(this, canvas)]));
    this.current = this.states.get("idle");
    canvas.root.dataset.gesture = "idle";
  }

  transition(id, info = {}) {
    const next = this.states.get(id);
    if (!next) throw new Error("no gesture state " + id);
    this.current.onExit();
    this.current = next;
    this.canvas.root.dataset.gesture = id;
    next.onEnter(info);
  }

  /** Abandons the running gesture, if any. */
  cancel() {
    if (this.current.id !== "idle") this.current.onCancel();
  }
}
