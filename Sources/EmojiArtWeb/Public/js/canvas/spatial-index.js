// The spatial index: finds the emojis in a rectangle, or under a point, without looking at the
// others. A uniform grid over the world lists, for each cell, the positions (in drawing order) of
// the emojis whose boxes touch it; an emoji spanning more than BIG_CELLS cells is kept on a short
// list that every query checks instead. Built in one pass over the document (a few ms for 50,000
// emojis); a query costs the cells it covers plus the emojis listed in them.
import { emojiBox, emojiContains } from "./emoji-geometry.js";

const CELL = 128; // world units
const BIG_CELLS = 64;
const LIMIT = 32767; // cells further out share the edge cells: still correct, just less selective
const cellOf = (value) => Math.max(-LIMIT, Math.min(LIMIT, Math.floor(value / CELL)));
const keyOf = (column, row) => (row + LIMIT) * 65536 + (column + LIMIT);

export class SpatialIndex {
  /** @param {Array<{x, y, size, rotation?}>} emojis in drawing order */
  constructor(emojis = []) {
    this.emojis = emojis;
    this.boxes = new Float64Array(emojis.length * 4); // left, top, right, bottom of each, world (y down)
    /** @type {Map<number, number[]>} cell key → positions, ascending */
    this.cells = new Map();
    this.big = [];
    this.bounds = null; // {left, top, right, bottom} of every emoji, or null when there are none
    this.stamp = new Uint32Array(emojis.length); // query marks, so a position is listed once
    this.generation = 0;
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (let i = 0; i < emojis.length; i++) {
      const box = emojiBox(emojis[i]);
      const l = box.cx - box.w / 2, t = box.cy - box.h / 2, r = box.cx + box.w / 2, b = box.cy + box.h / 2;
      this.boxes.set([l, t, r, b], i * 4);
      if (l < left) left = l;
      if (t < top) top = t;
      if (r > right) right = r;
      if (b > bottom) bottom = b;
      const [c0, c1, r0, r1] = [cellOf(l), cellOf(r), cellOf(t), cellOf(b)];
      if ((c1 - c0 + 1) * (r1 - r0 + 1) > BIG_CELLS) {
        this.big.push(i);
        continue;
      }
      for (let row = r0; row <= r1; row++) {
        for (let column = c0; column <= c1; column++) {
          const key = keyOf(column, row);
          const cell = this.cells.get(key);
          if (cell) cell.push(i);
          else this.cells.set(key, [i]);
        }
      }
    }
    if (emojis.length) this.bounds = { left, top, right, bottom };
  }

  get count() {
    return this.emojis.length;
  }

  /** The world box {left, top, right, bottom} of the emoji at `position`. */
  boxAt(position) {
    const b = this.boxes;
    const i = position * 4;
    return { left: b[i], top: b[i + 1], right: b[i + 2], bottom: b[i + 3] };
  }

  /**
   * The positions, in drawing order, of the emojis whose boxes touch the world rectangle
   * {left, top, right, bottom}.
   */
  query(rect) {
    const bounds = this.bounds;
    if (!bounds || rect.right < bounds.left || rect.left > bounds.right || rect.bottom < bounds.top || rect.top > bounds.bottom) return [];
    if (rect.left <= bounds.left && rect.top <= bounds.top && rect.right >= bounds.right && rect.bottom >= bounds.bottom) {
      return Array.from({ length: this.emojis.length }, (_, i) => i);
    }
    const found = [];
    const mark = this.nextGeneration();
    const take = (i) => {
      if (this.stamp[i] === mark) return;
      this.stamp[i] = mark;
      if (this.touches(i, rect)) found.push(i);
    };
    // Only the cells where emojis are: a rectangle far bigger than the document costs no more.
    const c0 = cellOf(Math.max(rect.left, bounds.left)), c1 = cellOf(Math.min(rect.right, bounds.right));
    const r0 = cellOf(Math.max(rect.top, bounds.top)), r1 = cellOf(Math.min(rect.bottom, bounds.bottom));
    if ((c1 - c0 + 1) * (r1 - r0 + 1) > this.cells.size) {
      for (const cell of this.cells.values()) for (const i of cell) take(i);
    } else {
      for (let row = r0; row <= r1; row++) {
        for (let column = c0; column <= c1; column++) {
          const cell = this.cells.get(keyOf(column, row));
          if (cell) for (const i of cell) take(i);
        }
      }
    }
    for (const i of this.big) take(i);
    return found.sort((a, b) => a - b);
  }

  /** The position of the topmost emoji drawn at world point (x, y) that `accept`s, or -1. */
  at(x, y, accept = () => true) {
    let best = -1;
    const consider = (i) => {
      if (i > best && emojiContains(this.emojis[i], x, y) && accept(this.emojis[i])) best = i;
    };
    const cell = this.cells.get(keyOf(cellOf(x), cellOf(y)));
    if (cell) for (let k = cell.length - 1; k >= 0 && cell[k] > best; k--) consider(cell[k]);
    for (const i of this.big) consider(i);
    return best;
  }

  touches(i, rect) {
    const b = this.boxes;
    const j = i * 4;
    return b[j + 2] >= rect.left && b[j] <= rect.right && b[j + 3] >= rect.top && b[j + 1] <= rect.bottom;
  }

  nextGeneration() {
    this.generation = (this.generation + 1) >>> 0;
    if (this.generation === 0) {
      this.stamp.fill(0);
      this.generation = 1;
    }
    return this.generation;
  }
}
