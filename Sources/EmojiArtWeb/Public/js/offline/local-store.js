// What this browser keeps of EmojiArt between visits (docs/OFFLINE.md): one IndexedDB database
// per server (the browser keeps one per origin), with the changes not yet answered (`queue`),
// copies of the documents opened lately (`documents`) and who was signed in last (`meta`).
// Each record names its owner — who was signed in when it was written (./identity.js) — so a
// queue written under one account is never read under another.
//
// A browser may refuse storage (some private windows), or run short of it. Then `open()`
// resolves null and the page works as before, in memory, with a warning (not an error).

const DATABASE = "emojiart";
const VERSION = 3;
const NEARLY_FULL = 0.9; // of the quota the browser grants this site
// A page upgrading the database waits while other connections to it are open: a tab of an older
// page, the service worker. Each closes its own when asked (`versionchange`), and the browser
// then goes on, having said "blocked" meanwhile (Chromium does whenever another process or thread
// holds one). One that hasn't closed after this long is held by a page that won't: go on without.
const BLOCKED_FOR_AT_MOST_MS = 3000;

/** Resolves what an IndexedDB request gives, or rejects with its error. */
export const settled = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/** Resolves when a transaction has committed (rejects if it aborted). */
const committed = (transaction) =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = transaction.onerror = () => reject(transaction.error || new Error("The transaction was aborted."));
  });

function upgrade(database, transaction) {
  // Small facts about this browser: who was signed in last ({key: "identity", value}).
  if (!database.objectStoreNames.contains("meta")) database.createObjectStore("meta", { keyPath: "key" });
  if (!database.objectStoreNames.contains("documents")) {
    // The copies of documents this browser opened lately, per owner (./document-copies.js).
    const documents = database.createObjectStore("documents", { keyPath: ["owner", "id"] });
    documents.createIndex("byOwner", "owner");
  }
  const documents = transaction.objectStore("documents");
  if (!documents.indexNames.contains("byId")) documents.createIndex("byId", "id");
  if (!database.objectStoreNames.contains("queue")) {
    // One record per request not yet answered, in the order they were made (seq).
    const queue = database.createObjectStore("queue", { keyPath: "seq", autoIncrement: true });
    queue.createIndex("byDocument", ["owner", "documentId"]);
    queue.createIndex("byOwner", "owner");
    queue.createIndex("byRequest", "requestId");
  }
}

/**
 * This page's connection to the database. One per page (its entry makes it and hands it to what
 * needs it), opened on first use; `database()` is null when the browser won't keep anything.
 */
export class LocalStore {
  constructor() {
    this.opening = null;
  }

  /** The database, or null when this browser won't keep it (IndexedDB missing, refused, or broken). */
  database() {
    this.opening ??= new Promise((resolve) => {
      let request;
      try {
        request = indexedDB.open(DATABASE, VERSION);
      } catch {
        resolve(null);
        return;
      }
      let gaveUp = false;
      let deadline; // while blocked
      request.onupgradeneeded = () => upgrade(request.result, request.transaction);
      request.onsuccess = () => {
        clearTimeout(deadline);
        const database = request.result;
        if (gaveUp) return database.close(); // upgraded for the next page; this one works without
        // A newer page (another tab) upgrading the database: let it, and stop using this copy.
        database.onversionchange = () => {
          database.close();
          this.opening = Promise.resolve(null);
        };
        resolve(database);
      };
      request.onerror = () => resolve(null);
      request.onblocked = () => {
        deadline = setTimeout(() => {
          gaveUp = true;
          resolve(null);
        }, BLOCKED_FOR_AT_MOST_MS);
      };
    });
    return this.opening;
  }

  /**
   * How full this site's storage is: {refused} when the browser keeps nothing, else {usage,
   * quota, nearlyFull}. Asks the browser to keep it (not evict it under pressure) where it may.
   */
  async health() {
    if (!(await this.database())) return { refused: true };
    try {
      navigator.storage?.persist?.().catch(() => {});
      const { usage = 0, quota = 0 } = (await navigator.storage?.estimate?.()) ?? {};
      return { refused: false, usage, quota, nearlyFull: quota > 0 && usage / quota > NEARLY_FULL };
    } catch {
      return { refused: false, nearlyFull: false };
    }
  }

  /** A value kept in `meta`, or undefined. */
  async readMeta(key) {
    const database = await this.database();
    if (!database) return undefined;
    return (await settled(database.transaction("meta").objectStore("meta").get(key)))?.value;
  }

  /** Keeps (or, with undefined, forgets) a value in `meta`. */
  async writeMeta(key, value) {
    const database = await this.database();
    if (!database) return;
    const transaction = database.transaction("meta", "readwrite");
    if (value === undefined) transaction.objectStore("meta").delete(key);
    else transaction.objectStore("meta").put({ key, value });
    await committed(transaction);
  }

  /**
   * Runs `work(store)` on the object store `name` in one transaction (`mode` "readonly" or
   * "readwrite") and resolves what it answers once the transaction has committed; resolves
   * `otherwise` when the browser keeps nothing.
   */
  async within(name, mode, work, otherwise) {
    const database = await this.database();
    if (!database) return otherwise;
    const transaction = database.transaction(name, mode);
    const done = committed(transaction);
    const result = await work(transaction.objectStore(name));
    await done;
    return result;
  }
}

/** Whether an error from a write means the browser is out of room for this site. */
export const isQuotaError = (error) => error?.name === "QuotaExceededError";
