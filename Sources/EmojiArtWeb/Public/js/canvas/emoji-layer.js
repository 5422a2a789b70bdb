// The emoji layer: the document's emojis as this window shows them. It keeps them in drawing
// order with a spatial index over them, draws them into the scene's canvas (only those around
// the view, and again only where something changed), and keeps the listbox of options that the
// keyboard and screen readers use (./emoji-options.js). Pointer hits are found through the
// index, topmost first, so nothing about an emoji needs an element of its own.
//
// A gesture's live feedback lifts the emojis it works on out of the scene into a bitmap of their
// own, which a move only shifts and a resize or turn redraws; the document changes only when the
// gesture ends.
import { EMOJI_WIDTH, emojiBox, turnedPoint } from "./emoji-geometry.js";
import { EmojiOptions, OPTION_LIMIT } from "./emoji-options.js";
import { EmojiScene } from "./emoji-scene.js";
import { SpatialIndex } from "./spatial-index.js";
import { Sprites } from "./sprites.js";

const REDRAW_LIMIT = 200; // more changed emojis than this: draw the whole scene again
const SETTLE_MS = 120; // the view this long still: draw it sharp, and show the options around it
const FRAME_BUDGET_MS = 3; // a frame draws the scene for about this long, and goes on in the next
const FOLLOWING_OPTIONS = 300; // up to this many lifted emojis, their options (focus rings) follow the feedback

const rectOf = (emoji) => {
  const b = emojiBox(emoji);
  return { left: b.cx - b.w / 2, top: b.cy - b.h / 2, right: b.cx + b.w / 2, bottom: b.cy + b.h / 2 };
};
const differs = (a, b) =>
  a.text !== b.text || a.x !== b.x || a.y !== b.y || a.size !== b.size || (a.rotation || 0) !== (b.rotation || 0) || Boolean(a.pending) !== Boolean(b.pending);

export class EmojiLayer {
  /**
   * @param {HTMLElement} layer the listbox element (inside the world)
   * @param {HTMLElement} world the transformed element
   * @param {import("./viewport.js").Viewport} viewport
   */
  constructor(layer, world, viewport) {
    this.layer = layer;
    this.world = world;
    this.viewport = viewport;
    this.order = []; // the emojis in drawing order
    /** @type {Map<number, object>} the emojis by id */
    this.emojis = new Map();
    /** @type {Map<number, number>} id → place in the drawing order */
    this.positions = new Map();
    this.index = new SpatialIndex([]);
    this.sprites = new Sprites(getComputedStyle(layer).getPropertyValue("--emoji-font").trim());
    this.scene = new EmojiScene(layer, this.sprites);
    this.options = new EmojiOptions(layer);
    this.selection = new Set();
    this.pending = []; // the emojis drawn before the server has them
    this.lifted = null; // the emojis a gesture works on, and how they are shown (see lift)
    this.viewGesture = false; // a pan, pinch or wheel is running: draw only when the view outruns the scene
    this.dirty = null; // what the next frame draws: null, "all", or world rectangles
    this.marksDirty = false;
    this.frame = 0;
    this.settleTimer = 0;
  }

  get activeId() {
    return this.options.activeId;
  }

  /** Shows `emojis` (in drawing order), drawing again only where something changed. */
  render(emojis) {
    const before = this.emojis;
    const emojisById = new Map();
    const positions = new Map();
    const changed = [];
    const pending = [];
    for (let i = 0; i < emojis.length; i++) {
      const emoji = emojis[i];
      emojisById.set(emoji.id, emoji);
      positions.set(emoji.id, i);
      if (emoji.pending) pending.push(emoji);
      const old = before.get(emoji.id);
      if (changed.length <= REDRAW_LIMIT && (!old || differs(old, emoji))) changed.push(...(old ? [old, emoji] : [emoji]));
    }
    for (const [id, old] of before) if (changed.length <= REDRAW_LIMIT && !emojisById.has(id)) changed.push(old);
    const reordered = this.reordered(this.order, emojis, before, emojisById);
    this.order = emojis;
    this.emojis = emojisById;
    this.positions = positions;
    this.pending = pending;
    this.index = new SpatialIndex(emojis);
    if (reordered || changed.length > REDRAW_LIMIT) this.invalidate("all");
    else if (changed.length) this.invalidate(changed.map(rectOf));
    if (pending.length || changed.some((emoji) => emoji.pending)) this.marksDirty = true;
    if (!this.emojis.has(this.activeId) || this.isLocked(this.activeId)) {
      this.options.setActive(emojis.find((emoji) => !emoji.locked)?.id ?? null);
    }
    // The focused emoji went (deleted): the keyboard carries on from the one now in the tab order.
    if (this.updateOptions()) this.focusActiveOrCanvas();
  }

