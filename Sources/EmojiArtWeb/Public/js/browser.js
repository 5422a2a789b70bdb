// The document browser: list, new, open, rename, duplicate, delete, import, export.
import * as api from "./api.js";
import { el, fileStem, formatDate, notify, relativeTime } from "./dom.js";
import { exportMenu } from "./export-menu.js";
import { PaletteDialogs } from "./palette-dialogs.js";
import { DocumentPages } from "./document-pages.js";
import { AvailableOffline } from "./offline/available-offline.js";
import { Identity } from "./offline/identity.js";
import { LocalStore } from "./offline/local-store.js";
import { registerServiceWorker } from "./offline/worker-registration.js";
import { signOut } from "./offline/sign-out.js";
import { PaletteFeed } from "./palettes.js";
import { fold } from "./search-fold.js";
import { newUUID } from "./uuid.js";

const rows = document.getElementById("document-rows");
const table = document.getElementById("documents");
const sharedRows = document.getElementById("shared-rows");
const sharedTable = document.getElementById("shared-documents");
const empty = document.getElementById("empty");
const loading = document.getElementById("loading");
const fileInput = document.getElementById("import-file");
const overlay = document.getElementById("drop-overlay");
const confirmDialog = document.getElementById("confirm-delete");
const noMatch = document.getElementById("no-match");
const showMoreButton = document.getElementById("show-more");
const searchInput = document.getElementById("search-documents");

const editorURL = (id) => "/documents/" + encodeURIComponent(id);
// What this browser keeps (docs/OFFLINE.md): who is signed in, the documents available offline.
const store = new LocalStore();
const identity = new Identity(store);
const offline = new AvailableOffline(store, identity);
const pages = new DocumentPages();

function showError(error, title) {
  notify(error && error.message ? error.message : String(error), { kind: "error", title });
}

/**
 * Lists the documents again from the first page — for `words` (a new search: one page), or for
 * the search shown (as many as are shown, so a rename or a delete doesn't shorten the list).
 */
async function refresh({ words } = {}) {
  let documents;
  const copies = offline.byId(); // read beside the list, and shown once read (the first time takes a while)
  const searching = words !== undefined && words !== pages.words;
  try {
    documents = await pages.first(words ?? pages.words, searching ? 0 : rows.children.length + sharedRows.children.length);
    if (documents === null) return; // a newer search is on its way
    delete document.body.dataset.offline;
  } catch (error) {
    loading.hidden = true;
    const away = error.status === 0 || error.status >= 500;
    if (!away) return showError(error, "Couldn’t load documents");
    // No server (or one that fails): the documents this browser keeps, which open offline (searched here).
    pages.end(words);
    documents = (await offline.summaries()).filter(matchesSearch);
    if (document.body.dataset.offline !== "true") {
      notify(documents.length ? "Showing the documents available in this browser; they open and can be changed offline." : "No documents are kept in this browser yet.",
        { title: error.status === 0 ? "Offline" : "The server isn’t answering" });
    }
    document.body.dataset.offline = "true";
  }
  loading.hidden = true;
  rows.replaceChildren();
  sharedRows.replaceChildren();
  show(documents);
  document.body.dataset.listed = String(documents.length);
  const kept = await copies;
  showUnsaved(kept);
  showKept(kept);
}

/** Whether a document titled so is in the search shown (as the server searches titles). */
const matchesSearch = ({ title }) => fold(title).includes(fold(pages.words));

/**
 * Documents made here with no connection that the server doesn't have yet (`kept`: id → copy)
 * head the list of mine, whether or not the server could be asked: they go to the server when
 * opened with a connection, and until then this browser is the only place they are.
 */
function showUnsaved(kept) {
  const listed = new Set([...document.querySelectorAll("tr[data-id]")].map((tr) => tr.dataset.id));
  const unsaved = [...kept.values()].filter((copy) => copy.unsaved && !listed.has(copy.id) && matchesSearch(copy));
  if (!unsaved.length) return;
  const made = unsaved.map(row);
  for (const tr of made) tr.dataset.unsaved = "true"; // what the server would do to it waits until it has it
  rows.prepend(...made);
  showState();
}

/** Adds `documents` to the end of the list (mine, and shared with me), and says what is left. */
function show(documents) {
  const mine = documents.filter((summary) => (summary.role || "owner") === "owner");
  const shared = documents.filter((summary) => summary.role && summary.role !== "owner");
  rows.append(...mine.map(row));
  sharedRows.append(...shared.map(row));
  showState();
}

/** The tables, headings and messages for the rows listed. */
function showState() {
  table.hidden = rows.children.length === 0;
  sharedTable.hidden = sharedRows.children.length === 0;
  showHeadings();
  // "No documents yet" while none of mine are listed (as before pages); a search that finds none says so.
  const none = rows.children.length === 0 && sharedRows.children.length === 0;
  empty.hidden = rows.children.length !== 0 || pages.words !== "";
  noMatch.hidden = !none || pages.words === "";
  noMatch.textContent = `No documents match “${pages.words}”.`;
  showMoreButton.hidden = !pages.next;
}

