// The emoji layer: one element per emoji inside the world, kept in the document's drawing order,
// plus the bitmap that stands in for them while a big document is panned or zoomed. For the
// keyboard and screen readers the layer is a multi-select listbox: each emoji is an option with
// a label ("🐶 dog face at 120, −40, size 64"), and one of them at a time is in the tab order
// (a roving tabindex).
//
// The emojis are grid items stacked in one cell and placed by their margins rather than
// absolutely positioned or transformed: Chrome gives every positioned or transformed element its
// own paint layer, and 5,000 of those make each frame slow. An emoji's element is EMOJI_WIDTH em
// wide and 1 em high, centred on the emoji's point, so its box follows from the document alone.

import { emojiLabel } from "./emoji-label.js";

export const EMOJI_WIDTH = 1.25; // em: an emoji glyph's advance is about 1.0–1.25 em in the common emoji fonts
const SNAPSHOT_MIN_EMOJIS = 300; // below this, pan and zoom move the elements themselves
const SNAPSHOT_MARGIN = 0.5; // the snapshot covers the view plus this fraction of it on each side
const SPRITE_SIZE = 128; // px: the font size emoji sprites are drawn at

/**
 * An emoji's box in world coordinates (y down): centre, width, height — of the upright emoji
 * turned by its rotation, so a turned emoji's box holds its corners.
 */
export function emojiBox(emoji) {
  const w = emoji.size * EMOJI_WIDTH;
  const h = emoji.size;
  const rotation = emoji.rotation || 0;
  if (!rotation) return { cx: emoji.x, cy: -emoji.y, w, h };
  const radians = (rotation * Math.PI) / 180;
  const cos = Math.abs(Math.cos(radians));
  const sin = Math.abs(Math.sin(radians));
  return { cx: emoji.x, cy: -emoji.y, w: w * cos + h * sin, h: w * sin + h * cos };
}

/** Where a world point (x, y) goes when turned `degrees` clockwise about `pivot` (world, y down). */
export function turnedPoint(x, y, pivot, degrees) {
  const radians = (degrees * Math.PI) / 180;
  const dx = x - pivot.x;
  const dy = y - pivot.y;
  return { x: pivot.x + dx * Math.cos(radians) - dy * Math.sin(radians), y: pivot.y + dx * Math.sin(radians) + dy * Math.cos(radians) };
}

export class EmojiLayer {
  /**
   * @param {HTMLElement} layer the element holding the emojis
   * @param {HTMLElement} world the transformed element the snapshot canvas goes in
   * @param {import("./viewport.js").Viewport} viewport
   */
  constructor(layer, world, viewport) {
    this.layer = layer;
    this.viewport = viewport;
    /** @type {Map<number, HTMLElement>} */
    this.elements = new Map();
    /** @type {Map<number, object>} the rendered emojis by id */
    this.emojis = new Map();
    this.order = []; // the rendered emojis in drawing order
    this.snapshot = null; // while panning or zooming a big document: {left, top, width, height, zoom}
    this.sprites = new Map(); // emoji text → a canvas with it drawn at SPRITE_SIZE
    this.activeId = null; // the emoji in the tab order
    this.lifted = null; // the emojis a gesture works on, and how they are shown (see lift)
    this.snapshotCanvas = document.createElement("canvas");
    this.snapshotCanvas.className = "snapshot";
    this.snapshotCanvas.hidden = true;
    world.append(this.snapshotCanvas);
  }

