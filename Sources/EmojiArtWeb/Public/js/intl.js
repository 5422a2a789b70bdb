// The browser's language tools — date, time and number formats, and the grapheme segmenter — each
// made when first used and then kept. Making one loads the browser's data for it (tens of
// milliseconds for the segmenter), which opening a page shouldn't pay for formats it may never
// show.
const made = new Map();

/** The `Kind` (Intl.DateTimeFormat, Intl.NumberFormat, …) for the page's language with `options`, made once. */
export function intl(Kind, options = {}) {
  const key = Kind.name + JSON.stringify(options);
  if (!made.has(key)) made.set(key, new Kind(undefined, options));
  return made.get(key);
}

/** Text as the user sees its characters: grapheme clusters, so a flag, a ZWJ family or a toned emoji is one piece. */
export function graphemes(text) {
  return Array.from(intl(Intl.Segmenter, { granularity: "grapheme" }).segment(text), (piece) => piece.segment);
}
