// The palette editor (rename, add emojis by typing or pasting, click one to remove it) and the
// palette manager (every palette: open, delete, reorder by dragging or from the keyboard, add,
// import). Both are dialogs built here, so the editor page and the document browser share them;
// both follow the live palette feed, so changes from other windows show while they are open.
import * as api from "./api.js";
import { confirmAction, el, notify } from "./dom.js";
import { graphemes } from "./intl.js";
import { EmojiPicker } from "./emoji/picker.js";
import { EmojiPreferences } from "./emoji/preferences.js";
import { containsEmoji } from "./palettes.js";
import { newUUID } from "./uuid.js";

const SAVE_DELAY = 400; // ms of quiet typing before a name or typed emojis are saved

/** Shows a palette API failure (e.g. the last palette refused) as a notice. */
function paletteError(error, title) {
  notify(error.message, { kind: "error", title });
}

// MARK: - Editor

class PaletteEditor {
  /** @param {PaletteDialogs} dialogs */
  constructor(dialogs) {
    this.dialogs = dialogs;
    this.palette = null;
    this.nameTimer = 0;
    this.addTimer = 0;
    this.nameInput = el("input", { id: "palette-editor-name", type: "text", maxlength: "100", autocomplete: "off" });
    this.nameError = el("p", { class: "field-error", id: "palette-editor-name-error", role: "alert", hidden: true });
    this.addInput = el("input", {
      id: "palette-editor-add", type: "text", autocomplete: "off", placeholder: "Type or paste emojis",
      "aria-describedby": "palette-editor-add-hint",
    });
    this.pickerButton = el("button", {
      type: "button", class: "button palette-picker-button", id: "palette-editor-picker", "aria-haspopup": "dialog", "aria-expanded": "false",
      "aria-controls": "emoji-picker", "aria-label": "Choose from all emojis", title: "Choose from all emojis", text: "😀",
      on: { click: () => this.openPicker() },
    });
    this.addHint = el("p", { class: "hint", id: "palette-editor-add-hint", text: "Only emoji are kept; new ones go first." });
    this.emojis = el("div", { class: "palette-editor-emojis", role: "list", "aria-label": "Emojis; press one to remove it" });
    this.done = el("button", { class: "button primary", value: "done", text: "Done" });
    this.dialog = el("dialog", { class: "dialog palette-editor", id: "palette-editor", "aria-labelledby": "palette-editor-title" },
      el("form", { method: "dialog" },
        el("h2", { id: "palette-editor-title", text: "Edit Palette" }),
        el("label", { class: "field" }, el("span", { text: "Name" }), this.nameInput),
        this.nameError,
        el("div", { class: "field" }, el("label", { for: "palette-editor-add", text: "Add emojis" }),
          el("div", { class: "field-with-picker" }, this.addInput, this.pickerButton)),
        this.addHint,
        this.emojis,
        el("div", { class: "dialog-actions" }, this.done)));
    document.body.append(this.dialog);

    this.nameInput.addEventListener("input", () => {
      clearTimeout(this.nameTimer);
      this.nameTimer = setTimeout(() => this.saveName(), SAVE_DELAY);
    });
    this.nameInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.saveName();
      }
    });
    this.nameInput.addEventListener("blur", () => this.saveName());
    this.addInput.addEventListener("input", (event) => {
      if (event.isComposing) return;
      clearTimeout(this.addTimer);
      this.addTimer = setTimeout(() => this.addTyped(), SAVE_DELAY);
    });
    this.addInput.addEventListener("paste", () => setTimeout(() => this.addTyped(), 0));
    this.addInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.addTyped();
      }
    });
    this.dialog.addEventListener("close", () => {
      if (this.dialogs.picker?.isOpen) this.dialogs.picker.close({ focus: false });
      this.saveName();
      this.addTyped();
      this.unsubscribe?.();
      this.unsubscribe = null;
      this.palette = null;
    });
  }

  /** Opens the editor on `palette` ({id, name, emojis}). */
  open(palette) {
    this.palette = palette;
    this.seenInFeed = false;
    this.nameInput.value = palette.name;
    this.nameError.hidden = true;
    this.addInput.value = "";
    this.renderEmojis();
    this.unsubscribe?.();
    this.unsubscribe = this.dialogs.feed.subscribe(() => this.followFeed());
    if (!this.dialog.open) this.dialog.showModal();
    this.nameInput.focus();
    this.nameInput.select();
  }

  /** Another window (or this one) changed the palettes: show this palette as it is now. */
  followFeed() {
    if (!this.palette) return;
    const current = this.dialogs.feed.find(this.palette.id);
    if (current) this.seenInFeed = true;
    if (!current) {
      // A palette just created may reach this window's feed after the editor opened on it.
      if (this.seenInFeed) {
        notify(`The palette “${this.palette.name}” was deleted.`, { title: "Palettes" });
        this.dialog.close();
      }
      return;
    }
    this.palette = current;
    if (document.activeElement !== this.nameInput && !this.nameTimer) this.nameInput.value = current.name;
    this.renderEmojis();
  }

  renderEmojis() {
    const emojis = graphemes(this.palette.emojis);
    const focused = document.activeElement?.closest?.(".palette-editor-emoji")?.dataset.emoji;
    this.emojis.replaceChildren(...emojis.map((emoji) =>
      el("button", {
        type: "button", class: "palette-editor-emoji", role: "listitem", dataset: { emoji },
        "aria-label": "Remove " + emoji, title: "Remove", text: emoji,
        on: {
          click: () => this.remove(emoji),
          keydown: (event) => {
            if (event.key === "Delete" || event.key === "Backspace") {
              event.preventDefault();
              this.remove(emoji);
            }
          },
        },
      })));
    if (!emojis.length) this.emojis.append(el("p", { class: "empty small", text: "No emojis yet." }));
    if (focused) this.emojis.querySelector(`[data-emoji="${CSS.escape(focused)}"]`)?.focus();
  }

  async saveName() {
    clearTimeout(this.nameTimer);
    this.nameTimer = 0;
    if (!this.palette) return;
    const name = this.nameInput.value;
    if (name === this.palette.name) return;
    if (!name.trim()) {
      this.showNameError("A palette needs a name.");
      return;
    }
    try {
      this.palette = (await this.dialogs.update(this.palette, { name }, `Rename “${this.palette.name}”`)) ?? this.palette;
      this.nameError.hidden = true;
    } catch (error) {
      this.showNameError(error.message);
    }
  }

  showNameError(message) {
    this.nameError.textContent = message;
    this.nameError.hidden = false;
  }

  async addTyped() {
    clearTimeout(this.addTimer);
    const text = this.addInput.value;
    if (!text || !this.palette) return;
    this.addInput.value = "";
    if (!containsEmoji(text)) {
      this.addHint.textContent = "Only emoji are kept: nothing to add from that.";
      return;
    }
    this.addHint.textContent = "Only emoji are kept; new ones go first.";
    try {
      this.palette = (await this.dialogs.update(this.palette, { addEmojis: text }, `Add ${text} to “${this.palette.name}”`)) ?? this.palette;
      this.renderEmojis();
    } catch (error) {
      paletteError(error, "Couldn’t add those emojis");
    }
  }

  /** The emoji picker, by the "Add emojis" field: the emoji chosen joins the palette (first). */
  openPicker() {
    const picker = this.dialogs.emojiPicker();
    if (picker.isOpen) return picker.close();
    picker.open({
      anchor: this.pickerButton,
      label: `Add to “${this.palette?.name ?? "palette"}”`,
      choose: async (emoji) => {
        if (!this.palette) return;
        try {
          this.palette = (await this.dialogs.update(this.palette, { addEmojis: emoji }, `Add ${emoji} to “${this.palette.name}”`)) ?? this.palette;
          this.renderEmojis();
        } catch (error) {
          paletteError(error, "Couldn’t add that emoji");
        }
      },
    });
  }

  async remove(emoji) {
    if (!this.palette) return;
    const buttons = [...this.emojis.querySelectorAll(".palette-editor-emoji")];
    const index = buttons.findIndex((button) => button.dataset.emoji === emoji);
    try {
      this.palette = (await this.dialogs.update(this.palette, { removeEmoji: emoji }, `Remove ${emoji} from “${this.palette.name}”`)) ?? this.palette;
      this.renderEmojis();
      // Keep keyboard users in the list: focus the emoji that took its place.
      const rest = this.emojis.querySelectorAll(".palette-editor-emoji");
      (rest[Math.min(index, rest.length - 1)] || this.addInput).focus();
    } catch (error) {
      paletteError(error, "Couldn’t remove that emoji");
    }
  }
}

