// The emojis for the keyboard and screen readers: the emoji layer is a multi-select listbox whose
// options are empty elements laid over the drawn emojis, each with a label ("🐶 dog face at 120,
// −40, size 64") and its place in the document (aria-posinset of aria-setsize). One of them at a
// time is in the tab order (a roving tabindex). The pixels come from the scene's canvas; these
// elements only carry the focus ring and take clicks.
//
// A document of up to OPTION_LIMIT emojis has an option for each; a bigger one has options for
// a window of it — the emojis nearest the middle of the view, plus the one in the tab order — so
// the page never holds 50,000 elements. Arrow keys walk the whole document (the canvas finds the
// neighbour), and the option for the emoji reached is made on the way.
//
// The options are grid items stacked in one cell and placed by their margins rather than
// absolutely positioned or transformed: Chrome gives every positioned or transformed element its
// own paint layer. An option is EMOJI_WIDTH em wide and 1 em high, centred on the emoji's point.
import { EMOJI_WIDTH } from "./emoji-geometry.js";
import { emojiLabel, whenNamesLoaded } from "./emoji-label.js";

export const OPTION_LIMIT = 300;

export class EmojiOptions {
  /** @param {HTMLElement} listbox the element holding the options */
  constructor(listbox) {
    this.listbox = listbox;
    /** @type {Map<number, HTMLElement>} */
    this.elements = new Map();
    /** @type {Map<number, object>} the emoji each option describes, as last shown */
    this.shown = new Map();
    this.activeId = null;
    this.namesAsked = false; // the names are loaded once there is an emoji to name, not before
  }

  /** Labels every option again: the emojis' names have arrived. */
  relabel() {
    for (const [id, element] of this.elements) element.setAttribute("aria-label", emojiLabel(this.shown.get(id)));
  }

  /**
   * Shows options for exactly `entries` ({emoji, position} in drawing order) of a document of
   * `total` emojis, with `selection` marked. Returns true when the focused option went.
   */
  show(entries, total, selection) {
    const seen = new Set();
    let cursor = this.listbox.firstChild;
    for (const { emoji, position } of entries) {
      seen.add(emoji.id);
      let element = this.elements.get(emoji.id);
      const old = this.shown.get(emoji.id);
      if (!element) {
        if (!this.namesAsked) whenNamesLoaded(() => this.relabel());
        this.namesAsked = true;
        element = document.createElement("span");
        element.className = "emoji";
        element.dataset.id = String(emoji.id);
        element.setAttribute("role", "option");
        element.setAttribute("aria-selected", "false");
        element.tabIndex = emoji.id === this.activeId ? 0 : -1;
        this.elements.set(emoji.id, element);
      }
      if (!old || old.text !== emoji.text || old.x !== emoji.x || old.y !== emoji.y || old.size !== emoji.size || old.rotation !== emoji.rotation) {
        element.setAttribute("aria-label", emojiLabel(emoji));
        element.dataset.text = emoji.text;
      }
      if (!old || old.size !== emoji.size) element.style.fontSize = emoji.size + "px";
      if (!old || old.x !== emoji.x || old.size !== emoji.size) element.style.marginLeft = emoji.x - (EMOJI_WIDTH / 2) * emoji.size + "px";
      if (!old || old.y !== emoji.y || old.size !== emoji.size) element.style.marginTop = -emoji.y - emoji.size / 2 + "px";
      if ((old?.rotation || 0) !== (emoji.rotation || 0)) element.style.rotate = emoji.rotation ? emoji.rotation + "deg" : "";
      if (Boolean(old?.pending) !== Boolean(emoji.pending)) element.classList.toggle("pending", Boolean(emoji.pending));
      if (element.getAttribute("aria-posinset") !== String(position + 1)) element.setAttribute("aria-posinset", String(position + 1));
      if (element.getAttribute("aria-setsize") !== String(total)) element.setAttribute("aria-setsize", String(total));
      this.markOne(element, selection.has(emoji.id));
      this.shown.set(emoji.id, emoji);
      if (element !== cursor) this.listbox.insertBefore(element, cursor);
      else cursor = cursor.nextSibling;
    }
    let focusLost = false;
    for (const [id, element] of this.elements) {
      if (seen.has(id)) continue;
      if (element === document.activeElement) focusLost = true;
      element.remove();
      this.elements.delete(id);
      this.shown.delete(id);
    }
    // A listbox must hold options: without emojis the layer is just an element.
    if (total && this.listbox.getAttribute("role") !== "listbox") this.listbox.setAttribute("role", "listbox");
    else if (!total && this.listbox.hasAttribute("role")) this.listbox.removeAttribute("role");
    return focusLost;
  }

  /** Puts emoji `id` (or none) in the tab order. */
  setActive(id) {
    if (id === this.activeId && (id === null || this.elements.get(id)?.tabIndex === 0)) return;
    const previous = this.elements.get(this.activeId);
    if (previous) previous.tabIndex = -1;
    this.activeId = id;
    const element = this.elements.get(id);
    if (element) element.tabIndex = 0;
  }

  markSelected(selection) {
    for (const [id, element] of this.elements) this.markOne(element, selection.has(id));
  }

  markOne(element, selected) {
    if (element.classList.contains("selected") === selected) return;
    element.classList.toggle("selected", selected);
    element.setAttribute("aria-selected", String(selected));
  }

  get(id) {
    return this.elements.get(id);
  }
}
