// On a narrow screen the editor's less frequent tools (zoom, fit, export, share, shortcuts) fold
// behind a ⋯ button (the CSS decides when): it opens them as a menu, which closes again on a
// choice, a press elsewhere, or Escape.

export class ToolbarFold {
  /**
   * @param {HTMLButtonElement} button the ⋯ button (aria-controls names the fold)
   * @param {HTMLElement} fold the element holding the folded tools
   */
  constructor(button, fold) {
    this.button = button;
    this.fold = fold;
    button.addEventListener("click", () => this.toggle(!fold.classList.contains("open")));
    fold.addEventListener("click", (event) => {
      // A tool was used (the export menu's summary only opens its own list: that stays open).
      if (event.target.closest("button, a")) this.toggle(false);
    });
    fold.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && fold.classList.contains("open")) {
        event.stopPropagation();
        this.toggle(false);
        button.focus();
      }
    });
    document.addEventListener("pointerdown", (event) => {
      if (!fold.contains(event.target) && event.target !== button) this.toggle(false);
    }, { capture: true });
  }

  toggle(open) {
    if (this.fold.classList.contains("open") === open) return;
    this.fold.classList.toggle("open", open);
    this.button.setAttribute("aria-expanded", String(open));
    if (open) this.fold.querySelector("button:not([disabled]), a")?.focus();
  }
}
