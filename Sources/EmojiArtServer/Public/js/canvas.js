// The canvas: renders a document state and turns pointer, wheel and drop gestures into intents.
//
// Geometry. Document points have their origin at the canvas centre and y pointing up. All
// emojis live in one "world" element whose CSS transform does the zoom and the pan, so panning
// changes one style, not 5,000. The emojis are grid items stacked in one cell and placed by
// their margins rather than absolutely positioned or transformed: Chrome gives every positioned
// or transformed element its own paint layer, and 5,000 of those make each frame slow. Inside the world, 1 CSS px = 1 document point and y points
// down: an emoji at document (x, y) sits at world (x, −y). The world's origin is drawn at
// viewport centre + pan (pan in screen pixels), scaled by zoom.

const MIN_ZOOM = 0.01;
const MAX_ZOOM = 64;
const DRAG_THRESHOLD = 4; // screen px before a press becomes a drag
const EMOJI_WIDTH = 1.25; // em: an emoji glyph's advance is about 1.0–1.25 em in the common emoji fonts
const SNAPSHOT_MIN_EMOJIS = 300; // below this, pan and zoom move the elements themselves
const SNAPSHOT_MARGIN = 0.5; // the snapshot covers the view plus this fraction of it on each side
const SPRITE_SIZE = 128; // px: the font size emoji sprites are drawn at
const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

export class CanvasView {
  /**
   * @param {HTMLElement} root the viewport element (contains .world, .emoji-layer, .selection-box)
   * @param {object} handlers intents, each returning a promise (or nothing):
   *   move(ids, {x, y}), resize(ids, scale), drop(dataTransfer, docPoint),
   *   viewChanged({zoom, panX, panY}), selectionChanged(selection), backgroundFailed(imageURL)
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    this.world = root.querySelector(".world");
    this.layer = root.querySelector(".emoji-layer");
    this.box = root.querySelector(".selection-box");
    this.zoom = 1;
    this.panX = 0;
    this.panY = 0;
    this.width = root.clientWidth;
    this.height = root.clientHeight;
    /** @type {Map<number, HTMLElement>} */
    this.elements = new Map();
    /** @type {Map<number, object>} the rendered emojis by id */
    this.emojis = new Map();
    this.selection = new Set();
    this.backgroundImage = null;
    this.backgroundURL = null; // the server's /api/images/… URL of the image drawn, or null
    this.backgroundSize = null; // its pixel size (document points): {width, height}
    this.progress = root.querySelector(".background-progress");
    this.pointers = new Map();
    this.gesture = null;
    this.wheelResize = null;
    this.selectedBoxes = []; // world-space boxes of selected emojis: {id, cx, cy, w, h}
    this.order = []; // the rendered emojis in drawing order
    this.snapshot = null; // while panning or zooming a big document: {canvas, left, top, width, height, zoom}
    this.sprites = new Map(); // emoji text → a canvas with it drawn at SPRITE_SIZE
    this.snapshotCanvas = document.createElement("canvas");
    this.snapshotCanvas.className = "snapshot";
    this.snapshotCanvas.hidden = true;
    this.world.append(this.snapshotCanvas);