// MARK: - Manager

class PaletteManager {
  /** @param {PaletteDialogs} dialogs */
  constructor(dialogs) {
    this.dialogs = dialogs;
    this.rows = el("ol", { class: "palette-rows", id: "palette-rows", "aria-label": "Palettes" });
    this.importInput = el("input", { type: "file", accept: ".json,application/json", class: "visually-hidden" });
    this.dialog = el("dialog", { class: "dialog palette-manager", id: "palette-manager", "aria-labelledby": "palette-manager-title" },
      el("form", { method: "dialog" },
        el("h2", { id: "palette-manager-title", text: "Palettes" }),
        el("p", { class: "hint", text: "Drag a palette to reorder it, or focus it and press Alt+↑ / Alt+↓." }),
        this.rows,
        el("div", { class: "dialog-actions" },
          el("button", { type: "button", class: "button", id: "palette-add", text: "Add Palette", on: { click: () => this.dialogs.addPalette() } }),
          el("label", { class: "button" }, "Import…", this.importInput),
          el("button", { class: "button primary", value: "done", text: "Done" }))));
    document.body.append(this.dialog);
    this.importInput.addEventListener("change", () => this.importFile());
    this.dialog.addEventListener("close", () => {
      this.unsubscribe?.();
      this.unsubscribe = null;
    });
  }

