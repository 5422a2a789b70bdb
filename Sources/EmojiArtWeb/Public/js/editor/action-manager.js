// Carries out the action table (./actions.js): matches keys to actions, keeps the toolbar's
// buttons ([data-action]) enabled and labelled as their actions say, and performs an action only
// when it applies.

const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const NAMED_KEYS = {
  ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓", Escape: "Esc", Delete: "Delete", Backspace: "Backspace",
  Enter: "Enter", " ": "Space",
};
const CODES = { "[": "BracketLeft", "]": "BracketRight" };

/** "Mod+Shift+Z" → {mod, shift, alt, key}. */
function parseShortcut(text) {
  const parts = text === "+" ? ["+"] : text.split(/\+(?!$)/);
  const key = parts.pop();
  const has = (name) => parts.includes(name);
  return { mod: has("Mod"), shift: has("Shift"), alt: has("Alt"), key };
}

/** True when a keydown `event` is the shortcut `text`. */
export function matchesShortcut(text, event) {
  const s = parseShortcut(text);
  if (s.mod !== (event.ctrlKey || event.metaKey) || s.alt !== event.altKey) return false;
  if (/^[a-z]$/i.test(s.key)) return event.key.toLowerCase() === s.key.toLowerCase() && event.shiftKey === s.shift;
  if (/^[0-9]$/.test(s.key)) {
    return event.shiftKey === s.shift && (event.code === "Digit" + s.key || (!s.shift && event.key === s.key));
  }
  if (CODES[s.key]) return event.shiftKey === s.shift && (event.code === CODES[s.key] || event.key === s.key);
  if (s.key.length > 1) return event.key === s.key && event.shiftKey === s.shift; // named keys
  return event.key === s.key; // other symbols: Shift is part of typing them
}

/** "Mod+Shift+Z" → "Ctrl+Shift+Z" (or "⌘⇧Z" on a Mac). */
export function shortcutLabel(text) {
  const s = parseShortcut(text);
  const key = NAMED_KEYS[s.key] ?? s.key.toUpperCase();
  if (IS_MAC) return (s.mod ? "⌘" : "") + (s.alt ? "⌥" : "") + (s.shift ? "⇧" : "") + key;
  return [s.mod && "Ctrl", s.alt && "Alt", s.shift && "Shift", key].filter(Boolean).join("+");
}

export class ActionManager {
  /**
   * @param {Array<object>} actions the table
   * @param {object} editor what the actions' predicates and performers are given
   */
  constructor(actions, editor) {
    this.actions = actions;
    this.editor = editor;
    this.byName = new Map(actions.map((action) => [action.name, action]));
    this.buttons = [];
  }

  get(name) {
    const action = this.byName.get(name);
    if (!action) throw new Error("no action " + name);
    return action;
  }

  /** The action's name as things are now ("Undo Move"). */
  label(action) {
    return action.currentLabel ? action.currentLabel(this.editor) : action.label;
  }

  applies(action) {
    return action.predicate ? Boolean(action.predicate(this.editor)) : true;
  }

  /** Performs the action named `name` if it applies now; returns whether it ran. */
  perform(name, event) {
    const action = this.get(name);
    if (!this.applies(action)) return false;
    action.perform(this.editor, event);
    return true;
  }

  /** The action a keydown event is the shortcut of (whether or not it applies), or null. */
  actionForKey(event) {
    return this.actions.find((action) => action.keys?.some((key) => matchesShortcut(key, event))) ?? null;
  }

  /**
   * Handles a keydown: performs the action it is the shortcut of, if that applies now. Where
   * several actions share a key (arrows move the focus, or nudge a selection), the first that
   * applies has it.
   */
  handleKey(event) {
    const matching = this.actions.filter((action) => action.keys?.some((key) => matchesShortcut(key, event)));
    if (!matching.length || matching.some((action) => action.byBrowser)) return false;
    const action = matching.find((candidate) => this.applies(candidate));
    if (!action) {
      // Ours but not now: a Ctrl/⌘ shortcut still isn't the browser's (Ctrl+D would bookmark the
      // page); a plain key (Enter on a button, Space in a list) does what it does there.
      if (event.ctrlKey || event.metaKey) event.preventDefault();
      return false;
    }
    event.preventDefault();
    if (!event.repeat || action.group === "Arrange" || action.group === "View" || action.group === "Select") {
      this.perform(action.name, event);
    }
    return true;
  }

  /**
   * Each `[data-action]` button inside `roots` performs its action; `refresh` keeps it current.
   * `data-keep-text`: its text isn't the label; `data-hidden-when-off`: hidden, not disabled, while
   * its action doesn't apply (a tool for something the document may not have, such as a picture).
   */
  bindButtons(...roots) {
    for (const root of roots) {
      for (const button of root.querySelectorAll("[data-action]")) {
        const action = this.get(button.dataset.action);
        button.addEventListener("click", (event) => this.perform(action.name, event));
        this.buttons.push({
          button, action, keepText: button.hasAttribute("data-keep-text"), hideWhenOff: button.hasAttribute("data-hidden-when-off"),
          keys: action.keys?.length ? ` (${shortcutLabel(action.keys[0])})` : "",
          label: undefined, off: undefined, // as last written, so that a refresh writes only what changed
        });
      }
    }
    this.refresh();
  }

  /**
   * Updates the bound buttons: enabled (or shown) when their action applies, labelled and titled
   * by it. Called on every render and selection change, so it touches the page only where
   * something changed.
   */
  refresh() {
    for (const bound of this.buttons) {
      const { button, action } = bound;
      const label = this.label(action);
      const off = !this.applies(action);
      if (bound.label !== label) {
        if (!bound.keepText) button.textContent = label;
        button.title = label + bound.keys;
        bound.label = label;
      }
      if (bound.off !== off) {
        if (bound.hideWhenOff) button.hidden = off;
        else button.disabled = off;
        bound.off = off;
      }
    }
  }

  /**
   * The actions for a context menu, in table order: those marked `menu` that apply now (those
   * marked "canvas" only when the menu isn't for an emoji, `onEmoji`).
   */
  menuActions({ onEmoji = false } = {}) {
    return this.actions.filter((action) => action.menu && !(action.menu === "canvas" && onEmoji) && this.applies(action));
  }
}
