// The editor for one document: sends intents to the server over the document's live connection
// and renders the state the server answers, whichever window (or script) changed it.
//
// Edits go to the server in order and come back as changes, like everyone else's; the window
// draws only what the server committed. While the connection is down, edits wait in order and
// are sent when it is back (the status says how many wait); undo and redo are refused while
// offline, because the shared history may have moved on.
import * as api from "../api.js";
import { CanvasView, isTyping } from "../canvas/canvas.js";
import { emojiLabel } from "../canvas/emoji-label.js";
import { notify } from "../dom.js";
import { exportMenu } from "../export-menu.js";
import { applyChange, LiveConnection } from "../live.js";
import { EMOJI_DRAG_TYPE, PaletteBar } from "../palette-bar.js";
import { PaletteDialogs } from "../palette-dialogs.js";
import { PaletteFeed } from "../palettes.js";
import { ShareDialog } from "../share.js";
import { ActionManager } from "./action-manager.js";
import { ACTIONS } from "./actions.js";
import { BackgroundNotices } from "./background-notices.js";
import { EmojiCommands } from "./emoji-commands.js";
import { emojisInText, MAXIMUM_PASTED, readFragment, writeFragment } from "./clipboard.js";
import { emojiGrid, gridPlacement } from "../emoji/emoji-text.js";
import { HistoryPanel } from "./history-panel.js";
import { MosaicDialog } from "./mosaic-dialog.js";
import { predict } from "./prediction.js";
import { ContextMenu } from "./context-menu.js";
import { ShortcutsPanel } from "./shortcuts-panel.js";
import { ToolbarFold } from "./toolbar-fold.js";

const COORDINATE_LIMIT = 1_000_000;
const EMOJI_LIMIT = 100_000; // a document holds at most this many emojis (DocumentLimits.maximumEmojiCount)
const ARROW_GESTURE_MS = 1000; // arrow presses this close together are one undo step
const NEW_EMOJI_SCREEN_SIZE = 40; // px: a new emoji's size on screen at the zoom it is added at
const PASTE_STEP = 16; // screen px: each paste or duplicate lands this far right and down of the last
const PRESENCE_INTERVAL_MS = 50; // at most 20 presence updates a second (the server drops more)
const CREATED_REMEMBERED = 64; // versions whose new ids are kept, to select what a paste made

/**
 * A dropped or pasted URL may be an image-search result link that carries the image's real
 * address in its query (`imgurl=…`, or the first query value starting with http).
 */
