// The viewport: which part of the document the canvas shows, and the mapping between the screen,
// the world and document points.
//
// Geometry. Document points have their origin at the canvas centre and y pointing up. Everything
// drawn lives in one "world" element whose CSS transform does the zoom and the pan, so panning
// changes one style, not 5,000. Inside the world 1 CSS px = 1 document point and y points down:
// document (x, y) is world (x, −y). The world's origin is drawn at viewport centre + pan (pan in
// screen pixels), scaled by zoom.

export const MIN_ZOOM = 0.01;
export const MAX_ZOOM = 64;
export const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

export class Viewport {
  /**
   * @param {HTMLElement} root the canvas element, whose size is the viewport's
   * @param {HTMLElement} world the element transformed by zoom and pan
   * @param {{applied: () => void, changed: (view) => void}} listeners `applied` after every
   *   change drawn (to place overlays), `changed` when a change is finished (to remember it)
   */
  constructor(root, world, listeners) {
    this.root = root;
    this.world = world;
    this.listeners = listeners;
    this.zoom = 1;
    this.panX = 0;
    this.panY = 0;
    this.width = root.clientWidth;
    this.height = root.clientHeight;
    new ResizeObserver(() => {
      this.width = root.clientWidth;
      this.height = root.clientHeight;
      this.apply();
    }).observe(root);
  }

  get view() {
    return { zoom: this.zoom, panX: this.panX, panY: this.panY };
  }

  /** Shows `view`; `notify: false` for steps of a gesture, which announces its end itself. */
  set({ zoom = this.zoom, panX = this.panX, panY = this.panY } = {}, { notify = true } = {}) {
    this.zoom = clamp(Number(zoom) || 1, MIN_ZOOM, MAX_ZOOM);
    this.panX = Number.isFinite(Number(panX)) ? Number(panX) : 0;
    this.panY = Number.isFinite(Number(panY)) ? Number(panY) : 0;
    this.apply();
    if (notify) this.finished();
  }

  /** Announces the view as it is now (the end of a pan or pinch). */
  finished() {
    this.listeners.changed?.(this.view);
  }

  apply() {
    const x = this.width / 2 + this.panX;
    const y = this.height / 2 + this.panY;
    this.world.style.transform = `translate(${x}px, ${y}px) scale(${this.zoom})`;
    if (this.world.dataset.zoom !== String(this.zoom)) {
      this.world.style.setProperty("--zoom", String(this.zoom));
      this.world.dataset.zoom = String(this.zoom);
    }
    Object.assign(this.root.dataset, { zoom: this.zoom, panX: this.panX, panY: this.panY });
    this.listeners.applied?.();
  }

  /** Zooms by `factor` keeping the document point under (clientX, clientY) in place. */
  zoomAround(factor, clientX, clientY, options) {
    const rect = this.root.getBoundingClientRect();
    const sx = clientX - rect.left - this.width / 2;
    const sy = clientY - rect.top - this.height / 2;
    const zoom = clamp(this.zoom * factor, MIN_ZOOM, MAX_ZOOM);
    const ratio = zoom / this.zoom;
    this.set({ zoom, panX: sx - (sx - this.panX) * ratio, panY: sy - (sy - this.panY) * ratio }, options);
  }

  /** Zooms by `factor` around the middle of the view. */
  zoomBy(factor) {
    const rect = this.root.getBoundingClientRect();
    this.zoomAround(factor, rect.left + this.width / 2, rect.top + this.height / 2);
  }

  panBy(dx, dy, options) {
    this.set({ panX: this.panX + dx, panY: this.panY + dy }, options);
  }

  /** The world point (y down) under a client (window) position. */
  worldPoint(clientX, clientY) {
    const rect = this.root.getBoundingClientRect();
    return {
      x: (clientX - rect.left - this.width / 2 - this.panX) / this.zoom,
      y: (clientY - rect.top - this.height / 2 - this.panY) / this.zoom,
    };
  }

  /** The document point (y up, unrounded) under a client position. */
  documentPoint(clientX, clientY) {
    const world = this.worldPoint(clientX, clientY);
    return { x: world.x, y: -world.y };
  }

  /** Where a world point is drawn, in the canvas element's own pixels. */
  screenPoint(worldX, worldY) {
    return { x: this.width / 2 + this.panX + worldX * this.zoom, y: this.height / 2 + this.panY + worldY * this.zoom };
  }

  /** The document point at the middle of what is visible. */
  visibleCentre() {
    return { x: -this.panX / this.zoom, y: this.panY / this.zoom };
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

  /** What the window shows, in document points (y up): its middle and size. */
  visibleArea() {
    const rect = this.visibleWorldRect();
    return { x: rect.left + rect.width / 2, y: -(rect.top + rect.height / 2), width: rect.width, height: rect.height };
  }

  /** Zooms and pans so the world rectangle {left, top, right, bottom} fills the view; none: 100 %. */
  fit(bounds, options) {
    this.set(bounds ? this.fitted(bounds, options) : { zoom: 1, panX: 0, panY: 0 });
  }

  /** The view ({zoom, panX, panY}) in which the world rectangle {left, top, right, bottom} fills this one. */
  fitted(bounds, { margin = 24, maxZoom = MAX_ZOOM } = {}) {
    const w = Math.max(1, bounds.right - bounds.left);
    const h = Math.max(1, bounds.bottom - bounds.top);
    const room = (size) => Math.max(1, size - 2 * margin);
    const zoom = clamp(Math.min(room(this.width) / w, room(this.height) / h, maxZoom), MIN_ZOOM, MAX_ZOOM);
    const cx = (bounds.left + bounds.right) / 2;
    const cy = (bounds.top + bounds.bottom) / 2;
    return { zoom, panX: -cx * zoom, panY: -cy * zoom };
  }
}

/** The smallest rectangle holding all of `boxes` ({cx, cy, w, h}), or null. */
export function boundsOf(boxes) {
  let bounds = null;
  for (const box of boxes) {
    const left = box.cx - box.w / 2;
    const top = box.cy - box.h / 2;
    const right = box.cx + box.w / 2;
    const bottom = box.cy + box.h / 2;
    if (!bounds) bounds = { left, top, right, bottom };
    else {
      bounds.left = Math.min(bounds.left, left);
      bounds.top = Math.min(bounds.top, top);
      bounds.right = Math.max(bounds.right, right);
      bounds.bottom = Math.max(bounds.bottom, bottom);
    }
  }
  return bounds;
}
