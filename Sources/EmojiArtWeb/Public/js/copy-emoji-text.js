// "Copy as emoji text" (the Export menu): the document — or the emojis selected — as the server
// writes it for text (docs/API.md, "Emoji text": rows of emojis on a grid) put on the clipboard,
// and a notice says how many rows. When the browser won't let the page write the clipboard (it
// may ask, refuse, or have no clipboard API on a plain-HTTP address), a dialog shows the text
// selected, to copy by hand.
import * as api from "./api.js";
import { el, notify } from "./dom.js";

const TITLE = "Copy as Emoji Text";
const MOST_ID_PARTS = 1_000; // ids and runs of ids one text export may name (the server's limit)
const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

const rowCount = (text) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
const rowsCopied = (rows) => `Copied ${rows.toLocaleString()} ${rows === 1 ? "row" : "rows"} of emoji text`;

/** Copies document `documentId` (only the emojis `ids`, when there are any) as emoji text. */
export async function copyEmojiText(documentId, ids = []) {
  if (ids.length > MOST_ID_PARTS && api.idRanges(ids).split(",").length > MOST_ID_PARTS) {
    notify(`The selection is in more than ${MOST_ID_PARTS.toLocaleString()} separate pieces; select fewer emojis, or none to copy them all.`,
      { kind: "error", title: TITLE });
    return;
  }
  const text = api.emojiText(documentId, { ids });
  // The clipboard is asked at once, while the click still counts as the user's (Safari insists),
  // and takes the text when it comes; nothing is written when there is none.
  let written;
  try {
    const blob = text.then((value) => (value ? new Blob([value], { type: "text/plain" }) : Promise.reject(new Error("no text"))));
    blob.catch(() => {}); // the clipboard may never ask for it
    written = typeof ClipboardItem === "function" && navigator.clipboard?.write
      ? navigator.clipboard.write([new ClipboardItem({ "text/plain": blob })])
      : text.then((value) => navigator.clipboard.writeText(value));
  } catch (error) {
    written = Promise.reject(error);
  }
  written.catch(() => {}); // its failure is handled below, once the text's own is ruled out
  let copied;
  try {
    copied = await text;
  } catch (error) {
    notify(error.message, { kind: "error", title: TITLE });
    return;
  }
  if (!copied) {
    notify(ids.length ? "The emojis selected make no text." : "There are no emojis to copy.", { title: TITLE });
    return;
  }
  try {
    await written;
  } catch {
    copyByHand(copied);
    return;
  }
  notify(rowsCopied(rowCount(copied)));
}

/** The text in a dialog, selected, for the user to copy (its Copy button tries the browser's own copy). */
function copyByHand(text) {
  const rows = rowCount(text);
  const area = el("textarea", {
    class: "copy-text", id: "copy-text", readonly: true, spellcheck: "false", rows: String(Math.min(12, Math.max(3, rows))),
    "aria-label": "Emoji text", "aria-describedby": "copy-text-hint",
  });
  area.value = text;
  const copy = el("button", { type: "button", class: "button primary", text: "Copy" });
  const dialog = el("dialog", { class: "dialog copy-text-dialog", id: "copy-text-dialog", "aria-labelledby": "copy-text-title" },
    el("form", { method: "dialog" },
      el("h2", { id: "copy-text-title", text: TITLE }),
      el("p", { id: "copy-text-hint",
        text: `The browser didn’t let the page use the clipboard. The text is selected: copy it with ${IS_MAC ? "⌘C" : "Ctrl+C"}.` }),
      area,
      el("div", { class: "dialog-actions" }, el("button", { class: "button", value: "close", text: "Close" }), copy)));
  copy.addEventListener("click", () => {
    area.focus();
    area.select();
    if (!document.execCommand("copy")) return;
    dialog.close();
    notify(rowsCopied(rows));
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  area.focus();
  area.select();
}
