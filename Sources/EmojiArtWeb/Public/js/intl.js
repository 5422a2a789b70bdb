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

// "3 hours ago", "yesterday": a relative time as Intl.RelativeTimeFormat says it with
// `numeric: "auto"`, written here when the page's language is English — the language of every
// other word on the page — because the first formatter of any kind a page makes loads the
// browser's language data (30–100 ms on a 2-core machine), and the document list would pay it on
// its first screen for a column of dates. Other languages, units, and numbers that need a group
// separator are the formatter's. The browser tests hold the two equal over every unit and sign.
const NAMED = {
  second: { 0: "now" },
  minute: { 0: "this minute" },
  hour: { 0: "this hour" },
  day: { "-1": "yesterday", 0: "today", 1: "tomorrow" },
  week: { "-1": "last week", 0: "this week", 1: "next week" },
  month: { "-1": "last month", 0: "this month", 1: "next month" },
  quarter: { "-1": "last quarter", 0: "this quarter", 1: "next quarter" },
  year: { "-1": "last year", 0: "this year", 1: "next year" },
};

/** `value` `unit`s from now (negative: ago), in the page's language, as a phrase. */
export function relativePhrase(value, unit, language = navigator.language) {
  const english = /^en(-|$)/i.test(language) && Object.hasOwn(NAMED, unit) && Number.isInteger(value) && Math.abs(value) < 1000;
  if (!english) return intl(Intl.RelativeTimeFormat, { numeric: "auto" }).format(value, unit);
  const named = NAMED[unit][value];
  if (named) return named;
  const count = `${Math.abs(value)} ${unit}${Math.abs(value) === 1 ? "" : "s"}`;
  return value < 0 ? `${count} ago` : `in ${count}`;
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