/** The next page of the list, at its end (when the end comes into view, or on "Show more"). */
async function showMore() {
  try {
    const documents = await pages.more();
    if (!documents) return;
    show(documents);
    showKept(await offline.byId());
  } catch (error) {
    if (error.status !== 0) showError(error, "Couldn’t load more documents");
  }
}

/** Marks the rows of the documents this browser keeps (`kept`: id → copy): available offline, or not on the server yet; pinned. */
function showKept(kept) {
  for (const tr of document.querySelectorAll("tr[data-id]")) {
    const copy = kept.get(tr.dataset.id);
    tr.querySelector(".offline-badge")?.remove();
    if (copy) {
      tr.querySelector(".title-cell").append(copy.unsaved
        ? el("span", { class: "offline-badge", title: "Made with no connection: it goes to the server when you open it with one", text: "Not on the server yet" })
        : el("span", { class: "offline-badge", title: "Opens and can be changed without a connection", text: "Available offline" }));
    }
    const pin = tr.querySelector(".offline-toggle");
    pin.setAttribute("aria-pressed", String(Boolean(copy?.pinned)));
    pin.title = copy?.pinned ? "Kept in this browser whatever else you open" : "Keep this document in this browser, to open without a connection";
  }
}

/** With accounts, or documents shared with me, "My documents" and "Shared with me" are named. */
function showHeadings() {
  const shared = sharedRows.children.length > 0;
  document.getElementById("mine-heading").hidden = document.body.dataset.accounts !== "true" && !shared;
  document.getElementById("shared-heading").hidden = !shared;
}

/** In accounts mode: who is signed in, and the way out. */
async function showAccount() {
  const { session } = await identity.whoIsAsking(); // and remembers who it is, for what the browser keeps
  // A visitor with only share links (no session) is in accounts mode, with no account to show.
  document.body.dataset.accounts = String(!session || session.access === "accounts");
  showHeadings();
  if (session?.access !== "accounts") return;
  document.getElementById("account-name").textContent = session.user.name;
  document.getElementById("account").hidden = false;
}

// A change's full date is its time's tooltip, written when the pointer or focus first comes near:
// the first date format a page makes loads the browser's language data (~50 ms), which listing
// the documents shouldn't wait for.
for (const event of ["pointerover", "focusin"]) {
  document.addEventListener(event, (event) => {
    const time = event.target.closest?.("tr[data-id]")?.querySelector("time[datetime]:not([title])");
    if (time) time.title = formatDate(time.dateTime);
  });
}

document.getElementById("sign-out").addEventListener("click", async () => {
  try {
    if (!(await signOut(store, identity))) return;
  } catch (error) {
    const away = !(error?.status > 0);
    notify(away ? "The server can’t be reached, so you are still signed in, and nothing was deleted from this browser. Try again once you’re back online."
      : `${error.message} You are still signed in, and nothing was deleted from this browser.`, { kind: "error", title: "Couldn’t sign out" });
    return;
  }
  location.assign("/signin");
});

/** A document's row (what this browser keeps of it is marked by showKept). */
function row(summary) {
  const role = summary.role || "owner";
  const link = el("a", { class: "doc-title", href: editorURL(summary.id), text: summary.title });
  const thumbnail = el("img", {
    class: "thumbnail", alt: "", loading: "lazy", width: "72", height: "54",
    src: api.thumbnailURL(summary.id, summary.version),
    on: { error: (event) => event.target.classList.add("missing") }, // offline: no picture
  });
  const badge = role === "owner" ? null : el("span", { class: "role-badge", text: { editor: "Can edit", commenter: "Can comment" }[role] ?? "View only" });
  const titleCell = el("td", { class: "title-cell" }, el("a", { href: editorURL(summary.id), tabindex: "-1", "aria-hidden": "true" }, thumbnail), link, badge);
  const keep = el("button", {
    type: "button", class: "button small icon offline-toggle", "aria-pressed": "false", "aria-label": "Keep offline", text: "📌",
    on: { click: () => offline.keep(summary.id, keep.getAttribute("aria-pressed") !== "true").then(() => refresh(), (error) => showError(error, "Couldn’t keep it offline")) },
  });
  const exports = exportMenu(summary.id);
  const tr = el("tr", { dataset: { id: summary.id } },
    titleCell,
    el("td", { class: "num emoji-count", text: String(summary.emojiCount) }),
    el("td", { class: "changed" },
      el("time", { datetime: summary.updatedAt, text: relativeTime(summary.updatedAt) })),
    el("td", { class: "actions" },
      role === "viewer" || role === "commenter" ? null : el("button", { type: "button", class: "button small", text: "Rename", on: { click: () => startRename(summary, titleCell) } }),
      el("button", { type: "button", class: "button small", text: "Duplicate", on: { click: () => duplicate(summary) } }),
      exports,
      keep,
      role === "owner" ? el("button", { type: "button", class: "button small danger", text: "Delete", on: { click: () => confirmDelete(summary) } }) : null));
  return tr;
}

