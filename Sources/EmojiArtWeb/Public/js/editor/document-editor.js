// The editor for one document: the coordinator of its parts. It holds the document as the
// server last described it and draws it (with any edits still waiting drawn over it), answers
// what the action table asks, and hands each job to its part: edits (./edit-requests.js), the
// clipboard, drops, the connection's status, this window's pointer for the others
// (./presence-reporter.js), who else is here (./people.js), comments (./comments.js), the changes
// kept in the browser until answered (./unsent-changes.js), what a screen reader hears, the zoom
// and pan remembered and the role (./document-access.js).
import { Backoff } from "../backoff.js";
import { CanvasView, isTyping } from "../canvas/canvas.js";
import { notify } from "../dom.js";
import { exportMenu } from "../export-menu.js";
import { applyChange, LiveConnection } from "../live.js";
import { PaletteBar } from "../palette-bar.js";
import { PaletteDialogs } from "../palette-dialogs.js";
import { Identity } from "../offline/identity.js";
import { LocalStore } from "../offline/local-store.js";
import { PaletteFeed } from "../palettes.js";
import { ActionManager } from "./action-manager.js";
import { ACTIONS } from "./actions.js";
import { Announcer } from "./announcer.js";
import { BackgroundNotices } from "./background-notices.js";
import { ClipboardCommands } from "./clipboard-commands.js";
import { Comments } from "./comments.js";
import { ConnectionStatus } from "./connection-status.js";
import { ContextMenu } from "./context-menu.js";
import { CreatedEmojis } from "./created-emojis.js";
import { DocumentAccess } from "./document-access.js";
import { DropReceiver } from "./drop-receiver.js";
import { clampCoordinate, EditRequests, turnEdits } from "./edit-requests.js";
import { EmojiCommands } from "./emoji-commands.js";
import { HistoryPanel } from "./history-panel.js";
import { MosaicDialog } from "./mosaic-dialog.js";
import { OfflineCopy } from "./offline-copy.js";
import { People } from "./people.js";
import { predict } from "./prediction.js";
import { PresenceReporter } from "./presence-reporter.js";
import { SavedView } from "./saved-view.js";
import { ShortcutsPanel } from "./shortcuts-panel.js";
import { ToolbarFold } from "./toolbar-fold.js";
import { UnsentChanges } from "./unsent-changes.js";

const NEW_EMOJI_SCREEN_SIZE = 40; // px: a new emoji's size on screen at the zoom it is added at

export class DocumentEditor {
  /** @param {string} documentId */
  constructor(documentId) {
    this.documentId = documentId;
    /** The document as the server last described it; every edit is sent with its version as baseVersion. */
    this.state = null;
    /** The document was deleted, or this window's access ended: nothing more can be edited here. */
    this.gone = false;
    this.online = false;
    this.renderScheduled = false;
    /** The emojis each recent change added (to select what this window pasted). */
    this.created = new CreatedEmojis();
    /** A past version shown read-only by the History panel, or null (the document now). */
    this.preview = null;
    /** The locked emoji the context menu opened on (its Unlock), or null. */
    this.lockedTarget = null;
    const $ = (id) => document.getElementById(id);
    this.$ = $;
    this.titleInput = $("doc-title");
    this.zoomLevel = $("zoom-level");
    this.backgroundAlert = $("background-alert");

    const store = new LocalStore(); // what this browser keeps (docs/OFFLINE.md), and for whom
    const kept = { store, identity: new Identity(store) };
    this.access = new DocumentAccess(documentId, () => this.unsent.noOneSignedIn(), kept.identity);
    this.requests = new EditRequests(this);
    this.clipboard = new ClipboardCommands(this);
    this.drops = new DropReceiver(this);
    this.announcer = new Announcer($("announcer"));
    this.status = new ConnectionStatus($("save-status"), $("save-status-text"));
    this.canvas = new CanvasView($("canvas"), {
      move: (ids, offset) => this.requests.perform([{ type: "moveEmojis", ids, offset }]),
      resize: (ids, scale) => this.requests.perform([{ type: "resizeEmojis", ids, scale }]),
      turn: (ids, degrees, moves) => this.requests.perform(turnEdits(ids, degrees, moves)),
      drop: (data, point) => this.drops.receive(data, point),
      viewChanged: (view) => {
        this.showZoom();
        this.savedView.changed(view);
      },
      viewApplied: () => {
        if (this.canvas) this.showZoom();
        this.people?.follow.viewChanged();
        this.presence?.changed();
        this.comments?.rendered();
      },
      selectionChanged: () => {
        this.actions.refresh();
        this.presence.changed();
      },
      pointerMoved: (point) => this.presence.changed({ pointer: point && { x: Math.round(point.x), y: Math.round(point.y) } }),
      backgroundFailed: () => notify("Couldn’t show the background image. Reload the page to try again.", { kind: "error", title: "Set Background" }),
      contextMenu: (point, where) => {
        this.lockedTarget = where.locked ?? null;
        this.contextMenu.open(point, where);
      },
    });
    this.savedView = new SavedView(documentId, this.canvas);
    this.history = new HistoryPanel($("history-panel"), {
      documentId,
      currentVersion: () => (this.state ? this.state.version : null),
      canRestore: () => Boolean(this.state) && !this.gone && !this.readOnly,
      preview: (state) => this.showPreview(state),
      restored: (version) => this.announcer.say(`Restored version ${version}`),
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
    }, new PaletteDialogs(new PaletteFeed(kept), { picker: this.emoji.picker }));
    this.unsent = new UnsentChanges(this, kept);
    this.copy = new OfflineCopy(this, kept);
    this.live = new LiveConnection(
      documentId,
      {
        snapshot: (next) => {
          this.render(next);
          Object.assign(document.body.dataset, { ready: "true", source: "server" });
          this.emoji.prepare();
        },
        synced: (message) => {
          const { undoActionName, redoActionName, backgroundState } = message;
          this.render({ ...this.state, undoActionName, redoActionName, backgroundState });
          document.body.dataset.source = "server";
        },
        change: (message) => this.changed(message),
        background: (backgroundState) => {
          this.state = { ...this.state, backgroundState };
          this.scheduleRender();
        },
        deleted: (dropped) => this.deleted(dropped),
        missing: () => this.copy.missing(),
        presence: (message) => this.people.receive(message),
        summon: (message) => this.people.summoned(message),
        comments: () => this.comments.refresh(),
        status: (status) => this.connectionChanged(status),
        access: (role) => this.access.heard(role),
        accessEnded: (code, reason) => this.accessEnded(code, reason),
      },
      () => (this.state ? this.state.version : null),
      new Backoff(), // reconnecting: 250 ms doubling to 15 s, each ±20 % (docs/API.md)
      this.unsent.journal,
    );
    this.presence = new PresenceReporter(this.live, this.canvas, () => this.people?.follow.peer ?? null);
    this.people = new People(this);
    this.comments = new Comments(this);
  }