export function imageURL(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const params = [...url.searchParams];
  const imgurl = params.find(([key]) => key.toLowerCase() === "imgurl");
  if (imgurl && /^https?:\/\//i.test(imgurl[1])) return imgurl[1];
  const first = params.find(([, value]) => /^https?:\/\//i.test(value));
  return first ? first[1] : text;
}

/**
 * The edits that turn `ids` by `degrees`: the turn, then the moves ({id, x, y}) that carry
 * their centres round the pivot, emojis moving by the same offset in one edit. One undo step.
 */
export function turnEdits(ids, degrees, moves) {
  const edits = [{ type: "rotate", ids, degrees }];
  const byOffset = new Map();
  for (const { id, x, y } of moves) {
    const key = x + "," + y;
    if (!byOffset.has(key)) byOffset.set(key, { type: "moveEmojis", ids: [], offset: { x, y } });
    byOffset.get(key).ids.push(id);
  }
  return edits.concat([...byOffset.values()]);
}

export class DocumentEditor {
  /** @param {string} documentId */
  constructor(documentId) {
    this.documentId = documentId;
    this.viewKey = "emojiart:view:" + documentId; // zoom and pan, per window (sessionStorage)
    /** The document as the server last described it; every edit is sent with its version as baseVersion. */
    this.state = null;
    /** The requester's role (docs/API.md "Who may ask"): a viewer's editor changes nothing. */
    this.role = null;
    /** The document was deleted, or this window's access ended: nothing more can be edited here. */
    this.gone = false;
    this.online = false;
    this.renderScheduled = false;
    this.arrowGesture = null;
    this.arrowTimer = 0;
    this.viewTimer = 0;
    this.sharing = null;
    /** version → [first new id, next id]: the emojis each recent change added (to select what we pasted). */
    this.created = new Map();
    /** Edit batches made while offline, drawn ahead of the server (./prediction.js). */
    this.predicted = [];
    /** A past version shown read-only by the History panel, or null (the document now). */
    this.preview = null;
    /** The last paste: which clipboard content, and how many times in a row it was pasted. */
    this.lastPaste = { key: null, count: 0 };
    const $ = (id) => document.getElementById(id);
    this.$ = $;
    this.titleInput = $("doc-title");
    this.zoomLevel = $("zoom-level");
    this.statusBox = $("save-status");
    this.statusText = $("save-status-text");
    this.backgroundAlert = $("background-alert");

    this.canvas = new CanvasView($("canvas"), {
      move: (ids, offset) => this.perform([{ type: "moveEmojis", ids, offset }]),
      resize: (ids, scale) => this.perform([{ type: "resizeEmojis", ids, scale }]),
      turn: (ids, degrees, moves) => this.perform(turnEdits(ids, degrees, moves)),
      drop: (data, point) => this.receive(data, point),
      viewChanged: (view) => {
        this.showZoom();
        this.saveView(view);
      },
      selectionChanged: () => {
        this.actions.refresh();
        this.presenceChanged({});
      },
      pointerMoved: (point) => this.presenceChanged({ pointer: point && { x: Math.round(point.x), y: Math.round(point.y) } }),
      backgroundFailed: () => {
        notify("Couldn’t show the background image. Reload the page to try again.", { kind: "error", title: "Set Background" });
      },
      contextMenu: (point, where) => this.contextMenu.open(point, where),
    });
    this.history = new HistoryPanel($("history-panel"), {
      documentId,
      currentVersion: () => (this.state ? this.state.version : null),
      canRestore: () => Boolean(this.state) && !this.gone && !this.readOnly,
      preview: (state) => this.showPreview(state),
      restored: (version) => this.announce(`Restored version ${version}`),
    });
    this.mosaic = new MosaicDialog(this); // Make Mosaic… (its dialog is built when first opened)
    this.actions = new ActionManager(ACTIONS, this);
    this.contextMenu = new ContextMenu($("context-menu"), this.actions);
    this.shortcuts = new ShortcutsPanel($("shortcuts-dialog"), this.actions);
    this.backgroundNotices = new BackgroundNotices(documentId, {
      zoomToFit: () => this.canvas.zoomToFit(),
      showFailure: (reason) => this.showBackgroundAlert(reason),
    });
    this.emoji = new EmojiCommands(this); // the picker, Replace with… and find
    this.palettes = new PaletteBar($("palette-bar"), {
      pick: (emoji) => this.addEmoji(emoji, this.canvas.visibleCentre()).then((version) => version && this.selectCreated(version, { focus: true })),
      place: (emoji, x, y) => {
        const rect = $("canvas").getBoundingClientRect();
        if (x >= rect.left && x <= rect.right && y >= rect.top && y <= rect.bottom) this.addEmoji(emoji, this.canvas.documentPoint(x, y));
      },
    }, new PaletteDialogs(new PaletteFeed(), { picker: this.emoji.picker }));
    this.live = new LiveConnection(
      documentId,
      {
        snapshot: (next) => {
          this.render(next);
          document.body.dataset.ready = "true";
        },
        synced: (message) => {
          const { undoActionName, redoActionName, backgroundState } = message;
          this.render({ ...this.state, undoActionName, redoActionName, backgroundState });
        },
        change: (message) => {
          try {
            const firstNew = this.state.nextEmojiId;
            this.state = applyChange(this.state, message);
            this.rememberCreated(message.version, firstNew, this.state.nextEmojiId);
          } catch {
            this.live.resynchronize(); // cannot happen with a correct server: start again from a snapshot
            return;
          }
          this.history.documentChanged();
          this.scheduleRender();
        },
        background: (backgroundState) => {
          this.state = { ...this.state, backgroundState };
          this.scheduleRender();
        },
        deleted: () => this.deleted(),
        presence: (message) => this.canvas.presence.receive(message),
        status: (status) => this.showConnection(status),
        accessEnded: (code, reason) => this.accessEnded(code, reason),
      },
      () => (this.state ? this.state.version : null),
    );
  }

  // MARK: - What the actions ask (./actions.js)

  get readOnly() {
    return this.role === "viewer";
  }

  get canEdit() {
    return Boolean(this.state) && !this.gone && !this.readOnly && !this.previewing;
  }

  /** Whether the canvas shows a past version (read-only) instead of the document now. */
  get previewing() {
    return this.preview !== null;
  }

  get historyOpen() {
    return this.history.isOpen;
  }

  get hasSelection() {
    return this.canvas.selection.size > 0;
  }

  get emojiCount() {
    return this.state ? this.state.emojis.length : 0;
  }

  get undoActionName() {
    return this.state?.undoActionName ?? null;
  }

  get redoActionName() {
    return this.state?.redoActionName ?? null;
  }

  get canUndo() {
    return this.canEdit && this.online && Boolean(this.undoActionName);
  }

  get canRedo() {
    return this.canEdit && this.online && Boolean(this.redoActionName);
  }

  // MARK: - Rendering

  /** Shows `next` (the server's whole state, with any offline edits drawn over it) at once. */
  render(next) {
    this.state = next;
    this.renderScheduled = false;
    const shown = this.preview ?? (this.predicted.length ? predict(next, this.predicted.map((entry) => entry.edits)) : next);
    document.body.dataset.version = String(next.version);
    document.body.dataset.pending = String(this.predicted.length);
    document.title = shown.title + " — EmojiArt";
    if (document.activeElement !== this.titleInput) this.titleInput.value = shown.title;
    this.titleInput.disabled = this.gone || this.readOnly || this.previewing;
    this.canvas.render(shown);
    this.backgroundNotices.rendered(next.backgroundState || { status: "none" }, next.background);
    this.actions.refresh();
  }

  /**
   * Shows a past version read-only (the History panel's preview or replay), or the document
   * now again with null. Nothing is sent: a preview changes nothing.
   */
  showPreview(state) {
    const entering = state !== null && this.preview === null;
    this.preview = state;
    if (entering) this.canvas.clearSelection();
    this.canvas.readOnly = this.readOnly || this.previewing;
    if (state) document.body.dataset.previewing = String(state.version);
    else delete document.body.dataset.previewing;
    if (this.state) this.render(this.state);
  }

  /** Changes arriving in a burst are drawn once, at the next frame (or soon, when hidden). */
  scheduleRender() {
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    const draw = () => this.renderScheduled && this.render(this.state);
    if (document.hidden) setTimeout(draw, 250);
    else requestAnimationFrame(draw);
  }

  showZoom() {
    this.zoomLevel.textContent = Math.round(this.canvas.zoom * 100) + "%";
  }

  // MARK: - Saved / saving / offline indicator

  setStatus(kind, text, detail = "") {
    this.statusBox.dataset.state = kind;
    this.statusText.textContent = text;
    this.statusBox.title = detail || text;
  }

  showConnection({ state: connection, retryIn, waiting }) {
    const changes = waiting === 1 ? "1 change" : `${waiting} changes`;
    if (connection === "gone") {
      this.setStatus("error", this.state ? "Deleted" : "Not found", "This document no longer exists.");
    } else if (connection === "online") {
      if (this.readOnly) this.setStatus("saved", "Live", "Following every change as it is made");
      else if (waiting) this.setStatus("saving", "Saving…");
      else this.setStatus("saved", "All changes saved");
    } else if (connection === "connecting") {
      this.setStatus("loading", this.state ? "Reconnecting…" : "Connecting…", waiting ? `${changes} waiting to be saved` : "");
    } else {
      const seconds = Math.max(1, Math.round((retryIn || 0) / 1000));
      const text = waiting ? `Offline — ${changes} waiting` : "Offline";
      this.setStatus("offline", text, `Not connected to the server; trying again in ${seconds} s. Click to retry now.`);
    }
    this.statusBox.dataset.waiting = String(waiting);
    const wasOnline = this.online;
    this.online = connection === "online";
    if (this.online && !wasOnline && this.predicted.length) {
      // Back: the server's answers to what was waiting replace what this window drew meanwhile.
      this.predicted = [];
      if (this.state) this.render(this.state);
    }
    this.actions.refresh();
  }

  deleted() {
    if (this.gone) return;
    this.gone = true;
    if (!this.state) {
      notify("There is no such document. It may have been deleted.", { kind: "error", title: "Couldn’t open this document" });
      return;
    }
    this.render(this.state);
    notify("This document was deleted in another window. Nothing more can be changed here.", {
      kind: "error",
      title: "Document deleted",
    });
  }

  /** Reports a refused request; the document itself converges through the live changes. */
  refused(error, title = "Couldn’t make that change") {
    if (error.code === "conflict") {
      notify("The document changed in another window, so that change no longer applies.", { title: "Not changed" });
    } else if (error.code === "nothing_to_undo" || error.code === "nothing_to_redo") {
      // Another window undid (or redid) it first; the buttons follow the live state.
    } else if (error.code !== "gone") {
      notify(error.message, { kind: "error", title });
    }
  }

  // MARK: - Intents

  /** Sends edits as one undo step (`gesture` extends the previous step with the same key). */
  perform(edits, gesture) {
    if (!this.canEdit) return Promise.resolve();
    const body = { type: "edit", baseVersion: this.state.version, edits };
    if (gesture) body.gesture = gesture;
    const request = this.live.request(body).then(
      (version) => {
        this.announceDone(edits, version);
        return version;
      },
      (error) => this.refused(error),
    );
    if (this.online) return request;
    // Offline: draw it now, marked pending; the gesture that made it can let go of its feedback.
    const entry = { edits };
    this.predicted.push(entry);
    request.finally(() => {
      const index = this.predicted.indexOf(entry);
      if (index < 0) return;
      this.predicted.splice(index, 1);
      this.scheduleRender();
    });
    this.render(this.state);
    return Promise.resolve(undefined);
  }

  addEmoji(text, point) {
    this.emoji.placed(text);
    const size = this.newEmojiSize;
    const coordinate = (v) => Math.max(-COORDINATE_LIMIT, Math.min(COORDINATE_LIMIT, Math.round(v)));
    return this.perform([{ type: "addEmoji", text, position: { x: coordinate(point.x), y: coordinate(point.y) }, size }]);
  }

  deleteSelection() {
    const ids = [...this.canvas.selection];
    if (ids.length) this.perform([{ type: "deleteEmojis", ids }]);
  }

  /** Moves the selection; presses in quick succession are one gesture, so one undo step. */
  nudgeSelection(dx, dy) {
    this.perform([{ type: "moveEmojis", ids: [...this.canvas.selection], offset: { x: dx, y: dy } }], this.keyGesture("move"));
  }

  /** The gesture key for a run of key presses of one kind (moves, or resizes) close together. */
  keyGesture(kind) {
    if (this.arrowGesture?.kind !== kind) this.arrowGesture = { kind, key: `keys-${kind}-` + Math.random().toString(36).slice(2) };
    clearTimeout(this.arrowTimer);
    this.arrowTimer = setTimeout(() => (this.arrowGesture = null), ARROW_GESTURE_MS);
    return this.arrowGesture.key;
  }

  /** Turns the selection about its middle (each emoji about its own centre when it is alone). */
  turnSelection(degrees) {
    const ids = [...this.canvas.selection];
    this.perform(turnEdits(ids, degrees, this.canvas.turnMoves(ids, degrees)));
  }

  // MARK: - Presence: this window's pointer and selection, for the others (at most 20 a second)

  presenceChanged({ pointer }) {
    if (pointer !== undefined) this.pointer = pointer;
    const send = () => {
      this.presenceTimer = 0;
      this.presenceSentAt = performance.now();
      this.live.sendPresence({ pointer: this.pointer ?? null, selection: [...this.canvas.selection].slice(0, 1000) });
    };
    if (this.presenceTimer) return; // the one already waiting will send the latest
    const wait = PRESENCE_INTERVAL_MS - (performance.now() - (this.presenceSentAt ?? -Infinity));
    if (wait <= 0) send();
    else this.presenceTimer = setTimeout(send, wait);
  }

  // MARK: - What a screen reader hears after a change this window made

  announce(text) {
    const region = this.$("announcer");
    region.textContent = "";
    requestAnimationFrame(() => (region.textContent = text)); // a new node, so the same words are read again
  }

  /** Says what the edits made at `version` did, in words: "Moved to 20, −5", "Added 🐶 dog face at 0, 0, size 40". */
  announceDone(edits, version) {
    const state = this.state;
    if (!state || !edits.length) return;
    const range = this.created.get(version);
    const byId = new Map(state.emojis.map((emoji) => [emoji.id, emoji]));
    const described = (ids) => (ids.length === 1 && byId.has(ids[0]) ? emojiLabel(byId.get(ids[0])) : `${ids.length} emojis`);
    const plural = (count) => (count === 1 ? "1 emoji" : `${count} emojis`);
    const edit = edits[0];
    let text;
    switch (edit.type) {
      case "addEmoji":
      case "paste":
      case "duplicate": {
        const ids = range ? state.emojis.filter((e) => e.id >= range[0] && e.id < range[1]).map((e) => e.id) : [];
        text = (edit.type === "addEmoji" ? "Added " : edit.type === "paste" ? "Pasted " : "Duplicated: ") + described(ids);
        break;
      }
      case "moveEmojis":
        text = "Moved " + described(edit.ids);
        break;
      case "resizeEmojis":
        text = "Resized " + described(edit.ids);
        break;
      case "rotate":
        text = "Turned " + described(edit.ids);
        break;
      case "deleteEmojis":
        text = "Deleted " + plural(edit.ids.length);
        break;
      case "reorder":
        text = (state.undoActionName || "Arranged") + ": " + plural(edit.ids.length);
        break;
      default:
        text = state.undoActionName || "";
    }
    if (text) this.announce(text);
  }

  // MARK: - Clipboard (./clipboard.js)

  rememberCreated(version, first, next) {
    if (next > first) this.created.set(version, [first, next]);
    if (this.created.size > CREATED_REMEMBERED) this.created.delete(this.created.keys().next().value);
  }

  /** Selects the emojis the change at `version` added, once it is drawn (and focuses the first). */
  selectCreated(version, { focus = false } = {}) {
    const range = this.created.get(version);
    if (!range) return;
    const [first, next] = range;
    this.render(this.state); // draw it now, not at the next frame, so the new emojis can be selected
    const ids = this.state.emojis.filter((emoji) => emoji.id >= first && emoji.id < next).map((emoji) => emoji.id);
    this.canvas.setSelection(ids);
    if (focus && ids.length) this.canvas.focusEmoji(ids[0]);
  }

  /** The selected emojis as the state has them, in drawing order. */
  selectedEmojis() {
    const selection = this.canvas.selection;
    return this.state ? this.state.emojis.filter((emoji) => selection.has(emoji.id)) : [];
  }

  /** The offset, in document points, of the next paste of `key` (or a duplicate): a cascade. */
  nextPasteStep(key) {
    this.lastPaste = this.lastPaste.key === key ? { key, count: this.lastPaste.count + 1 } : { key, count: 1 };
    const step = Math.max(1, Math.round(PASTE_STEP / this.canvas.zoom));
    return { x: step * this.lastPaste.count, y: -step * this.lastPaste.count };
  }

  /**
   * Adds copied emojis: where they were, moved one step (and one more for each paste of the
   * same in a row) — or, when that place is out of view, around the middle of the view.
   */
  pasteEmojis(emojis, key) {
    if (!this.canEdit) return;
    const xs = emojis.map((emoji) => emoji.x);
    const ys = emojis.map((emoji) => emoji.y);
    const middle = { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2 };
    const visible = this.canvas.viewport.visibleWorldRect();
    const inView =
      middle.x >= visible.left && middle.x <= visible.left + visible.width && -middle.y >= visible.top && -middle.y <= visible.top + visible.height;
    const step = this.nextPasteStep(key);
    const centre = this.canvas.visibleCentre();
    const shift = inView ? step : { x: Math.round(centre.x - middle.x) + step.x, y: Math.round(centre.y - middle.y) + step.y };
    const clampCoordinate = (v) => Math.max(-COORDINATE_LIMIT, Math.min(COORDINATE_LIMIT, v));
    const pasted = emojis.map(({ text, x, y, size, rotation }) => ({
      text,
      position: { x: clampCoordinate(x + shift.x), y: clampCoordinate(y + shift.y) },
      size,
      rotation: (((rotation || 0) % 360) + 360) % 360,
    }));
    return this.perform([{ type: "paste", emojis: pasted }]).then((version) => version && this.selectCreated(version));
  }

  /** The size of an emoji added now: NEW_EMOJI_SCREEN_SIZE on screen at the zoom shown. */
  get newEmojiSize() {
    return Math.min(1024, Math.max(1, Math.round(NEW_EMOJI_SCREEN_SIZE / this.canvas.zoom)));
  }

  /** Adds emojis typed or copied as text, in a row around the middle of the view. */
  pasteText(texts) {
    const size = this.newEmojiSize;
    const centre = this.canvas.visibleCentre();
    const gap = Math.round(size * 1.25);
    const start = centre.x - (gap * (texts.length - 1)) / 2;
    const emojis = texts.map((text, i) => ({ text, x: Math.round(start + i * gap), y: Math.round(centre.y), size }));
    return this.pasteEmojis(emojis, null);
  }

  /**
   * Adds emoji text laid out as its grid (../emoji/emoji-text.js): a cell a new emoji's size
   * apart, the block in the middle of the view, as one paste. Text the server exported comes
   * back as the same grid.
   */
  pasteGrid(grid) {
    const count = grid.cells.length;
    const many = (n) => n.toLocaleString();
    if (count > MAXIMUM_PASTED) {
      notify(`That text holds ${many(count)} emojis; one paste adds at most ${many(MAXIMUM_PASTED)}.`, { kind: "error", title: "Paste" });
      return;
    }
    if (this.emojiCount + count > EMOJI_LIMIT) {
      notify(`This document has ${many(this.emojiCount)} emojis; ${many(count)} more would pass its limit of ${many(EMOJI_LIMIT)}.`,
        { kind: "error", title: "Paste" });
      return;
    }
    const size = this.newEmojiSize;
    // The same grid pasted again (whatever its line ends or fillers) lands one step further.
    return this.pasteEmojis(gridPlacement(grid, size, this.canvas.visibleCentre()), "grid:" + JSON.stringify(grid.cells));
  }

  /**
   * Handles pasted data (a paste event's DataTransfer, or what the clipboard API read): an
   * EmojiArt fragment, emojis as text, or — as a drop does — an image or an image address.
   */
  paste(data) {
    if (this.readOnly) {
      notify("You can view this document but not change it.", { title: "View only" });
      return;
    }
    const get = (type) => data.getData(type) || "";
    const fragment = readFragment(get);
    if (fragment) return this.pasteEmojis(fragment, JSON.stringify(fragment));
    const files = Array.from(data.files || []).length;
    const grid = files ? null : emojiGrid(get("text/plain"));
    if (grid) return this.pasteGrid(grid);
    const text = get("text/plain").trim();
    const emojis = text && !files ? emojisInText(text) : null;
    if (emojis) return this.pasteText(emojis);
    if (text && !/^(https?:\/\/|data:image\/)/i.test(text) && !get("text/uri-list")) {
      notify("The clipboard holds text that isn’t emojis. Paste emojis, an image, or an image’s address.", { kind: "error", title: "Paste" });
      return;
    }
    return this.receive(data, this.canvas.visibleCentre());
  }

  /** Copies the selection to the clipboard of a copy or cut event; false when there is none. */
  copyTo(data) {
    const emojis = this.selectedEmojis();
    if (!emojis.length) return false;
    writeFragment(data, emojis);
    this.lastPaste = { key: null, count: 0 };
    return true;
  }

  /** Copy or Cut chosen from a menu: the browser's own copy, which the copy/cut listeners fill. */
  clipboardCommand(command) {
    if (!document.execCommand(command)) notify("The browser didn’t allow that; use the keyboard shortcut.", { title: "Clipboard" });
  }

  /** Paste chosen from a menu: the clipboard is read through the clipboard API (it may ask first). */
  async pasteFromClipboard() {
    let items;
    try {
      items = await navigator.clipboard.read();
    } catch {
      notify("The browser didn’t let the page read the clipboard; press Ctrl+V instead.", { title: "Paste" });
      return;
    }
    const strings = new Map();
    const files = [];
    for (const item of items) {
      for (const type of item.types) {
        const blob = await item.getType(type);
        if (type.startsWith("image/")) files.push(new File([blob], "pasted", { type }));
        else strings.set(type.replace(/^web /, ""), await blob.text());
      }
    }
    this.paste({ getData: (type) => strings.get(type) || "", files });
  }

  duplicateSelection() {
    const ids = [...this.canvas.selection];
    const offset = this.nextPasteStep("duplicate:" + ids.join(","));
    this.perform([{ type: "duplicate", ids, offset }]).then((version) => version && this.selectCreated(version));
  }

  /** Whether reordering the selection `to` would change the drawing order. */
  canReorder(to) {
    if (!this.canEdit || !this.hasSelection) return false;
    const selection = this.canvas.selection;
    const emojis = this.canvas.emojis;
    const count = selection.size;
    const atEnd = to === "front" || to === "forward" ? emojis.slice(emojis.length - count) : emojis.slice(0, count);
    return !atEnd.every((emoji) => selection.has(emoji.id));
  }

  reorderSelection(to) {
    this.perform([{ type: "reorder", ids: [...this.canvas.selection], to }]);
  }

  /** Resizes the selection; presses in quick succession are one undo step, as with nudging. */
  scaleSelection(scale) {
    this.perform([{ type: "resizeEmojis", ids: [...this.canvas.selection], scale }], this.keyGesture("scale"));
  }

  undo() {
    this.live.request({ type: "undo" }, { whenOffline: "refuse" }).catch((error) => this.refused(error, "Couldn’t undo"));
  }

  redo() {
    this.live.request({ type: "redo" }, { whenOffline: "refuse" }).catch((error) => this.refused(error, "Couldn’t redo"));
  }

  showShortcuts() {
    this.contextMenu.close({ focus: false });
    this.shortcuts.open();
  }

  retitle(title) {
    if (!this.state || title === this.state.title) return;
    this.perform([{ type: "retitle", title }]).then(() => {
      if (document.activeElement !== this.titleInput) this.titleInput.value = this.state.title;
    });
  }

  setBackgroundURL(url) {
    // A pasted data: URL may be larger than a live message: send its bytes as an upload.
    if (/^data:/i.test(url)) {
      return fetch(url)
        .then((response) => response.blob())
        .then(
          (blob) => this.uploadBackground(blob),
          () => notify("That image data is not valid.", { kind: "error", title: "Set Background" }),
        );
    }
    this.backgroundNotices.willSet(url);
    return this.perform([{ type: "setBackground", background: url }]);
  }

  /** Uploads over HTTP (image bytes are not sent over the live connection); the change comes back live. */
  async uploadBackground(file) {
    if (!this.canEdit) return;
    try {
      await api.uploadBackground(this.documentId, this.state.version, file);
    } catch (error) {
      notify(error.message, { kind: "error", title: "Couldn’t set the background" });
    }
  }

  /** Handles dropped or pasted data: an emoji, an image file, or a URL. */
  receive(data, point) {
    if (this.readOnly) {
      notify("You can view this document but not change it.", { title: "View only" });
      return;
    }
    const emoji = data.getData(EMOJI_DRAG_TYPE);
    if (emoji) return this.addEmoji(emoji, point);
    const files = Array.from(data.files || []);
    if (files.length) {
      const image = files.find((file) => file.type.startsWith("image/")) || (files.length === 1 ? files[0] : null);
      if (image && (image.type.startsWith("image/") || image.type === "")) return this.uploadBackground(image);
      notify("Drop an image to set the background. Import .emojiart documents from the document list.", { kind: "error", title: "Set Background" });
      return;
    }
    const uriList = (data.getData("text/uri-list") || "")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line && !line.startsWith("#"));
    const text = (uriList || data.getData("text/plain") || "").trim();
    if (!text) return;
    if (/^(https?:\/\/|data:image\/)/i.test(text)) return this.setBackgroundURL(imageURL(text));
    return this.addEmoji(text, point);
  }

  showBackgroundAlert(reason) {
    this.$("background-alert-reason").textContent = reason;
    if (!this.backgroundAlert.open) this.backgroundAlert.showModal();
    this.backgroundAlert.querySelector("button").focus();
  }

  // MARK: - Zoom and pan, remembered per window

  saveView(view) {
    clearTimeout(this.viewTimer);
    this.viewTimer = setTimeout(() => sessionStorage.setItem(this.viewKey, JSON.stringify(view)), 100);
  }

  restoreView() {
    try {
      const saved = JSON.parse(sessionStorage.getItem(this.viewKey) || "null");
      if (saved) this.canvas.setView(saved, { notify: false });
    } catch {
      /* a bad saved view just means the default one */
    }
    this.showZoom();
  }

  // MARK: - Access

  /**
   * This window's access ended while open: signed out (4401), or a revoked link or changed role
   * (4403). If the document can still be seen, the page starts again with the role it has now.
   */
  async accessEnded(code, reason) {
    if (code === 4401) {
      api.goToSignIn();
      return;
    }
    if ((await api.documentStatus(this.documentId)) === 200) {
      location.reload(); // a new role: start again with it
      return;
    }
    this.gone = true;
    if (this.state) this.render(this.state);
    this.setStatus("error", "No access", reason);
    notify((reason || "Your access to this document ended.") + " Ask its owner for a new link.", {
      kind: "error",
      title: "Access ended",
    });
  }

  /** Learns the requester's role, then sets the editor up for it. */
  async loadRole() {
    try {
      this.role = (await api.getDocument(this.documentId)).role || "owner";
    } catch (error) {
      if (error.status !== 401) this.role = null; // 404: the live connection says so too
      return;
    }
    document.body.dataset.role = this.role;
    document.body.classList.toggle("read-only", this.readOnly);
    this.$("view-only").hidden = !this.readOnly;
    this.canvas.readOnly = this.readOnly || this.previewing;
    if (this.role === "owner" && !this.sharing) {
      const signedIn = await api.session().then((session) => session.access === "accounts", () => false);
      if (signedIn) {
        this.sharing = new ShareDialog(this.$("share-dialog"), this.documentId);
        this.$("share").hidden = false;
        this.$("share").addEventListener("click", () => this.sharing.open());
      }
    }
    if (this.state) this.render(this.state);
  }

  // MARK: - Start

  start() {
    const $ = this.$;
    this.actions.bindButtons($("editor-toolbar"));
    this.actions.bindButtons($("palette-bar"));
    new ToolbarFold($("toolbar-more"), $("toolbar-fold"));
    $("export-slot").replaceWith(exportMenu(this.documentId, { selection: () => [...this.canvas.selection] }));
    this.statusBox.addEventListener("click", () => this.live.retryNow());
    this.titleInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.titleInput.blur();
      if (event.key === "Escape") {
        this.titleInput.value = this.state ? this.state.title : "";
        this.titleInput.blur();
      }
    });
    this.titleInput.addEventListener("change", () => this.retitle(this.titleInput.value));
    this.backgroundAlert.addEventListener("close", () => $("canvas").focus({ preventScroll: true }));
    document.addEventListener("keydown", (event) => {
      if (isTyping(event.target) || !this.state || this.contextMenu.isOpen || event.defaultPrevented) return;
      if (event.target.closest?.("dialog[open]")) return;
      this.actions.handleKey(event);
    });
    // The clipboard: Ctrl+C, Ctrl+X and Ctrl+V arrive as the browser's copy, cut and paste events.
    document.addEventListener("copy", (event) => {
      if (isTyping(event.target) || !this.state || !event.clipboardData) return;
      if (this.copyTo(event.clipboardData)) event.preventDefault();
    });
    document.addEventListener("cut", (event) => {
      if (isTyping(event.target) || !this.state || !event.clipboardData) return;
      if (!this.copyTo(event.clipboardData)) return;
      event.preventDefault();
      if (this.canEdit) this.deleteSelection();
    });
    document.addEventListener("paste", (event) => {
      if (isTyping(event.target) || !this.state || !event.clipboardData) return;
      event.preventDefault();
      this.paste(event.clipboardData);
    });
    // Dropping outside the canvas should not navigate away from the editor.
    document.addEventListener("dragover", (event) => event.preventDefault());
    document.addEventListener("drop", (event) => event.preventDefault());
    addEventListener("pagehide", (event) => {
      sessionStorage.setItem(this.viewKey, JSON.stringify(this.canvas.view));
      if (!event.persisted) this.live.close();
    });
    // Edits still waiting when the window closes would be lost: ask first.
    addEventListener("beforeunload", (event) => {
      if (this.live.waiting > 0 && !this.gone) event.preventDefault();
    });
    this.restoreView();
    this.loadRole().then(() => {
      if (!this.readOnly) this.palettes.load();
    });
    this.live.open();
  }
}
