// What a screen reader says for an emoji on the canvas: "🐶 dog face at 120, −40, size 64".
// The names are the emoji catalogue's (../emoji/catalogue.js), in the page's language; until
// the catalogue has loaded a label is the emoji alone, and the options are labelled again once
// it has (whenNamesLoaded).
import { loadCatalogue, loadedCatalogue } from "../emoji/catalogue.js";

/** The emoji's name in words ("dog face", "flag: France", "waving hand: medium skin tone"), or "" when unknown or not loaded yet. */
function emojiName(text) {
  return loadedCatalogue()?.name(text) ?? "";
}

/**
 * Starts loading the names (if nothing has yet) and calls `loaded` once they are there. A
 * server without the catalogue leaves the labels without names.
 */
export function whenNamesLoaded(loaded) {
  loadCatalogue().then(loaded, () => {});
}

const signed = (n) => (n < 0 ? "−" + -n : String(n));

/** "🐶 dog face at 120, −40, size 64" (and ", turned 15°" when turned). */
export function emojiLabel(emoji) {
  const name = emojiName(emoji.text);
  const turned = emoji.rotation ? `, turned ${emoji.rotation}°` : "";
  return `${emoji.text}${name ? " " + name : ""} at ${signed(emoji.x)}, ${signed(emoji.y)}, size ${emoji.size}${turned}`;
}
