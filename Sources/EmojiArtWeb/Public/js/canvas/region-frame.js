// Choosing a rectangle of the world by dragging, for a dialog that asks for one (the mosaic's
// "A region"). While a request is active, a press on the canvas drags a rectangle (the `framing`
// gesture state) instead of selecting or moving; a bar over the canvas says what to do and offers
// Cancel, as Escape does. Panning and zooming work as ever. The rectangle chosen can be shown as
// an outline in the world, which keeps its place and line width at any zoom.
import { el } from "../dom.js";

export class RegionFrame {
  /**
   * @param {HTMLElement} root the canvas element (the bar goes in it)
   * @param {HTMLElement} world the transformed element (the outline goes in it)
   */
  constructor(root, world) {
    this.root = root;
    this.request = null; // {chosen(worldRect), cancelled()} while active
    this.outline = el("div", { class: "region-outline", "aria-hidden": "true", hidden: true });
    world.append(this.outline);
    this.prompt = el("span", { class: "region-prompt" });
    this.cancelButton = el("button", { type: "button", class: "button small", text: "Cancel", on: { click: () => this.cancel() } });
    this.bar = el("div", { class: "region-bar canvas-overlay-ui", role: "status", hidden: true }, this.prompt, this.cancelButton);
    root.append(this.bar);
    // Escape with no gesture running (the canvas cancels a running one first) gives up choosing.
    document.addEventListener("keydown", (event) => {
      if (!this.request || event.key !== "Escape" || event.defaultPrevented) return;
      event.preventDefault();
      event.stopPropagation();
      this.cancel();
    }, { capture: true });
  }

  get active() {
    return this.request !== null;
  }

  /**
   * Asks for a rectangle: `chosen(rect)` gets each one dragged (world units, y down:
   * {left, top, right, bottom}) until `stop`; `cancelled()` when the user gives up.
   */
  start({ prompt, chosen, cancelled }) {
    this.request = { chosen, cancelled };
    this.say(prompt);
    this.bar.hidden = false;
    this.root.classList.add("framing");
  }

  /** Changes what the bar says (such as why the last rectangle won't do). */
  say(prompt) {
    this.prompt.textContent = prompt;
  }

  /** The framing gesture ended with `rect`. */
  chosen(rect) {
    this.request?.chosen(rect);
  }

  stop() {
    this.request = null;
    this.bar.hidden = true;
    this.root.classList.remove("framing");
  }

  cancel() {
    const request = this.request;
    this.stop();
    request?.cancelled();
  }

  /** Outlines the world rectangle {left, top, right, bottom}; null hides the outline. */
  show(rect) {
    this.outline.hidden = !rect;
    if (!rect) return;
    Object.assign(this.outline.style, {
      left: rect.left + "px", top: rect.top + "px", width: rect.right - rect.left + "px", height: rect.bottom - rect.top + "px",
    });
  }
}