  /** Draws `emojis` (in drawing order), changing only what changed. */
  render(emojis) {
    this.order = emojis;
    const seen = new Set();
    let cursor = this.layer.firstChild;
    for (const emoji of emojis) {
      seen.add(emoji.id);
      let element = this.elements.get(emoji.id);
      const old = this.emojis.get(emoji.id);
      if (!element) {
        element = document.createElement("span");
        element.className = "emoji";
        element.dataset.id = String(emoji.id);
        element.setAttribute("role", "option");
        element.setAttribute("aria-selected", "false");
        element.tabIndex = -1;
        this.elements.set(emoji.id, element);
      }
      if (!old || old.text !== emoji.text || old.x !== emoji.x || old.y !== emoji.y || old.size !== emoji.size || old.rotation !== emoji.rotation) {
        element.setAttribute("aria-label", emojiLabel(emoji));
      }
      if (!old || old.text !== emoji.text) element.textContent = emoji.text;
      if (!old || old.size !== emoji.size) element.style.fontSize = emoji.size + "px";
      if (!old || old.x !== emoji.x || old.size !== emoji.size) {
        element.style.marginLeft = emoji.x - (EMOJI_WIDTH / 2) * emoji.size + "px";
      }
      if (!old || old.y !== emoji.y || old.size !== emoji.size) element.style.marginTop = -emoji.y - emoji.size / 2 + "px";
      if ((old?.rotation || 0) !== (emoji.rotation || 0)) element.style.rotate = emoji.rotation ? emoji.rotation + "deg" : "";
      if (Boolean(old?.pending) !== Boolean(emoji.pending)) element.classList.toggle("pending", Boolean(emoji.pending));
      this.emojis.set(emoji.id, emoji);
      if (element !== cursor) this.layer.insertBefore(element, cursor);
      else cursor = cursor.nextSibling;
    }
    let focusLost = false;
    for (const [id, element] of this.elements) {
      if (!seen.has(id)) {
        if (element === document.activeElement) focusLost = true;
        element.remove();
        this.elements.delete(id);
        this.emojis.delete(id);
      }
    }
    if (this.snapshot) this.drawSnapshot();
    else if (emojis.length >= SNAPSHOT_MIN_EMOJIS) this.prepareSprites();
    // A listbox must hold options: without emojis the layer is just an element.
    if (emojis.length && this.layer.getAttribute("role") !== "listbox") this.layer.setAttribute("role", "listbox");
    else if (!emojis.length && this.layer.hasAttribute("role")) this.layer.removeAttribute("role");
    if (!this.emojis.has(this.activeId)) this.setActive(emojis.find((emoji) => emoji.id >= 0)?.id ?? null);
    // The focused emoji went (deleted): the keyboard carries on from the one now in the tab order.
    if (focusLost) (this.elements.get(this.activeId) ?? this.layer.closest("[tabindex='0']"))?.focus({ preventScroll: true });
  }

  /** Puts emoji `id` (or none) in the tab order: Tab from the canvas reaches it. */
  setActive(id) {
    if (id === this.activeId && (id === null || this.elements.get(id)?.tabIndex === 0)) return;
    const previous = this.elements.get(this.activeId);
    if (previous) previous.tabIndex = -1;
    this.activeId = id;
    const element = this.elements.get(id);
    if (element) element.tabIndex = 0;
  }

  /** Moves the keyboard focus to emoji `id`. */
  focus(id) {
    this.setActive(id);
    this.elements.get(id)?.focus({ preventScroll: true });
  }

  has(id) {
    return this.emojis.has(id);
  }

  /** The world box of emoji `id` as the document has it (no live feedback), or null. */
  box(id) {
    const emoji = this.emojis.get(id);
    return emoji ? { id, ...emojiBox(emoji) } : null;
  }

  /** The ids of the emojis whose boxes touch the world rectangle {left, top, right, bottom}. */
  idsTouching(rect) {
    const ids = [];
    for (const emoji of this.order) {
      const b = emojiBox(emoji);
      if (b.cx + b.w / 2 >= rect.left && b.cx - b.w / 2 <= rect.right && b.cy + b.h / 2 >= rect.top && b.cy - b.h / 2 <= rect.bottom) {
        ids.push(emoji.id);
      }
    }
    return ids;
  }

  markSelected(selection) {
    for (const [id, element] of this.elements) {
      const selected = selection.has(id);
      if (element.classList.contains("selected") !== selected) {
        element.classList.toggle("selected", selected);
        element.setAttribute("aria-selected", String(selected));
      }
    }
  }

