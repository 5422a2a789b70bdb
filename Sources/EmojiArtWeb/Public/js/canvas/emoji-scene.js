// The scene: the emojis drawn into one canvas that covers the visible part of the world and a
// margin round it, below it a second canvas with the marks on them (selected, not yet saved).
// Both live in the world element, so panning and zooming move them with everything else; they
// are drawn again when the view leaves what they cover, when the zoom has changed by half or
// double (or at all, once the view is still), and where the document changed. What is drawn is
// found through the spatial index: only the emojis in the area, in drawing order.
//
// Drawing a whole area is a job spread over frames, a few milliseconds each, so a frame never
// waits for 50,000 emojis: it draws into a second canvas, the visible part first, while the
// first stays on screen, and the two swap when it is done. Only the very first drawing, with
// nothing yet on screen, draws the visible part at once and shows it before the margin.
import { EMOJI_WIDTH } from "./emoji-geometry.js";

const MARGIN = 0.5; // the area covers the view plus this fraction of it on each side
// Drawn by the CPU: tens of thousands of small image copies are faster there than through the
// GPU's command stream, and the canvas changes only when the view outruns it.
const CPU_CANVAS = { willReadFrequently: true };
const MAX_PIXELS = 12_000_000; // a canvas's pixels at most (about 48 MB): the resolution gives way first
const CHECK_EVERY = 64; // emojis drawn between looks at the clock

export class EmojiScene {
  /**
   * @param {HTMLElement} before the element the canvases go in front of (inside the world)
   * @param {import("./sprites.js").Sprites} sprites
   */
  constructor(before, sprites) {
    this.sprites = sprites;
    this.marks = document.createElement("canvas");
    this.marks.className = "scene-marks";
    this.canvas = this.makeCanvas(); // on screen
    this.back = this.makeCanvas(); // where a job draws until its visible part is done
    this.marks.setAttribute("aria-hidden", "true");
    before.before(this.marks, this.canvas);
    this.area = null; // what the canvas on screen covers: {left, top, right, bottom, zoom, scale} (world units; scale: pixels per unit)
    this.job = null; // the whole-area drawing under way (see draw)
    this.draws = 0; // whole areas whose visible part is on screen (tests and benchmarks read data-draws)
  }

  makeCanvas() {
    const canvas = document.createElement("canvas");
    canvas.className = "scene";
    canvas.setAttribute("aria-hidden", "true");
    return canvas;
  }

  /** True when the area drawn (or being drawn) holds the visible world rectangle, drawn at about `zoom`. */
  covers(visible, zoom, exactly = false) {
    const a = this.job?.area ?? this.area;
    if (!a) return false;
    if (exactly ? a.zoom !== zoom : zoom > a.zoom * 2 || zoom < a.zoom / 2) return false;
    return visible.left >= a.left && visible.top >= a.top && visible.left + visible.width <= a.right && visible.top + visible.height <= a.bottom;
  }

