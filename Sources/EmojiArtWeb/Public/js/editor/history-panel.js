// The History panel: the document's sessions and versions (docs/API.md, "History"), a preview
// of any version on the canvas (read-only: it changes nothing), a slider to scrub through them,
// Restore, and a replay of the document's making at a chosen speed.
//
// The panel asks the server for the past and hands the editor what to show: `preview(state)`
// with a version's state, `preview(null)` to go back to now. Scrubbing fetches the version
// under the slider (the newest request wins); a replay fetches the start once, then pages of
// changes, and applies their patches in version order with live.js's `applyChange`.
import * as api from "../api.js";
import { el, notify } from "../dom.js";
import { intl } from "../intl.js";
import { applyChange } from "../live.js";

const PAGE = 200; // versions per page of the list
const SCRUB_DELAY_MS = 40; // a slider drag fetches at most this often
/** Replay speeds: versions a second. */
const REPLAY_SPEEDS = [
  ["Slow", 4],
  ["Normal", 15],
  ["Fast", 60],
  ["Fastest", 240],
];

const timeOnly = () => intl(Intl.DateTimeFormat, { timeStyle: "short" });
const timeWithSeconds = () => intl(Intl.DateTimeFormat, { timeStyle: "medium" });
const dayAndTime = () => intl(Intl.DateTimeFormat, { dateStyle: "medium", timeStyle: "short" });

/** "14:02" today, "Nov 20, 2026, 14:02" another day. */
function whenLabel(iso, now = new Date()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toDateString() === now.toDateString() ? timeOnly().format(date) : dayAndTime().format(date);
}

