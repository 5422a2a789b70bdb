// The Comments panel: the document's open threads (and the resolved ones on request), newest
// activity first, each with its replies; writing a new comment, replying, editing and deleting
// one's own, resolving and reopening, and copying a thread's link. Everything anyone wrote
// enters the page as text, never as markup. What it shows is ./comments.js's to decide.
import { el, relativeTime } from "../dom.js";

const TEXT_LIMIT = 2000;

export class CommentsPanel {
  /**
   * @param {HTMLElement} root the panel (#comments-panel)
   * @param {object} handlers post(text), reply(threadId, text), edit(commentId, text),
   *   remove(commentId), resolve(threadId, resolved), select(threadId), copyLink(threadId),
   *   startNew(), pickPlace(), cancelNew(), showResolved(on), showPins(on), changed() (an edit ended: draw again), close()
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    const $ = (selector) => root.querySelector(selector);
    this.count = $(".comments-count");
    this.list = $(".comment-threads");
    this.empty = $(".comments-empty");
    this.composer = $(".comment-composer");
    this.target = $(".comment-target");
    this.draft = $(".comment-draft");
    this.newButton = $(".comments-new");
    this.resolvedBox = $(".comments-show-resolved");
    this.pinsBox = $(".comments-show-pins");
    /** @type {Map<string, {li: HTMLElement, body: HTMLElement, form: HTMLFormElement, signature: string}>} */
    this.items = new Map();
    /** The comment whose text is being changed, or null. */
    this.editing = null;
    $(".comments-close").addEventListener("click", () => handlers.close());
    this.newButton.addEventListener("click", () => handlers.startNew());
    this.resolvedBox.addEventListener("change", () => handlers.showResolved(this.resolvedBox.checked));
    this.pinsBox.addEventListener("change", () => handlers.showPins(this.pinsBox.checked));
    this.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit(this.draft, (text) => handlers.post(text));
    });
    $(".comment-cancel").addEventListener("click", () => handlers.cancelNew());
    $(".comment-pick").addEventListener("click", () => handlers.pickPlace());
    this.sendOnModEnter(this.draft, this.composer);
    root.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      event.preventDefault();
      if (!this.composer.hidden) handlers.cancelNew();
      else handlers.close();
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  /** Ctrl+Enter (⌘+Enter) in a text box sends its form. */
  sendOnModEnter(area, form) {
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  /** Sends a text box's text; it is cleared once the server has it, and kept if it refused it. */
  async submit(area, send) {
    const text = area.value;
    if (!text.trim()) {
      area.focus();
      return;
    }
    area.disabled = true;
    try {
      if (await send(text)) area.value = "";
    } finally {
      area.disabled = false;
    }
  }

  /** Opens the form for a new comment, saying where it goes. */
  openComposer(where) {
    this.target.textContent = where; // an emoji of the document, as text
    this.composer.hidden = false;
    this.draft.focus();
  }

  closeComposer() {
    this.composer.hidden = true;
  }

  /**
   * Draws the threads.
   * @param {object[]} threads newest activity first
   * @param {{canComment: boolean, isOwner: boolean, showResolved: boolean, showPins: boolean,
   *   active: string | null, pinLabel: (thread) => string}} options
   */
  render(threads, { canComment, isOwner, showResolved, showPins, active, pinLabel }) {
    const open = threads.filter((thread) => !thread.resolved).length;
    const resolved = threads.length - open;
    this.count.textContent = `${open} open` + (resolved ? ` · ${resolved} resolved` : "");
    this.newButton.hidden = !canComment;
    this.resolvedBox.checked = showResolved;
    this.pinsBox.checked = showPins;
    const shown = threads.filter((thread) => showResolved || !thread.resolved);
    this.empty.hidden = shown.length > 0;
    this.empty.textContent = threads.length ? "No open comments." : "No comments yet.";
    const keep = new Set(shown.map((thread) => thread.id));
    for (const [id, item] of this.items) {
      if (keep.has(id)) continue;
      item.li.remove();
      this.items.delete(id);
    }
    let previous = null;
    for (const thread of shown) {
      const item = this.item(thread);
      const signature = JSON.stringify([thread, canComment, isOwner, pinLabel(thread)]);
      // A thread with a comment being edited keeps what is typed until it is saved or cancelled.
      const busy = this.editing !== null && this.holds(thread, this.editing);
      if (item.signature !== signature && !busy) {
        item.signature = signature;
        item.body.replaceChildren(...this.threadBody(thread, { canComment, isOwner, pinLabel }));
        item.form.hidden = item.form.hidden || !canComment;
      }
      item.li.classList.toggle("resolved", thread.resolved);
      item.li.classList.toggle("active", thread.id === active);
      const at = previous ? previous.nextSibling : this.list.firstChild;
      if (at !== item.li) this.list.insertBefore(item.li, at);
      previous = item.li;
    }
  }

  holds(thread, commentId) {
    return thread.id === commentId || thread.replies.some((reply) => reply.id === commentId);
  }

  /** The thread's list item, made the first time it is shown (its reply form lives as long). */
  item(thread) {
    let item = this.items.get(thread.id);
    if (item) return item;
    const id = thread.id;
    const area = el("textarea", { class: "comment-input", rows: "2", maxlength: String(TEXT_LIMIT), "aria-label": "Reply", placeholder: "Reply…" });
    const form = el("form", { class: "reply-form", hidden: true },
      area,
      el("div", { class: "comment-buttons" },
        el("button", { type: "submit", class: "button small primary", text: "Reply" }),
        el("button", { type: "button", class: "button small", text: "Cancel", on: { click: () => (form.hidden = true) } })));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit(area, (text) => this.handlers.reply(id, text));
    });
    this.sendOnModEnter(area, form);
    const body = el("div", { class: "comment-thread-body" });
    const li = el("li", { class: "comment-thread", id: "comment-" + id, tabindex: "-1", dataset: { thread: id } }, body, form);
    li.addEventListener("click", (event) => {
      if (!event.target.closest("button, textarea, a, form")) this.handlers.select(id);
    });
    item = { li, body, form, signature: "" };
    this.items.set(id, item);
    return item;
  }

  /** A thread's first comment, its replies and what can be done with it. */
  threadBody(thread, { canComment, isOwner, pinLabel }) {
    const id = thread.id;
    const item = this.items.get(id);
    const actions = el("div", { class: "comment-buttons" },
      canComment && el("button", {
        type: "button", class: "button small", text: "Reply",
        on: { click: () => { item.form.hidden = false; item.form.querySelector("textarea").focus(); } },
      }),
      canComment && el("button", {
        type: "button", class: "button small comment-resolve", text: thread.resolved ? "Reopen" : "Resolve",
        on: { click: () => this.handlers.resolve(id, !thread.resolved) },
      }),
      el("button", { type: "button", class: "button small comment-link", text: "Copy link", on: { click: () => this.handlers.copyLink(id) } }));
    const first = this.comment(thread, { canComment, isOwner, pin: pinLabel(thread), first: true });
    if (!thread.replies.length) return [first, actions];
    const replies = el("ol", { class: "comment-replies", "aria-label": `${thread.replies.length} ${thread.replies.length === 1 ? "reply" : "replies"}` },
      ...thread.replies.map((reply) => el("li", {}, this.comment(reply, { canComment, isOwner }))));
    return [first, replies, actions];
  }

  /** One comment: who, when, where (a thread's first), the text, and Edit/Delete where allowed. */
  comment(comment, { canComment, isOwner, pin = null, first = false }) {
    const text = el("p", { class: "comment-text", text: String(comment.text) });
    const article = el("article", { class: first ? "comment" : "comment reply", dataset: { comment: comment.id } },
      el("header", { class: "comment-head" },
        el("strong", { class: "comment-author", text: String(comment.author) }),
        el("time", { datetime: comment.createdAt, title: comment.createdAt, text: relativeTime(comment.createdAt) }),
        comment.editedAt ? el("span", { class: "comment-edited", text: "(edited)" }) : null,
        pin ? el("span", { class: "comment-where", text: pin }) : null),
      text);
    const mayEdit = canComment && comment.mine;
    const mayDelete = (canComment && comment.mine) || isOwner;
    if (mayEdit || mayDelete) {
      article.append(el("div", { class: "comment-buttons comment-own" },
        mayEdit && el("button", { type: "button", class: "button small link-like", text: "Edit", on: { click: () => this.startEdit(article, comment) } }),
        mayDelete && el("button", { type: "button", class: "button small link-like comment-delete", text: "Delete", on: { click: () => this.handlers.remove(comment.id) } })));
    }
    return article;
  }

  /** Swaps a comment's text for a box to change it in. */
  startEdit(article, comment) {
    this.editing = comment.id;
    const area = el("textarea", { class: "comment-input", rows: "3", maxlength: String(TEXT_LIMIT), "aria-label": "Edit comment", value: String(comment.text) });
    const done = () => {
      this.editing = null;
      this.handlers.changed();
    };
    const form = el("form", { class: "edit-form" }, area,
      el("div", { class: "comment-buttons" },
        el("button", { type: "submit", class: "button small primary", text: "Save" }),
        el("button", { type: "button", class: "button small", text: "Cancel", on: { click: () => { form.replaceWith(text); own?.removeAttribute("hidden"); done(); } } })));
    const text = article.querySelector(".comment-text");
    const own = article.querySelector(".comment-own");
    own?.setAttribute("hidden", "");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit(area, async (value) => {
        const saved = await this.handlers.edit(comment.id, value);
        if (saved) done();
        return saved;
      });
    });
    this.sendOnModEnter(area, form);
    text.replaceWith(form);
    area.focus();
  }

  /** Shows a thread: scrolled to and focused for the keyboard. */
  reveal(id) {
    const li = this.items.get(id)?.li;
    if (!li) return;
    li.scrollIntoView({ block: "nearest" });
    li.focus({ preventScroll: true });
  }
}
