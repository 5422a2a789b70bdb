// The editor's emoji commands, beside the document editor so it doesn't grow: the picker (its
// palette-bar button and the E key add the emoji chosen in the middle of the view, selected),
// "Replace with…" (one replaceEmoji edit for the whole selection) and the find bar (Ctrl+F).
// The user's tone and recent emojis are remembered by ../emoji/preferences.js.
import { isEmoji } from "../emoji/catalogue.js";
import { EmojiPicker } from "../emoji/picker.js";
import { EmojiPreferences } from "../emoji/preferences.js";
import { FindBar } from "./find-bar.js";

export class EmojiCommands {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    this.preferences = new EmojiPreferences();
    this.picker = new EmojiPicker(this.preferences);
    this.findBar = new FindBar(editor);
    this.button = document.getElementById("emoji-picker-button");
    this.prepared = false;
  }

  /** The page has drawn the document: the picker gets ready to open at once. */
  prepare() {
    if (!this.prepared) this.picker.prepare();
    this.prepared = true;
  }

  /** An emoji placed on the canvas (chosen, dragged, dropped) is one this user used last. */
  placed(text) {
    if (isEmoji(text)) this.preferences.addRecent(text);
  }

  /** Opens the picker; the emoji chosen is added in the middle of the view, selected and focused (as Enter on a palette emoji). */
  openPicker() {
    const editor = this.editor;
    if (this.picker.isOpen) return this.picker.close();
    this.picker.open({
      anchor: this.button,
      label: "Add an emoji",
      choose: (emoji) => editor.palettes.handlers.pick(emoji),
      place: (emoji, x, y) => editor.palettes.handlers.place(emoji, x, y),
    });
  }

  /** Opens the picker for the selection: the emoji chosen takes the place of every selected one. */
  replaceSelection() {
    const editor = this.editor;
    const ids = [...editor.canvas.selection];
    if (!ids.length) return;
    this.picker.open({
      anchor: document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : this.button,
      label: ids.length === 1 ? "Replace with…" : `Replace ${ids.length} emojis with…`,
      choose: (text) => {
        this.placed(text);
        editor.requests.perform([{ type: "replaceEmoji", ids, text }]);
      },
    });
  }

  find() {
    this.findBar.open();
  }
}