  /** True when the emojis in both `old` and `now` are not in the same relative order. */
  reordered(old, now, oldById, nowById) {
    let a = 0;
    let b = 0;
    for (;;) {
      while (a < old.length && !nowById.has(old[a].id)) a++;
      while (b < now.length && !oldById.has(now[b].id)) b++;
      if (a >= old.length || b >= now.length) return a < old.length !== b < now.length;
      if (old[a].id !== now[b].id) return true;
      a++;
      b++;
    }
  }

  /** Puts emoji `id` (or none) in the tab order: Tab from the canvas reaches it. */
  setActive(id) {
    if (this.isLocked(id)) return; // a locked emoji is no keyboard stop
    this.options.setActive(id);
    if (id !== null && !this.options.get(id) && this.emojis.has(id)) this.updateOptions();
  }

  /** Moves the keyboard focus to emoji `id`. */
  focus(id) {
    this.setActive(id);
    this.options.get(id)?.focus({ preventScroll: true });
  }

  focusActiveOrCanvas() {
    (this.options.get(this.activeId) ?? this.layer.closest("[tabindex='0']"))?.focus({ preventScroll: true });
  }

  has(id) {
    return this.emojis.has(id);
  }

  /** Whether emoji `id` is locked: drawn, but not picked, selected or focused. */
  isLocked(id) {
    return Boolean(this.emojis.get(id)?.locked);
  }

  /** The world box of emoji `id` as the document has it (no live feedback), or null. */
  box(id) {
    const emoji = this.emojis.get(id);
    return emoji ? { id, ...emojiBox(emoji) } : null;
  }

  /** The world rectangle {left, top, right, bottom} holding every emoji, or null. */
  get bounds() {
    return this.index.bounds;
  }

  /**
   * The emoji drawn topmost at world point (x, y), or null. Locked emojis are passed through (a
   * press lands on what is under them) unless `locked` asks for them too (the context menu's Unlock).
   */
  emojiAt(x, y, { locked = false } = {}) {
    const position = this.index.at(x, y, (emoji) => !this.lifted?.set.has(emoji.id) && (locked || !emoji.locked));
    return position < 0 ? null : this.order[position];
  }

  /** The ids of the unlocked emojis whose boxes touch the world rectangle {left, top, right, bottom}. */
  idsTouching(rect) {
    return this.index.query(rect).map((position) => this.order[position]).filter((emoji) => !emoji.locked).map((emoji) => emoji.id);
  }

  /** The boxes ({id, cx, cy, w, h}) of the emojis that touch the world rectangle, in drawing order. */
  boxesTouching(rect) {
    return this.index.query(rect).map((position) => ({ id: this.order[position].id, ...emojiBox(this.order[position]) }));
  }

