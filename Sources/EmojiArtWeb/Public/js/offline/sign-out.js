// Signing out on a shared computer: the session ends on the server, and nothing of this user
// stays in the browser — the changes not yet sent (asked first), the copies of their documents
// and the images kept for them, and who was signed in (docs/OFFLINE.md, "Accounts and shared
// computers").
import * as api from "../api.js";
import { confirmAction } from "../dom.js";
import { palettesKey } from "../palettes.js";
import { DocumentCopies } from "./document-copies.js";
import { countUnsent, forgetOwner } from "./unsent-queue.js";

/**
 * Signs out whoever is signed in and deletes what the browser keeps for them; resolves false
 * when they chose to stay signed in (rather than discard changes not yet sent). The server ends
 * the session first: if it can't be reached (or fails), this rejects with its error and nothing
 * is deleted — they are still signed in, and deleting their copies would only hide that.
 * @param {import("./local-store.js").LocalStore} store
 * @param {import("./identity.js").Identity} identity
 */
export async function signOut(store, identity) {
  const owner = (await identity.whoIsAsking()).key;
  const copies = new DocumentCopies(store);
  // Changes not sent, and documents made offline that the server doesn't have yet.
  const made = (await copies.list(owner).catch(() => [])).filter((copy) => copy.unsaved).length;
  const unsent = (await countUnsent(store, owner).catch(() => 0)) + made;
  if (unsent > 0) {
    const changes = unsent === 1 ? "1 change" : `${unsent} changes`;
    const leave = await confirmAction({
      title: "Sign out?",
      message: `${changes} made in this browser ${unsent === 1 ? "hasn’t" : "haven’t"} reached the server yet. Signing out deletes ${unsent === 1 ? "it" : "them"} from this browser.`,
      confirmLabel: "Sign out and discard",
    });
    if (!leave) return false;
  }
  try {
    await api.signOut();
  } catch (error) {
    if (error?.status !== 401) throw error; // 401: the session had ended already
  }
  await forgetOwner(store, owner).catch(() => {});
  await copies.forgetAll(owner).catch(() => {});
  await store.writeMeta(palettesKey(owner), undefined).catch(() => {});
  await identity.forget().catch(() => {});
  // Other tabs of this browser (an editor left open) stop keeping anything for them.
  if (globalThis.BroadcastChannel) new BroadcastChannel(ACCOUNT_CHANNEL).postMessage({ signedOut: owner });
  return true;
}

/** The channel a sign-out is told on, to every tab of this browser (./sign-out.js, ../editor/unsent-changes.js). */
export const ACCOUNT_CHANNEL = "emojiart-account";
