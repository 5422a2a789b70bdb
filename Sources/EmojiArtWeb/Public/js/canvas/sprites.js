// Emoji sprites: each emoji text drawn once into a small canvas per size level (16, 32 … 256
// pixels), so drawing thousands of emojis is thousands of image copies rather than thousands of
// text layouts. A level is the next power of two at or above the size an emoji is shown at, so
// a sprite is never enlarged; emojis shown bigger than the largest level are drawn as text.
import { EMOJI_WIDTH } from "./emoji-geometry.js";

const LEVELS = [16, 32, 64, 128, 256];
const LARGEST_SPRITE = LEVELS[LEVELS.length - 1];
const LARGE_KEPT = 256; // sprites of the two largest levels kept at once (about 80 MB at most)

export class Sprites {
  /** @param {string} font the emoji font family list (CSS) */
  constructor(font) {
    this.font = font || "sans-serif";
    /** @type {Map<number, Map<string, HTMLCanvasElement>>} level → text → sprite */
    this.levels = new Map(LEVELS.map((level) => [level, new Map()]));
  }

  /** The sprite to draw `text` at `pixels` device pixels high, or null when text should be drawn instead. */
  get(text, pixels) {
    if (pixels > LARGEST_SPRITE) return null;
    const level = LEVELS.find((size) => size >= pixels);
    const sprites = this.levels.get(level);
    let sprite = sprites.get(text);
    if (sprite) return sprite;
    if (level >= 128 && sprites.size >= LARGE_KEPT) {
      for (const old of sprites.values()) old.close?.();
      sprites.clear();
    }
    // An ImageBitmap, not a canvas: Chrome copies one into another canvas several times faster.
    const width = Math.ceil(level * EMOJI_WIDTH);
    const canvas = typeof OffscreenCanvas === "function" ? new OffscreenCanvas(width, level) : Object.assign(document.createElement("canvas"), { width, height: level });
    this.fillText(canvas.getContext("2d"), text, width / 2, level / 2, level);
    sprite = canvas.transferToImageBitmap?.() ?? canvas;
    sprites.set(text, sprite);
    return sprite;
  }

  /** Draws `text` as the DOM lays out one line of it, centred on (x, y), `size` high. */
  fillText(context, text, x, y, size) {
    context.font = `${size}px ${this.font}`;
    context.textAlign = "center";
    context.textBaseline = "alphabetic";
    const metrics = context.measureText(text);
    const ascent = metrics.fontBoundingBoxAscent ?? size * 0.8;
    const descent = metrics.fontBoundingBoxDescent ?? size * 0.2;
    context.fillText(text, x, y - size / 2 + (size - ascent - descent) / 2 + ascent);
  }

  /** Draws the sprites of `texts` at `pixels` ahead of need, when the browser is idle. */
  prepare(texts, pixels) {
    const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 50));
    const pending = [...texts];
    const work = (deadline) => {
      while (pending.length && (!deadline || deadline.timeRemaining() > 2)) this.get(pending.pop(), pixels);
      if (pending.length) idle(work);
    };
    if (pending.length) idle(work);
  }
}
