// The palette chooser: the current palette's name and emojis, and a button to the next one.
import * as api from "./api.js";
import { el, graphemes, notify } from "./dom.js";

export const EMOJI_DRAG_TYPE = "application/x-emojiart-emoji";
const STORAGE_KEY = "emojiart:palette"; // per window (sessionStorage)

export class PaletteBar {
  /**
   * @param {HTMLElement} root contains #palette-name, #palette-next, #palette-emojis
   * @param {{pick: (emoji: string) => void}} handlers `pick` adds an emoji without dragging
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    this.name = root.querySelector("#palette-name");
    this.list = root.querySelector("#palette-emojis");
    this.next = root.querySelector("#palette-next");
    this.palettes = [];
    this.index = 0;
    this.next.addEventListener("click", () => this.show(this.index + 1));
  }

  async load() {
    try {
      this.palettes = await api.listPalettes();
    } catch (error) {
      this.name.textContent = "No palettes";
      notify(error.message, { kind: "error", title: "Couldn’t load palettes" });
      return;
    }
    const saved = sessionStorage.getItem(STORAGE_KEY);
    const index = this.palettes.findIndex((p) => p.id === saved);
    this.show(index >= 0 ? index : 0);
  }

  show(index) {
    const count = this.palettes.length;
    this.next.disabled = count < 2;
    if (!count) {
      this.name.textContent = "No palettes";
      this.list.replaceChildren();
      return;
    }
    this.index = ((index % count) + count) % count; // wraps both ways
    const palette = this.palettes[this.index];
    sessionStorage.setItem(STORAGE_KEY, palette.id);
    this.name.textContent = palette.name;
    this.root.dataset.paletteId = palette.id;
    const unique = [...new Set(graphemes(palette.emojis))];
    this.list.replaceChildren(...unique.map((emoji) => this.item(emoji)));
  }

  item(emoji) {
    const button = el("button", {
      type: "button", class: "palette-emoji", draggable: "true",
      title: "Drag onto the canvas, or press to add in the middle", "aria-label": "Add " + emoji,
      text: emoji,
    });
    button.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData(EMOJI_DRAG_TYPE, emoji);
      event.dataTransfer.setData("text/plain", emoji);
      event.dataTransfer.effectAllowed = "copy";
    });
    button.addEventListener("click", () => this.handlers.pick(emoji));
    return button;
  }
}
