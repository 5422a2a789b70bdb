// The emoji catalogue in the page: every emoji of Unicode's emoji-test.txt by group, with CLDR's
// names and keywords in the page's language (English always loaded as the fallback), the search
// the picker runs on every keystroke, skin-tone variants, and the names a screen reader says.
//
// The files are the ones EmojiArtKit reads (Sources/EmojiArtKit/Emoji/Catalogue, made by
// scripts/generate-emoji-catalogue), served at /emoji/: index.json names each file and its hash,
// and a file asked for with `?v=<hash>` is cached for good. Every rule here — language choice,
// folding (../search-fold.js), the ranking tiers, names of tone variants, the tone applied to several people — is
// EmojiArtKit's (EmojiCatalogue.swift, EmojiSearch.swift) in JavaScript; both are checked against
// Tests/Fixtures/emoji/search-cases.json.
import { graphemes } from "../intl.js";
import { fold } from "../search-fold.js";

const TONES = ["\u{1F3FB}", "\u{1F3FC}", "\u{1F3FD}", "\u{1F3FE}", "\u{1F3FF}"];
const TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;
const COMPONENT_GROUP = "Component";
const MAXIMUM_QUERY_LENGTH = 100; // characters (code points, as JSON Schema counts), as the API refuses longer
const MAXIMUM_SCALARS_PER_EMOJI = 16; // DocumentLimits.maximumScalarsPerEmoji
/** The tab each group shows: a familiar face of it, not always its first emoji. */
const GROUP_ICONS = {
  "Smileys & Emotion": "😀", "People & Body": "👋", "Animals & Nature": "🐱", "Food & Drink": "🍎",
  "Travel & Places": "🚗", "Activities": "⚽", "Objects": "💡", "Symbols": "❤️", "Flags": "🏁",
};
const WORD_SEPARATORS = /[ \-:,"“”‘’]+/;

/** The words of a folded term: split on spaces, hyphens, colons, commas and quotes. */
export const words = (folded) => folded.split(WORD_SEPARATORS).filter(Boolean);

/** How an emoji is looked up: without variation selectors (☀️ and ☀ are one emoji). */
const key = (text) => text.replaceAll("\uFE0F", "");


/**
 * Whether one grapheme is an emoji as EmojiArtKit's `Character.isEmoji` means it (UTS #51's
 * sequences): "🦊", "☀️", "👍🏽", "🇫🇷", "1️⃣" are; "a", "1", "©" (without VS16) and a bare tone are not.
 */
export function isEmoji(grapheme) {
  const scalars = [...grapheme];
  if (!scalars.length || scalars.length > MAXIMUM_SCALARS_PER_EMOJI) return false;
  const last = scalars[scalars.length - 1];
  if (last === "\u20E3") {
    return /^[0-9#*]$/.test(scalars[0]) && (scalars.length === 2 || (scalars.length === 3 && scalars[1] === "\uFE0F"));
  }
  if (scalars.length === 2 && scalars.every((c) => /\p{Regional_Indicator}/u.test(c))) return true;
  if (scalars[0] === "\u{1F3F4}" && last === "\u{E007F}" && scalars.length >= 3) {
    return scalars.slice(1, -1).every((c) => c.codePointAt(0) >= 0xe0020 && c.codePointAt(0) <= 0xe007e);
  }
  const elements = grapheme.split("\u200D").map((element) => [...element]);
  if (elements.length === 1) return isElement(elements[0], true);
  return elements.every((element) => isElement(element, false));
}

function isElement(scalars, standalone) {
  const [base, ...rest] = scalars;
  if (!base || !/\p{Emoji}/u.test(base) || base.codePointAt(0) < 0x80 || /\p{Regional_Indicator}/u.test(base)) return false;
  const modifies = (modifier) => /\p{Emoji_Modifier}/u.test(modifier) && /\p{Emoji_Modifier_Base}/u.test(base);
  if (rest.length === 0) {
    if (/\p{Emoji_Modifier}/u.test(base)) return false;
    return !standalone || /\p{Emoji_Presentation}/u.test(base) || base.codePointAt(0) >= 0x238d;
  }
  if (rest.length === 1) return rest[0] === "\uFE0F" || modifies(rest[0]);
  if (rest.length === 2) return modifies(rest[0]) && rest[1] === "\uFE0F";
  return false;
}

/**
 * The catalogue's language for a list of preferred ones (navigator.languages): the first that
 * is there exactly, then without its region (de-CH → de; zh-TW, zh-HK and zh-Hant-* → zh-Hant;
 * pt-BR → pt); English when none is. The same rule as EmojiCatalogue.language(for:).
 */
function chooseLanguage(preferred, available) {
  for (const tag of preferred || []) {
    const parts = String(tag).trim().split(/[-_]/).filter(Boolean);
    const first = parts[0]?.toLowerCase();
    if (!first) continue;
    const candidates = [];
    if (parts.length > 1) {
      const second = parts[1];
      const region = second.length === 4 ? second[0].toUpperCase() + second.slice(1).toLowerCase() : second.toUpperCase();
      candidates.push(`${first}-${region}`);
      if (first === "zh" && ["TW", "HK", "MO", "Hant"].includes(region)) candidates.push("zh-Hant");
    }
    candidates.push(first);
    if (first === "nb" || first === "nn") candidates.push("no");
    if (first === "tl") candidates.push("fil");
    const found = candidates.find((candidate) => Object.hasOwn(available, candidate));
    if (found) return found;
  }
  return "en";
}

/**
 * One search's folded terms of an emoji, joined into strings with NUL around each term (and
 * each word), so that every tier is one `includes`: "\0q\0" is a whole term, "\0q" the start of
 * one, "q" anywhere in one. NUL never occurs in a folded query.
 */
class Terms {
  constructor(entry, names, keywords, nameLength) {
    const join = (list) => "\0" + list.join("\0") + "\0";
    this.entry = entry;
    this.nameLength = nameLength;
    this.names = join(names);
    this.keywords = join(keywords);
    this.nameWords = join(names.flatMap(words));
    this.keywordWords = join(keywords.flatMap(words));
    this.all = this.names + this.keywords;
    this.allWords = this.nameWords + this.keywordWords;
  }

  /** The tier (0 best … 6) of this emoji for a query (see Query), or -1 when it doesn't match. */
  tier(query) {
    if (!this.all.includes(query.folded)) {
      // Tiers 0–5 all need the query inside one term; 6 needs each word to start a word.
      if (query.wordStarts.length > 1 && query.wordStarts.every((start) => this.allWords.includes(start))) return 6;
      return -1;
    }
    if (this.names.includes(query.whole)) return 0;
    if (this.keywords.includes(query.whole) || this.nameWords.includes(query.whole)) return 1;
    if (this.keywordWords.includes(query.whole)) return 2;
    if (this.names.includes(query.start)) return 3;
    if (this.keywords.includes(query.start) || this.allWords.includes(query.start)) return 4;
    return 5;
  }
}

/** A folded query with the strings Terms.tier looks for, made once per search, not once per emoji. */
class Query {
  constructor(folded) {
    this.folded = folded;
    this.whole = "\0" + folded + "\0";
    this.start = "\0" + folded;
    this.wordStarts = words(folded).map((word) => "\0" + word);
  }
}

/** The catalogue with one language's names and keywords (and English's); made by loadCatalogue. */
class Catalogue {
  /**
   * @param {object} data catalogue.json: {unicode, cldr, groups: [{name, subgroups: [{name, emojis: [[emoji, name, variants?]]}]}]}
   * @param {string} language the language chosen ("en" when English)
   * @param {object} table that language's file: {emoji: [name, ...keywords]}
   * @param {object} english en.json
   */
  constructor(data, language, table, english) {
    this.language = language;
    this.unicodeVersion = data.unicode;
    this.cldrVersion = data.cldr;
    this.tables = language === "en" ? [english] : [table, english];
    /** Every emoji that isn't a tone variant: {emoji, unicodeName, group (index), variants, order}. */
    this.entries = [];
    /** Emoji and variant, by key(): the entry's order. */
    this.index = new Map();
    this.groupNames = [];
    /** The picker's tabs, in order (not the components): {name, icon, emojis}. */
    this.groups = [];
    for (const group of data.groups) {
      const groupIndex = this.groupNames.length;
      this.groupNames.push(group.name);
      const emojis = [];
      for (const subgroup of group.subgroups) {
        for (const [emoji, unicodeName, variants = []] of subgroup.emojis) {
          const order = this.entries.length;
          this.entries.push({ emoji, unicodeName, group: groupIndex, variants, order });
          this.index.set(key(emoji), order);
          for (const variant of variants) this.index.set(key(variant), order);
          emojis.push(emoji);
        }
      }
      if (group.name !== COMPONENT_GROUP) {
        this.groups.push({ name: group.name, icon: GROUP_ICONS[group.name] ?? emojis[0], emojis });
      }
    }
    this.componentGroup = this.groupNames.indexOf(COMPONENT_GROUP);
    /** @type {Terms[] | null} built at the first search (or by prepareSearch) */
    this.terms = null;
    this.names = new Map();
  }

  /** The entry an emoji is, or is a tone variant of (a tone on an emoji without variants, or text presentation: its base); null for anything else. */
  entry(text) {
    const order = this.index.get(key(text)) ?? this.index.get(key(text).replace(TONE, ""));
    return order === undefined ? null : this.entries[order];
  }

  /** The emoji's own name in the chosen language, then English, then Unicode's. */
  localName(entry) {
    for (const table of this.tables) {
      const words = table[entry.emoji];
      if (words) return words[0];
    }
    return entry.unicodeName;
  }

  /** Folds every term once (tens of milliseconds), so each keystroke's search is only comparisons. */
  prepareSearch() {
    if (this.terms) return;
    this.terms = [];
    for (const entry of this.entries) {
      if (entry.group === this.componentGroup) continue;
      const names = [];
      const keywords = [];
      for (const table of this.tables) {
        const [name, ...rest] = table[entry.emoji] ?? [];
        if (name !== undefined) names.push(fold(name));
        for (const keyword of rest) keywords.push(fold(keyword));
      }
      if (!names.length) names.push(fold(entry.unicodeName));
      this.terms.push(new Terms(entry, names, keywords, [...this.localName(entry)].length));
    }
  }

  /**
   * The emojis matching `query`, best first, at most `limit`: [{emoji, name, keywords, group}].
   * Emojis typed into the query come first; then by tier, by the length of the name in the
   * language (code points), by the catalogue's order. Nothing for an empty query, one over 100
   * characters, or one with control characters.
   */
  search(query, limit = 50) {
    if (typeof query !== "string" || !query.trim() || limit <= 0 || /\p{Cc}/u.test(query)) return [];
    if ([...query].length > MAXIMUM_QUERY_LENGTH) return [];
    const pieces = graphemes(query);
    this.prepareSearch();
    const found = [];
    const seen = new Set();
    let rest = "";
    for (const piece of pieces) {
      const entry = isEmoji(piece) ? this.entry(piece) : null;
      if (!entry) rest += piece;
      else if (!seen.has(entry.order)) {
        seen.add(entry.order);
        found.push(entry);
      }
    }
    const folded = fold(rest);
    if (folded) {
      const prepared = new Query(folded);
      // One number per match, sorted as numbers (a typed array sorts them natively): tier, then
      // name length, then order.
      const ranked = (this.ranked ??= new Float64Array(this.terms.length)); // one buffer: nothing to collect per keystroke
      let count = 0;
      for (const terms of this.terms) {
        const tier = terms.tier(prepared);
        if (tier < 0 || seen.has(terms.entry.order)) continue;
        ranked[count++] = (tier * 1024 + Math.min(terms.nameLength, 1023)) * 8192 + terms.entry.order;
      }
      const sorted = ranked.subarray(0, count).sort();
      for (let i = 0; i < count && found.length < limit; i++) found.push(this.entries[sorted[i] % 8192]);
    }
    return found.slice(0, limit).map((entry) => this.result(entry));
  }

  /** An entry as a search result, made once and shared (frozen) by every search that finds it. */
  result(entry) {
    this.results ??= new Map();
    let result = this.results.get(entry.order);
    if (!result) {
      const named = this.tables.find((table) => table[entry.emoji]);
      const described = this.tables.find((table) => table[entry.emoji]?.length > 1);
      result = Object.freeze({
        emoji: entry.emoji,
        name: named ? named[entry.emoji][0] : entry.unicodeName,
        keywords: Object.freeze(described ? described[entry.emoji].slice(1) : []),
        group: this.groupNames[entry.group],
      });
      this.results.set(entry.order, result);
    }
    return result;
  }

  /** Whether a document's emoji (in any tone, with or without VS16) is one the query finds. */
  matches(text, query) {
    const entry = this.entry(text);
    if (!entry || typeof query !== "string") return false;
    const finding = this.finding(query);
    if (finding.entries.size) return finding.entries.has(entry);
    if (!finding.folded) return false;
    const terms = this.termsOf(entry);
    return Boolean(terms) && terms.tier(finding.prepared) >= 0;
  }

  /** A query as matches() reads it, kept for the next call (find asks once per emoji of the document). */
  finding(query) {
    if (this.lastFinding?.query === query) return this.lastFinding;
    const entries = new Set();
    let folded = "";
    if (query.trim() && !/\p{Cc}/u.test(query) && [...query].length <= MAXIMUM_QUERY_LENGTH) {
      for (const piece of graphemes(query)) {
        const entry = isEmoji(piece) ? this.entry(piece) : null;
        if (entry) entries.add(entry);
      }
      folded = fold(query);
      this.prepareSearch();
    }
    this.lastFinding = { query, entries, folded, prepared: new Query(folded) };
    return this.lastFinding;
  }

  termsOf(entry) {
    this.termsByOrder ??= new Map(this.terms.map((terms) => [terms.entry.order, terms]));
    return this.termsByOrder.get(entry.order) ?? null;
  }

  /**
   * What a screen reader calls an emoji, in the chosen language ("winkende Hand: mittlere
   * Hautfarbe"): CLDR's name, or for a tone variant its base's and its tones' names, then
   * English, then Unicode's name; "" for text that is no emoji of the catalogue.
   */
  name(text) {
    let name = this.names.get(text);
    if (name === undefined) {
      name = this.computeName(text);
      this.names.set(text, name);
    }
    return name;
  }

  computeName(text) {
    const entry = this.entry(text);
    if (!entry) return "";
    const isBase = key(text) === key(entry.emoji);
    for (const table of this.tables) {
      const own = table[text] ?? (isBase ? table[entry.emoji] : undefined);
      if (own) return own[0];
      const base = table[entry.emoji];
      if (!isBase && base) {
        const tones = [...text].filter((c) => TONES.includes(c)).map((c) => table[c]?.[0]).filter(Boolean);
        return tones.length ? base[0] + ": " + tones.join(", ") : base[0];
      }
    }
    return entry.unicodeName;
  }

  /** The tone variants of an emoji's base (none for an emoji without them). */
  variants(text) {
    return this.entry(text)?.variants ?? [];
  }

  /**
   * An emoji with a skin tone (1–5; 0 is none, the yellow default): the variant with that tone on
   * everyone in it (🧑🏽‍🤝‍🧑🏽, not 🧑🏽‍🤝‍🧑🏻), or the emoji itself when it has no variants.
   */
  withTone(text, tone) {
    const entry = this.entry(text);
    if (!entry) return text;
    if (!(tone >= 1 && tone <= 5) || !entry.variants.length) return entry.emoji;
    const modifier = TONES[tone - 1];
    return entry.variants.find((variant) => {
      const tones = [...variant].filter((c) => TONES.includes(c));
      return tones.length > 0 && tones.every((c) => c === modifier);
    }) ?? entry.emoji;
  }
}

// The catalogue is read-only data, the same for every part of a page (like a module it imports):
// each list of languages is loaded once, and every caller shares the promise. This holds no
// state of the page's.
const loads = new Map();

/** The /emoji/ files for `languages` (default: the browser's), loaded once: a Promise<Catalogue>. */
export function loadCatalogue(languages = navigator.languages) {
  const cacheKey = (languages || []).join(",");
  if (!loads.has(cacheKey)) {
    const entry = { catalogue: null, promise: null };
    entry.promise = fetchCatalogue(languages).then((catalogue) => (entry.catalogue = catalogue));
    entry.promise.catch(() => loads.delete(cacheKey)); // a later call tries again
    loads.set(cacheKey, entry);
  }
  return loads.get(cacheKey).promise;
}

/** The catalogue for the browser's languages if it has loaded, else null (nothing is started). */
export function loadedCatalogue(languages = navigator.languages) {
  return loads.get((languages || []).join(","))?.catalogue ?? null;
}

async function fetchCatalogue(languages) {
  const json = async (path) => {
    const response = await fetch(path, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`The server answered ${response.status} for ${path}.`);
    return response.json();
  };
  const index = await json("/emoji/index.json");
  const file = (entry) => `/emoji/${encodeURIComponent(entry.file)}?v=${encodeURIComponent(entry.hash)}`;
  const language = chooseLanguage(languages, index.languages);
  const [data, english, table] = await Promise.all([
    json(file(index.catalogue)),
    json(file(index.languages.en)),
    language === "en" ? null : json(file(index.languages[language])),
  ]);
  return new Catalogue(data, language, table ?? english, english);
}
