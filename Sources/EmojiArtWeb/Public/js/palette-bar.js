// The palette chooser: the current palette's name and emojis (each draggable onto the canvas),
// a button that cycles to the next palette, and a menu with Go To, New, Edit, Delete and Manage.
// The current palette is remembered per window; the palettes themselves are shared and live.
import { el } from "./dom.js";
import { graphemes } from "./intl.js";

export const EMOJI_DRAG_TYPE = "application/x-emojiart-emoji";
const STORAGE_KEY = "emojiart:palette"; // per window (sessionStorage)
const TOUCH_SLOP = 8; // px a finger moves before it drags

/**
 * Follows a finger dragging `emoji` out of `event.currentTarget` (its pointerdown): touch
 * doesn't start HTML drag and drop, so once the finger has moved a floating copy follows it, and
 * `place(emoji, clientX, clientY)` is called where it lifts. A swipe the element's
 * `touch-action` leaves to the browser (the palette row scrolls sideways, the picker's grid up
 * and down) ends the drag with a pointercancel instead. `lift()` starts the drag at once (after a
 * long press), and from then on no move scrolls. `ended()` is called when the finger lifts.
 * @returns {{emoji: string, dragged: boolean, lift: () => void, cancel: () => void}}
 */
export function followTouchDrag(event, emoji, place, ended = () => {}) {
  const source = event.currentTarget;
  const drag = { emoji, start: { x: event.clientX, y: event.clientY }, dragged: false, lifted: false, ghost: null };
  const show = (x, y) => {
    drag.dragged = true;
    drag.ghost = el("div", { class: "drag-ghost", "aria-hidden": "true", text: emoji });
    document.body.append(drag.ghost);
    drag.ghost.style.translate = `${x}px ${y}px`;
  };
  const move = (e) => {
    if (e.pointerId !== event.pointerId) return;
    if (!drag.dragged) {
      if (Math.hypot(e.clientX - drag.start.x, e.clientY - drag.start.y) < TOUCH_SLOP) return;
      show(e.clientX, e.clientY);
    }
    drag.ghost.style.translate = `${e.clientX}px ${e.clientY}px`;
  };
  // Once lifted, the finger drags the emoji, whichever way it goes: no scrolling.
  const holdStill = (e) => {
    if (drag.lifted && e.cancelable) e.preventDefault();
  };
  const end = (e) => {
    if (e.pointerId !== event.pointerId) return;
    source.removeEventListener("pointermove", move);
    source.removeEventListener("pointerup", end);
    source.removeEventListener("pointercancel", end);
    source.removeEventListener("touchmove", holdStill);
    drag.ghost?.remove();
    if (drag.dragged && e.type === "pointerup") place(emoji, e.clientX, e.clientY);
    ended(drag);
  };
  drag.lift = () => {
    drag.lifted = true;
    if (!drag.dragged) show(drag.start.x, drag.start.y);
  };
  drag.cancel = () => end({ pointerId: event.pointerId, type: "pointercancel" });
  try {
    source.setPointerCapture(event.pointerId);
  } catch {
    /* the pointer may already be gone */
  }
  source.addEventListener("pointermove", move);
  source.addEventListener("pointerup", end);
  source.addEventListener("pointercancel", end);
  source.addEventListener("touchmove", holdStill, { passive: false });
  return drag;
}

export class PaletteBar {
  /**
   * @param {HTMLElement} root contains #palette-name, #palette-next, #palette-menu-button,
   *   #palette-menu and #palette-emojis
   * @param {{pick: (emoji: string) => void, place: (emoji: string, clientX: number, clientY: number) => void}}
   *   handlers: `pick` adds an emoji without dragging; `place` adds one dragged by touch to where
   *   the finger lifted (HTML drag and drop does the same for a mouse)
   */
  constructor(root, handlers, dialogs) {
    this.root = root;
    /** @type {import("./palette-dialogs.js").PaletteDialogs} the page's palette dialogs and feed */
    this.dialogs = dialogs;
    this.handlers = handlers;
    this.name = root.querySelector("#palette-name");
    this.list = root.querySelector("#palette-emojis");
    this.next = root.querySelector("#palette-next");
    this.menuButton = root.querySelector("#palette-menu-button");
    this.menu = root.querySelector("#palette-menu");
    this.palettes = [];
    this.index = 0;
    this.currentID = sessionStorage.getItem(STORAGE_KEY);
    this.next.addEventListener("click", () => this.show(this.index + 1, { animate: true }));
    this.menuButton.addEventListener("click", () => (this.menu.hidden ? this.openMenu() : this.closeMenu()));
    this.menu.addEventListener("keydown", (event) => this.menuKey(event));
    document.addEventListener("pointerdown", (event) => {
      if (!this.menu.hidden && !this.menu.contains(event.target) && event.target !== this.menuButton) this.closeMenu();
    });
  }

