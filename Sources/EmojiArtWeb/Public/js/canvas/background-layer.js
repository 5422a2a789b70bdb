// The background: the image the server fetched and stored (`backgroundState`, docs/API.md), drawn
// at its pixel size in document points with its centre at the document's origin. Only the
// server's own /api/images/… URL is ever drawn, never the document's third-party URL. While the
// server is still fetching, the progress indicator shows instead.

export class BackgroundLayer {
  /**
   * @param {HTMLElement} root the canvas element (gets the `background-loading` class)
   * @param {HTMLElement} world the transformed element the image goes in (first, under the emojis)
   * @param {{failed: (imageURL: string) => void}} listeners
   */
  constructor(root, world, listeners) {
    this.root = root;
    this.world = world;
    this.listeners = listeners;
    this.progress = root.querySelector(".background-progress");
    // Whoever opens a document whose background failed is told, in every window: a note over the
    // canvas that stays until dismissed (the window that set the address also gets an alert).
    this.failedNote = root.querySelector(".background-failed");
    this.failedReason = root.querySelector("#background-failed-reason");
    this.dismissedFailure = null;
    this.shownFailure = null;
    this.failedNote?.querySelector("button").addEventListener("click", () => {
      this.dismissedFailure = this.shownFailure;
      this.failedNote.hidden = true;
    });
    this.image = null;
    this.url = null; // the server's /api/images/… URL of the image drawn, or null
    this.size = null; // its pixel size (document points): {width, height}
  }

  /** The image's world box {cx, cy, w, h}, or null without one. */
  get box() {
    const size = this.size;
    return size && size.width > 0 && size.height > 0 ? { cx: 0, cy: 0, w: size.width, h: size.height } : null;
  }

  render(backgroundState) {
    const status = backgroundState ? backgroundState.status : "none";
    const fetching = status === "fetching";
    this.root.classList.toggle("background-loading", fetching);
    if (this.progress && this.progress.hidden === fetching) this.progress.hidden = !fetching;
    this.showFailure(status === "failed" ? String(backgroundState.reason || "Couldn’t load the background image.") : null, backgroundState);
    const found = status === "found" && typeof backgroundState.imageURL === "string";
    const url = found ? backgroundState.imageURL : null;
    const width = found ? Number(backgroundState.width) || 0 : 0;
    const height = found ? Number(backgroundState.height) || 0 : 0;
    this.size = found ? { width, height } : null;
    if (url === this.url) {
      if (this.image) this.sizeImage(width, height);
      return;
    }
    this.url = url;
    this.image?.remove();
    this.image = null;
    if (!url) return;
    const image = document.createElement("img");
    image.className = "background";
    image.alt = "";
    image.draggable = false;
    image.decoding = "async";
    image.addEventListener("error", () => {
      if (this.image !== image) return; // superseded: its failure doesn't matter
      image.classList.add("failed");
      this.listeners.failed?.(url);
    });
    this.image = image;
    this.sizeImage(width, height);
    image.src = url;
    this.world.insertBefore(image, this.world.firstChild);
  }

  showFailure(reason, backgroundState) {
    if (!this.failedNote) return;
    const key = reason === null ? null : JSON.stringify([backgroundState.url ?? "", reason]);
    this.shownFailure = key;
    const hidden = key === null || key === this.dismissedFailure;
    if (!hidden && this.failedReason.textContent !== reason) this.failedReason.textContent = reason;
    if (this.failedNote.hidden !== hidden) this.failedNote.hidden = hidden;
  }

  /** The image is drawn at its pixel size in document points, whatever the browser thinks. */
  sizeImage(width, height) {
    this.image.style.width = width > 0 ? width + "px" : "";
    this.image.style.height = height > 0 ? height + "px" : "";
  }
}