  /**
   * The nearest emoji from `id` in a direction ("left", "right", "up", "down" on screen): among
   * those whose centre lies that way, the one closest, counting sideways distance double.
   */
  neighbour(id, direction) {
    const from = this.emojis.get(id);
    if (!from) return null;
    let best = null;
    let bestScore = Infinity;
    for (const emoji of this.order) {
      if (emoji.id === id || emoji.id < 0) continue;
      const dx = emoji.x - from.x;
      const dy = from.y - emoji.y; // screen y grows downwards
      const along = { left: -dx, right: dx, up: -dy, down: dy }[direction];
      const across = direction === "left" || direction === "right" ? Math.abs(dy) : Math.abs(dx);
      if (along <= 0) continue;
      const score = along + 2 * across;
      if (score < bestScore) {
        bestScore = score;
        best = emoji.id;
      }
    }
    return best;
  }

  // MARK: - Live feedback while a gesture runs (the document changes only when it ends)
  //
  // A gesture first lifts the emojis it works on, shows them moved, scaled or turned while it
  // runs, and drops them when it ends (or when the server's answer is drawn). In a small
  // document the lifted elements themselves are styled. In a big one, restyling thousands of
  // glyphs would repaint them all on every frame, so the layer is replaced for the gesture by
  // two bitmaps: the snapshot of the emojis that stay, and one of the lifted emojis, which a
  // move only shifts and a resize or turn redraws from the emojis' sprites.

  /** Lifts the emojis `ids` for a gesture's feedback. */
  lift(ids) {
    this.drop();
    const lifted = { ids: ids.filter((id) => this.emojis.has(id)), dx: 0, dy: 0, scale: 1, degrees: 0, pivot: null };
    this.lifted = lifted;
    if (this.order.length < SNAPSHOT_MIN_EMOJIS) return;
    lifted.bitmap = document.createElement("canvas");
    lifted.bitmap.className = "snapshot lifted";
    this.snapshotCanvas.after(lifted.bitmap);
    const set = new Set(lifted.ids);
    this.beginSnapshot((emoji) => !set.has(emoji.id));
    this.drawLifted();
  }

  /** Shows the lifted emojis moved by (dx, dy) document points (y up). */
  showOffset(dx, dy) {
    const lifted = this.lifted;
    if (!lifted) return;
    Object.assign(lifted, { dx, dy });
    if (lifted.bitmap) {
      lifted.bitmap.style.transform = dx || dy ? `translate(${dx}px, ${-dy}px)` : "";
      return;
    }
    for (const id of lifted.ids) {
      const element = this.elements.get(id);
      if (element) element.style.translate = dx || dy ? `${dx}px ${-dy}px` : "";
    }
  }

  /** Shows each lifted emoji scaled about its own centre. */
  showScale(scale) {
    const lifted = this.lifted;
    if (!lifted) return;
    lifted.scale = scale;
    if (lifted.bitmap) return this.drawLifted();
    for (const id of lifted.ids) {
      const element = this.elements.get(id);
      if (element) element.style.scale = scale === 1 ? "" : String(scale);
    }
  }

  /**
   * Shows the lifted emojis turned `degrees` more, each about its own centre, their centres
   * turned about `pivot` (world, y down).
   */
  showTurn(degrees, pivot) {
    const lifted = this.lifted;
    if (!lifted) return;
    Object.assign(lifted, { degrees, pivot });
    if (lifted.bitmap) return this.drawLifted();
    for (const id of lifted.ids) {
      const element = this.elements.get(id);
      const emoji = this.emojis.get(id);
      if (!element || !emoji) continue;
      const moved = degrees ? turnedPoint(emoji.x, -emoji.y, pivot, degrees) : { x: emoji.x, y: -emoji.y };
      element.style.translate = degrees ? `${moved.x - emoji.x}px ${moved.y + emoji.y}px` : "";
      element.style.rotate = (emoji.rotation || 0) + degrees ? (emoji.rotation || 0) + degrees + "deg" : "";
    }
  }