    root.addEventListener("pointerdown", (e) => this.pointerDown(e));
    root.addEventListener("pointermove", (e) => this.pointerMove(e));
    root.addEventListener("pointerup", (e) => this.pointerUp(e, true));
    root.addEventListener("pointercancel", (e) => this.pointerUp(e, false));
    root.addEventListener("lostpointercapture", (e) => {
      if (this.pointers.has(e.pointerId)) this.pointerUp(e, false);
    });
    root.addEventListener("dblclick", (e) => {
      // With pointer capture the target is the canvas itself, so ask what the press was on.
      if (this.lastPress === "press-empty" && !e.target.closest(".emoji, .selection-box")) this.zoomToFit();
    });
    root.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    root.addEventListener("dragover", (e) => this.dragOver(e));
    root.addEventListener("dragleave", () => root.classList.remove("drop-target"));
    root.addEventListener("drop", (e) => this.dropped(e));
    new ResizeObserver(() => {
      this.width = root.clientWidth;
      this.height = root.clientHeight;
      this.applyView();
    }).observe(root);
    this.applyView();
  }

  // MARK: - View (zoom and pan)

  get view() {
    return { zoom: this.zoom, panX: this.panX, panY: this.panY };
  }

  setView({ zoom = 1, panX = 0, panY = 0 } = {}, { notify = true } = {}) {
    this.zoom = clamp(Number(zoom) || 1, MIN_ZOOM, MAX_ZOOM);
    this.panX = Number(panX) || 0;
    this.panY = Number(panY) || 0;
    this.applyView();
    if (notify) this.handlers.viewChanged?.(this.view);
  }

  applyView() {
    const x = this.width / 2 + this.panX;
    const y = this.height / 2 + this.panY;
    this.world.style.transform = `translate(${x}px, ${y}px) scale(${this.zoom})`;
    if (this.world.dataset.zoom !== String(this.zoom)) {
      this.world.style.setProperty("--zoom", String(this.zoom));
    }
    Object.assign(this.root.dataset, { zoom: this.zoom, panX: this.panX, panY: this.panY });
    this.world.dataset.zoom = String(this.zoom);
    if (this.snapshot && !this.snapshotCovers()) this.drawSnapshot();
    this.placeSelectionBox();
  }

  /** Zooms by `factor` keeping the document point under (clientX, clientY) in place. */
  zoomAround(factor, clientX, clientY) {
    const rect = this.root.getBoundingClientRect();
    const sx = clientX - rect.left - this.width / 2;
    const sy = clientY - rect.top - this.height / 2;
    const zoom = clamp(this.zoom * factor, MIN_ZOOM, MAX_ZOOM);
    const ratio = zoom / this.zoom;
    this.setView({ zoom, panX: sx - (sx - this.panX) * ratio, panY: sy - (sy - this.panY) * ratio });
  }

  zoomBy(factor) {
    const rect = this.root.getBoundingClientRect();
    this.zoomAround(factor, rect.left + this.width / 2, rect.top + this.height / 2);
  }

  /** The document point (y up, unrounded) under a client (viewport) position. */
  documentPoint(clientX, clientY) {
    const rect = this.root.getBoundingClientRect();
    return {
      x: (clientX - rect.left - this.width / 2 - this.panX) / this.zoom,
      y: -(clientY - rect.top - this.height / 2 - this.panY) / this.zoom,
    };
  }

  /** The document point at the centre of what is visible. */
  visibleCentre() {
    return { x: -this.panX / this.zoom, y: this.panY / this.zoom };
  }

  /** Zooms and pans so the background image and every emoji fit in the window. */
  zoomToFit() {
    let bounds = null;
    const grow = (left, top, right, bottom) => {
      if (!bounds) bounds = { left, top, right, bottom };
      else {
        bounds.left = Math.min(bounds.left, left);
        bounds.top = Math.min(bounds.top, top);
        bounds.right = Math.max(bounds.right, right);
        bounds.bottom = Math.max(bounds.bottom, bottom);
      }
    };
    const size = this.backgroundSize;
    if (size && size.width > 0 && size.height > 0) {
      grow(-size.width / 2, -size.height / 2, size.width / 2, size.height / 2);
    }
    for (const element of this.elements.values()) {
      const box = worldBox(element);
      grow(box.cx - box.w / 2, box.cy - box.h / 2, box.cx + box.w / 2, box.cy + box.h / 2);
    }
    if (!bounds) {
      this.setView({ zoom: 1, panX: 0, panY: 0 });
      return;
    }
    const margin = 24;
    const w = Math.max(1, bounds.right - bounds.left);
    const h = Math.max(1, bounds.bottom - bounds.top);
    const zoom = clamp(Math.min((this.width - 2 * margin) / w, (this.height - 2 * margin) / h), MIN_ZOOM, MAX_ZOOM);
    const cx = (bounds.left + bounds.right) / 2;
    const cy = (bounds.top + bounds.bottom) / 2;
    this.setView({ zoom, panX: -cx * zoom, panY: -cy * zoom });
  }

  // MARK: - Rendering

  /** Renders a document state; keeps the selection of ids that still exist. */
  render(state) {
    this.renderBackground(state.backgroundState);
    this.order = state.emojis;
    const seen = new Set();
    let cursor = this.layer.firstChild;
    for (const emoji of state.emojis) {
      seen.add(emoji.id);
      let element = this.elements.get(emoji.id);
      const old = this.emojis.get(emoji.id);
      if (!element) {
        element = document.createElement("span");
        element.className = "emoji";
        element.dataset.id = String(emoji.id);
        this.elements.set(emoji.id, element);
      }
      if (!old || old.text !== emoji.text) element.textContent = emoji.text;
      if (!old || old.size !== emoji.size) element.style.fontSize = emoji.size + "px";
      // The element is EMOJI_WIDTH em wide and 1 em high; its margins put its centre at (x, −y).
      if (!old || old.x !== emoji.x || old.size !== emoji.size) {
        element.style.marginLeft = emoji.x - (EMOJI_WIDTH / 2) * emoji.size + "px";
      }
      if (!old || old.y !== emoji.y || old.size !== emoji.size) element.style.marginTop = -emoji.y - emoji.size / 2 + "px";
      this.emojis.set(emoji.id, emoji);
      if (element !== cursor) this.layer.insertBefore(element, cursor);
      else cursor = cursor.nextSibling;
    }
    for (const [id, element] of this.elements) {
      if (!seen.has(id)) {
        element.remove();
        this.elements.delete(id);
        this.emojis.delete(id);
      }
    }
    if (this.snapshot) this.drawSnapshot();
    else if (this.order.length >= SNAPSHOT_MIN_EMOJIS) this.prepareSprites();
    const selectionBefore = this.selection.size;
    for (const id of this.selection) if (!seen.has(id)) this.selection.delete(id);
    this.selectionUpdated(this.selection.size !== selectionBefore);
  }

  /**
   * Draws the background the server has fetched and stored (`backgroundState`, docs/API.md):
   * only its own /api/images/… URL, never the document's third-party URL. While the server is
   * still fetching, shows the progress indicator instead.
   */
  renderBackground(backgroundState) {
    const status = backgroundState ? backgroundState.status : "none";
    const fetching = status === "fetching";
    this.root.classList.toggle("background-loading", fetching);
    if (this.progress && this.progress.hidden === fetching) this.progress.hidden = !fetching;
    const found = status === "found" && typeof backgroundState.imageURL === "string";
    const url = found ? backgroundState.imageURL : null;
    const width = found ? Number(backgroundState.width) || 0 : 0;
    const height = found ? Number(backgroundState.height) || 0 : 0;
    this.backgroundSize = found ? { width, height } : null;
    if (url === this.backgroundURL) {
      if (this.backgroundImage) this.sizeBackground(width, height);
      return;
    }
    this.backgroundURL = url;
    this.backgroundImage?.remove();
    this.backgroundImage = null;
    if (!url) return;
    const image = document.createElement("img");
    image.className = "background";
    image.alt = "";
    image.draggable = false;
    image.decoding = "async";
    image.addEventListener("error", () => {
      if (this.backgroundImage !== image) return; // superseded: its failure doesn't matter
      image.classList.add("failed");
      this.handlers.backgroundFailed?.(url);
    });
    this.backgroundImage = image;
    this.sizeBackground(width, height);
    image.src = url;
    this.world.insertBefore(image, this.world.firstChild);
  }

  /** The image is drawn at its pixel size in document points, whatever the browser thinks. */
  sizeBackground(width, height) {
    const image = this.backgroundImage;
    image.style.width = width > 0 ? width + "px" : "";
    image.style.height = height > 0 ? height + "px" : "";
  }

  // MARK: - Snapshot: a bitmap of the emojis that moves while panning or zooming
  //
  // Moving thousands of emoji elements makes the browser repaint every glyph on every frame (and
  // glyphs of many sizes thrash its glyph cache). During a pan or zoom gesture on a big document
  // the emoji layer is hidden and one canvas, drawn from per-emoji sprites, moves instead.

  beginSnapshot() {
    if (this.snapshot || this.order.length < SNAPSHOT_MIN_EMOJIS) return;
    this.snapshot = {};
    this.drawSnapshot();
    this.layer.style.contentVisibility = "hidden";
    this.snapshotCanvas.hidden = false;
  }

  endSnapshot() {
    if (!this.snapshot) return;
    this.snapshot = null;
    this.layer.style.contentVisibility = "";
    this.snapshotCanvas.hidden = true;
  }

  /** The part of the world (y down) that is visible now. */
  visibleWorldRect() {
    return {
      left: (-this.width / 2 - this.panX) / this.zoom,
      top: (-this.height / 2 - this.panY) / this.zoom,
      width: this.width / this.zoom,
      height: this.height / this.zoom,
    };
  }

  snapshotCovers() {
    const s = this.snapshot;
    if (!s || !s.width) return false;
    if (this.zoom > s.zoom * 2 || this.zoom < s.zoom / 2) return false;
    const v = this.visibleWorldRect();
    return v.left >= s.left && v.top >= s.top && v.left + v.width <= s.left + s.width && v.top + v.height <= s.top + s.height;
  }

  drawSnapshot() {
    const visible = this.visibleWorldRect();
    const left = visible.left - visible.width * SNAPSHOT_MARGIN;
    const top = visible.top - visible.height * SNAPSHOT_MARGIN;
    const width = visible.width * (1 + 2 * SNAPSHOT_MARGIN);
    const height = visible.height * (1 + 2 * SNAPSHOT_MARGIN);
    const ratio = Math.min(2, window.devicePixelRatio || 1);
    const scale = this.zoom * ratio; // canvas pixels per world unit
    const canvas = this.snapshotCanvas;
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    Object.assign(canvas.style, { left: left + "px", top: top + "px", width: width + "px", height: height + "px" });
    const context = canvas.getContext("2d");
    context.setTransform(scale, 0, 0, scale, -left * scale, -top * scale);
    context.imageSmoothingQuality = "medium";
    const right = left + width;
    const bottom = top + height;
    for (const emoji of this.order) {
      const w = emoji.size * EMOJI_WIDTH;
      const h = emoji.size;
      const x = emoji.x - w / 2;
      const y = -emoji.y - h / 2;
      if (x > right || y > bottom || x + w < left || y + h < top) continue;
      context.drawImage(this.sprite(emoji.text), x, y, w, h);
    }
    Object.assign(this.snapshot, { left, top, width, height, zoom: this.zoom });
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

  // MARK: - Selection

  select(ids, { toggle = false, replace = false } = {}) {
    if (replace) this.selection.clear();
    for (const id of ids) {
      if (!this.elements.has(id)) continue;
      if (toggle && this.selection.has(id)) this.selection.delete(id);
      else this.selection.add(id);
    }
    this.selectionUpdated(true);
  }

  selectAll() {
    this.select(this.elements.keys(), { replace: true });
  }

  clearSelection() {
    if (this.selection.size === 0) return;
    this.selection.clear();
    this.selectionUpdated(true);
  }

  selectionUpdated(changed) {
    for (const [id, element] of this.elements) {
      const selected = this.selection.has(id);
      if (element.classList.contains("selected") !== selected) element.classList.toggle("selected", selected);
    }
    this.selectedBoxes = [];
    for (const id of this.selection) {
      const element = this.elements.get(id);
      if (element) this.selectedBoxes.push({ id, ...worldBox(element) });
    }
    this.placeSelectionBox();
    if (changed) this.handlers.selectionChanged?.(this.selection);
  }

  /** Places the screen-space selection box, following a live move or resize. */
  placeSelectionBox() {
    if (!this.box) return;
    if (!this.selectedBoxes.length) {
      this.box.hidden = true;
      return;
    }
    const g = this.gesture;
    const moving = g && g.kind === "move" && g.ids.some((id) => this.selection.has(id));
    const scale = g && g.kind === "resize" ? g.scale : this.wheelResize ? this.wheelResize.scale : 1;
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const box of this.selectedBoxes) {
      const dx = moving && g.idSet.has(box.id) ? g.dx : 0;
      const dy = moving && g.idSet.has(box.id) ? -g.dy : 0;
      left = Math.min(left, box.cx + dx - (box.w * scale) / 2);
      right = Math.max(right, box.cx + dx + (box.w * scale) / 2);
      top = Math.min(top, box.cy + dy - (box.h * scale) / 2);
      bottom = Math.max(bottom, box.cy + dy + (box.h * scale) / 2);
    }
    const ox = this.width / 2 + this.panX;
    const oy = this.height / 2 + this.panY;
    const pad = 4;
    this.box.hidden = false;
    this.box.style.left = ox + left * this.zoom - pad + "px";
    this.box.style.top = oy + top * this.zoom - pad + "px";
    this.box.style.width = (right - left) * this.zoom + 2 * pad + "px";
    this.box.style.height = (bottom - top) * this.zoom + 2 * pad + "px";
  }

  /** The selection box's centre in client coordinates. */
  selectionCentreClient() {
    const rect = this.box.getBoundingClientRect();
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  }

  // MARK: - Live feedback

  showOffset(ids, dx, dy) {
    for (const id of ids) {
      const element = this.elements.get(id);
      if (element) element.style.translate = dx || dy ? `${dx}px ${-dy}px` : "";
    }
  }

  showScale(ids, scale) {
    for (const id of ids) {
      const element = this.elements.get(id);
      if (element) element.style.scale = scale === 1 ? "" : String(scale);
    }
    this.placeSelectionBox();
  }

  // MARK: - Pointer gestures

  pointerDown(event) {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    if (event.target.closest(".canvas-overlay-ui")) return;
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    try {
      this.root.setPointerCapture(event.pointerId);
    } catch {
      /* the pointer may already be gone */
    }
    if (this.pointers.size === 2) {
      this.cancelGesture();
      this.startPinch();
      return;
    }
    if (this.pointers.size > 2) return;
    const start = { x: event.clientX, y: event.clientY };
    const emojiElement = event.target.closest(".emoji");
    if (event.target.closest(".resize-handle") && this.selection.size && !this.readOnly) {
      const centre = this.selectionCentreClient();
      const ids = [...this.selection];
      this.gesture = {
        kind: "resize", ids, start, centre, scale: 1,
        startDistance: Math.max(8, Math.hypot(start.x - centre.x, start.y - centre.y)),
      };
      this.root.classList.add("resizing");
    } else if (emojiElement) {
      this.gesture = { kind: "press-emoji", id: Number(emojiElement.dataset.id), start };
    } else {
      this.gesture = { kind: "press-empty", start, pan: { x: this.panX, y: this.panY } };
    }
  }

  pointerMove(event) {
    const pointer = this.pointers.get(event.pointerId);
    if (!pointer) return;
    pointer.x = event.clientX;
    pointer.y = event.clientY;
    const g = this.gesture;
    if (!g) return;
    if (g.kind === "pinch") return this.updatePinch();
    if (g.kind === "ignore") return;
    const moved = Math.hypot(event.clientX - g.start.x, event.clientY - g.start.y);
    if (g.kind === "press-emoji" && moved >= DRAG_THRESHOLD && !this.readOnly) {
      const ids = this.selection.has(g.id) ? [...this.selection] : [g.id];
      Object.assign(g, { kind: "move", ids, idSet: new Set(ids), dx: 0, dy: 0 });
      this.root.classList.add("moving");
    } else if ((g.kind === "press-empty" || g.kind === "press-emoji") && moved >= DRAG_THRESHOLD) {
      // (Dragging an emoji pans too when the document can't be changed here.)
      g.kind = "pan";
      this.root.classList.add("panning");
      this.beginSnapshot();
    }
    if (g.kind === "move") {
      g.dx = Math.round((event.clientX - g.start.x) / this.zoom);
      g.dy = -Math.round((event.clientY - g.start.y) / this.zoom);
      this.showOffset(g.ids, g.dx, g.dy);
      this.placeSelectionBox();
    } else if (g.kind === "pan") {
      this.panX = g.pan.x + event.clientX - g.start.x;
      this.panY = g.pan.y + event.clientY - g.start.y;
      this.applyView();
    } else if (g.kind === "resize") {
      const distance = Math.hypot(event.clientX - g.centre.x, event.clientY - g.centre.y);
      g.scale = clamp(distance / g.startDistance, 1 / 64, 64);
      this.showScale(g.ids, g.scale);
    }
  }

  pointerUp(event, commit) {
    if (!this.pointers.delete(event.pointerId)) return;
    const g = this.gesture;
    if (!g) return;
    if (g.kind === "pinch") {
      if (this.pointers.size < 2) {
        this.gesture = this.pointers.size ? { kind: "ignore" } : null;
        this.endPinch(g, commit);
      }
      return;
    }
    if (this.pointers.size) return;
    this.gesture = null;
    this.lastPress = g.kind;
    this.root.classList.remove("moving", "panning", "resizing");
    if (!commit) {
      this.revert(g);
      return;
    }
    switch (g.kind) {
      case "press-emoji":
        this.select([g.id], { toggle: true });
        break;
      case "press-empty":
        this.clearSelection();
        break;
      case "move":
        this.commitMove(g.ids, g.dx, g.dy);
        break;
      case "pan":
        this.endSnapshot();
        this.handlers.viewChanged?.(this.view);
        break;
      case "resize":
        this.commitResize(g.ids, g.scale);
        break;
    }
  }

  commitMove(ids, dx, dy) {
    this.placeSelectionBox();
    if (!dx && !dy) {
      this.showOffset(ids, 0, 0);
      return;
    }
    Promise.resolve(this.handlers.move?.(ids, { x: dx, y: dy }))
      .catch(() => {})
      .finally(() => {
        this.showOffset(ids, 0, 0);
        this.selectionUpdated(false);
      });
  }

  commitResize(ids, scale) {
    const rounded = Math.round(scale * 10000) / 10000;
    if (Math.abs(rounded - 1) < 0.001) {
      this.showScale(ids, 1);
      return;
    }
    Promise.resolve(this.handlers.resize?.(ids, clamp(rounded, 1 / 1024, 1024)))
      .catch(() => {})
      .finally(() => {
        this.showScale(ids, 1);
        this.selectionUpdated(false);
      });
  }

  revert(g) {
    if (g.kind === "pan" || g.kind === "pinch") this.endSnapshot();
    if (g.kind === "move") this.showOffset(g.ids, 0, 0);
    if (g.kind === "resize") this.showScale(g.ids, 1);
    if (g.kind === "pinch" && g.ids) this.showScale(g.ids, 1);
    this.placeSelectionBox();
  }

  cancelGesture() {
    if (this.gesture) this.revert(this.gesture);
    this.gesture = null;
    this.root.classList.remove("moving", "panning", "resizing");
  }

  startPinch() {
    const [a, b] = [...this.pointers.values()];
    const ids = this.selection.size && !this.readOnly ? [...this.selection] : null;
    this.gesture = {
      kind: "pinch", ids, scale: 1,
      distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)),
      mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
      view: this.view,
    };
    if (!ids) this.beginSnapshot();
  }

  updatePinch() {
    const g = this.gesture;
    const [a, b] = [...this.pointers.values()];
    const scale = Math.hypot(a.x - b.x, a.y - b.y) / g.distance;
    if (g.ids) {
      g.scale = clamp(scale, 1 / 64, 64);
      this.showScale(g.ids, g.scale);
      return;
    }
    // Zoom around the starting midpoint and follow the midpoint's movement.
    const rect = this.root.getBoundingClientRect();
    const mx = g.mid.x - rect.left - this.width / 2;
    const my = g.mid.y - rect.top - this.height / 2;
    const zoom = clamp(g.view.zoom * scale, MIN_ZOOM, MAX_ZOOM);
    const ratio = zoom / g.view.zoom;
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    this.zoom = zoom;
    this.panX = mx - (mx - g.view.panX) * ratio + (mid.x - g.mid.x);
    this.panY = my - (my - g.view.panY) * ratio + (mid.y - g.mid.y);
    this.applyView();
  }

  endPinch(g, commit) {
    this.endSnapshot();
    if (!g.ids) {
      this.handlers.viewChanged?.(this.view);
    } else if (commit) {
      this.commitResize(g.ids, g.scale);
    } else {
      this.showScale(g.ids, 1);
    }
  }

  // MARK: - Wheel: zoom around the pointer; with Ctrl/Alt (or a trackpad pinch) resize the selection

  wheel(event) {
    event.preventDefault();
    const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? this.height : 1;
    const delta = clamp(event.deltaY * unit, -300, 300);
    if ((event.ctrlKey || event.altKey) && this.selection.size && !this.readOnly) {
      const sensitivity = event.ctrlKey && !event.altKey ? 0.01 : 0.002;
      const w = this.wheelResize ?? (this.wheelResize = { ids: [...this.selection], scale: 1, timer: 0 });
      w.scale = clamp(w.scale * Math.exp(-delta * sensitivity), 1 / 64, 64);
      this.showScale(w.ids, w.scale);
      clearTimeout(w.timer);
      w.timer = setTimeout(() => {
        this.wheelResize = null;
        this.commitResize(w.ids, w.scale);
      }, 350);
      return;
    }
    const sensitivity = event.ctrlKey ? 0.01 : 0.0015; // a trackpad pinch arrives as ctrl+wheel
    this.beginSnapshot();
    clearTimeout(this.wheelZoomTimer);
    this.wheelZoomTimer = setTimeout(() => this.endSnapshot(), 250);
    this.zoomAround(Math.exp(-delta * sensitivity), event.clientX, event.clientY);
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

/** An emoji element's box in world coordinates (centre, width, height), ignoring live feedback. */
function worldBox(element) {
  const w = element.offsetWidth;
  const h = element.offsetHeight;
  return { cx: element.offsetLeft + w / 2, cy: element.offsetTop + h / 2, w, h };
}
