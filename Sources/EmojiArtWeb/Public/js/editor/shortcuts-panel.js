// The shortcuts panel ("?"): every action of the table that has keys, by group, and the gestures.
import { el } from "../dom.js";
import { shortcutLabel } from "./action-manager.js";
import { GESTURE_HELP } from "./actions.js";

export class ShortcutsPanel {
  /**
   * @param {HTMLDialogElement} dialog with a `.shortcuts-body` to fill
   * @param {import("./action-manager.js").ActionManager} actions
   */
  constructor(dialog, actions) {
    this.dialog = dialog;
    this.actions = actions;
  }

  open() {
    const groups = new Map();
    for (const action of this.actions.actions) {
      if (!action.keys?.length) continue;
      if (!groups.has(action.group)) groups.set(action.group, []);
      groups.get(action.group).push(action);
    }
    const sections = [...groups].map(([group, actions]) =>
      el("section", { class: "shortcuts-group" },
        el("h3", { text: group }),
        el("dl", {}, actions.flatMap((action) => [
          el("dt", { dataset: { action: action.name } }, action.label,
            action.hint ? el("span", { class: "hint", text: " — " + action.hint }) : null),
          el("dd", {}, action.keys.map((key) => el("kbd", { text: shortcutLabel(key) }))),
        ])),
      ));
    sections.push(el("section", { class: "shortcuts-group" },
      el("h3", { text: "Mouse and touch" }),
      el("dl", { class: "gestures" }, GESTURE_HELP.flatMap(([what, how]) => [el("dt", { text: what }), el("dd", { text: how })]))));
    this.dialog.querySelector(".shortcuts-body").replaceChildren(...sections);
    if (!this.dialog.open) this.dialog.showModal();
    this.dialog.scrollTop = 0; // the Close button has the focus, but the list starts at the top
  }
}
