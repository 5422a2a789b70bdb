// The Export menu (document browser rows and the editor): the document in each .emojiart
// format, and pictures of it (SVG, PNG at 1×, 2× and 3×, the PNG opening again as the document;
// GIF, still and replayed, which chat apps show inline),
// and "Copy as emoji text" (./copy-emoji-text.js).
import * as api from "./api.js";
import { copyEmojiText } from "./copy-emoji-text.js";
import { el } from "./dom.js";

const entries = (id) => [
  [api.exportURL(id, "native"), "EmojiArt (.emojiart)", "native"],
  [api.exportURL(id, "cs193p-2023"), "CS193P 2023", "cs193p-2023"],
  [api.exportURL(id, "cs193p-2021"), "CS193P 2021", "cs193p-2021"],
  [api.pictureURL(id, "svg"), "Picture (SVG)", "svg"],
  [api.pictureURL(id, "png", 1), "Picture (PNG)", "png"],
  [api.pictureURL(id, "png", 2), "Picture (PNG, 2×)", "png@2x"],
  [api.pictureURL(id, "png", 3), "Picture (PNG, 3×)", "png@3x"],
  [api.pictureURL(id, "gif", 2), "Picture (GIF, for chat)", "gif"],
  [api.replayURL(id), "Replay (animated PNG)", "replay"],
  [api.replayURL(id, { format: "gif" }), "Replay (animated GIF, for chat)", "replay-gif"],
];

/**
 * A `details` menu of download links for document `id`, and Copy as emoji text — of the emojis
 * `selection()` names (the editor's selection) when there are any, else of the whole document.
 */
export function exportMenu(id, { align = "right", selection = () => [] } = {}) {
  const close = (event) => {
    event.currentTarget.closest("details").open = false;
  };
  const copy = el("button", {
    type: "button", class: "menu-item", dataset: { format: "text" }, text: "Copy as emoji text",
    on: { click: (event) => {
      close(event);
      copyEmojiText(id, selection());
    } },
  });
  return el("details", {
    class: "menu", dataset: { align },
    on: { toggle: () => (copy.textContent = selection().length ? "Copy selection as emoji text" : "Copy as emoji text") },
  },
  el("summary", { class: "button small", text: "Export" }),
  el("div", { class: "menu-items" },
    entries(id).map(([href, label, format]) =>
      el("a", { href, download: "", class: "menu-item", dataset: { format }, text: label, on: { click: close } })),
    el("div", { class: "menu-separator", role: "separator" }),
    copy));
}

// Close an open export menu when clicking elsewhere.
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details.menu[open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
