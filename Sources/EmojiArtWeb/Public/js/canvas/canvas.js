// The canvas: draws a document state and turns pointer, wheel and drop input into intents.
//
// It is composed of one part per job — the viewport (zoom and pan), the background, the emoji
// layer and the selection overlay — and a gesture machine whose states (./gestures) interpret
// the pointer. The canvas owns the selection, which is this window's alone: it is not an edit.
import { BackgroundLayer } from "./background-layer.js";
import { turnedPoint } from "./emoji-geometry.js";
import { EmojiLayer } from "./emoji-layer.js";
import { Brushing } from "./gestures/brushing.js";
import { Framing } from "./gestures/framing.js";
import { GestureMachine } from "./gestures/gesture-state.js";
import { Idle } from "./gestures/idle.js";
import { Panning } from "./gestures/panning.js";
import { Pinching } from "./gestures/pinching.js";
import { PresenceLayer } from "./presence-layer.js";
import { RegionFrame } from "./region-frame.js";
import { Pointing } from "./gestures/pointing.js";
import { Resizing } from "./gestures/resizing.js";
import { Rotating } from "./gestures/rotating.js";
import { Translating } from "./gestures/translating.js";
import { SelectionOverlay } from "./selection-overlay.js";
import { boundsOf, clamp, Viewport } from "./viewport.js";
import { WheelInput } from "./wheel-input.js";

const GESTURES = [Idle, Pointing, Translating, Brushing, Resizing, Rotating, Panning, Pinching, Framing];