  /**
   * Starts drawing every emoji of `index` around the `visible` world rectangle at `zoom`; `work`
   * carries it out. Any drawing under way is abandoned.
   */
  draw(index, visible, zoom) {
    const left = visible.left - visible.width * MARGIN;
    const top = visible.top - visible.height * MARGIN;
    const width = visible.width * (1 + 2 * MARGIN);
    const height = visible.height * (1 + 2 * MARGIN);
    let scale = zoom * Math.min(2, window.devicePixelRatio || 1);
    scale = Math.min(scale, Math.sqrt(MAX_PIXELS / Math.max(1, width * height * scale * scale)) * scale);
    const area = { left, top, right: left + width, bottom: top + height, zoom, scale };
    // Pixel-aligned world edges, so the parts drawn one after another meet without seams.
    const snap = (x, origin) => origin + Math.round((x - origin) * scale) / scale;
    const v = {
      left: snap(visible.left, left), top: snap(visible.top, top),
      right: snap(visible.left + visible.width, left), bottom: snap(visible.top + visible.height, top),
    };
    const parts = [
      v,
      { left, top, right: area.right, bottom: v.top },
      { left, top: v.bottom, right: area.right, bottom: area.bottom },
      { left, top: v.top, right: v.left, bottom: v.bottom },
      { left: v.right, top: v.top, right: area.right, bottom: v.bottom },
    ];
    const canvas = this.back;
    const pixelWidth = Math.max(1, Math.round(width * scale));
    const pixelHeight = Math.max(1, Math.round(height * scale));
    if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) Object.assign(canvas, { width: pixelWidth, height: pixelHeight });
    Object.assign(canvas.style, { left: left + "px", top: top + "px", width: width + "px", height: height + "px" });
    this.context(canvas, area).clearRect(left, top, width, height);
    // The first drawing shows its visible part as soon as it is done; later ones swap once whole,
    // since a canvas on screen that changes is sent to the compositor again on every frame.
    this.job = { index, area, parts, part: 0, positions: null, next: 0, swapAfter: this.area ? parts.length : 1 };
  }

  /**
   * Draws on with the job under way for about `budget` ms (the first drawing's visible part
   * whatever it takes), the emojis `hidden` left out. Returns {swapped, more}: whether the
   * canvas on screen changed, and whether there is more to draw.
   */
  work(budget, hidden) {
    const job = this.job;
    if (!job) return { swapped: false, more: false };
    const deadline = performance.now() + (this.area ? budget : Infinity);
    const canvas = job.part >= job.swapAfter ? this.canvas : this.back;
    const context = this.context(canvas, job.area);
    let swapped = false;
    while (job.part < job.parts.length) {
      const part = job.parts[job.part];
      job.positions ??= part.right > part.left && part.bottom > part.top ? job.index.query(part) : [];
      context.save();
      context.beginPath();
      context.rect(part.left, part.top, part.right - part.left, part.bottom - part.top);
      context.clip();
      const positions = job.positions;
      let k = job.next;
      while (k < positions.length) {
        const emoji = job.index.emojis[positions[k++]];
        if (!hidden?.has(emoji.id)) this.drawEmoji(context, emoji, emoji.x, -emoji.y, 1, emoji.rotation || 0, job.area.scale);
        if (k % CHECK_EVERY === 0 && performance.now() > deadline) break;
      }
      context.restore();
      job.next = k;
      if (k < positions.length) break;
      Object.assign(job, { part: job.part + 1, positions: null, next: 0 });
      if (job.part === job.swapAfter) {
        this.swap(job.area);
        swapped = true;
        if (performance.now() > deadline) break;
        return { swapped, more: this.work(Math.max(0, deadline - performance.now()), hidden).more };
      }
      if (performance.now() > deadline) break;
    }
    if (job.part >= job.parts.length) this.job = null;
    return { swapped, more: Boolean(this.job) };
  }

  /** Puts the canvas the job drew the visible part into on screen. */
  swap(area) {
    const shown = this.canvas;
    shown.replaceWith(this.back);
    this.canvas = this.back;
    this.back = shown;
    this.area = area;
    Object.assign(this.marks.style, {
      left: this.canvas.style.left, top: this.canvas.style.top, width: this.canvas.style.width, height: this.canvas.style.height,
    });
    this.draws += 1;
    this.canvas.dataset.draws = String(this.draws);
  }

  /** Draws again only where the world rectangles `rects` are: a few emojis changed. */
  redraw(index, rects, hidden) {
    const job = this.job;
    if (job) {
      // The job may have drawn them as they were: its part under way starts again from clear
      // (the parts done are on screen now, where the rectangles are drawn again below).
      const swapped = job.part >= job.swapAfter;
      const part = swapped ? job.parts[job.part] : job.area;
      this.context(swapped ? this.canvas : this.back, job.area).clearRect(part.left, part.top, part.right - part.left, part.bottom - part.top);
      Object.assign(job, { index, positions: null, next: 0, part: swapped ? job.part : 0 });
    }
    if (!this.area) return;
    const context = this.context(this.canvas, this.area);
    const grow = 2 / this.area.scale; // anti-aliased edges reach a pixel or so beyond a box
    for (const rect of rects) {
      const r = { left: rect.left - grow, top: rect.top - grow, right: rect.right + grow, bottom: rect.bottom + grow };
      if (r.right < this.area.left || r.left > this.area.right || r.bottom < this.area.top || r.top > this.area.bottom) continue;
      context.save();
      context.beginPath();
      context.rect(r.left, r.top, r.right - r.left, r.bottom - r.top);
      context.clip();
      context.clearRect(r.left, r.top, r.right - r.left, r.bottom - r.top);
      this.drawEmojis(context, index, index.query(r), hidden);
      context.restore();
    }
  }

  context(canvas, { left, top, scale }) {
    const context = canvas.getContext("2d", CPU_CANVAS);
    context.setTransform(scale, 0, 0, scale, -left * scale, -top * scale);
    context.imageSmoothingQuality = "low"; // sprites are at most twice the size drawn: no mipmaps needed
    return context;
  }

  drawEmojis(context, index, positions, hidden) {
    const scale = this.area.scale;
    for (const i of positions) {
      const emoji = index.emojis[i];
      if (hidden?.has(emoji.id)) continue;
      this.drawEmoji(context, emoji, emoji.x, -emoji.y, 1, emoji.rotation || 0, scale);
    }
  }

  /** Draws `emoji` centred on world (x, y), `scaleBy` its size, turned `rotation` degrees, at `scale` pixels per unit. */
  drawEmoji(context, emoji, x, y, scaleBy, rotation, scale) {
    const h = emoji.size * scaleBy;
    const w = h * EMOJI_WIDTH;
    const sprite = this.sprites.get(emoji.text, h * scale);
    if (emoji.pending) context.globalAlpha = 0.55;
    if (rotation) {
      context.save();
      context.translate(x, y);
      context.rotate((rotation * Math.PI) / 180);
      if (sprite) context.drawImage(sprite, -w / 2, -h / 2, w, h);
      else this.sprites.fillText(context, emoji.text, 0, 0, h);
      context.restore();
    } else if (sprite) {
      context.drawImage(sprite, x - w / 2, y - h / 2, w, h);
    } else {
      this.sprites.fillText(context, emoji.text, x, y, h);
    }
    if (emoji.pending) context.globalAlpha = 1;
  }

  /**
   * Draws the marks: a tint and outline on each of `selected`, a dashed outline on each of
   * `pending` (emojis, not ids); `colours` {accent, soft, pending} from the page's theme.
   */
  drawMarks(selected, pending, colours) {
    const marks = this.marks;
    if (!this.area || (!selected.length && !pending.length)) {
      if (marks.width) Object.assign(marks, { width: 0, height: 0 });
      return;
    }
    if (marks.width !== this.canvas.width || marks.height !== this.canvas.height) {
      Object.assign(marks, { width: this.canvas.width, height: this.canvas.height });
    }
    const { left, top, right, bottom, scale, zoom } = this.area;
    const context = marks.getContext("2d");
    context.setTransform(scale, 0, 0, scale, -left * scale, -top * scale);
    context.clearRect(left, top, right - left, bottom - top);
    const outline = (emoji, stroke, dash) => {
      const h = emoji.size;
      const w = h * EMOJI_WIDTH;
      const reach = Math.hypot(w, h) / 2;
      if (emoji.x + reach < left || emoji.x - reach > right || -emoji.y + reach < top || -emoji.y - reach > bottom) return;
      context.save();
      context.translate(emoji.x, -emoji.y);
      if (emoji.rotation) context.rotate((emoji.rotation * Math.PI) / 180);
      context.beginPath();
      context.roundRect(-w / 2, -h / 2, w, h, Math.min(4, h / 4));
      if (!dash) {
        context.fillStyle = colours.soft;
        context.fill();
      }
      context.setLineDash(dash ? [4 / zoom, 3 / zoom] : []);
      context.lineWidth = 1.5 / zoom;
      context.strokeStyle = stroke;
      context.stroke();
      context.restore();
    };
    for (const emoji of pending) outline(emoji, colours.pending, true);
    for (const emoji of selected) outline(emoji, colours.accent, false);
  }
}
