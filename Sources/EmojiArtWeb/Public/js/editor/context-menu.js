// The context menu (right-click, or a long press by touch): the actions of the table marked for
// the menu that apply now, each with its shortcut, grouped as the table groups them.
import { el } from "../dom.js";
import { shortcutLabel } from "./action-manager.js";

export class ContextMenu {
  /**
   * @param {HTMLElement} menu an empty element with role="menu"
   * @param {import("./action-manager.js").ActionManager} actions
   */
  constructor(menu, actions) {
    this.menu = menu;
    this.actions = actions;
    this.returnFocus = null;
    menu.addEventListener("keydown", (e) => this.keyDown(e));
    document.addEventListener("pointerdown", (e) => {
      if (!menu.hidden && !menu.contains(e.target)) this.close({ focus: false });
    }, { capture: true });
    document.addEventListener("wheel", () => this.close({ focus: false }), { capture: true, passive: true });
    addEventListener("blur", () => this.close({ focus: false }));
    addEventListener("resize", () => this.close({ focus: false }));
  }

  get isOpen() {
    return !this.menu.hidden;
  }

  /** Opens the menu at a client point {x, y}; `where.onEmoji`: it opened on an emoji. */
  open(point, where = {}) {
    const items = [];
    let group = null;
    for (const action of this.actions.menuActions(where)) {
      if (group !== null && action.group !== group) items.push(el("div", { class: "menu-separator", role: "separator" }));
      group = action.group;
      const keys = action.keys?.length ? shortcutLabel(action.keys[0]) : "";
      items.push(
        el("button", {
          type: "button", class: "menu-item", role: "menuitem", tabindex: "-1", dataset: { action: action.name },
          on: { click: (event) => this.choose(action.name, event) },
        }, el("span", { class: "menu-label", text: this.actions.label(action) }), el("kbd", { class: "menu-keys", text: keys })),
      );
    }
    if (!items.length) return;
    this.returnFocus = document.activeElement;
    this.menu.replaceChildren(...items);
    this.menu.hidden = false;
    const width = this.menu.offsetWidth;
    const height = this.menu.offsetHeight;
    this.menu.style.left = Math.max(4, Math.min(point.x, innerWidth - width - 4)) + "px";
    this.menu.style.top = Math.max(4, Math.min(point.y, innerHeight - height - 4)) + "px";
    this.items()[0]?.focus();
  }

  close({ focus = true } = {}) {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.menu.replaceChildren();
    if (focus) this.returnFocus?.focus?.({ preventScroll: true });
  }

  items() {
    return [...this.menu.querySelectorAll(".menu-item")];
  }

  choose(name, event) {
    this.close();
    this.actions.perform(name, event);
  }

  keyDown(event) {
    const items = this.items();
    const index = items.indexOf(document.activeElement);
    const focusAt = (i) => items[(i + items.length) % items.length]?.focus();
    if (event.key === "Escape" || event.key === "Tab") {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      focusAt(index + 1);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      focusAt(index - 1);
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      focusAt(event.key === "Home" ? 0 : -1);
    }
    event.stopPropagation(); // the editor's shortcuts don't apply while the menu has the keys
  }
}