  open() {
    this.unsubscribe?.();
    this.unsubscribe = this.dialogs.feed.subscribe((palettes) => this.render(palettes));
    if (!this.dialog.open) this.dialog.showModal();
    this.rows.querySelector(".palette-row")?.focus();
  }

  render(palettes) {
    const focusedID = document.activeElement?.closest?.(".palette-row")?.dataset.id;
    this.rows.replaceChildren(...palettes.map((palette, index) => this.row(palette, index, palettes.length)));
    if (focusedID) this.rows.querySelector(`[data-id="${CSS.escape(focusedID)}"]`)?.focus();
  }

  row(palette, index, count) {
    const preview = graphemes(palette.emojis).slice(0, 12).join("");
    const row = el("li", {
      class: "palette-row", tabindex: "0", draggable: "true", dataset: { id: palette.id },
      "aria-label": `${palette.name}, ${index + 1} of ${count}`,
    },
      el("span", { class: "palette-grip", "aria-hidden": "true", text: "⋮⋮" }),
      el("span", { class: "palette-row-name", text: palette.name }),
      el("span", { class: "palette-row-preview", "aria-hidden": "true", text: preview }),
      el("span", { class: "palette-row-actions" },
        el("button", { type: "button", class: "button small", "aria-label": `Move ${palette.name} up`, title: "Move up", text: "↑",
          disabled: index === 0, on: { click: () => this.move(palette, index - 1) } }),
        el("button", { type: "button", class: "button small", "aria-label": `Move ${palette.name} down`, title: "Move down", text: "↓",
          disabled: index === count - 1, on: { click: () => this.move(palette, index + 1) } }),
        el("button", { type: "button", class: "button small", text: "Edit", "aria-label": `Edit ${palette.name}`,
          on: { click: () => this.dialogs.editor.open(palette) } }),
        el("button", { type: "button", class: "button small danger", text: "Delete", "aria-label": `Delete ${palette.name}`,
          on: { click: () => this.dialogs.deletePalette(palette) } })));
    row.addEventListener("keydown", (event) => {
      if (event.target !== row) return;
      if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        event.preventDefault();
        this.move(palette, index + (event.key === "ArrowUp" ? -1 : 1));
      } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
        event.preventDefault();
        (event.key === "ArrowUp" ? row.previousElementSibling : row.nextElementSibling)?.focus();
      } else if (event.key === "Enter") {
        event.preventDefault();
        this.dialogs.editor.open(palette);
      } else if (event.key === "Delete") {
        event.preventDefault();
        this.dialogs.deletePalette(palette);
      }
    });
    row.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData("application/x-emojiart-palette", palette.id);
      event.dataTransfer.effectAllowed = "move";
      row.classList.add("dragging");
    });
    row.addEventListener("dragend", () => row.classList.remove("dragging"));
    row.addEventListener("dragover", (event) => {
      if (!event.dataTransfer.types.includes("application/x-emojiart-palette")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      row.classList.add("drop-target");
    });
    row.addEventListener("dragleave", () => row.classList.remove("drop-target"));
    row.addEventListener("drop", (event) => {
      const id = event.dataTransfer.getData("application/x-emojiart-palette");
      row.classList.remove("drop-target");
      if (!id || id === palette.id) return;
      event.preventDefault();
      const dragged = this.dialogs.feed.find(id);
      if (dragged) this.move(dragged, index);
    });
    return row;
  }

  async move(palette, index) {
    if (index < 0 || index >= this.dialogs.feed.palettes.length) return;
    try {
      await this.dialogs.update(palette, { index }, `Move “${palette.name}”`);
      // Keep the moved palette focused once the new order arrives.
      const refocus = () => this.rows.querySelector(`[data-id="${CSS.escape(palette.id)}"]`)?.focus();
      setTimeout(refocus, 50);
    } catch (error) {
      paletteError(error, "Couldn’t move the palette");
    }
  }

  async importFile() {
    const file = this.importInput.files[0];
    this.importInput.value = "";
    if (!file) return;
    try {
      const result = await api.importPalettes(file);
      const skipped = result.skipped ? `; ${result.skipped} already there` : "";
      notify(`Imported ${result.added} ${result.added === 1 ? "palette" : "palettes"}${skipped}.`, { title: "Palettes" });
    } catch (error) {
      paletteError(error, "Couldn’t import those palettes");
    }
  }
}