  /** Ends the feedback: the emojis show as the document has them. */
  drop() {
    const lifted = this.lifted;
    if (!lifted) return;
    this.lifted = null;
    if (lifted.bitmap) {
      lifted.bitmap.remove();
      this.endSnapshot();
      return;
    }
    for (const id of lifted.ids) {
      const element = this.elements.get(id);
      const emoji = this.emojis.get(id);
      if (!element) continue;
      element.style.translate = "";
      element.style.scale = "";
      element.style.rotate = emoji?.rotation ? emoji.rotation + "deg" : "";
    }
  }

  /** Draws the lifted emojis, scaled and turned as shown now, into their bitmap. */
  drawLifted() {
    const { ids, scale, degrees, pivot, bitmap } = this.lifted;
    const placed = [];
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const id of ids) {
      const emoji = this.emojis.get(id);
      if (!emoji) continue;
      const centre = degrees ? turnedPoint(emoji.x, -emoji.y, pivot, degrees) : { x: emoji.x, y: -emoji.y };
      const w = emoji.size * EMOJI_WIDTH * scale;
      const h = emoji.size * scale;
      const reach = (degrees || emoji.rotation ? Math.hypot(w, h) : Math.max(w, h)) / 2;
      left = Math.min(left, centre.x - reach);
      right = Math.max(right, centre.x + reach);
      top = Math.min(top, centre.y - reach);
      bottom = Math.max(bottom, centre.y + reach);
      placed.push({ emoji, centre, w, h, rotation: (emoji.rotation || 0) + degrees });
    }
    if (!placed.length) return;
    const zoom = this.viewport.zoom * Math.min(2, window.devicePixelRatio || 1); // canvas pixels per world unit
    const limit = 4096 / Math.max(right - left, bottom - top); // keep the bitmap a sane size
    const ratio = Math.min(zoom, limit);
    bitmap.width = Math.max(1, Math.ceil((right - left) * ratio));
    bitmap.height = Math.max(1, Math.ceil((bottom - top) * ratio));
    Object.assign(bitmap.style, { left: left + "px", top: top + "px", width: right - left + "px", height: bottom - top + "px" });
    const context = bitmap.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, -left * ratio, -top * ratio);
    context.imageSmoothingQuality = "medium";
    for (const { emoji, centre, w, h, rotation } of placed) {
      if (rotation) {
        context.save();
        context.translate(centre.x, centre.y);
        context.rotate((rotation * Math.PI) / 180);
        context.drawImage(this.sprite(emoji.text), -w / 2, -h / 2, w, h);
        context.restore();
      } else {
        context.drawImage(this.sprite(emoji.text), centre.x - w / 2, centre.y - h / 2, w, h);
      }
    }
  }

  // MARK: - Snapshot: a bitmap of the emojis that moves while panning or zooming
  //
  // Moving thousands of emoji elements makes the browser repaint every glyph on every frame (and
  // glyphs of many sizes thrash its glyph cache). During a pan or zoom gesture on a big document
  // the emoji layer is hidden and one canvas, drawn from per-emoji sprites, moves instead.

  /** Shows the bitmap instead of the elements; `include` picks the emojis it draws (default: all). */
  beginSnapshot(include = null) {
    if (this.snapshot || this.order.length < SNAPSHOT_MIN_EMOJIS) return;
    this.snapshot = { include };
    this.drawSnapshot();
    this.layer.style.contentVisibility = "hidden";
    this.snapshotCanvas.hidden = false;
  }

  endSnapshot() {
    if (!this.snapshot || this.lifted?.bitmap) return; // a gesture's bitmaps stay until it drops them
    this.snapshot = null;
    this.layer.style.contentVisibility = "";
    this.snapshotCanvas.hidden = true;
  }

  /** The view moved: redraw the snapshot when it no longer covers what is visible. */
  viewApplied() {
    if (this.snapshot && !this.snapshotCovers()) this.drawSnapshot();
  }

  snapshotCovers() {
    const s = this.snapshot;
    const zoom = this.viewport.zoom;
    if (!s || !s.width) return false;
    if (zoom > s.zoom * 2 || zoom < s.zoom / 2) return false;
    const v = this.viewport.visibleWorldRect();
    return v.left >= s.left && v.top >= s.top && v.left + v.width <= s.left + s.width && v.top + v.height <= s.top + s.height;
  }

  drawSnapshot() {
    const visible = this.viewport.visibleWorldRect();
    const left = visible.left - visible.width * SNAPSHOT_MARGIN;
    const top = visible.top - visible.height * SNAPSHOT_MARGIN;
    const width = visible.width * (1 + 2 * SNAPSHOT_MARGIN);
    const height = visible.height * (1 + 2 * SNAPSHOT_MARGIN);
    const ratio = Math.min(2, window.devicePixelRatio || 1);
    const scale = this.viewport.zoom * ratio; // canvas pixels per world unit
    const canvas = this.snapshotCanvas;
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    Object.assign(canvas.style, { left: left + "px", top: top + "px", width: width + "px", height: height + "px" });
    const context = canvas.getContext("2d");
    context.setTransform(scale, 0, 0, scale, -left * scale, -top * scale);
    context.imageSmoothingQuality = "medium";
    const right = left + width;
    const bottom = top + height;
    const include = this.snapshot.include;
    for (const emoji of this.order) {
      const w = emoji.size * EMOJI_WIDTH;
      const h = emoji.size;
      const x = emoji.x - w / 2;
      const y = -emoji.y - h / 2;
      if (x > right || y > bottom || x + w < left || y + h < top) continue;
      if (include && !include(emoji)) continue;
      if (emoji.rotation) {
        context.save();
        context.translate(emoji.x, -emoji.y);
        context.rotate((emoji.rotation * Math.PI) / 180);
        context.drawImage(this.sprite(emoji.text), -w / 2, -h / 2, w, h);
        context.restore();
      } else {
        context.drawImage(this.sprite(emoji.text), x, y, w, h);
      }
    }
    Object.assign(this.snapshot, { left, top, width, height, zoom: this.viewport.zoom });
    if (this.lifted?.bitmap) this.drawLifted(); // at the new zoom too
  }

  /** Draws the sprites of a big document ahead of its first pan, when the browser is idle. */
  prepareSprites() {
    const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
    const texts = [...new Set(this.order.map((emoji) => emoji.text))].filter((text) => !this.sprites.has(text));
    const work = (deadline) => {
      while (texts.length && (!deadline || deadline.timeRemaining() > 2)) this.sprite(texts.pop());
      if (texts.length) idle(work);
    };
    if (texts.length) idle(work);
  }

  /** The emoji drawn once at SPRITE_SIZE, laid out as the DOM lays it out (1 em line, centred). */
  sprite(text) {
    let sprite = this.sprites.get(text);
    if (sprite) return sprite;
    sprite = document.createElement("canvas");
    sprite.width = Math.round(SPRITE_SIZE * EMOJI_WIDTH);
    sprite.height = SPRITE_SIZE;
    const context = sprite.getContext("2d");
    this.emojiFont ??= getComputedStyle(this.layer).getPropertyValue("--emoji-font").trim() || "sans-serif";
    context.font = `${SPRITE_SIZE}px ${this.emojiFont}`;
    context.textAlign = "center";
    context.textBaseline = "alphabetic";
    const metrics = context.measureText(text);
    const ascent = metrics.fontBoundingBoxAscent ?? SPRITE_SIZE * 0.8;
    const descent = metrics.fontBoundingBoxDescent ?? SPRITE_SIZE * 0.2;
    context.fillText(text, sprite.width / 2, (SPRITE_SIZE - ascent - descent) / 2 + ascent);
    this.sprites.set(text, sprite);
    return sprite;
  }
}