  load() {
    if (this.loading) return; // once: the editor asks when it knows the role, from a copy or the server
    this.loading = true;
    this.dialogs.feed.subscribe((palettes) => this.update(palettes));
    this.dialogs.feed.open();
  }

  /** A new list from the server: keep showing the same palette, or the one now in its place. */
  update(palettes) {
    this.palettes = palettes;
    const index = palettes.findIndex((p) => p.id === this.currentID);
    this.show(index >= 0 ? index : Math.min(this.index, palettes.length - 1));
    if (!this.menu.hidden) this.renderMenu();
  }

  get current() {
    return this.palettes[this.index] || null;
  }

  show(index, { animate = false } = {}) {
    const count = this.palettes.length;
    this.next.disabled = count < 2;
    if (!count) {
      this.name.textContent = "No palettes";
      this.list.replaceChildren();
      return;
    }
    const previousID = this.currentID;
    this.index = ((index % count) + count) % count; // wraps both ways
    const palette = this.palettes[this.index];
    this.currentID = palette.id;
    sessionStorage.setItem(STORAGE_KEY, palette.id);
    this.name.textContent = palette.name;
    this.root.dataset.paletteId = palette.id;
    const unique = [...new Set(graphemes(palette.emojis))];
    this.list.replaceChildren(...unique.map((emoji) => this.item(emoji)));
    if (animate && previousID !== palette.id) {
      // A short slide, so cycling shows that something changed.
      this.list.classList.remove("switching");
      void this.list.offsetWidth;
      this.list.classList.add("switching");
    }
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
    button.addEventListener("click", () => {
      if (this.touchDrag?.dragged) return; // the end of a touch drag, not a tap
      this.handlers.pick(emoji);
    });
    button.addEventListener("pointerdown", (event) => this.touchDown(event, emoji));
    return button;
  }

  // MARK: - Dragging by touch (followTouchDrag, above)

  touchDown(event, emoji) {
    if (event.pointerType !== "touch") return;
    const drag = followTouchDrag(event, emoji, (...place) => this.handlers.place(...place), () => {
      setTimeout(() => {
        if (this.touchDrag === drag) this.touchDrag = null;
      });
    });
    this.touchDrag = drag;
  }

  // MARK: - Menu

  openMenu() {
    this.renderMenu();
    this.menu.hidden = false;
    this.menuButton.setAttribute("aria-expanded", "true");
    this.menu.querySelector("[role=menuitem], [role=menuitemradio]")?.focus();
  }

  closeMenu({ focusButton = false } = {}) {
    this.menu.hidden = true;
    this.menuButton.setAttribute("aria-expanded", "false");
    if (focusButton) this.menuButton.focus();
  }

  renderMenu() {
    const current = this.current;
    const item = (label, action, props = {}) =>
      el("button", {
        type: "button", role: "menuitem", class: "palette-menu-item", text: label, ...props,
        on: { click: () => { this.closeMenu(); action(); } },
      });
    const goTo = this.palettes.map((palette, index) =>
      el("button", {
        type: "button", role: "menuitemradio", class: "palette-menu-item", "aria-checked": String(index === this.index),
        text: palette.name, dataset: { id: palette.id },
        on: { click: () => { this.closeMenu(); this.show(index, { animate: true }); } },
      }));
    this.menu.replaceChildren(
      el("div", { class: "palette-menu-heading", role: "presentation", text: "Go To" }),
      el("div", { class: "palette-menu-group", role: "group", "aria-label": "Go To" }, goTo),
      el("hr", { role: "separator" }),
      item("New Palette", () => this.newPalette()),
      item(current ? `Edit “${current.name}”…` : "Edit…", () => current && this.dialogs.editor.open(current), { disabled: !current, dataset: { action: "edit" } }),
      item(current ? `Delete “${current.name}”` : "Delete", () => current && this.dialogs.deletePalette(current), { disabled: !current, dataset: { action: "delete" } }),
      el("hr", { role: "separator" }),
      item("Manage Palettes…", () => this.dialogs.manager.open()));
  }

  menuKey(event) {
    const items = [...this.menu.querySelectorAll("button:not([disabled])")];
    const at = items.indexOf(document.activeElement);
    if (event.key === "Escape") {
      event.preventDefault();
      this.closeMenu({ focusButton: true });
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      items[(at + step + items.length) % items.length]?.focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      items[event.key === "Home" ? 0 : items.length - 1]?.focus();
    } else if (event.key === "Tab") {
      this.closeMenu();
    }
  }

  /** Inserts an empty "New" palette after the current one, shows it, and opens the editor. */
  async newPalette() {
    const palette = await this.dialogs.addPalette(this.index + 1);
    if (!palette) return;
    this.currentID = palette.id;
    sessionStorage.setItem(STORAGE_KEY, palette.id);
    const index = this.palettes.findIndex((p) => p.id === palette.id);
    if (index >= 0) this.show(index);
  }
}
