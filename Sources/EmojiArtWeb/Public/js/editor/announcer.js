// What a screen reader hears after a change this window made: a polite live region, told in
// words what the edits did ("Moved 🐱 cat face at −99, 10, size 40", "Deleted 1 emoji"). Changes
// other windows make are not read out: they would talk over what this user is doing.
import { emojiLabel } from "../canvas/emoji-label.js";

export class Announcer {
  /** @param {HTMLElement} region an element with aria-live="polite" */
  constructor(region) {
    this.region = region;
  }

  say(text) {
    this.region.textContent = "";
    requestAnimationFrame(() => (this.region.textContent = text)); // a new node, so the same words are read again
  }

  /**
   * Says what `edits` did, as `state` (the document once they are in) has it; `added` are the ids
   * of the emojis they added. "Added 🐶 dog face at 0, 0, size 40", "Resized 3 emojis".
   */
  editsDone(edits, state, added) {
    if (!state || !edits.length) return;
    const byId = new Map(state.emojis.map((emoji) => [emoji.id, emoji]));
    const described = (ids) => (ids.length === 1 && byId.has(ids[0]) ? emojiLabel(byId.get(ids[0])) : `${ids.length} emojis`);
    const plural = (count) => (count === 1 ? "1 emoji" : `${count} emojis`);
    const edit = edits[0];
    let text;
    switch (edit.type) {
      case "addEmoji":
      case "paste":
      case "duplicate":
        text = (edit.type === "addEmoji" ? "Added " : edit.type === "paste" ? "Pasted " : "Duplicated: ") + described(added);
        break;
      case "moveEmojis":
        text = "Moved " + described(edit.ids);
        break;
      case "resizeEmojis":
        text = "Resized " + described(edit.ids);
        break;
      case "rotate":
        text = "Turned " + described(edit.ids);
        break;
      case "deleteEmojis":
        text = "Deleted " + plural(edit.ids.length);
        break;
      case "reorder":
        text = (state.undoActionName || "Arranged") + ": " + plural(edit.ids.length);
        break;
      default:
        text = state.undoActionName || "";
    }
    if (text) this.say(text);
  }
}
