// When to tell this window that the background couldn't be set (docs/API.md "Document state":
// backgroundState). The server fetches a URL background itself and reports fetching, found or
// failed over the live connection; this window zooms to fit once when a fetch it watched is found,
// and says why a fetch failed when it saw the failure happen or set that URL itself — once per
// failure, remembered across reloads of this window (sessionStorage).

const REMEMBERED = 20;

export class BackgroundNotices {
  /**
   * @param {string} documentId
   * @param {{zoomToFit: () => void, showFailure: (reason: string) => void}} effects
   */
  constructor(documentId, effects) {
    this.key = "emojiart:background:" + documentId;
    this.effects = effects;
    this.shown = null; // the backgroundState last rendered (null before the first render)
    this.fetchesSeen = new Set(); // URLs this window saw being fetched
  }

  load() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.key) || "null");
      if (saved && Array.isArray(saved.set) && Array.isArray(saved.shown)) return saved;
    } catch {
      /* start afresh */
    }
    return { set: [], shown: [] };
  }

  update(change) {
    const memory = this.load();
    change(memory);
    memory.set = memory.set.slice(-REMEMBERED);
    memory.shown = memory.shown.slice(-REMEMBERED);
    try {
      sessionStorage.setItem(this.key, JSON.stringify(memory));
    } catch {
      /* storage full or unavailable: only the once-per-failure memory across reloads is lost */
    }
  }

  /** This window is setting the background to `url`. */
  willSet(url) {
    if (/^data:/i.test(url)) return;
    this.update((memory) => {
      memory.set = memory.set.filter((u) => u !== url).concat(url);
    });
  }

  /** A state was drawn; `background` is the document's background ({url} or null). */
  rendered(current, background) {
    const previous = this.shown;
    this.shown = current;
    const status = current.status;
    if (status === "fetching") {
      if (typeof current.url === "string") this.fetchesSeen.add(current.url);
    } else if (status === "found") {
      const url = typeof current.url === "string" ? current.url : background && background.url;
      if (url && this.fetchesSeen.has(url) && previous && previous.status === "fetching") {
        this.fetchesSeen.clear();
        this.effects.zoomToFit();
      }
    } else if (status === "failed") {
      const key = JSON.stringify([current.url ?? "", current.reason ?? ""]);
      const memory = this.load();
      if (memory.shown.includes(key)) return;
      // A failure this window saw happen, or one of a URL this window set (even before a reload).
      const seen = previous !== null && !(previous.status === "failed" && previous.url === current.url && previous.reason === current.reason);
      if (!seen && !memory.set.includes(current.url)) return;
      this.update((m) => m.shown.push(key));
      this.effects.showFailure(String(current.reason || "Couldn’t load image from " + (current.url || "that address") + "."));
    }
  }
}
