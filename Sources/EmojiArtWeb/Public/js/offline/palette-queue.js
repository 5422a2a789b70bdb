// The palette changes this browser made that the server hasn't answered yet (docs/OFFLINE.md,
// "Palettes"), kept in IndexedDB's `queue` (./local-store.js) before they are sent and deleted
// once answered — as a document's edits are (./unsent-queue.js), in the same store, so signing
// out counts and forgets them too. A record:
//
//   {format, seq, owner, documentId: "palettes", change, label, madeAt}
//
// `change` is one palette request: {kind: "create", id, name, emojis, index} (the id made here),
// {kind: "update", id, changes: {name?, addEmojis?, removeEmoji?, index?}} or {kind: "delete",
// id}. Each is idempotent on the server — a palette is made under the id this browser chose, and
// renaming, adding, removing, moving or deleting again changes nothing more — so one sent twice
// (its answer lost to a closed tab or a crash) is applied once. One window at a time sends an
// owner's changes, oldest first, whichever window made them (`exclusively`).
import { settled } from "./local-store.js";

/** The `documentId` of palette records: no document has it (documents' ids are UUIDs). */
const PALETTES = "palettes";
const FORMAT = 1;
const SEND_LOCK = "emojiart-palettes-";
const KINDS = new Set(["create", "update", "delete"]);

/** Whether `record` is one this page can send. */
function readable(record) {
  const change = record?.change;
  return record?.format === FORMAT && typeof change === "object" && change !== null && KINDS.has(change.kind) && typeof change.id === "string";
}

export class PaletteQueue {
  /**
   * @param {import("./local-store.js").LocalStore} store
   * @param {string} owner whose changes these are (./identity.js)
   */
  constructor(store, owner) {
    this.store = store;
    this.owner = owner;
  }

  /** Keeps a change before it is sent; resolves its record, or null when the browser keeps nothing. */
  async keep(change, label) {
    const record = { format: FORMAT, owner: this.owner, documentId: PALETTES, change, label, madeAt: Date.now() };
    const seq = await this.store.within("queue", "readwrite", (queue) => settled(queue.add(record)), null);
    return seq === null ? null : { ...record, seq };
  }

  /** This owner's changes waiting, oldest first; ones this page can't read are deleted and counted. */
  async waiting() {
    let skipped = 0;
    const records = await this.store.within("queue", "readwrite", async (queue) => {
      const found = await settled(queue.index("byDocument").getAll(IDBKeyRange.only([this.owner, PALETTES])));
      return found.filter((record) => {
        if (readable(record)) return true;
        skipped += 1;
        queue.delete(record.seq);
        return false;
      });
    }, []);
    return { records: records.sort((a, b) => a.seq - b.seq), skipped };
  }

  /** Forgets a change the server answered. */
  forget(seq) {
    return this.store.within("queue", "readwrite", (queue) => queue.delete(seq));
  }

  /** Runs `work` while no other window of this browser sends this owner's palette changes. */
  exclusively(work) {
    if (!navigator.locks?.request) return work();
    return navigator.locks.request(SEND_LOCK + this.owner, work);
  }
}
