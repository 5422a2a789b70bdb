// The requests a window made that the server hasn't answered yet, kept in IndexedDB
// (./local-store.js) before they are sent and deleted once answered, so that a reload, a closed
// tab or a crashed browser loses none of them (docs/OFFLINE.md). A record:
//
//   {format, seq, owner, documentId, window, requestId, message, edits, creates, label, madeAt}
//
// `message` is the live request exactly as sent (with its requestId, so sending it again is
// recognised and applied once); `edits` what it does, to draw it pending; `creates` the
// temporary ids of the emojis it adds (../editor/temporary-ids.js); `label` its name in
// a notice ("Move 🐶"); `window` the id of the window that made it. A window holds a Web Lock
// named after its id while it is open, so the next window of the document takes over only the
// records whose window is gone — two open tabs each send their own.

import { settled } from "./local-store.js";

/** The shape of a record this page writes; records of another shape are not sent (a notice says so). */
const QUEUE_FORMAT = 1;
const WINDOW_LOCK = "emojiart-window-";
const TAKEOVER_LOCK = "emojiart-queue-";

/** Holds this window's lock until the page goes: others see its records as taken. */
export function holdWindowLock(windowId) {
  navigator.locks?.request(WINDOW_LOCK + windowId, () => new Promise(() => {})).catch(() => {});
}

/** The ids of the windows open now (in any tab of this browser profile), or null when unknown. */
async function openWindows() {
  if (!navigator.locks?.query) return null;
  try {
    const { held = [], pending = [] } = await navigator.locks.query();
    return new Set([...held, ...pending].map((lock) => lock.name).filter((name) => name.startsWith(WINDOW_LOCK)).map((name) => name.slice(WINDOW_LOCK.length)));
  } catch {
    return null;
  }
}

/** Runs `work` while no other window of this document is taking records over. */
function exclusively(documentId, work) {
  if (!navigator.locks?.request) return work();
  return navigator.locks.request(TAKEOVER_LOCK + documentId, work);
}

/** Whether `edits` is a list of edits (plain objects naming their type), as the page writes them. */
const editList = (edits) =>
  Array.isArray(edits) && edits.every((edit) => typeof edit === "object" && edit !== null && !Array.isArray(edit) && typeof edit.type === "string");

/** Why a record can't be sent, or null when it can. */
function problem(record) {
  if (typeof record !== "object" || record === null) return "unreadable";
  if (record.format !== QUEUE_FORMAT) return "older";
  if (typeof record.requestId !== "string" || !record.requestId || record.requestId.length > 64) return "unreadable";
  if (typeof record.message !== "string") return "unreadable";
  const creates = record.creates ?? [];
  if (!Array.isArray(creates) || creates.some((id) => !Number.isSafeInteger(id) || id >= 0)) return "unreadable";
  if (record.edits != null && !editList(record.edits)) return "unreadable"; // what it draws pending
  try {
    const message = JSON.parse(record.message);
    if (message?.requestId !== record.requestId || !["edit", "undo", "redo"].includes(message.type)) return "unreadable";
    if (message.type === "edit" && !editList(message.edits)) return "unreadable";
  } catch {
    return "unreadable";
  }
  return null;
}

export class UnsentQueue {
  /**
   * @param {import("./local-store.js").LocalStore} store
   * @param {string} owner whose records these are (./identity.js)
   * @param {string} documentId
   * @param {string} windowId this window's id (its request ids' prefix)
   */
  constructor(store, owner, documentId, windowId) {
    this.store = store;
    this.owner = owner;
    this.documentId = documentId;
    this.windowId = windowId;
  }

  /** Keeps one request before it is sent. Rejects when the browser wouldn't keep it. */
  async keep({ requestId, message, edits, creates, label }) {
    if (!(await this.store.database())) throw new Error("This browser keeps nothing for this site.");
    await this.store.within("queue", "readwrite", (store) => {
      store.add({
        format: QUEUE_FORMAT, owner: this.owner, documentId: this.documentId, window: this.windowId,
        requestId, message, edits: edits ?? null, creates: creates ?? [], label: label ?? "", madeAt: Date.now(),
      });
    });
  }

  /** The request `requestId` says `message` now (the real ids of emojis added offline, `edits`). */
  rewrite(requestId, message, edits) {
    return this.store.within("queue", "readwrite", async (store) => {
      for (const record of await settled(store.index("byRequest").getAll(requestId))) {
        if (record.owner === this.owner) store.put({ ...record, message, edits });
      }
    });
  }

  /** Forgets the request the server answered. */
  forget(requestId) {
    return this.store.within("queue", "readwrite", async (store) => {
      for (const key of await settled(store.index("byRequest").getAllKeys(requestId))) store.delete(key);
    });
  }

  /**
   * Takes over this owner's records of the document left by windows that are gone (closed,
   * reloaded, crashed): {records, skipped: {unreadable, older}}, the records in the order they
   * were made. Records that can't be sent are deleted and only counted.
   */
  takeOver() {
    const skipped = { unreadable: 0, older: 0 };
    return exclusively(this.documentId, async () => {
      const alive = await openWindows();
      const records = await this.store.within("queue", "readwrite", async (store) => {
        const found = await settled(store.index("byDocument").getAll(IDBKeyRange.only([this.owner, this.documentId])));
        const taken = [];
        for (const record of found) {
          if (record.window === this.windowId) continue;
          if (alive?.has(record.window)) continue; // an open window still sends its own
          const why = problem(record);
          if (why) {
            skipped[why] += 1;
            store.delete(record.seq);
            continue;
          }
          store.put({ ...record, window: this.windowId });
          taken.push(record);
        }
        return taken;
      }, []);
      return { records: records.sort((a, b) => a.seq - b.seq), skipped };
    });
  }

  /** This window's records belong to `owner` (who was signed in is known only now). */
  reown(owner) {
    this.owner = owner;
    return this.store.within("queue", "readwrite", async (store) => {
      for (const record of await settled(store.getAll())) {
        if (record.window === this.windowId && record.documentId === this.documentId) store.put({ ...record, owner });
      }
    });
  }

  /** Forgets every record of this owner for the document (access to it ended). */
  forgetDocument() {
    return forgetDocumentRecords(this.store, this.owner, this.documentId);
  }
}

/** How many records `owner` has waiting, in all documents. */
export const countUnsent = (store, owner) =>
  store.within("queue", "readonly", (queue) => settled(queue.index("byOwner").count(owner)), 0);

/** Forgets what `owner` has waiting for one document (they can no longer change it). */
const forgetDocumentRecords = (store, owner, documentId) =>
  forgetRecords(store, "byDocument", IDBKeyRange.only([owner, documentId]));

/** Forgets everything `owner` has waiting (signing out on a shared computer). */
export const forgetOwner = (store, owner) => forgetRecords(store, "byOwner", IDBKeyRange.only(owner));

const forgetRecords = (store, index, range) =>
  store.within("queue", "readwrite", async (queue) => {
    for (const key of await settled(queue.index(index).getAllKeys(range))) queue.delete(key);
  });
