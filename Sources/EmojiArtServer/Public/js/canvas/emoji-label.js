// What a screen reader says for an emoji on the canvas: "🐶 dog face at 120, −40, size 64".
import { EMOJI_NAMES } from "../emoji-names.js";

const SKIN_TONES = {
  "\u{1F3FB}": "light skin tone",
  "\u{1F3FC}": "medium-light skin tone",
  "\u{1F3FD}": "medium skin tone",
  "\u{1F3FE}": "medium-dark skin tone",
  "\u{1F3FF}": "dark skin tone",
};
const REGIONAL_A = 0x1f1e6;
const isRegional = (c) => c.codePointAt(0) >= REGIONAL_A && c.codePointAt(0) <= 0x1f1ff;
const isTag = (c) => c.codePointAt(0) >= 0xe0020 && c.codePointAt(0) <= 0xe007f;

/** The emoji's name in words ("dog face", "flag FR", "keycap 1"), or "" when unknown. */
export function emojiName(text) {
  const scalars = [...text].filter((c) => c !== "\uFE0F" && c !== "\u200D");
  if (scalars.length === 2 && scalars.every(isRegional)) {
    return "flag " + scalars.map((c) => String.fromCharCode(c.codePointAt(0) - REGIONAL_A + 65)).join("");
  }
  if (scalars.includes("\u20E3")) return "keycap " + scalars[0];
  if (scalars.some(isTag)) {
    const region = scalars.filter(isTag).map((c) => String.fromCharCode(c.codePointAt(0) - 0xe0000)).join("").replace("\x7f", "");
    return "flag " + region.toUpperCase();
  }
  return scalars.map((c) => SKIN_TONES[c] ?? EMOJI_NAMES[c]).filter(Boolean).join(", ");
}

const signed = (n) => (n < 0 ? "−" + -n : String(n));

/** "🐶 dog face at 120, −40, size 64" (and ", turned 15°" when turned). */
export function emojiLabel(emoji) {
  const name = emojiName(emoji.text);
  const turned = emoji.rotation ? `, turned ${emoji.rotation}°` : "";
  return `${emoji.text}${name ? " " + name : ""} at ${signed(emoji.x)}, ${signed(emoji.y)}, size ${emoji.size}${turned}`;
}
