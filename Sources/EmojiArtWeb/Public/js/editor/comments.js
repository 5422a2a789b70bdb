// Comments for the editor: the document's threads as the server has them (fetched again whenever
// the live connection says they changed, on any server), their pins on the canvas
// (../canvas/comment-pins.js) and the Comments panel (./comments-panel.js). A new comment goes on
// the selected emoji, the middle of the view, or a place picked on the canvas; a thread's link
// (…/documents/{id}#comment=<id>) opens the editor at it. Comments are not edits: no undo.
import * as api from "../api.js";
import { CommentPins } from "../canvas/comment-pins.js";
import { afterFirstFrame, confirmAction, notify } from "../dom.js";
import { CommentsPanel } from "./comments-panel.js";

const PINS_KEY = "emojiart.commentPins"; // "hidden" while the pins are hidden, in every document
const LINK = /^#comment=([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export class Comments {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    this.documentId = editor.documentId;
    /** The threads, newest activity first; null until first fetched. */
    this.threads = null;
    this.showResolved = false;
    this.pinsVisible = localStorage.getItem(PINS_KEY) !== "hidden";
    /** The thread shown as current (its pin stands out), or null. */
    this.active = null;
    /** Where a new comment goes: {emojiId} or {position: {x, y}}. */
    this.target = null;
    this.placing = false;
    this.fetching = null;
    this.fetchAgain = false;
    const canvas = document.getElementById("canvas");
    this.pins = new CommentPins(canvas, editor.canvas.viewport, editor.canvas.layer, (id) => this.openThread(id));
    this.panel = new CommentsPanel(document.getElementById("comments-panel"), {
      post: (text) => this.post(text),
      reply: (id, text) => this.send(() => api.replyToComment(this.documentId, id, text)),
      edit: (id, text) => this.send(() => api.changeComment(this.documentId, id, { text })),
      remove: async (id) => {
        const thread = this.threads?.find((candidate) => candidate.id === id);
        const message = thread?.replies.length ? "The comment and its replies will be deleted for everyone." : "The comment will be deleted for everyone.";
        if (await confirmAction({ title: "Delete comment?", message, confirmLabel: "Delete" })) {
          await this.send(() => api.deleteComment(this.documentId, id));
        }
      },
      resolve: (id, resolved) => this.send(() => api.changeComment(this.documentId, id, { resolved })),
      select: (id) => this.openThread(id),
      copyLink: (id) => this.copyLink(id),
      startNew: () => this.startNew(),
      pickPlace: () => this.pickPlace(),
      cancelNew: () => this.cancelNew(),
      showResolved: (on) => {
        this.showResolved = on;
        this.draw();
      },
      showPins: (on) => on !== this.pinsVisible && this.togglePins(),
      changed: () => this.draw(),
      close: () => this.close(),
    });
    // Picking a place: the next press on the canvas says where, and does nothing else.
    canvas.addEventListener("pointerdown", (event) => this.placed(event), { capture: true });
    document.addEventListener("keydown", (event) => {
      if (!this.placing || event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      this.stopPlacing();
      this.panel.openComposer(this.describeTarget());
    }, { capture: true });
    addEventListener("hashchange", () => this.followLink());
  }

  get role() {
    return this.editor.access.role;
  }

  /** Owners, editors and commenters comment (docs/API.md, "Comments"), while the document is here. */
  get canComment() {
    return ["owner", "editor", "commenter"].includes(this.role) && !this.editor.gone;
  }

  get isOpen() {
    return this.panel.isOpen;
  }

  /**
   * The connection is up: the threads again (what changed while offline). The first time, once
   * the document is on screen — the threads come second to the drawing (docs/PERFORMANCE.md,
   * "Start-up").
   */
  backOnline() {
    if (this.threads !== null || this.fetching) this.refresh();
    else afterFirstFrame(() => this.threads === null && !this.fetching && this.refresh());
  }

  /** Fetches the threads (once more after the one in flight, if asked meanwhile) and draws them. */
  async refresh() {
    if (this.fetching) {
      this.fetchAgain = true;
      return this.fetching;
    }
    const first = this.threads === null;
    this.fetching = (async () => {
      try {
        do {
          this.fetchAgain = false;
          this.threads = await api.listComments(this.documentId);
        } while (this.fetchAgain);
      } catch {
        return; // gone, or no longer ours to see: the live connection says which
      } finally {
        this.fetching = null;
      }
      this.draw();
      if (first) this.followLink();
    })();
    return this.fetching;
  }

  /** Draws the panel and the pins as the threads are now. */
  draw() {
    const threads = this.threads ?? [];
    if (this.active && !threads.some((thread) => thread.id === this.active)) this.active = null;
    const shown = threads.filter((thread) => this.showResolved || !thread.resolved);
    this.pins.show(shown, { visible: this.pinsVisible, active: this.active });
    this.panel.render(threads, {
      canComment: this.canComment, isOwner: this.role === "owner", showResolved: this.showResolved,
      showPins: this.pinsVisible, active: this.active, pinLabel: (thread) => this.pinLabel(thread),
    });
    const open = threads.filter((thread) => !thread.resolved).length;
    document.body.dataset.comments = String(open);
    const badge = document.querySelector("#show-comments .comments-badge");
    badge.textContent = String(open);
    badge.hidden = open === 0;
    document.getElementById("show-comments").setAttribute("aria-label", open ? `Comments, ${open} open` : "Comments");
  }

  /** The emojis were drawn again (moved, deleted): pins on them follow, and "on 🐶" says whether it is still there. */
  rendered() {
    this.pins.placeAll();
    const labels = (this.threads ?? []).filter((thread) => thread.emojiId != null).map((thread) => this.pinLabel(thread)).join();
    if (labels !== this.labels) {
      this.labels = labels;
      if (this.isOpen) this.draw();
    }
  }

  /** "on 🐶" for a thread about an emoji (as text: the emoji is the document's). */
  pinLabel(thread) {
    if (thread.emojiId == null) return "";
    const emoji = this.editor.canvas.layer.emojis.get(thread.emojiId);
    return emoji ? "on " + emoji.text : "on a deleted emoji";
  }

  // MARK: - The panel and the pins

  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  open() {
    this.panel.root.hidden = false;
    this.editor.actions.refresh();
    if (this.threads === null) this.refresh();
    else this.draw();
  }

  close() {
    this.cancelNew();
    this.panel.root.hidden = true;
    this.active = null;
    this.draw();
    this.editor.actions.refresh();
    document.getElementById("canvas").focus({ preventScroll: true });
  }

  togglePins() {
    this.pinsVisible = !this.pinsVisible;
    localStorage.setItem(PINS_KEY, this.pinsVisible ? "shown" : "hidden");
    this.editor.announcer.say(this.pinsVisible ? "Comment pins shown" : "Comment pins hidden");
    this.draw();
    this.editor.actions.refresh();
  }

  /** Opens the panel at a thread and brings its pin into view. */
  openThread(id) {
    const thread = this.threads?.find((candidate) => candidate.id === id);
    if (!thread) return;
    if (thread.resolved) this.showResolved = true;
    this.active = id;
    if (!this.isOpen) this.open();
    else this.draw();
    this.panel.reveal(id);
    const world = this.pins.worldPoint(thread);
    const viewport = this.editor.canvas.viewport;
    const rect = viewport.visibleWorldRect();
    if (world.x < rect.left || world.x > rect.right || world.y < rect.top || world.y > rect.bottom) {
      const zoom = viewport.zoom;
      this.editor.canvas.setView({ zoom, panX: -world.x * zoom, panY: -world.y * zoom });
    }
  }

  /** `#comment=<id>` in the address: that thread, once the threads are here. */
  followLink() {
    const match = LINK.exec(location.hash);
    if (!match || this.threads === null) return;
    const id = match[1].toLowerCase();
    const thread = this.threads.find((candidate) => candidate.id.toLowerCase() === id);
    if (thread) this.openThread(thread.id);
    else notify("That comment was deleted, or isn’t in this document.", { title: "Comments" });
  }

  async copyLink(id) {
    const url = `${location.origin}/documents/${encodeURIComponent(this.documentId)}#comment=${id}`;
    try {
      await navigator.clipboard.writeText(url);
      notify("Link to the comment copied.", { title: "Comments" });
    } catch {
      history.replaceState(null, "", "#comment=" + id); // the address bar holds it to copy by hand
      notify("Copy the link from the address bar.", { title: "Comments" });
    }
  }

  // MARK: - A new comment

  /** Starts a comment on the selected emoji (one alone), else the middle of the view. */
  startNew() {
    if (!this.canComment) return;
    if (!this.isOpen) this.open();
    const selected = [...this.editor.canvas.selection];
    if (selected.length === 1 && selected[0] >= 0) this.target = { emojiId: selected[0] };
    else this.target = { position: this.editor.canvas.visibleCentre() };
    this.panel.openComposer(this.describeTarget());
  }

  /** The next press on the canvas picks where the comment goes. */
  pickPlace() {
    this.placing = true;
    document.getElementById("canvas").classList.add("placing-comment");
    this.panel.target.textContent = "Click the picture where the comment goes…";
  }

  cancelNew() {
    this.stopPlacing();
    this.target = null;
    this.panel.closeComposer();
  }

  stopPlacing() {
    this.placing = false;
    document.getElementById("canvas").classList.remove("placing-comment");
  }

  placed(event) {
    if (!this.placing || event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    this.stopPlacing();
    const canvas = this.editor.canvas;
    const emojiId = canvas.emojiUnder(event) ?? canvas.emojiUnder(event, { locked: true });
    this.target = emojiId !== null && emojiId >= 0 ? { emojiId } : { position: canvas.documentPoint(event.clientX, event.clientY), picked: true };
    this.panel.openComposer(this.describeTarget());
  }

  describeTarget() {
    if (this.target?.emojiId != null) {
      const emoji = this.editor.canvas.layer.emojis.get(this.target.emojiId);
      return "On " + (emoji ? emoji.text : "the selected emoji");
    }
    return this.target?.picked ? "At the place you picked" : "At the middle of the view";
  }

  async post(text) {
    if (!this.target) this.target = { position: this.editor.canvas.visibleCentre() };
    const where = this.target.emojiId != null
      ? { emojiId: this.target.emojiId }
      : { position: { x: Math.round(this.target.position.x), y: Math.round(this.target.position.y) } };
    const thread = await this.send(() => api.createComment(this.documentId, text, where));
    if (!thread) return false;
    this.cancelNew();
    this.active = thread.id;
    this.editor.announcer.say("Comment posted");
    return true;
  }

  /** Sends a change; the threads are fetched again. Returns the answer, or null with a notice. */
  async send(call) {
    try {
      const answer = await call();
      await this.refresh();
      return answer ?? true;
    } catch (error) {
      notify(error.message, { kind: "error", title: "Comments" });
      return null;
    }
  }
}
