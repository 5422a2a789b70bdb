// A request's name in a notice, as a person would say it: "Move 🐶", "Delete 3 emojis",
// "Rename to “Party”", "Undo" — what a refused change kept in the browser is called
// ("2 changes couldn't be applied: Move 🐶 — it was deleted").

const VERBS = {
  addEmoji: "Add", paste: "Paste", duplicate: "Duplicate", moveEmojis: "Move", resizeEmojis: "Resize",
  rotate: "Turn", deleteEmojis: "Delete", reorder: "Arrange", replaceEmoji: "Replace", setEmojiTexts: "Change",
};

/**
 * The name of a live request (`{type: "edit", edits} | {type: "undo"} | {type: "redo"}`), its
 * emojis named by their text in `state` (the document the window showed when it was made).
 */
export function changeLabel(body, state) {
  if (body?.type === "undo") return "Undo";
  if (body?.type === "redo") return "Redo";
  const edit = body?.edits?.[0];
  if (!edit) return "A change";
  const texts = new Map((state?.emojis ?? []).map((emoji) => [emoji.id, emoji.text]));
  const subject = (ids = []) => (ids.length === 1 ? texts.get(ids[0]) ?? "an emoji" : `${ids.length} emojis`);
  switch (edit.type) {
    case "addEmoji":
      return "Add " + edit.text;
    case "paste":
      return edit.emojis?.length === 1 ? "Paste " + edit.emojis[0].text : `Paste ${edit.emojis?.length ?? 0} emojis`;
    case "retitle":
      return `Rename to “${edit.title}”`;
    case "setBackground":
      return "Set Background";
    case "setLocked":
      return (edit.locked ? "Lock " : "Unlock ") + subject(edit.ids);
    default:
      return (VERBS[edit.type] ?? "Change") + " " + subject(edit.ids);
  }
}

/** Why a refused request wasn't applied, in a few words ("it was deleted"). */
export function refusalReason(error, label) {
  switch (error?.code) {
    case "conflict":
    case "unknown_emoji":
      return /\d+ emojis$/.test(label) ? "they were deleted" : "it was deleted";
    case "forbidden":
      return "you can no longer change this document";
    case "gone":
      return "the document was deleted";
    default:
      return (error?.message ?? "the server refused it").replace(/\.$/, "");
  }
}