export class HistoryPanel {
  /**
   * @param {HTMLElement} root the panel (`#history-panel`)
   * @param {{documentId: string, currentVersion: () => number|null, canRestore: () => boolean,
   *   preview: (state: object|null) => void, restored: (version: number) => void}} host
   */
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.versions = []; // newest first, as loaded
    this.sessions = [];
    this.next = null; // the `before` of the next page
    this.oldest = 0;
    this.previewing = null; // the version shown, or null (now)
    this.scrubTimer = 0;
    this.scrubRequest = 0;
    this.replay = null; // {timer, state, queue, after, stopped}
    const q = (selector) => root.querySelector(selector);
    this.list = q(".history-sessions");
    this.slider = q(".history-slider");
    this.label = q(".history-position");
    this.restoreButton = q(".history-restore");
    this.nowButton = q(".history-now");
    this.playButton = q(".history-play");
    this.speed = q(".history-speed");
    this.moreButton = q(".history-more");
    this.exportLink = q(".history-export");
    this.exportGIFLink = q(".history-export-gif");
    this.speed.replaceChildren(...REPLAY_SPEEDS.map(([label, rate]) => el("option", { value: String(rate), text: label })));
    this.speed.value = "15";
    q(".history-close").addEventListener("click", () => this.close());
    this.slider.addEventListener("input", () => this.scrubTo(Number(this.slider.value)));
    this.restoreButton.addEventListener("click", () => this.restore());
    this.nowButton.addEventListener("click", () => this.backToNow());
    this.playButton.addEventListener("click", () => (this.replay ? this.stopReplay() : this.play()));
    this.moreButton.addEventListener("click", () => this.loadMore());
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        if (this.previewing !== null || this.replay) this.backToNow();
        else this.close();
      }
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  async open() {
    this.root.hidden = false;
    document.body.classList.add("history-open");
    await this.reload();
    this.slider.focus({ preventScroll: true });
  }

  close() {
    this.backToNow();
    this.root.hidden = true;
    document.body.classList.remove("history-open");
    document.getElementById("canvas")?.focus({ preventScroll: true });
  }

  toggle() {
    return this.isOpen ? this.close() : this.open();
  }

  /**
   * Loads the newest page again (on opening, after a restore, as versions arrive), keeping the
   * older pages already loaded below it.
   */
  async reload() {
    try {
      const page = await api.history(this.host.documentId, { limit: PAGE });
      const bottom = page.versions.length ? page.versions[page.versions.length - 1].version : 0;
      const older = this.versions.filter((v) => v.version < bottom);
      this.versions = page.versions.concat(older);
      this.next = older.length ? this.next : (page.next ?? null);
      this.sessions = mergeSessions(page.sessions, this.sessions.filter((s) => s.lastVersion < bottom));
      this.oldest = page.oldestVersion ?? 0;
    } catch (error) {
      notify(error.message, { kind: "error", title: "History" });
      return;
    }
    this.renderList();
    this.updateControls();
  }

  async loadMore() {
    if (this.next === null) return;
    try {
      const page = await api.history(this.host.documentId, { before: this.next, limit: PAGE });
      this.versions = this.versions.concat(page.versions);
      this.sessions = mergeSessions(this.sessions, page.sessions);
      this.next = page.next ?? null;
    } catch (error) {
      notify(error.message, { kind: "error", title: "History" });
      return;
    }
    this.renderList();
    this.updateControls();
  }

  /** A new version arrived live: the slider reaches it, and the list shows it when next opened. */
  documentChanged() {
    if (!this.isOpen) return;
    this.updateControls();
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => this.isOpen && this.previewing === null && !this.replay && this.reload(), 500);
  }

  renderList() {
    const byVersion = this.versions;
    const items = this.sessions.map((session) => {
      const versions = byVersion.filter((v) => v.version >= session.firstVersion && v.version <= session.lastVersion);
      const who = session.author ? el("span", { class: "history-who", text: session.author }) : null;
      return el("li", { class: "history-session" },
        el("details", { open: true },
          el("summary", {},
            el("span", { class: "history-when", text: whenLabel(session.start) + (session.end !== session.start ? " – " + timeOnly().format(new Date(session.end)) : "") }),
            who,
            el("span", { class: "history-summary", text: session.summary })),
          el("ol", { class: "history-versions" }, versions.map((v) => this.versionItem(v)))));
    });
    const origin = byVersion.find((v) => !this.sessions.some((s) => v.version >= s.firstVersion && v.version <= s.lastVersion));
    if (origin && this.next === null) items.push(el("li", { class: "history-session history-origin" }, el("ol", { class: "history-versions" }, this.versionItem(origin))));
    this.list.replaceChildren(...items);
    this.moreButton.hidden = this.next === null;
  }

  versionItem(v) {
    return el("li", {},
      el("button", {
        type: "button", class: "history-version", dataset: { version: String(v.version) },
        "aria-pressed": String(this.previewing === v.version),
        on: { click: () => this.show(v.version) },
      },
      el("span", { class: "history-time", text: timeWithSeconds().format(new Date(v.at)) }),
      el("span", { class: "history-action", text: v.actionName }),
      v.author ? el("span", { class: "history-who", text: v.author }) : null));
  }

  updateControls() {
    const current = this.host.currentVersion() ?? 0;
    this.slider.min = String(this.oldest);
    this.slider.max = String(current);
    if (this.previewing === null && !this.replay) this.slider.value = String(current);
    const shown = this.replay ? this.replay.state.version : this.previewing;
    const entry = this.versions.find((v) => v.version === (shown ?? current));
    const what = entry ? ` · ${whenLabel(entry.at)} · ${entry.actionName}` : "";
    this.label.textContent = shown === null
      ? `Now: version ${current}${what}`
      : `Version ${shown} of ${current}${what}` + (this.replay ? " (replaying)" : " (preview)");
    this.slider.setAttribute("aria-valuetext", this.label.textContent);
    this.restoreButton.hidden = !this.host.canRestore();
    this.restoreButton.disabled = this.previewing === null || this.previewing === current || Boolean(this.replay);
    this.nowButton.disabled = this.previewing === null && !this.replay;
    this.playButton.textContent = this.replay ? "■ Stop" : "▶ Replay";
    this.playButton.setAttribute("aria-pressed", String(Boolean(this.replay)));
    // From the version shown; from now, the whole history (the server knows where it starts).
    const from = this.previewing !== null ? { from: this.previewing } : {};
    this.exportLink.href = api.replayURL(this.host.documentId, from);
    this.exportGIFLink.href = api.replayURL(this.host.documentId, { ...from, format: "gif" });
    for (const button of this.list.querySelectorAll(".history-version")) {
      button.setAttribute("aria-pressed", String(Number(button.dataset.version) === shown));
    }
  }

  /** Shows version `version` read-only (the newest version means now). */
  async show(version) {
    this.stopReplay();
    const current = this.host.currentVersion();
    if (version === current) {
      this.backToNow();
      return;
    }
    const request = ++this.scrubRequest;
    let state;
    try {
      state = await api.getVersion(this.host.documentId, version);
    } catch (error) {
      if (request === this.scrubRequest) notify(error.message, { kind: "error", title: "History" });
      return;
    }
    if (request !== this.scrubRequest) return; // a later choice wins
    this.previewing = version;
    this.slider.value = String(version);
    this.host.preview(state);
    this.updateControls();
  }

  scrubTo(version) {
    clearTimeout(this.scrubTimer);
    this.scrubTimer = setTimeout(() => this.show(version), SCRUB_DELAY_MS);
  }

  backToNow() {
    this.stopReplay();
    this.scrubRequest += 1;
    clearTimeout(this.scrubTimer);
    this.previewing = null;
    this.host.preview(null);
    this.updateControls();
  }

  async restore() {
    const version = this.previewing;
    if (version === null || !this.host.canRestore()) return;
    this.restoreButton.disabled = true;
    try {
      const state = await api.restoreVersion(this.host.documentId, version);
      this.backToNow();
      this.host.restored(version, state);
      await this.reload();
    } catch (error) {
      notify(error.message, { kind: "error", title: "Couldn’t restore that version" });
      this.updateControls();
    }
  }

  // MARK: - Replay

  /** Plays from the version shown (or the oldest, from now) up to now, at the chosen speed. */
  async play() {
    const current = this.host.currentVersion() ?? 0;
    const from = this.previewing !== null && this.previewing < current ? this.previewing : this.oldest;
    // A later choice (another click, a version, Back to now, closing) wins over this one.
    const request = ++this.scrubRequest;
    clearTimeout(this.scrubTimer);
    let state;
    try {
      state = await api.getVersion(this.host.documentId, from);
    } catch (error) {
      if (request === this.scrubRequest) notify(error.message, { kind: "error", title: "Replay" });
      return;
    }
    if (request !== this.scrubRequest || this.replay || !this.isOpen) return;
    const replay = { state, queue: [], after: from, timer: 0 };
    this.replay = replay;
    this.previewing = from;
    this.host.preview(state);
    document.body.dataset.replaying = "true";
    this.updateControls();
    this.tick(replay);
  }

  /** One step of the replay: the next change, then the next tick after 1 / speed seconds. */
  async tick(replay) {
    if (this.replay !== replay) return; // stopped, or another replay began
    if (!replay.queue.length) {
      const target = this.host.currentVersion() ?? 0;
      if (replay.after >= target) {
        this.finishReplay();
        return;
      }
      try {
        const page = await api.historyChanges(this.host.documentId, replay.after);
        if (this.replay !== replay) return;
        replay.queue = page.changes;
        if (!page.changes.length) {
          this.finishReplay();
          return;
        }
        replay.after = page.changes[page.changes.length - 1].version;
      } catch (error) {
        if (this.replay !== replay) return;
        notify(error.message, { kind: "error", title: "Replay" });
        this.stopReplay();
        return;
      }
    }
    const change = replay.queue.shift();
    try {
      // Past thinned history the next version kept replaces everything (`follows`).
      const from = change.follows !== undefined ? { ...replay.state, version: change.version - 1 } : replay.state;
      replay.state = applyChange(from, change);
    } catch {
      this.stopReplay(); // a version thinned away: the replay can't go on from here
      return;
    }
    this.previewing = replay.state.version;
    this.slider.value = String(replay.state.version);
    this.host.preview(replay.state);
    this.updateControls();
    replay.timer = setTimeout(() => this.tick(replay), 1000 / Number(this.speed.value));
  }

  /** The replay reached now: the editor shows the document live again. */
  finishReplay() {
    this.backToNow();
  }

  /** Stops a replay where it is: that version stays shown, to restore or scrub from. */
  stopReplay() {
    if (!this.replay) return;
    clearTimeout(this.replay.timer);
    this.replay = null;
    delete document.body.dataset.replaying;
    this.updateControls();
  }
}

/**
 * `newer` sessions, then `older` ones: a session both list (a page boundary ran through it) is
 * kept once, as the listing that reaches furthest back.
 */
function mergeSessions(newer, older) {
  if (!newer.length || !older.length) return newer.concat(older);
  const last = newer[newer.length - 1];
  const [first, ...rest] = older;
  if (first.lastVersion < last.firstVersion) return newer.concat(older);
  const whole = first.firstVersion < last.firstVersion ? first : last;
  return newer.slice(0, -1).concat([whole], rest);
}
