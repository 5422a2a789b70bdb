// What copy puts on the clipboard and what paste makes of it. A copy carries the emojis three
// ways: an EmojiArt fragment in our own type (other EmojiArt windows of this browser), the same
// fragment inside text/html (other browsers and apps keep HTML), and the emojis themselves as
// plain text (any text field). Paste reads the fragment first, then plain text that is all emoji.
import { graphemes } from "../intl.js";

const FRAGMENT_TYPE = "application/x-emojiart-fragment+json";
const FRAGMENT_MARKER = "emojiart-fragment";
const FRAGMENT_ATTRIBUTE = "data-emojiart-fragment";
export const MAXIMUM_PASTED = 10_000; // emojis in one paste (a document holds at most 100,000)

/** The fragment for emojis as the document state has them ({text, x, y, size, rotation?}). */
function fragmentOf(emojis) {
  return {
    type: FRAGMENT_MARKER,
    version: 1,
    emojis: emojis.map(({ text, x, y, size, rotation }) => ({ text, x, y, size, rotation: rotation || 0 })),
  };
}

function toBase64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
const fromBase64 = (base64) => new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));

/** Puts `emojis` on the clipboard of a copy or cut event (its DataTransfer). */
export function writeFragment(data, emojis) {
  const json = JSON.stringify(fragmentOf(emojis));
  const text = emojis.map((emoji) => emoji.text).join("");
  data.setData("text/plain", text);
  data.setData(FRAGMENT_TYPE, json);
  // The text is emojis only (checked by the server when they were added), so it needs no escaping
  // beyond what a text node gets; the fragment rides in an attribute, base64 so nothing in it is markup.
  const span = document.createElement("span");
  span.setAttribute(FRAGMENT_ATTRIBUTE, toBase64(json));
  span.textContent = text;
  data.setData("text/html", `<meta charset="utf-8">${span.outerHTML}`);
}

/** The fragment's emojis from a clipboard's data (`get(type)` → string), or null when it has none. */
export function readFragment(get) {
  let json = get(FRAGMENT_TYPE);
  if (!json) {
    const match = /data-emojiart-fragment="([A-Za-z0-9+/=]+)"/.exec(get("text/html") || "");
    if (!match) return null;
    try {
      json = fromBase64(match[1]);
    } catch {
      return null;
    }
  }
  let fragment;
  try {
    fragment = JSON.parse(json);
  } catch {
    return null;
  }
  if (fragment?.type !== FRAGMENT_MARKER || !Array.isArray(fragment.emojis)) return null;
  const number = (value) => (Number.isInteger(value) ? value : null);
  const emojis = fragment.emojis.slice(0, MAXIMUM_PASTED).flatMap((emoji) => {
    const x = number(emoji?.x);
    const y = number(emoji?.y);
    const size = number(emoji?.size);
    if (typeof emoji?.text !== "string" || x === null || y === null || size === null) return [];
    return [{ text: emoji.text, x, y, size, rotation: number(emoji.rotation) ?? 0 }];
  });
  return emojis.length ? emojis : null;
}

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** The emojis in plain text that is emojis only (spaces and line breaks between them allowed), or null. */
export function emojisInText(text) {
  const pieces = graphemes(text.trim()).filter((piece) => !/^\s+$/u.test(piece));
  if (!pieces.length || pieces.length > MAXIMUM_PASTED || !pieces.every((piece) => EMOJI.test(piece))) return null;
  return pieces;
}
