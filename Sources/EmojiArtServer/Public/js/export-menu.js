// The Export menu (document browser rows and the editor): the document in each .emojiart
// format, and pictures of it (SVG, PNG at 1×, 2× and 3×; the PNG opens again as the document).
import * as api from "./api.js";
import { el } from "./dom.js";

const entries = (id) => [
  [api.exportURL(id, "native"), "EmojiArt (.emojiart)", "native"],
  [api.exportURL(id, "cs193p-2023"), "CS193P 2023", "cs193p-2023"],
  [api.exportURL(id, "cs193p-2021"), "CS193P 2021", "cs193p-2021"],
  [api.pictureURL(id, "svg"), "Picture (SVG)", "svg"],
  [api.pictureURL(id, "png", 1), "Picture (PNG)", "png"],
  [api.pictureURL(id, "png", 2), "Picture (PNG, 2×)", "png@2x"],
  [api.pictureURL(id, "png", 3), "Picture (PNG, 3×)", "png@3x"],
  [api.replayURL(id), "Replay (animated PNG)", "replay"],
];

/** A `details` menu of download links for document `id`. */
export function exportMenu(id, { align = "right" } = {}) {
  return el("details", { class: "menu", dataset: { align } },
    el("summary", { class: "button small", text: "Export" }),
    el("div", { class: "menu-items" },
      entries(id).map(([href, label, format]) =>
        el("a", {
          href, download: "", class: "menu-item", dataset: { format }, text: label,
          on: { click: (event) => { event.currentTarget.closest("details").open = false; } },
        }))));
}

// Close an open export menu when clicking elsewhere.
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details.menu[open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
