// What this window may do with the document (docs/API.md, "Who may ask"): the requester's role —
// a viewer's editor says "View only" and offers nothing that changes the document — and, for an
// owner signed in with an account, the Share button. When access ends while the window is open,
// it finds out whether the document can still be seen, with another role.
import * as api from "../api.js";
import { ShareDialog } from "../share.js";

export class DocumentAccess {
  /** @param {string} documentId */
  /** @param {() => Promise<void>} signedOut what to do when the server says no one is signed in (before going to sign in) */
  /** @param {import("../offline/identity.js").Identity} identity who is asking (its `GET /api/session`, asked once per page) */
  constructor(documentId, signedOut, identity) {
    this.documentId = documentId;
    this.signedOut = signedOut;
    this.identity = identity;
    /** "owner", "editor", "commenter" or "viewer"; null until known, or when the document can't be seen. */
    this.role = null;
    /** The role the server said, once it has (assumed from a copy until then). */
    this.told = null;
    this.known = new Promise((resolve) => (this.learned = resolve));
    this.sharing = null;
  }

  get readOnly() {
    return this.role === "viewer" || this.role === "commenter"; // a commenter comments, changing nothing
  }

  /**
   * Resolves once the server has said the role: the live connection does after it opens (an
   * `access` message). A document that can't be seen never resolves it: the connection closes
   * instead (4404: no such document; 4401: no one signed in), and says so.
   */
  load() {
    return this.known;
  }

  /**
   * The live connection's `access`, first on each connection: the page is marked with the role. One
   * different from what the server said before (changed while this window was offline) starts
   * the page again with it.
   */
  heard(role) {
    if (this.told && this.told !== role) return location.reload();
    this.told = this.role = role;
    this.show();
    this.learned();
  }

  /** The role a copy kept in the browser was opened with, until the server says (offline). */
  assume(role) {
    if (this.role) return;
    this.role = role;
    this.show();
  }

  show() {
    document.body.dataset.role = this.role;
    document.body.classList.toggle("read-only", this.readOnly);
    const badge = document.getElementById("view-only");
    badge.hidden = !this.readOnly;
    badge.textContent = this.role === "commenter" ? "Comments only" : "View only";
  }

  /** An owner signed in with an account may share the document: the Share button appears. */
  async offerSharing() {
    if (this.role !== "owner" || this.sharing) return;
    const signedIn = (await this.identity.whoIsAsking()).session?.access === "accounts";
    if (!signedIn) return;
    const button = document.getElementById("share");
    this.sharing = new ShareDialog(document.getElementById("share-dialog"), this.documentId);
    button.hidden = false;
    button.addEventListener("click", () => this.sharing.open());
  }

  /**
   * This window's access ended while open: signed out (4401, off to sign in), or a revoked link
   * or a changed role (4403). If the document can still be seen, the page starts again with the
   * role it has now. Resolves true when this window has no access left.
   */
  async ended(code) {
    if (code === 4401) {
      await this.signedOut(); // the unsent changes' part: a guest's go, then off to sign in
      return false;
    }
    if ((await api.documentStatus(this.documentId)) === 200) {
      location.reload(); // a new role: start again with it
      return false;
    }
    return true;
  }
}
