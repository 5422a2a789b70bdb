// The one way text is made comparable for a search in the page — the emoji catalogue's names and
// keywords, documents' titles in the list offline — as the server does it (EmojiArtKit's
// SearchFolding.swift): "cafe" finds "Café", "ｆｕｌｌ" finds "full".

const MARKS = /\p{M}/gu;
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * The folded form every comparison uses, as SearchFolding.fold: lower case (one code point at a
 * time, as Swift does: a final capital sigma becomes σ, not ς), compatibility-decomposed,
 * without combining marks, spaces trimmed and collapsed. "Étoile" → "etoile".
 */
export function fold(text) {
  let lower = text.includes("Σ") ? text.replaceAll("Σ", "σ").toLowerCase() : text.toLowerCase();
  if (!PLAIN.test(lower)) lower = lower.normalize("NFKD").replace(MARKS, "");
  return lower.replace(/\s+/gu, " ").trim();
}
