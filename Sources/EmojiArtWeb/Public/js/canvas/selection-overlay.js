// The selection overlay: drawn over the world in screen pixels, so its lines and handles keep
// their size at any zoom — the box around the selection with its handles, the marquee while
// brushing, and the alignment guides while moving.

const PAD = 4; // screen px between the selection and its box

export class SelectionOverlay {
  /**
   * @param {HTMLElement} root the canvas element (holds .selection-box and .marquee)
   * @param {import("./viewport.js").Viewport} viewport
   */
  constructor(root, viewport) {
    this.viewport = viewport;
    this.box = root.querySelector(".selection-box");
    this.marquee = root.querySelector(".marquee");
    this.root = root;
    this.guides = []; // the guide elements shown
    this.boxes = []; // world boxes of the selected emojis: {id, cx, cy, w, h}
    this.feedback = null; // a gesture's live change to the selection: {dx, dy, scale}
  }

  /** The selection changed: `boxes` are the selected emojis' world boxes. */
  setBoxes(boxes) {
    this.boxes = boxes;
    this.place();
  }

  /** Follows a gesture's live move (dx, dy in document points, y up) or scale; null ends it. */
  setFeedback(feedback) {
    this.feedback = feedback;
    this.place();
  }

  place() {
    if (!this.boxes.length) {
      this.box.hidden = true;
      return;
    }
    const f = this.feedback;
    const scale = f?.scale ?? 1;
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const box of this.boxes) {
      // The feedback applies to the whole selection.
      const cx = box.cx + (f?.dx || 0);
      const cy = box.cy - (f?.dy || 0);
      const s = scale;
      left = Math.min(left, cx - (box.w * s) / 2);
      right = Math.max(right, cx + (box.w * s) / 2);
      top = Math.min(top, cy - (box.h * s) / 2);
      bottom = Math.max(bottom, cy + (box.h * s) / 2);
    }
    const topLeft = this.viewport.screenPoint(left, top);
    const zoom = this.viewport.zoom;
    this.box.hidden = false;
    this.box.style.left = topLeft.x - PAD + "px";
    this.box.style.top = topLeft.y - PAD + "px";
    this.box.style.width = (right - left) * zoom + 2 * PAD + "px";
    this.box.style.height = (bottom - top) * zoom + 2 * PAD + "px";
  }

  /** The selection box's centre in client coordinates. */
  centreClient() {
    const rect = this.box.getBoundingClientRect();
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }

  /** Draws the marquee between two points in the canvas element's pixels; null hides it. */
  showMarquee(from, to) {
    if (!from) {
      this.marquee.hidden = true;
      return;
    }
    this.marquee.hidden = false;
    this.marquee.style.left = Math.min(from.x, to.x) + "px";
    this.marquee.style.top = Math.min(from.y, to.y) + "px";
    this.marquee.style.width = Math.abs(to.x - from.x) + "px";
    this.marquee.style.height = Math.abs(to.y - from.y) + "px";
  }

  /** Draws alignment guides ({axis: "x" | "y", value, from, to} in world units); [] hides them. */
  showGuides(lines) {
    while (this.guides.length > lines.length) this.guides.pop().remove();
    while (this.guides.length < lines.length) {
      const guide = document.createElement("div");
      guide.className = "guide";
      guide.setAttribute("aria-hidden", "true");
      this.root.append(guide);
      this.guides.push(guide);
    }
    lines.forEach((line, index) => {
      const guide = this.guides[index];
      const vertical = line.axis === "x";
      const a = vertical ? this.viewport.screenPoint(line.value, line.from) : this.viewport.screenPoint(line.from, line.value);
      const b = vertical ? this.viewport.screenPoint(line.value, line.to) : this.viewport.screenPoint(line.to, line.value);
      guide.dataset.axis = line.axis;
      Object.assign(guide.style, {
        left: Math.min(a.x, b.x) + "px",
        top: Math.min(a.y, b.y) + "px",
        width: vertical ? "0" : Math.abs(b.x - a.x) + "px",
        height: vertical ? Math.abs(b.y - a.y) + "px" : "0",
      });
    });
  }
}
