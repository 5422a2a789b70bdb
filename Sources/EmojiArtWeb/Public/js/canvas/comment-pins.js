// The comment threads' pins over the canvas: a numbered marker at the point each thread was put,
// or on the emoji it is about (following it as it moves, and staying where it last was if it is
// deleted), kept in place as the view pans and zooms. Clicking one opens its thread.
import { el } from "../dom.js";

export class CommentPins {
  /**
   * @param {HTMLElement} root the canvas element
   * @param {import("./viewport.js").Viewport} viewport
   * @param {import("./emoji-layer.js").EmojiLayer} layer where pinned emojis are now
   * @param {(id: string) => void} open opens a thread
   */
  constructor(root, viewport, layer, open) {
    this.viewport = viewport;
    this.layer = layer;
    this.container = el("div", { class: "comment-pins" });
    root.append(this.container);
    /** @type {Map<string, {thread: object, node: HTMLButtonElement}>} */
    this.pins = new Map();
    this.open = open;
    this.active = null;
    /** @type {Map<string, {x: number, y: number}>} where each thread's emoji was last drawn */
    this.lastSeen = new Map();
  }

  /** Shows the pins of `threads` (hidden ones left out); `active` is the thread open in the panel. */
  show(threads, { visible, active = null }) {
    this.container.hidden = !visible;
    this.active = active;
    const seen = new Set();
    for (const thread of threads) {
      seen.add(thread.id);
      let pin = this.pins.get(thread.id);
      if (!pin) {
        const node = el("button", {
          type: "button", class: "comment-pin canvas-overlay-ui", tabindex: "-1", dataset: { thread: thread.id },
          on: {
            pointerdown: (event) => event.stopPropagation(), // not the start of a drag on the canvas
            click: () => this.open(thread.id),
          },
        });
        pin = { thread, node };
        this.pins.set(thread.id, pin);
        this.container.append(node);
      }
      pin.thread = thread;
      const count = 1 + thread.replies.length;
      pin.node.textContent = String(count); // text, never markup
      pin.node.classList.toggle("resolved", thread.resolved);
      pin.node.classList.toggle("active", thread.id === active);
      const who = String(thread.author);
      pin.node.setAttribute("aria-label", `Comment by ${who}, ${count === 1 ? "no replies" : count - 1 + (count === 2 ? " reply" : " replies")}`);
      pin.node.title = `${who}: ${String(thread.text).slice(0, 80)}`;
      this.place(pin);
    }
    for (const [id, pin] of this.pins) {
      if (seen.has(id)) continue;
      pin.node.remove();
      this.pins.delete(id);
      this.lastSeen.delete(id);
    }
  }

  /** The view or the emojis changed: every pin goes where it belongs now. */
  placeAll() {
    if (this.container.hidden) return;
    for (const pin of this.pins.values()) this.place(pin);
  }

  /**
   * Where a thread's pin is, as a world point (y down): by its emoji's top right corner, clear of
   * the emoji; where this window last saw that emoji, once it is deleted; else where the server
   * says (the emoji's last place, from the document's history).
   */
  worldPoint(thread) {
    const box = thread.emojiId != null ? this.layer.box(thread.emojiId) : null;
    if (box) {
      const point = { x: box.cx + box.w / 2, y: box.cy - box.h / 2 };
      this.lastSeen.set(thread.id, point);
      return point;
    }
    return this.lastSeen.get(thread.id) ?? { x: thread.position.x, y: -thread.position.y };
  }

  place(pin) {
    const world = this.worldPoint(pin.thread);
    const at = this.viewport.screenPoint(world.x, world.y);
    pin.node.style.transform = `translate(${at.x}px, ${at.y}px)`;
  }
}
