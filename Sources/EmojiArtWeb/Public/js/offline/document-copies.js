// Copies of the documents this browser opened lately, so they open with no server (and at once
// with one): the last 30 a person opened, and any they keep "Available offline", in IndexedDB
// (./local-store.js) per owner — the account that opened them (./identity.js). A copy is the
// document's state as the server last sent it, with its version, and the requester's role:
//
//   {owner, id, title, version, updatedAt, emojiCount, role, state, openedAt, pinned, unsaved}
//
// `unsaved`: a document made offline ("New document" with no server), which the server doesn't
// have yet; the editor makes it there (`PUT /api/documents/{id}`) before it sends its edits.
//
// Copies go with their owner's sign-out, and one at a time when its document can't be seen. Each
// kept document has its address in the shell cache too, while anyone here has a copy of it
// (./shell-addresses.js): the browser opens it from there, before the service worker is running.
import { settled } from "./local-store.js";
import { keepAddresses, syncAddresses } from "./shell-addresses.js";

/** How many documents are kept besides the pinned and unsaved ones (the most recently opened). */
const RECENT_COPIES = 30;
/** The Cache Storage cache the service worker keeps stored images in (./service-worker.js). */
const IMAGES_CACHE = "emojiart-images";

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `state` has what the editor draws, of the kinds it draws: a copy of document `id`'s state. */
function readableState(state, id) {
  if (!isObject(state) || state.id !== id || typeof state.title !== "string" || !Number.isInteger(state.version)) return false;
  if (!Array.isArray(state.emojis)) return false;
  if (![state.background, state.backgroundState].every((part) => part === undefined || part === null || isObject(part))) return false;
  return state.emojis.every((emoji) => isObject(emoji) && Number.isSafeInteger(emoji.id) && typeof emoji.text === "string" &&
    isNumber(emoji.x) && isNumber(emoji.y) && isNumber(emoji.size) && (emoji.rotation === undefined || isNumber(emoji.rotation)));
}

export class DocumentCopies {
  /** @param {import("./local-store.js").LocalStore} store */
  constructor(store) {
    this.store = store;
  }

  /**
   * The copy of document `id` for `owner`; null when there is none, and `{unreadable: true}` when
   * the record there isn't a document's state (half-written, or changed by something else) — with
   * `unsaved` if it was made offline.
   */
  async read(owner, id) {
    const copy = await this.store.within("documents", "readonly", (store) => settled(store.get([owner, id])), null);
    if (!copy) return null;
    return Number.isInteger(copy.version) && readableState(copy.state, id) ? copy : { unreadable: true, unsaved: copy.unsaved === true };
  }

  /** The owner's copies without their states, most recently opened first. */
  async list(owner) {
    const copies = await this.store.within("documents", "readonly", (store) => settled(store.index("byOwner").getAll(owner)), []);
    return copies.map(({ state, ...summary }) => summary).sort((a, b) => b.openedAt - a.openedAt);
  }

  /**
   * Keeps `state` (a document's state as the HTTP API and the live snapshot have it) for `owner`
   * — opened now, unless `opened` is false — and forgets their oldest unpinned copies beyond
   * RECENT_COPIES.
   */
  async save(owner, state, { role = "owner", opened = true, unsaved = false } = {}) {
    // Beside the copy, not before it (a page going saves at once); none where nothing is kept.
    const addressed = this.store.database().then((database) => database && keepAddresses([state.id]));
    const aged = await this.store.within("documents", "readwrite", async (store) => {
      const earlier = await settled(store.get([owner, state.id]));
      store.put({
        owner, id: state.id, title: state.title, version: state.version, updatedAt: state.updatedAt,
        emojiCount: state.emojis?.length ?? 0, role, state,
        openedAt: opened ? Date.now() : earlier?.openedAt ?? Date.now(), pinned: earlier?.pinned ?? false, unsaved,
      });
      const copies = await settled(store.index("byOwner").getAll(owner));
      const recent = copies.filter((copy) => !copy.pinned && !copy.unsaved).sort((a, b) => b.openedAt - a.openedAt);
      const aged = recent.slice(RECENT_COPIES).map((old) => old.id);
      for (const id of aged) store.delete([owner, id]);
      return aged;
    }, []);
    await addressed;
    if (aged.length) await this.syncAddresses();
  }

  /** Makes the shell cache hold the addresses of exactly the documents anyone here has a copy of (./shell-addresses.js). */
  syncAddresses() {
    return syncAddresses(async () => {
      const keys = await this.store.within("documents", "readonly", (store) => settled(store.getAllKeys()), []);
      return [...new Set(keys.map(([, id]) => id))];
    });
  }

  /** The owners whose copy of `id` the server doesn't have yet (made offline): usually none. */
  async unsavedOwners(id) {
    const copies = await this.store.within("documents", "readonly", (store) => settled(store.index("byId").getAll(id)), []);
    return copies.filter((copy) => copy.unsaved).map((copy) => copy.owner);
  }

  /** Keeps the owner's copy of `id` whatever else they open (or lets it age out again). */
  pin(owner, id, pinned) {
    return this.store.within("documents", "readwrite", async (store) => {
      const copy = await settled(store.get([owner, id]));
      if (copy) store.put({ ...copy, pinned });
    });
  }

  /** Forgets the owner's copy of `id` (the document is gone, or they can't see it any more). */
  async forget(owner, id) {
    await this.store.within("documents", "readwrite", (store) => store.delete([owner, id]));
    await this.syncAddresses();
  }

  /** Forgets every copy of `owner`'s, and the stored images kept for them (signing out). */
  async forgetAll(owner) {
    await this.store.within("documents", "readwrite", async (store) => {
      for (const key of await settled(store.index("byOwner").getAllKeys(owner))) store.delete(key);
    });
    await this.syncAddresses();
    await globalThis.caches?.delete(IMAGES_CACHE).catch(() => {});
  }
}
