// The indicator in the editor's bar: saved, saving, reconnecting or offline — how many changes
// wait to be saved, and when the connection is tried again (a click tries at once).

export class ConnectionStatus {
  /**
   * @param {HTMLElement} box the indicator (its data-state picks the dot's look)
   * @param {HTMLElement} text its words
   */
  constructor(box, text) {
    this.box = box;
    this.text = text;
  }

  set(kind, text, detail = "") {
    this.box.dataset.state = kind;
    this.text.textContent = text;
    this.box.title = detail || text;
  }

  /**
   * Shows the live connection's status ({state, retryIn, waiting}, ../live.js). `loaded`: the
   * document was shown once (so it is reconnecting, or was deleted); `readOnly`: a viewer's window,
   * which follows changes but makes none.
   */
  show({ state, retryIn, waiting }, { loaded, readOnly }) {
    const changes = waiting === 1 ? "1 change" : `${waiting} changes`;
    if (state === "gone") {
      this.set("error", loaded ? "Deleted" : "Not found", "This document no longer exists.");
    } else if (state === "online") {
      if (readOnly) this.set("saved", "Live", "Following every change as it is made");
      else if (waiting) this.set("saving", "Saving…");
      else this.set("saved", "All changes saved");
    } else if (state === "connecting") {
      this.set("loading", loaded ? "Reconnecting…" : "Connecting…", waiting ? `${changes} waiting to be saved` : "");
    } else {
      const seconds = Math.max(1, Math.round((retryIn || 0) / 1000));
      const text = waiting ? `Offline — ${changes} waiting` : !loaded ? "Offline — not kept in this browser" : readOnly ? "Offline" : "Offline — changes will be sent";
      this.set("offline", text, `Not connected to the server; trying again in ${seconds} s. Click to retry now.`);
    }
    this.box.dataset.waiting = String(waiting);
  }
}
