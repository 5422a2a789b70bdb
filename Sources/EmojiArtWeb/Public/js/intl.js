// The browser's language tools — date, time and number formats, and the grapheme segmenter — each
// made when first used and then kept. Making one loads the browser's data for it (tens of
// milliseconds each, on every page: 25–100 ms for the segmenter on a 2-core machine), which
// opening a page shouldn't pay for formats it may never show.
const made = new Map();

/** The `Kind` (Intl.DateTimeFormat, Intl.NumberFormat, …) for the page's language with `options`, made once. */
export function intl(Kind, options = {}) {
  const key = Kind.name + JSON.stringify(options);
  if (!made.has(key)) made.set(key, new Kind(undefined, options));
  return made.get(key);
}

// Text made of emojis alone (a palette, the first screen's) is split without the segmenter: one
// emoji is a flag (two regional indicators), a keycap, or a pictograph with its tone, its
// presentation, a tag sequence and ZWJ joins to more; a lone tone counts only at the start (after
// anything else it belongs to what it follows). Where these pieces cover the text, they are the
// text's grapheme clusters (UAX #29: nothing in them breaks, and each next one starts with what
// no rule joins to what comes before); anything else — a text presentation, a letter, a mark, a
// ZWJ left over — leaves a gap, and the segmenter decides. The browser tests hold the two equal
// over every emoji in emoji-test.txt and over mixed and damaged text.
const EMOJIS =
  /^\p{EMod}|\p{RI}\p{RI}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}\p{EMod}?\uFE0F?(?:[\u{E0020}-\u{E007E}]+\u{E007F})?(?:\u200D\p{Extended_Pictographic}\p{EMod}?\uFE0F?)*/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Text as the user sees its characters: grapheme clusters, so a flag, a ZWJ family or a toned emoji is one piece. */
export function graphemes(text) {
  if (PRINTABLE_ASCII.test(text)) return Array.from(text);
  const emojis = text.match(EMOJIS);
  if (emojis && emojis.join("").length === text.length) return emojis;
  return Array.from(intl(Intl.Segmenter, { granularity: "grapheme" }).segment(text), (piece) => piece.segment);
}
