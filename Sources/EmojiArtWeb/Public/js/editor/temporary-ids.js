// Emojis added while offline have no id yet: the server gives ids. Until it has, each gets a
// temporary one — negative, unique to this window (a random seed), kept with the request that
// adds it (`creates`) — so the emoji can be drawn, selected, moved, turned or deleted like any
// other. A request that names temporary ids waits until the server has answered the ones that
// make them; then its ids are the real ones (the range the answered change took, in the order
// the request made them) before it is sent. If the server refused to make them, the request
// can't be sent: it is refused here, named like any refusal (docs/OFFLINE.md, "Emojis added
// offline").

const SEED_RANGE = 80_000; // seeds × PER_WINDOW stay well within Number.MAX_SAFE_INTEGER
const PER_WINDOW = 1_000_000;

/** How many emojis an edit makes: addEmoji one, paste its emojis, duplicate one per id. */
function made(edit) {
  if (edit.type === "addEmoji") return 1;
  if (edit.type === "paste") return edit.emojis?.length ?? 0;
  if (edit.type === "duplicate") return edit.ids?.length ?? 0;
  return 0;
}

// The most ids one run of "idRanges" stands for here: more than a document holds (the server
// refuses what is beyond its limits; the page only looks for its temporary ids).
const MOST_IN_A_RUN = 1_000_000;

/** The ids of one [first, last] run, or none when it isn't one. */
function run(range) {
  const [first, last] = Array.isArray(range) ? range : [];
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first || last - first >= MOST_IN_A_RUN) return [];
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** The ids an edit names ("ids", "idRanges" expanded, or setEmojiTexts' "texts"); none for what isn't an edit. */
function named(edit) {
  if (typeof edit !== "object" || edit === null) return [];
  if (Array.isArray(edit.ids)) return edit.ids;
  if (Array.isArray(edit.idRanges)) return edit.idRanges.flatMap(run);
  if (Array.isArray(edit.texts)) return edit.texts.map((entry) => entry?.id);
  return [];
}

/** `edit` with each id turned by `real` (ids from "idRanges" as a plain "ids" list). */
function renamed(edit, real) {
  if (Array.isArray(edit.texts)) return { ...edit, texts: edit.texts.map((entry) => ({ ...entry, id: real(entry.id) })) };
  if (!Array.isArray(edit.ids) && !Array.isArray(edit.idRanges)) return edit;
  const { idRanges, ...rest } = edit;
  return { ...rest, ids: named(edit).map(real) };
}

/** The temporary ids `edits` name. */
export const temporaryIdsIn = (edits) => (Array.isArray(edits) ? edits.flatMap(named).filter((id) => id < 0) : []);

/** Whether `edits` name any temporary id. */
export const namesTemporary = (edits) => temporaryIdsIn(edits).length > 0;

export class TemporaryIds {
  constructor() {
    this.base = -(1 + Math.floor(Math.random() * SEED_RANGE)) * PER_WINDOW;
    this.next = 0;
    /** temporary id → the real id, or null when the server refused to make it. */
    this.known = new Map();
  }

  /** The temporary ids of the emojis `edits` make, in order (none for edits that make none). */
  allocate(edits) {
    const count = edits.reduce((sum, edit) => sum + made(edit), 0);
    return Array.from({ length: count }, () => this.base - ++this.next);
  }

  /** The server made `creates` as the ids `real`, in the same order. */
  learn(creates, real) {
    creates.forEach((id, index) => this.known.set(id, real[index] ?? null));
  }

  /** The server refused the request that would have made `creates`. */
  refuse(creates) {
    for (const id of creates) this.known.set(id, null);
  }

  /**
   * What `edits` are now: {ready: true, edits} with every temporary id they name turned real;
   * {ready: false} while one is still being made; {ready: false, never: true} when one never will be.
   */
  resolve(edits) {
    const ids = edits.flatMap(named).filter((id) => id < 0);
    if (ids.some((id) => this.known.get(id) === null)) return { ready: false, never: true };
    if (ids.some((id) => !this.known.has(id))) return { ready: false };
    const real = (id) => (id < 0 ? this.known.get(id) : id);
    return { ready: true, edits: edits.map((edit) => (named(edit).some((id) => id < 0) ? renamed(edit, real) : edit)) };
  }
}