  // MARK: - What the actions ask (./actions.js)

  get readOnly() {
    return this.access.readOnly;
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

  /** How many emojis are locked. */
  get lockedCount() {
    return this.state ? this.state.emojis.filter((emoji) => emoji.locked).length : 0;
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

  /** Whether this window may ask everyone to follow it: an editor or owner, with someone to ask, online. */
  get canBringEveryone() {
    return !this.gone && !this.readOnly && this.online && this.people?.count > 0;
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

  // MARK: - Rendering

  /** Shows `next` (the server's whole state, with any offline edits drawn over it) at once. */
  render(next) {
    this.state = next;
    this.renderScheduled = false;
    const waiting = this.requests.predicted;
    const shown = this.preview ?? (waiting.length ? predict(next, waiting) : next);
    document.body.dataset.version = String(next.version);
    document.body.dataset.pending = String(waiting.length);
    document.title = shown.title + " — EmojiArt";
    if (document.activeElement !== this.titleInput) this.titleInput.value = shown.title;
    this.titleInput.disabled = this.gone || this.readOnly || this.previewing;
    this.canvas.render(shown);
    this.copy.changed(next);
    this.comments.rendered();
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

  showBackgroundAlert(reason) {
    this.$("background-alert-reason").textContent = reason;
    if (!this.backgroundAlert.open) this.backgroundAlert.showModal();
    this.backgroundAlert.querySelector("button").focus();
  }

  // MARK: - What the server says

  /** One committed version, whoever made it. */
  changed(message) {
    try {
      const firstNew = this.state.nextEmojiId;
      this.state = applyChange(this.state, message);
      this.created.remember(message.version, firstNew, this.state.nextEmojiId);
    } catch {
      this.live.resynchronize(); // cannot happen with a correct server: start again from a snapshot
      return;
    }
    this.history.documentChanged();
    this.scheduleRender();
  }

  connectionChanged(status) {
    this.status.show(status, { loaded: Boolean(this.state), readOnly: this.readOnly });
    const wasOnline = this.online;
    this.online = status.state === "online";
    if (this.online && !wasOnline) {
      this.requests.backOnline();
      this.unsent.backOnline();
      this.comments.backOnline();
    }
    if (wasOnline && !this.online) this.people.offline();
    this.actions.refresh();
  }

  deleted(dropped = []) {
    if (this.gone) return;
    this.gone = true;
    this.unsent.forgetDocument(dropped);
    if (!this.state) return notify("There is no such document. It may have been deleted.", { kind: "error", title: "Couldn’t open this document" });
    this.render(this.state);
    notify("This document was deleted in another window. Nothing more can be changed here.", { kind: "error", title: "Document deleted" });
  }

  async accessEnded(code, reason) {
    if (!(await this.access.ended(code))) return;
    this.gone = true;
    this.unsent.forgetDocument(); // a revoked link or a lost role: what is kept can't be sent
    if (this.state) this.render(this.state);
    this.status.set("error", "No access", reason);
    notify((reason || "Your access to this document ended.") + " Ask its owner for a new link.", { kind: "error", title: "Access ended" });
  }

  /** Learns the requester's role, then sets the editor up for it. */
  async loadRole() {
    await this.access.load();
    this.canvas.readOnly = this.readOnly || this.previewing;
    if (!this.readOnly) this.palettes.load(); // the palettes don't wait for the Share button's question
    await this.access.offerSharing();
    if (this.state) this.render(this.state);
    this.comments.draw();
  }

  // MARK: - The emojis a change added (to select what this window pasted, duplicated or picked)

  /** The ids of the emojis the change at `version` added that are still there. */
  createdIds(version) {
    return this.created.ids(version, this.state);
  }

  /** Selects the emojis the change at `version` added, once it is drawn (and focuses the first). */
  selectCreated(version, { focus = false } = {}) {
    if (!this.created.has(version)) return;
    this.render(this.state); // draw it now, not at the next frame, so the new emojis can be selected
    const ids = this.createdIds(version);
    this.canvas.setSelection(ids);
    if (focus && ids.length) this.canvas.focusEmoji(ids[0]);
  }

  // MARK: - Intents (the action table's, the canvas's and the palette's)

  /** The size of an emoji added now: NEW_EMOJI_SCREEN_SIZE on screen at the zoom shown. */
  get newEmojiSize() {
    return Math.min(1024, Math.max(1, Math.round(NEW_EMOJI_SCREEN_SIZE / this.canvas.zoom)));
  }

  addEmoji(text, point) {
    this.emoji.placed(text);
    const position = { x: clampCoordinate(Math.round(point.x)), y: clampCoordinate(Math.round(point.y)) };
    return this.requests.perform([{ type: "addEmoji", text, position, size: this.newEmojiSize }]);
  }

  deleteSelection() {
    const ids = [...this.canvas.selection];
    if (ids.length) this.requests.perform([{ type: "deleteEmojis", ids }]);
  }

  /** Moves the selection; presses in quick succession are one gesture, so one undo step. */
  nudgeSelection(dx, dy) {
    const ids = [...this.canvas.selection];
    this.requests.perform([{ type: "moveEmojis", ids, offset: { x: dx, y: dy } }], this.requests.keyGesture("move"));
  }

  /** Resizes the selection; presses in quick succession are one undo step, as with nudging. */
  scaleSelection(scale) {
    this.requests.perform([{ type: "resizeEmojis", ids: [...this.canvas.selection], scale }], this.requests.keyGesture("scale"));
  }

  /** Turns the selection about its middle (each emoji about its own centre when it is alone). */
  turnSelection(degrees) {
    const ids = [...this.canvas.selection];
    this.requests.perform(turnEdits(ids, degrees, this.canvas.turnMoves(ids, degrees)));
  }

  /** Locks or unlocks `ids`; locked emojis leave the selection (they can't be selected). */
  setLocked(ids, locked) {
    if (!ids.length) return;
    this.requests.perform([{ type: "setLocked", ids, locked }]);
    if (locked) this.canvas.clearSelection();
  }

  reorderSelection(to) {
    this.requests.perform([{ type: "reorder", ids: [...this.canvas.selection], to }]);
  }

  retitle(title) {
    if (!this.state || title === this.state.title) return;
    // Answered (or refused, or waiting offline): the field shows the title drawn, pending changes and all.
    this.requests.perform([{ type: "retitle", title }]).then(() => this.scheduleRender());
  }

  showShortcuts() {
    this.contextMenu.close({ focus: false });
    this.shortcuts.open();
  }

  // MARK: - Start

  /** Sets the page up, and connects (with `socket`, when the page opened one already: LiveConnection.connect). */
  start(socket = null) {
    const $ = this.$;
    this.actions.bindButtons($("editor-toolbar"), $("palette-bar"), $("people"));
    new ToolbarFold($("toolbar-more"), $("toolbar-fold"));
    $("export-slot").replaceWith(exportMenu(this.documentId, { selection: () => [...this.canvas.selection] }));
    this.status.box.addEventListener("click", () => this.copy.retryNow());
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
    this.clipboard.listen();
    // Dropping outside the canvas should not navigate away from the editor.
    document.addEventListener("dragover", (event) => event.preventDefault());
    document.addEventListener("drop", (event) => event.preventDefault());
    addEventListener("pagehide", (event) => {
      this.savedView.saveNow();
      this.copy.saveNow();
      if (!event.persisted) this.live.close();
    });
    this.savedView.restore();
    this.showZoom();
    this.unsent.restore();
    this.copy.open();
    this.live.open(socket); // at once, beside the copy (one made offline: `missing` makes it first)
    this.copy.onServer(); // a document made offline is made on the server now, not at the first 4404
    this.loadRole(); // when the live connection says the role: it doesn't wait for the browser's storage
  }
}
