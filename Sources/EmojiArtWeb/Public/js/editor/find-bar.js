// The find bar (Ctrl+F): a name or keyword in the page's language (or an emoji, in any tone)
// selects the document's emojis that match and zooms the view to them; "n of m" with next and
// previous (Enter, Shift+Enter, the arrows) centres each in turn. Escape closes it. Matching is
// the catalogue's (../emoji/catalogue.js `matches`), the picker's search rules.
import { el } from "../dom.js";
import { boundsOf } from "../canvas/viewport.js";
import { loadCatalogue } from "../emoji/catalogue.js";

const FIND_DELAY = 120; // ms of quiet typing before the document is searched

export class FindBar {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    this.matches = [];
    this.current = -1;
    this.timer = 0;
    this.input = el("input", {
      type: "search", class: "find-input", id: "find-input", placeholder: "Find emojis by name", autocomplete: "off",
      spellcheck: "false", maxlength: "100", "aria-label": "Find emojis", "aria-describedby": "find-count",
    });
    this.count = el("output", { class: "find-count", id: "find-count", "aria-live": "polite" });
    // Pressing a button leaves the focus in the field, so typing and Enter carry on there.
    const button = (label, text, action) =>
      el("button", { type: "button", class: "button small icon", "aria-label": label, title: label, text,
        on: { click: action, mousedown: (event) => event.preventDefault() } });
    this.previous = button("Previous match (Shift+Enter)", "↑", () => this.step(-1));
    this.next = button("Next match (Enter)", "↓", () => this.step(1));
    this.bar = el("div", { class: "find-bar canvas-overlay-ui", id: "find-bar", role: "search", "aria-label": "Find on the canvas", hidden: true },
      this.input, this.count, this.previous, this.next,
      button("Close find (Esc)", "×", () => this.close()));
    document.getElementById("canvas").after(this.bar);
    this.input.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.find(), FIND_DELAY);
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        clearTimeout(this.timer);
        if (this.query !== this.input.value) this.find();
        this.step(event.shiftKey ? -1 : 1);
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        this.step(event.key === "ArrowDown" ? 1 : -1);
      } else if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        this.close();
      }
    });
    this.showCount();
  }

  get isOpen() {
    return !this.bar.hidden;
  }

  open() {
    this.bar.hidden = false;
    this.input.focus();
    this.input.select();
    loadCatalogue().then(() => this.input.value && this.find(), () => (this.count.textContent = "Names unavailable"));
  }

  close() {
    clearTimeout(this.timer);
    this.bar.hidden = true;
    this.editor.canvas.root.focus({ preventScroll: true });
  }

  /** Selects every emoji of the document that matches and zooms to them. */
  async find() {
    const query = this.input.value;
    this.query = query;
    const catalogue = await loadCatalogue().catch(() => null);
    if (!catalogue || this.query !== query) return;
    const canvas = this.editor.canvas;
    // Locked emojis are not found: they can't be selected.
    this.matches = query.trim()
      ? canvas.emojis.filter((emoji) => !emoji.locked && catalogue.matches(emoji.text, query)).map((emoji) => emoji.id)
      : [];
    this.current = -1;
    canvas.setSelection(this.matches);
    if (this.matches.length) canvas.zoomToSelection();
    this.showCount();
  }

  /** Centres the next (or previous) match, keeping the zoom. */
  step(direction) {
    if (!this.matches.length) return;
    const canvas = this.editor.canvas;
    this.matches = this.matches.filter((id) => canvas.layer.has(id) && !canvas.layer.isLocked(id)); // some may have gone since
    if (!this.matches.length) return this.showCount();
    this.current = this.current < 0 && direction < 0 ? this.matches.length - 1 : (this.current + direction + this.matches.length) % this.matches.length;
    const id = this.matches[this.current];
    const box = canvas.layer.box(id);
    if (box) {
      const zoom = canvas.zoom;
      const bounds = boundsOf([box]);
      canvas.setView({ zoom, panX: (-(bounds.left + bounds.right) / 2) * zoom, panY: (-(bounds.top + bounds.bottom) / 2) * zoom });
    }
    canvas.layer.setActive?.(id); // Tab from here reaches it
    this.showCount();
  }

  showCount() {
    const total = this.matches.length;
    const text = !this.input.value.trim() ? "" : !total ? "No matches" : this.current < 0 ? (total === 1 ? "1 match" : `${total} matches`) : `${this.current + 1} of ${total}`;
    this.count.textContent = text;
    this.bar.dataset.count = String(total);
    this.previous.disabled = this.next.disabled = total < 2 && !(total === 1 && this.current < 0);
  }
}