function startRename(summary, cell) {
  const input = el("input", {
    type: "text", class: "rename-input", value: summary.title, maxlength: "200",
    "aria-label": "New title for " + summary.title,
  });
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const title = input.value;
    if (!save || title === summary.title) {
      refresh();
      return;
    }
    try {
      await api.renameDocument(summary.id, title);
    } catch (error) {
      showError(error, "Couldn’t rename");
    }
    refresh();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") finish(true);
    else if (event.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
  cell.replaceChildren(input);
  input.focus();
  input.select();
}

async function duplicate(summary) {
  try {
    await api.duplicateDocument(summary.id);
  } catch (error) {
    showError(error, "Couldn’t duplicate");
  }
  refresh();
}

function confirmDelete(summary) {
  document.getElementById("confirm-delete-title").textContent = summary.title;
  confirmDialog.returnValue = "";
  confirmDialog.onclose = async () => {
    if (confirmDialog.returnValue !== "delete") return;
    try {
      await api.deleteDocument(summary.id);
    } catch (error) {
      showError(error, "Couldn’t delete");
    }
    refresh();
  };
  confirmDialog.showModal();
}

/** A new document, under an id made here: with no server it is made in this browser, and on the server once it is back. */
async function create() {
  const id = newUUID();
  try {
    await api.createDocumentWithID(id);
  } catch (error) {
    if (error.status !== 0) return showError(error, "Couldn’t create a document");
    try {
      await offline.createHere(id);
    } catch (failure) {
      return showError(failure, "Couldn’t create a document");
    }
  }
  location.assign(editorURL(id));
}

async function importFiles(files) {
  for (const file of files) {
    try {
      const result = await api.importDocument(file, fileStem(file.name));
      const notes = Array.isArray(result.notes) ? result.notes : [];
      notify(`Imported “${result.document.title}” (${result.format}).` + (notes.length ? " " + notes.join(" ") : ""));
    } catch (error) {
      showError(error, `Couldn’t import ${file.name}`);
    }
  }
  refresh();
}

document.getElementById("new-document").addEventListener("click", create);
showMoreButton.addEventListener("click", showMore);
// The next page comes as the list's end nears the bottom of the window.
new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) showMore();
}, { rootMargin: "0px 0px 400px 0px" }).observe(showMoreButton);
// Titles are searched on the server, a moment after typing stops.
const typing = { timer: 0 };
searchInput.addEventListener("input", () => {
  clearTimeout(typing.timer);
  typing.timer = setTimeout(() => refresh({ words: searchInput.value.trim() }), 250);
});
const paletteDialogs = new PaletteDialogs(new PaletteFeed({ store, identity }));
document.getElementById("manage-palettes").addEventListener("click", () => paletteDialogs.manager.open());
paletteDialogs.feed.open(); // the palette manager shows other windows' changes as they happen
fileInput.addEventListener("change", () => {
  const files = Array.from(fileInput.files || []);
  fileInput.value = "";
  if (files.length) importFiles(files);
});

/** Import by dropping files anywhere on the page: an overlay shows while files are dragged over it. */
class FileDropTarget {
  constructor(overlay, dropped) {
    this.overlay = overlay;
    this.depth = 0; // dragenter minus dragleave: the overlay goes when the files leave the page
    const carriesFiles = (event) => Array.from(event.dataTransfer?.types || []).includes("Files");
    document.addEventListener("dragenter", (event) => {
      if (!carriesFiles(event)) return;
      this.depth += 1;
      overlay.hidden = false;
    });
    document.addEventListener("dragleave", (event) => {
      if (!carriesFiles(event)) return;
      this.depth = Math.max(0, this.depth - 1);
      if (this.depth === 0) overlay.hidden = true;
    });
    document.addEventListener("dragover", (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    });
    document.addEventListener("drop", (event) => {
      this.depth = 0;
      overlay.hidden = true;
      const files = Array.from(event.dataTransfer?.files || []);
      if (!files.length) return;
      event.preventDefault();
      dropped(files);
    });
  }
}

new FileDropTarget(overlay, importFiles);

// Keep relative times fresh.
setInterval(() => {
  for (const time of document.querySelectorAll("time[datetime]")) {
    time.textContent = relativeTime(time.getAttribute("datetime"));
  }
}, 30000);

showAccount();
refresh();
registerServiceWorker(offline.copies);
