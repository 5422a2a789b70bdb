// An emoji's geometry in the world (y down), shared by the drawing, the index and the gestures.
// An emoji is drawn as the DOM lays out one line of text: a box EMOJI_WIDTH em wide and 1 em high
// (1 em = its size in points), centred on its point and turned about that point by its rotation.

export const EMOJI_WIDTH = 1.25; // em: an emoji glyph's advance is about 1.0–1.25 em in the common emoji fonts

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

/** True when the world point (x, y) lies on the emoji itself (its turned box, not just the bounds). */
export function emojiContains(emoji, x, y) {
  let dx = x - emoji.x;
  let dy = y + emoji.y;
  if (emoji.rotation) {
    const radians = (-emoji.rotation * Math.PI) / 180;
    [dx, dy] = [dx * Math.cos(radians) - dy * Math.sin(radians), dx * Math.sin(radians) + dy * Math.cos(radians)];
  }
  return Math.abs(dx) <= (emoji.size * EMOJI_WIDTH) / 2 && Math.abs(dy) <= emoji.size / 2;
}

/** Where a world point (x, y) goes when turned `degrees` clockwise about `pivot` (world, y down). */
export function turnedPoint(x, y, pivot, degrees) {
  const radians = (degrees * Math.PI) / 180;
  const dx = x - pivot.x;
  const dy = y - pivot.y;
  return { x: pivot.x + dx * Math.cos(radians) - dy * Math.sin(radians), y: pivot.y + dx * Math.sin(radians) + dy * Math.cos(radians) };
}