/**
 * The palette dialogs of one page, over its palette feed: the editor, the manager, and deleting
 * (after asking, with Undo) and adding palettes. Each page makes one and hands it to what needs it.
 */
export class PaletteDialogs {
  /**
   * @param {import("./palettes.js").PaletteFeed} feed
   * @param {{picker?: EmojiPicker}} options the page's emoji picker, if it has one (the editor's)
   */
  constructor(feed, { picker = null } = {}) {
    this.feed = feed;
    this.picker = picker;
  }

  /** The dialog that edits one palette, made when first opened (it isn't on the first screen). */
  get editor() {
    this.editorDialog ??= new PaletteEditor(this);
    return this.editorDialog;
  }

  /** The dialog that lists and orders the palettes, likewise. */
  get manager() {
    this.managerDialog ??= new PaletteManager(this);
    return this.managerDialog;
  }

  /**
   * Changes `palette` (any of `name`, `addEmojis`, `removeEmoji`, `index`) through the feed, which
   * keeps it until the server has it (docs/OFFLINE.md): the palette as changed, or null if gone.
   */
  update(palette, changes, label) {
    return this.feed.change({ kind: "update", id: palette.id, changes }, label);
  }

  /** The page's emoji picker: the editor's, or (on the document list) one made at first use. */
  emojiPicker() {
    this.picker ??= new EmojiPicker(new EmojiPreferences());
    return this.picker;
  }

  /**
   * Deletes a palette after asking, and offers to undo it: Undo puts a palette with the same name
   * and emojis back where it was. The server refuses the last palette, and that refusal is shown.
   */
  async deletePalette(palette) {
    const count = graphemes(palette.emojis).length;
    const confirmed = await confirmAction({
      title: "Delete Palette",
      message: `Delete the palette “${palette.name}” and its ${count === 1 ? "1 emoji" : count + " emojis"}? You can undo this right after.`,
      confirmLabel: "Delete",
    });
    if (!confirmed) return false;
    const index = this.feed.palettes.findIndex((p) => p.id === palette.id);
    try {
      await this.feed.change({ kind: "delete", id: palette.id }, `Delete “${palette.name}”`);
    } catch (error) {
      paletteError(error, "Couldn’t delete the palette");
      return false;
    }
    notify(`Deleted the palette “${palette.name}”.`, {
      title: "Palettes",
      action: {
        label: "Undo",
        perform: () =>
          this.feed.change({ kind: "create", id: newUUID(), name: palette.name, emojis: palette.emojis, index: Math.max(0, index) }, `Put back “${palette.name}”`).then(
            () => notify(`Put back the palette “${palette.name}”.`, { title: "Palettes" }),
            (error) => paletteError(error, "Couldn’t put the palette back"),
          ),
      },
    });
    return true;
  }

  /** Adds an empty "New" palette at `index` and opens it in the editor. */
  async addPalette(index) {
    try {
      const palette = await this.feed.change({ kind: "create", id: newUUID(), name: "New", emojis: "", index }, "New palette");
      this.editor.open(palette);
      return palette;
    } catch (error) {
      paletteError(error, "Couldn’t add a palette");
      return null;
    }
  }
}
