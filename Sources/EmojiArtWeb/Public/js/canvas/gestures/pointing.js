// Pointing: pressed on an emoji or on empty canvas, not yet moved far enough to be a drag.
//
// Pressing an unselected emoji selects just it (so a drag moves it); with Shift, Ctrl or ⌘ it
// is added instead. Releasing without a drag then settles the click: a plain click on a selected
// emoji selects only it, a modified one takes it out, and a click on empty canvas clears the
// selection (unless modified). A drag from an emoji translates the selection; from empty canvas a
// mouse or pen brushes a marquee and a finger pans. Holding a finger still opens the context menu.
import { GestureState, isDrag } from "./gesture-state.js";

const LONG_PRESS_MS = 500;

export class Pointing extends GestureState {
  static id = "pointing";

  onEnter({ event, id }) {
    const canvas = this.canvas;
    this.start = { x: event.clientX, y: event.clientY };
    // What a long press's menu is about when the finger is on a locked emoji (its Unlock).
    this.lockedId = id === null ? canvas.emojiUnder(event, { locked: true }) : null;
    this.emojiId = id;
    this.pointerType = event.pointerType;
    this.modified = event.shiftKey || event.ctrlKey || event.metaKey;
    this.onRelease = null;
    if (id !== null) {
      const selected = canvas.selection.has(id);
      if (this.modified) {
        if (selected) this.onRelease = () => canvas.select([id], { toggle: true });
        else canvas.select([id]);
      } else if (!selected) {
        canvas.select([id], { replace: true });
      } else if (canvas.selection.size > 1) {
        this.onRelease = () => canvas.select([id], { replace: true });
      }
    }
    this.longPress = event.pointerType === "touch" ? setTimeout(() => this.pressedLong(), LONG_PRESS_MS) : 0;
  }

  onExit() {
    clearTimeout(this.longPress);
  }

  onPointerMove(event) {
    if (!isDrag(this.start, event)) return;
    const canvas = this.canvas;
    if (this.emojiId !== null && !canvas.readOnly) {
      this.transition("translating", { start: this.start, event });
    } else if (this.emojiId === null && this.pointerType !== "touch") {
      this.transition("brushing", { start: this.start, additive: this.modified, event });
    } else {
      this.transition("panning", { start: this.start, event });
    }
  }

  onPointerUp(event) {
    // Released far from the press with no move seen in between (a quick flick whose moves the
    // browser folded into the release): it was a drag all the same.
    if (isDrag(this.start, event)) {
      this.onPointerMove(event);
      this.machine.current.onPointerUp(event);
      return;
    }
    if (this.emojiId !== null) this.onRelease?.();
    else if (!this.modified) this.canvas.clearSelection();
    this.canvas.lastClickOn = this.emojiId === null ? "canvas" : "emoji";
    this.transition("idle");
  }

  onCancel() {
    this.transition("idle");
  }

  pressedLong() {
    const start = this.start;
    this.transition("idle"); // the rest of this touch does nothing
    if (this.lockedId !== null) this.canvas.clearSelection();
    this.canvas.handlers.contextMenu?.(start, { onEmoji: this.emojiId !== null || this.lockedId !== null, locked: this.lockedId });
  }
}
