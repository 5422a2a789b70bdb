// What this window may do with the document (docs/API.md, "Who may ask"): the requester's role —
// a viewer's editor says "View only" and offers nothing that changes the document — and, for an
// owner signed in with an account, the Share button. When access ends while the window is open,
// it finds out whether the document can still be seen, with another role.
import * as api from "../api.js";
import { ShareDialog } from "../share.js";

export class DocumentAccess {
  /** @param {string} documentId */
  /** @param {() => Promise<void>} signedOut what to do when the server says no one is signed in (before going to sign in) */
  constructor(documentId, signedOut) {
    this.documentId = documentId;
    this.signedOut = signedOut;
    /** "owner", "editor", "commenter" or "viewer"; null until known, or when the document can't be seen. */
    this.role = null;
    this.sharing = null;
  }

  get readOnly() {
    return this.role === "viewer" || this.role === "commenter"; // a commenter comments, changing nothing
  }

  /**
   * Learns the role and marks the page with it; false when there is none to learn, with the
   * status that said so in `denied` (404: the live connection says so too; 401: no one signed
   * in, for the caller to send to the sign-in page).
   */
  async load() {
    try {
      this.role = (await api.getDocument(this.documentId, { signIn: false })).role || "owner";
    } catch (error) {
      this.denied = error.status;
      if (error.status !== 401) this.role = null;
      return false;
    }
    this.show();
    return true;
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
    const signedIn = await api.session().then((session) => session.access === "accounts", () => false);
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
