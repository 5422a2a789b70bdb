// Alignment while moving: the moving selection's left, centre and right snap to other emojis'
// left, centre and right (and top, middle, bottom likewise) and to the background's centre,
// when within a few screen pixels; the lines it snaps to are drawn as guides. Built once per
// drag from what isn't moving, so each pointer move is two binary searches.

/** Where a box's edges and centre are along one axis: [start, middle, end]. */
const stops = (low, high) => [low, (low + high) / 2, high];

export class SnapTargets {
  /**
   * @param {Array<{cx, cy, w, h}>} boxes world boxes (y down) of what stays put
   * @param {{cx, cy, w, h} | null} background the background's box: its centre lines are targets
   */
  constructor(boxes, background = null) {
    const xs = [];
    const ys = [];
    for (const b of boxes) {
      const [left, top, right, bottom] = [b.cx - b.w / 2, b.cy - b.h / 2, b.cx + b.w / 2, b.cy + b.h / 2];
      for (const x of stops(left, right)) xs.push({ value: x, from: top, to: bottom });
      for (const y of stops(top, bottom)) ys.push({ value: y, from: left, to: right });
    }
    if (background) {
      xs.push({ value: background.cx, from: background.cy - background.h / 2, to: background.cy + background.h / 2 });
      ys.push({ value: background.cy, from: background.cx - background.w / 2, to: background.cx + background.w / 2 });
    }
    this.xs = xs.sort((a, b) => a.value - b.value);
    this.ys = ys.sort((a, b) => a.value - b.value);
  }

  /** The target line nearest `value` within `threshold`, or null. */
  static nearest(lines, value, threshold) {
    let low = 0;
    let high = lines.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (lines[mid].value < value) low = mid + 1;
      else high = mid;
    }
    let best = null;
    for (const line of [lines[low - 1], lines[low]]) {
      if (line && Math.abs(line.value - value) <= threshold && (!best || Math.abs(line.value - value) < Math.abs(best.value - value))) {
        best = line;
      }
    }
    return best;
  }

  /**
   * Snaps a move of the box `bounds` ({left, top, right, bottom}, world) by (dx, dy): returns the
   * move to make and the guides to draw ({axis: "x" | "y", value, from, to}).
   */
  snap(bounds, dx, dy, threshold) {
    const guides = [];
    const along = (lines, [low, high], delta, axis, [crossLow, crossHigh]) => {
      let best = null;
      for (const stop of stops(low + delta, high + delta)) {
        const line = SnapTargets.nearest(lines, stop, threshold);
        if (line && (!best || Math.abs(line.value - stop) < Math.abs(best.shift))) best = { line, shift: line.value - stop };
      }
      if (!best) return delta;
      const moved = delta + best.shift;
      guides.push({
        axis,
        value: best.line.value,
        from: Math.min(best.line.from, crossLow),
        to: Math.max(best.line.to, crossHigh),
      });
      return moved;
    };
    const snappedX = along(this.xs, [bounds.left, bounds.right], dx, "x", [bounds.top + dy, bounds.bottom + dy]);
    const snappedY = along(this.ys, [bounds.top, bounds.bottom], dy, "y", [bounds.left + snappedX, bounds.right + snappedX]);
    return { dx: snappedX, dy: snappedY, guides };
  }
}