export class CanvasView {
  /**
   * @param {HTMLElement} root the canvas element (contains .world, .emoji-layer, .selection-box, .marquee)
   * @param {object} handlers intents, each returning a promise (or nothing):
   *   move(ids, {x, y}), resize(ids, scale), turn(ids, degrees, moves), drop(dataTransfer, docPoint),
   *   viewChanged({zoom, panX, panY}), selectionChanged(selection), backgroundFailed(imageURL),
   *   contextMenu({x, y}, {onEmoji, locked}) (client point; whether it opened on an emoji; the
   *   locked emoji it opened on, or null),
   *   pointerMoved({x, y} | null) (document point, for presence), viewApplied() (every step of
   *   a zoom or pan drawn, for presence and following)
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    const world = root.querySelector(".world");
    this.viewport = new Viewport(root, world, {
      applied: () => {
        this.layer?.viewApplied();
        this.overlay?.place();
        this.presence?.placeAll();
        handlers.viewApplied?.();
      },
      changed: (view) => handlers.viewChanged?.(view),
    });
    this.background = new BackgroundLayer(root, world, { failed: (url) => handlers.backgroundFailed?.(url) });
    this.layer = new EmojiLayer(root.querySelector(".emoji-layer"), world, this.viewport);
    this.overlay = new SelectionOverlay(root, this.viewport);
    this.presence = new PresenceLayer(root, this.viewport, this.layer);
    this.region = new RegionFrame(root, world); // a rectangle asked for by a dialog (the mosaic's region)
    this.selection = new Set();
    this.readOnly = false;
    this.spaceHeld = false;
    this.lastClickOn = null; // "canvas" or "emoji": what the last click (without a drag) was on
    /** @type {Map<number, {x: number, y: number}>} the pointers pressed on the canvas */
    this.pointers = new Map();
    this.gestures = new GestureMachine(this, GESTURES);
    this.wheel = new WheelInput(this);
    this.listen();
    this.viewport.apply();
  }

  listen() {
    const root = this.root;
    // The canvas never scrolls: focusing an emoji near its edge must not shift everything.
    root.addEventListener("scroll", () => {
      root.scrollTop = 0;
      root.scrollLeft = 0;
    });
    root.addEventListener("focusin", (e) => {
      if (e.target.classList?.contains("emoji")) this.layer.setActive(Number(e.target.dataset.id));
    });
    root.addEventListener("pointerdown", (e) => this.pointerDown(e));
    root.addEventListener("pointermove", (e) => {
      this.pointerMove(e);
      // Emojis are pixels in a canvas, not elements: the pointer shows which it is over itself.
      if (!this.pointers.size) root.classList.toggle("over-emoji", this.emojiUnder(e) !== null);
      if (e.pointerType !== "touch") this.handlers.pointerMoved?.(this.viewport.documentPoint(e.clientX, e.clientY));
    });
    root.addEventListener("pointerleave", () => this.handlers.pointerMoved?.(null));
    root.addEventListener("pointerup", (e) => this.pointerUp(e, true));
    root.addEventListener("pointercancel", (e) => this.pointerUp(e, false));
    root.addEventListener("lostpointercapture", (e) => {
      if (this.pointers.has(e.pointerId)) this.pointerUp(e, false);
    });
    root.addEventListener("dblclick", (e) => {
      if (this.lastClickOn === "canvas" && !e.target.closest(".canvas-overlay-ui")) this.zoomToFit();
    });
    root.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      if (this.gestures.current.id !== "idle") return;
      // From the keyboard (the menu key, Shift+F10) there is no pointer: open it at the selection.
      const rect = root.getBoundingClientRect();
      const inside = e.clientX > rect.left && e.clientX < rect.right && e.clientY > rect.top && e.clientY < rect.bottom;
      const option = e.target.closest?.(".emoji");
      // A locked emoji is passed over by presses, but a right-click on it (on top) finds it: to
      // unlock it. The menu is then about that emoji alone.
      const locked = inside ? this.emojiUnder(e, { locked: true }) : null;
      const id = locked !== null ? null : inside ? this.emojiUnder(e) : option ? Number(option.dataset.id) : null;
      if (id !== null && !this.selection.has(id)) this.select([id], { replace: true });
      if (locked !== null) this.clearSelection();
      const point = inside ? { x: e.clientX, y: e.clientY }
        : this.selection.size ? this.overlay.centreClient() : { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
      this.handlers.contextMenu?.(point, { onEmoji: id !== null || locked !== null, locked });
    });
    root.addEventListener("wheel", (e) => this.wheel.turned(e), { passive: false });
    root.addEventListener("dragover", (e) => this.dragOver(e));
    root.addEventListener("dragleave", () => root.classList.remove("drop-target"));
    root.addEventListener("drop", (e) => this.dropped(e));
    // Space held down turns any drag into a pan; Escape abandons the running gesture.
    document.addEventListener("keydown", (e) => this.keyDown(e), { capture: true });
    document.addEventListener("keyup", (e) => {
      if (e.key === " ") this.holdSpace(false);
    });
    addEventListener("blur", () => this.holdSpace(false));
  }

  keyDown(event) {
    if (event.key === "Escape" && this.gestures.current.id !== "idle") {
      event.preventDefault();
      event.stopPropagation();
      this.gestures.cancel();
    } else if (event.key === " " && !event.repeat && !isTyping(event.target)) {
      this.holdSpace(true);
      if (event.target === this.root || event.target === document.body) event.preventDefault(); // don't scroll
    }
  }

  holdSpace(held) {
    this.spaceHeld = held;
    this.root.classList.toggle("space-held", held);
  }

  // MARK: - View

  get zoom() {
    return this.viewport.zoom;
  }

  get view() {
    return this.viewport.view;
  }

  setView(view, options) {
    this.viewport.set(view, options);
  }

  zoomBy(factor) {
    this.viewport.zoomBy(factor);
  }

  /** 100 %, keeping the middle of the view where it is. */
  resetZoom() {
    this.zoomBy(1 / this.viewport.zoom);
  }

  documentPoint(clientX, clientY) {
    return this.viewport.documentPoint(clientX, clientY);
  }

  visibleCentre() {
    return this.viewport.visibleCentre();
  }



  /** Zooms and pans so the background and every emoji fit in the window. */
  zoomToFit() {
    const boxes = [];
    const emojis = this.layer.bounds;
    if (emojis) {
      const { left, top, right, bottom } = emojis;
      boxes.push({ cx: (left + right) / 2, cy: (top + bottom) / 2, w: right - left, h: bottom - top });
    }
    const background = this.background.box;
    if (background) boxes.push(background);
    this.viewport.fit(boundsOf(boxes));
  }

  /**
   * The id of the emoji drawn topmost under a pointer event, or null (over a selection handle,
   * or empty canvas). Negative ids are emojis drawn ahead of the server. Locked emojis are passed
   * through, unless `locked` asks for the locked one on top (a right-click's Unlock).
   */
  emojiUnder(event, { locked = false } = {}) {
    if (event.target.closest?.(".resize-handle, .rotate-handle, .canvas-overlay-ui")) return null;
    const point = this.viewport.worldPoint(event.clientX, event.clientY);
    const emoji = this.layer.emojiAt(point.x, point.y, { locked });
    return locked ? (emoji?.locked ? emoji.id : null) : (emoji?.id ?? null);
  }

  /** Zooms and pans to the selection (never closer than 400 %); without one, like zoomToFit. */
  zoomToSelection() {
    if (!this.selection.size) return this.zoomToFit();
    this.viewport.fit(boundsOf(this.selectedBoxes()), { margin: 48, maxZoom: 4 });
  }

  // MARK: - Rendering

  /** Draws a document state; keeps the selection of ids that still exist. */
  render(state) {
    this.background.render(state.backgroundState);
    this.layer.render(state.emojis);
    this.presence.placeAll();
    const before = this.selection.size;
    for (const id of this.selection) if (!this.layer.has(id) || this.layer.isLocked(id)) this.selection.delete(id);
    this.selectionUpdated(this.selection.size !== before);
  }

  /** The emojis as drawn, in drawing order. */
  get emojis() {
    return this.layer.order;
  }

  // MARK: - Selection

  select(ids, { toggle = false, replace = false } = {}) {
    const next = replace ? new Set() : new Set(this.selection);
    for (const id of ids) {
      if (!this.layer.has(id)) continue;
      if (toggle && next.has(id)) next.delete(id);
      else next.add(id);
    }
    this.setSelection(next);
  }

  /** Makes `ids` the selection (those that exist), announcing it only when it changed. */
  setSelection(ids) {
    // Negative ids are emojis added offline, edited like any other (../editor/temporary-ids.js).
    // Locked emojis are never selected (Ctrl+A, a marquee and a click pass them by).
    const next = new Set([...ids].filter((id) => this.layer.has(id) && !this.layer.isLocked(id)));
    const changed = next.size !== this.selection.size || [...next].some((id) => !this.selection.has(id));
    if (!changed) return;
    this.selection = next;
    this.selectionUpdated(true);
  }

  selectAll() {
    this.setSelection(this.layer.order.map((emoji) => emoji.id));
  }

  clearSelection() {
    this.setSelection([]);
  }

  /** The emoji that has the keyboard focus, or null. */
  get focusedId() {
    const element = document.activeElement;
    return element?.classList?.contains("emoji") && this.root.contains(element) ? Number(element.dataset.id) : null;
  }

  /** Moves the keyboard focus to the next emoji in a direction, or to the one in the tab order. */
  focusTowards(direction) {
    const from = this.focusedId;
    const to = from === null ? this.layer.activeId : this.layer.neighbour(from, direction);
    if (to !== null) this.layer.focus(to);
    return to;
  }

  focusEmoji(id) {
    this.layer.focus(id);
  }

  selectedBoxes() {
    return [...this.selection].map((id) => this.layer.box(id)).filter(Boolean);
  }

  selectionUpdated(changed) {
    this.layer.markSelected(this.selection);
    this.overlay.setBoxes(this.selectedBoxes());
    if (changed) this.handlers.selectionChanged?.(this.selection);
  }

  // MARK: - Committing a gesture: the feedback stays until the server has answered

  commitMove(ids, dx, dy) {
    const done = () => {
      this.layer.showOffset(0, 0);
      this.layer.drop();
      this.overlay.setFeedback(null);
      this.selectionUpdated(false);
    };
    if (!dx && !dy) return done();
    Promise.resolve(this.handlers.move?.(ids, { x: dx, y: dy }))
      .catch(() => {})
      .finally(done);
  }

  /**
   * The turn of `ids` by `degrees` about `pivot` (world; default: the middle of their boxes):
   * the moves ({id, x, y} document offsets, whole points) that carry each centre round the pivot.
   */
  turnMoves(ids, degrees, pivot = null) {
    const boxes = ids.map((id) => this.layer.box(id)).filter(Boolean);
    const bounds = boundsOf(boxes);
    if (!bounds) return [];
    pivot ??= { x: (bounds.left + bounds.right) / 2, y: (bounds.top + bounds.bottom) / 2 };
    const moves = [];
    for (const box of boxes) {
      const moved = turnedPoint(box.cx, box.cy, pivot, degrees);
      const x = Math.round(moved.x - box.cx);
      const y = -Math.round(moved.y - box.cy);
      if (x || y) moves.push({ id: box.id, x, y });
    }
    return moves;
  }

  commitTurn(ids, degrees, pivot) {
    const done = () => {
      this.layer.drop();
      this.selectionUpdated(false);
    };
    if (!degrees) return done();
    Promise.resolve(this.handlers.turn?.(ids, degrees, this.turnMoves(ids, degrees, pivot)))
      .catch(() => {})
      .finally(done);
  }

  commitResize(ids, scale) {
    const done = () => {
      this.layer.drop();
      this.overlay.setFeedback(null);
      this.selectionUpdated(false);
    };
    const rounded = Math.round(scale * 10000) / 10000;
    if (Math.abs(rounded - 1) < 0.001) return done();
    Promise.resolve(this.handlers.resize?.(ids, clamp(rounded, 1 / 1024, 1024)))
      .catch(() => {})
      .finally(done);
  }

  // MARK: - Pointers: each goes to the gesture state the canvas is in

  pointerDown(event) {
    if (event.pointerType === "mouse" && event.button !== 0 && event.button !== 1) return;
    if (event.target.closest(".canvas-overlay-ui")) return;
    // The canvas takes the focus itself (a pressed emoji gets it), without the browser's scrolling.
    event.preventDefault();
    const pressed = this.emojiUnder(event);
    if (pressed !== null && pressed >= 0) this.layer.focus(pressed);
    else if (!this.root.contains(document.activeElement) || document.activeElement === document.body) this.root.focus({ preventScroll: true });
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    try {
      this.root.setPointerCapture(event.pointerId);
    } catch {
      /* the pointer may already be gone */
    }
    if (this.pointers.size === 2) {
      this.gestures.cancel();
      this.gestures.transition("pinching");
    } else if (this.pointers.size === 1) {
      this.gestures.current.onPointerDown(event);
    }
  }

  pointerMove(event) {
    const pointer = this.pointers.get(event.pointerId);
    if (!pointer) return;
    pointer.x = event.clientX;
    pointer.y = event.clientY;
    this.gestures.current.onPointerMove(event);
  }

  pointerUp(event, commit) {
    if (!this.pointers.delete(event.pointerId)) return;
    if (commit) this.gestures.current.onPointerUp(event);
    else this.gestures.cancel();
  }

  // MARK: - Drop

  dragOver(event) {
    if (this.readOnly) return;
    const types = Array.from(event.dataTransfer?.types || []);
    if (!types.some((t) => ["application/x-emojiart-emoji", "Files", "text/uri-list", "text/plain"].includes(t))) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    this.root.classList.add("drop-target");
  }

  dropped(event) {
    this.root.classList.remove("drop-target");
    if (!event.dataTransfer || this.readOnly) return;
    event.preventDefault();
    event.stopPropagation();
    this.handlers.drop?.(event.dataTransfer, this.documentPoint(event.clientX, event.clientY));
  }
}

/** True when keys typed at `target` are text (a field), not commands. */
export const isTyping = (target) =>
  target instanceof HTMLElement && (target.isContentEditable || target.matches("input, textarea, select"));