  markSelected(selection) {
    this.selection = selection;
    this.options.markSelected(selection);
    this.marksDirty = true;
    this.schedule();
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
      if (emoji.id === id || emoji.locked) continue;
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

  // MARK: - Options: which emojis the listbox holds

  /** Shows the options for the emojis around the view; true when the focused one went. */
  updateOptions() {
    return this.options.show(this.optionEntries(), this.order.length, this.selection);
  }

  /** Every emoji of a small document; of a big one, those nearest the middle of the view. */
  optionEntries() {
    // Locked emojis are not options: the keyboard passes them by, as the pointer does.
    return this.nearbyEntries().filter(({ emoji }) => !emoji.locked);
  }

  nearbyEntries() {
    const order = this.order;
    if (order.length <= OPTION_LIMIT) return order.map((emoji, position) => ({ emoji, position }));
    const picked = new Set();
    const active = this.positions.get(this.activeId);
    if (active !== undefined) picked.add(active);
    const v = this.viewport.visibleWorldRect();
    const visible = this.index.query({ left: v.left, top: v.top, right: v.left + v.width, bottom: v.top + v.height });
    const room = OPTION_LIMIT - picked.size;
    if (visible.length <= room) {
      for (const position of visible) picked.add(position);
    } else {
      const cx = v.left + v.width / 2;
      const cy = v.top + v.height / 2;
      const distance = (position) => (order[position].x - cx) ** 2 + (-order[position].y - cy) ** 2;
      const distances = new Float64Array(order.length);
      for (const position of visible) distances[position] = distance(position);
      visible.sort((a, b) => distances[a] - distances[b]);
      for (let k = 0; k < room; k++) picked.add(visible[k]);
    }
    return [...picked].sort((a, b) => a - b).map((position) => ({ emoji: order[position], position }));
  }

  // MARK: - Drawing: at most once a frame, the whole scene or only where something changed

  /** Asks the next frame to draw the whole scene ("all") or the world rectangles `rects`. */
  invalidate(rects) {
    if (rects === "all" || this.dirty === "all") this.dirty = "all";
    else this.dirty = [...(this.dirty ?? []), ...rects];
    if (this.dirty !== "all" && this.dirty.length > REDRAW_LIMIT) this.dirty = "all";
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Draws what was asked for since the last frame. */
  flush() {
    this.frame = 0;
    const dirty = this.dirty;
    this.dirty = null;
    const hidden = this.lifted?.set ?? null;
    if (dirty === "all" || (dirty && !this.scene.area && !this.scene.job)) {
      this.scene.draw(this.index, this.viewport.visibleWorldRect(), this.viewport.zoom);
      if (this.lifted) this.drawLifted(); // at the new zoom too
    } else if (dirty) {
      this.scene.redraw(this.index, dirty, hidden);
    }
    const { swapped, more } = this.scene.work(FRAME_BUDGET_MS, hidden);
    if (swapped) this.marksDirty = true;
    if (more) this.schedule();
    if (this.marksDirty) {
      this.marksDirty = false;
      const selected = [];
      for (const id of this.selection) {
        const emoji = this.emojis.get(id);
        if (emoji && !hidden?.has(id)) selected.push(emoji);
      }
      const style = getComputedStyle(this.layer);
      const colour = (name) => style.getPropertyValue(name).trim();
      this.scene.drawMarks(selected, this.pending, { accent: colour("--accent"), soft: colour("--accent-soft"), pending: colour("--pending") });
    }
  }

  /**
   * How much of what was asked for is drawn: 1 once nothing is left, else 0 up to 1 as a whole
   * area's parts get done (the progress a big change, such as a mosaic, shows while it appears).
   */
  get drawn() {
    const job = this.scene.job;
    if (!this.frame && !this.dirty && !job) return 1;
    return job ? Math.min(0.99, (job.part + (job.positions?.length ? job.next / job.positions.length : 0)) / job.parts.length) : 0;
  }

  /** The view moved: draw again once the scene no longer covers it, and sharp once it is still. */
  viewApplied() {
    const visible = this.viewport.visibleWorldRect();
    if (this.scene.area && !this.scene.covers(visible, this.viewport.zoom)) this.invalidate("all");
    if (!this.viewGesture) this.settleSoon();
  }

  /** A pan, pinch or wheel begins: until it ends the scene is only moved, and drawn when outrun. */
  beginViewGesture() {
    this.viewGesture = true;
    clearTimeout(this.settleTimer);
  }

  endViewGesture() {
    this.viewGesture = false;
    this.settleSoon();
  }

  settleSoon() {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS);
  }

  settle() {
    if (this.viewGesture) return;
    if (this.scene.area && !this.scene.covers(this.viewport.visibleWorldRect(), this.viewport.zoom, true)) this.invalidate("all");
    if (this.order.length > OPTION_LIMIT && this.updateOptions()) this.focusActiveOrCanvas();
  }

  // MARK: - Live feedback while a gesture runs (the document changes only when it ends)

  /** Lifts the emojis `ids` out of the scene into a bitmap of their own, for a gesture's feedback. */
  lift(ids) {
    this.drop();
    const kept = ids.filter((id) => this.emojis.has(id));
    const bitmap = document.createElement("canvas");
    bitmap.className = "lifted";
    bitmap.setAttribute("aria-hidden", "true");
    this.scene.canvas.after(bitmap);
    this.lifted = { ids: kept, set: new Set(kept), bitmap, dx: 0, dy: 0, scale: 1, degrees: 0, pivot: null };
    this.invalidateEmojis(kept);
    this.marksDirty = true;
    this.drawLifted();
  }

  /** Shows the lifted emojis moved by (dx, dy) document points (y up). */
  showOffset(dx, dy) {
    const lifted = this.lifted;
    if (!lifted) return;
    Object.assign(lifted, { dx, dy });
    lifted.bitmap.style.transform = dx || dy ? `translate(${dx}px, ${-dy}px)` : "";
    this.styleLiftedOptions();
  }

  /** Shows each lifted emoji scaled about its own centre. */
  showScale(scale) {
    if (!this.lifted) return;
    this.lifted.scale = scale;
    this.drawLifted();
    this.styleLiftedOptions();
  }

  /**
   * Shows the lifted emojis turned `degrees` more, each about its own centre, their centres
   * turned about `pivot` (world, y down).
   */
  showTurn(degrees, pivot) {
    if (!this.lifted) return;
    Object.assign(this.lifted, { degrees, pivot });
    this.drawLifted();
    this.styleLiftedOptions();
  }

  /** Moves, scales and turns the lifted emojis' options as their feedback shows them (a few of them). */
  styleLiftedOptions(lifted = this.lifted) {
    if (!lifted || lifted.ids.length > FOLLOWING_OPTIONS) return;
    const { dx, dy, scale, degrees, pivot } = lifted;
    for (const id of lifted.ids) {
      const element = this.options.get(id);
      const emoji = this.emojis.get(id);
      if (!element || !emoji) continue;
      const moved = degrees ? turnedPoint(emoji.x, -emoji.y, pivot, degrees) : { x: emoji.x, y: -emoji.y };
      const x = moved.x - emoji.x + dx;
      const y = moved.y + emoji.y - dy;
      const rotation = (emoji.rotation || 0) + degrees;
      element.style.translate = x || y ? `${x}px ${y}px` : "";
      element.style.scale = scale === 1 ? "" : String(scale);
      element.style.rotate = rotation ? rotation + "deg" : "";
    }
  }

  /** Ends the feedback: the emojis show as the document has them. */
  drop() {
    const lifted = this.lifted;
    if (!lifted) return;
    this.lifted = null;
    lifted.bitmap.remove();
    this.styleLiftedOptions({ ...lifted, dx: 0, dy: 0, scale: 1, degrees: 0 });
    this.invalidateEmojis(lifted.ids);
    this.marksDirty = true;
  }

  invalidateEmojis(ids) {
    if (ids.length > REDRAW_LIMIT) return this.invalidate("all");
    this.invalidate(ids.map((id) => this.emojis.get(id)).filter(Boolean).map(rectOf));
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
      placed.push({ emoji, centre, rotation: (emoji.rotation || 0) + degrees });
    }
    if (!placed.length) return;
    const zoom = this.viewport.zoom * Math.min(2, window.devicePixelRatio || 1); // canvas pixels per world unit
    const ratio = Math.min(zoom, 4096 / Math.max(right - left, bottom - top)); // keep the bitmap a sane size
    bitmap.width = Math.max(1, Math.ceil((right - left) * ratio));
    bitmap.height = Math.max(1, Math.ceil((bottom - top) * ratio));
    Object.assign(bitmap.style, { left: left + "px", top: top + "px", width: right - left + "px", height: bottom - top + "px" });
    const context = bitmap.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, -left * ratio, -top * ratio);
    context.imageSmoothingQuality = "low"; // sprites are at most twice the size drawn: no mipmaps needed
    for (const { emoji, centre, rotation } of placed) this.scene.drawEmoji(context, emoji, centre.x, centre.y, scale, rotation, ratio);
  }
}
