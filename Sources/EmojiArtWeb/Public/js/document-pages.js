// The document list a page at a time (GET /api/documents with limit, cursor and q; docs/API.md):
// the first page of a search, then the page after it whenever the list's end comes into view.
// The server searches and orders; this only keeps where the list got to, and drops the answers
// of a search the user has already typed past.
import * as api from "./api.js";

export class DocumentPages {
  /** `pageSize`: the first page of the whole list (limit=50) is the one index.html asks for as it starts. */
  constructor({ pageSize = 50 } = {}) {
    this.pageSize = pageSize;
    /** What the titles are searched for ("" for every document). */
    this.words = "";
    /** The cursor of the next page, or null when the last is shown. */
    this.next = null;
    this.search = 0; // counts searches, so a slower earlier one's answer is dropped
    this.loading = false;
  }

  /**
   * The first page for `words`: at least `atLeast` documents (up to 200), so that listing again
   * after a rename keeps as many rows as were shown. Null if a newer search was asked meanwhile.
   */
  async first(words = this.words, atLeast = 0) {
    const search = ++this.search;
    this.words = words;
    this.next = null; // the last list's cursor is no cursor into this one
    const page = await api.listDocuments({ limit: Math.min(200, Math.max(this.pageSize, atLeast)), q: words });
    if (search !== this.search) return null;
    this.next = page.next;
    return page.documents;
  }

  /** The page after the last one shown; null when there is none, one is on its way, or a newer search started. */
  async more() {
    if (!this.next || this.loading) return null;
    const search = this.search;
    this.loading = true;
    try {
      const page = await api.listDocuments({ limit: this.pageSize, cursor: this.next, q: this.words });
      if (search !== this.search) return null;
      this.next = page.next;
      return page.documents;
    } finally {
      this.loading = false;
    }
  }

  /** Nothing more to read for `words` (the list was read from this browser's copies, offline). */
  end(words = this.words) {
    this.search += 1;
    this.words = words;
    this.next = null;
  }
}
