// The editor for one document: sends intents to the server and renders the state it answers.
import * as api from "./api.js";
import { CanvasView } from "./canvas.js";
import { notify } from "./dom.js";
import { EMOJI_DRAG_TYPE, PaletteBar } from "./palette-bar.js";

const documentId = decodeURIComponent(location.pathname.replace(/^\/documents\//, "").replace(/\/+$/, ""));
const VIEW_KEY = "emojiart:view:" + documentId; // zoom and pan, per window (sessionStorage)
const BACKGROUND_KEY = "emojiart:background:" + documentId; // URLs this window set, failures it showed
const POLL_INTERVAL = 300; // ms between GETs while the server fetches the background
const COORDINATE_LIMIT = 1_000_000;

const $ = (id) => document.getElementById(id);
const titleInput = $("doc-title");
const undoButton = $("undo");
const redoButton = $("redo");
const deleteButton = $("delete-selection");
const zoomLevel = $("zoom-level");
const statusBox = $("save-status");
const statusText = $("save-status-text");

/** The state last rendered; every edit is sent with its version as baseVersion. */
let state = null;

// MARK: - Saved / saving / error indicator

function setStatus(kind, text, detail = "") {
  statusBox.dataset.state = kind;
  statusText.textContent = text;
  statusBox.title = detail || text;
}

// MARK: - Rendering

const canvas = new CanvasView($("canvas"), {
  move: (ids, offset) => perform([{ type: "moveEmojis", ids, offset }]),
  resize: (ids, scale) => perform([{ type: "resizeEmojis", ids, scale }]),
  drop: (data, point) => receive(data, point),
  viewChanged: (view) => {
    zoomLevel.textContent = Math.round(view.zoom * 100) + "%";
    saveView(view);
  },
  selectionChanged: (selection) => {
    deleteButton.disabled = selection.size === 0;
  },
  backgroundFailed: () => {
    notify("Couldn’t show the background image. Reload the page to try again.", { kind: "error", title: "Set Background" });
  },
});

function render(next) {
  if (!next || (state && next.version < state.version)) return;
  state = next;
  document.body.dataset.version = String(state.version);
  document.title = state.title + " — EmojiArt";
  if (document.activeElement !== titleInput) titleInput.value = state.title;
  titleInput.disabled = false;
  setActionButton(undoButton, "Undo", state.undoActionName, "Ctrl+Z");
  setActionButton(redoButton, "Redo", state.redoActionName, "Shift+Ctrl+Z");
  const previous = shownBackgroundState;
  shownBackgroundState = state.backgroundState || { status: "none" };
  canvas.render(state);
  backgroundStateRendered(previous, shownBackgroundState, state.background);
}

function setActionButton(button, verb, actionName, shortcut) {
  const label = actionName ? `${verb} ${actionName}` : verb;
  button.textContent = label;
  button.title = `${label} (${shortcut})`;
  button.disabled = !actionName;
}

// MARK: - Talking to the server, one request at a time

let queue = Promise.resolve();
let pending = 0;

/**
 * Runs `task` (which returns a new state) after every earlier request has finished, so each
 * request carries the version the previous one produced; renders the answer.
 * Resolves with the new state; rejects after showing the error.
 */
function enqueue(task) {
  pending += 1;
  setStatus("saving", "Saving…");
  const run = queue.then(task);
  queue = run.catch(() => {});
  return run
    .then((next) => {
      render(next);
      if (pending === 1) setStatus("saved", "All changes saved");
      return next;
    })
    .catch(async (error) => {
      if (error instanceof api.ApiError && error.code === "conflict") {
        notify("The document changed in another window, so that change no longer applies. Showing the latest version.", { title: "Reloaded" });
        await reload();
        if (pending === 1) setStatus("saved", "All changes saved");
      } else {
        setStatus("error", "Not saved", error.message);
        notify(error.message, { kind: "error", title: "Couldn’t save that change" });
      }
      throw error;
    })
    .finally(() => {
      pending -= 1;
    });
}

const perform = (edits, gesture) =>
  enqueue(() => api.postEdits(documentId, state.version, edits, gesture));

async function reload() {
  try {
    const next = await api.getDocument(documentId);
    state = null; // accept it even if another window undid to an older-looking version
    render(next);
  } catch (error) {
    setStatus("error", "Offline", error.message);
    notify(error.message, { kind: "error", title: "Couldn’t reload the document" });
  }
}

// MARK: - Intents

function addEmoji(text, point) {
  const size = Math.min(1024, Math.max(1, Math.round(40 / canvas.zoom)));
  const coordinate = (v) => Math.max(-COORDINATE_LIMIT, Math.min(COORDINATE_LIMIT, Math.round(v)));
  return perform([{ type: "addEmoji", text, position: { x: coordinate(point.x), y: coordinate(point.y) }, size }])
    .catch(() => {});
}

function setBackgroundURL(url) {
  rememberSetURL(url);
  return perform([{ type: "setBackground", background: url }]).catch(() => {});
}

function uploadBackground(file) {
  return enqueue(() => api.uploadBackground(documentId, state.version, file)).catch(() => {});
}

function deleteSelection() {
  const ids = [...canvas.selection];
  if (!ids.length) return;
  perform([{ type: "deleteEmojis", ids }]).catch(() => {});
}

const undo = () => enqueue(() => api.undo(documentId)).catch(() => {});
const redo = () => enqueue(() => api.redo(documentId)).catch(() => {});

/**
 * A dropped or pasted URL may be an image-search result link that carries the image's real
 * address in its query (`imgurl=…`, or the first query value starting with http).
 */
export function imageURL(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const params = [...url.searchParams];
  const imgurl = params.find(([key]) => key.toLowerCase() === "imgurl");
  if (imgurl && /^https?:\/\//i.test(imgurl[1])) return imgurl[1];
  const first = params.find(([, value]) => /^https?:\/\//i.test(value));
  return first ? first[1] : text;
}

/** Handles dropped or pasted data: an emoji, an image file, or a URL. */
function receive(data, point) {
  const emoji = data.getData(EMOJI_DRAG_TYPE);
  if (emoji) return addEmoji(emoji, point);
  const files = Array.from(data.files || []);
  if (files.length) {
    const image = files.find((file) => file.type.startsWith("image/")) || (files.length === 1 ? files[0] : null);
    if (image && (image.type.startsWith("image/") || image.type === "")) return uploadBackground(image);
    notify("Drop an image to set the background. Import .emojiart documents from the document list.", { kind: "error", title: "Set Background" });
    return;
  }
  const uriList = (data.getData("text/uri-list") || "")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line && !line.startsWith("#"));
  const text = (uriList || data.getData("text/plain") || "").trim();
  if (!text) return;
  if (/^(https?:\/\/|data:image\/)/i.test(text)) return setBackgroundURL(imageURL(text));
  return addEmoji(text, point);
}

// MARK: - Background fetching (docs/API.md "Document state": backgroundState)
//
// The server fetches a URL background itself and stores the image; the page draws only the
// server's copy. While it fetches, this window polls the document until the status changes.

/** The backgroundState last rendered (null before the first render). */
let shownBackgroundState = null;
/** URLs this window saw being fetched: when one is found, zoom to fit once. */
const fetchesSeen = new Set();
let pollTimer = 0;
let polling = false; // a poll request is in flight
let leaving = false;
const backgroundAlert = $("background-alert");

function loadBackgroundMemory() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(BACKGROUND_KEY) || "null");
    if (saved && Array.isArray(saved.set) && Array.isArray(saved.shown)) return saved;
  } catch {
    /* start afresh */
  }
  return { set: [], shown: [] };
}

/** Remembers (per window, across reloads) the URLs it set and the failures it showed. */
function updateBackgroundMemory(change) {
  const memory = loadBackgroundMemory();
  change(memory);
  memory.set = memory.set.slice(-20);
  memory.shown = memory.shown.slice(-20);
  try {
    sessionStorage.setItem(BACKGROUND_KEY, JSON.stringify(memory));
  } catch {
    /* storage full or unavailable: only the once-per-failure memory across reloads is lost */
  }
}

function rememberSetURL(url) {
  if (/^data:/i.test(url)) return;
  updateBackgroundMemory((memory) => {
    memory.set = memory.set.filter((u) => u !== url).concat(url);
  });
}

function backgroundStateRendered(previous, current, background) {
  const status = current.status;
  if (status === "fetching") {
    if (typeof current.url === "string") fetchesSeen.add(current.url);
    schedulePoll();
  } else {
    stopPolling();
  }
  if (status === "found") {
    const url = typeof current.url === "string" ? current.url : background && background.url;
    if (url && fetchesSeen.has(url) && previous && previous.status === "fetching") {
      fetchesSeen.clear();
      canvas.zoomToFit();
    }
  } else if (status === "failed") {
    const key = JSON.stringify([current.url ?? "", current.reason ?? ""]);
    const memory = loadBackgroundMemory();
    if (memory.shown.includes(key)) return;
    // A failure this window saw happen, or one of a URL this window set (even before a reload).
    const seen = previous !== null && !(previous.status === "failed" && previous.url === current.url && previous.reason === current.reason);
    if (!seen && !memory.set.includes(current.url)) return;
    updateBackgroundMemory((m) => m.shown.push(key));
    showBackgroundAlert(String(current.reason || "Couldn’t load image from " + (current.url || "that address") + "."));
  }
}

function showBackgroundAlert(reason) {
  $("background-alert-reason").textContent = reason;
  if (!backgroundAlert.open) backgroundAlert.showModal();
  backgroundAlert.querySelector("button").focus();
}

backgroundAlert.addEventListener("close", () => $("canvas").focus({ preventScroll: true }));

function schedulePoll() {
  if (pollTimer || polling || leaving) return;
  pollTimer = setTimeout(poll, POLL_INTERVAL);
}

function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = 0;
}

async function poll() {
  pollTimer = 0;
  if (polling || leaving) return;
  polling = true;
  let retry = false;
  try {
    render(await api.getDocument(documentId));
  } catch {
    retry = true; // offline for a moment: keep asking, less often
  } finally {
    polling = false;
  }
  if (leaving || !shownBackgroundState || shownBackgroundState.status !== "fetching") return;
  if (retry) pollTimer = setTimeout(poll, POLL_INTERVAL * 5);
  else schedulePoll();
}

addEventListener("pagehide", () => {
  leaving = true;
  stopPolling();
});
addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  leaving = false; // back from the back/forward cache
  if (shownBackgroundState && shownBackgroundState.status === "fetching") schedulePoll();
});

// MARK: - Controls

undoButton.addEventListener("click", undo);
redoButton.addEventListener("click", redo);
deleteButton.addEventListener("click", deleteSelection);
$("zoom-in").addEventListener("click", () => canvas.zoomBy(1.25));
$("zoom-out").addEventListener("click", () => canvas.zoomBy(0.8));
$("zoom-fit").addEventListener("click", () => canvas.zoomToFit());

titleInput.addEventListener("keydown", (event) => {
  if (event.key === "Enter") titleInput.blur();
  if (event.key === "Escape") {
    titleInput.value = state ? state.title : "";
    titleInput.blur();
  }
});
titleInput.addEventListener("change", () => {
  const title = titleInput.value;
  if (!state || title === state.title) return;
  enqueue(() => api.renameDocument(documentId, title)).catch(() => {
    titleInput.value = state.title;
  });
});

const palettes = new PaletteBar($("palette-bar"), { pick: (emoji) => addEmoji(emoji, canvas.visibleCentre()) });

// MARK: - Keyboard

const isTextField = (target) =>
  target instanceof HTMLElement && (target.isContentEditable || target.matches("input, textarea, select"));
let arrowGesture = null;
let arrowTimer = 0;

document.addEventListener("keydown", (event) => {
  if (isTextField(event.target) || !state) return;
  const command = event.ctrlKey || event.metaKey;
  const key = event.key;
  if (command && key.toLowerCase() === "z") {
    event.preventDefault();
    if (event.shiftKey) redo();
    else undo();
  } else if (command && key.toLowerCase() === "y") {
    event.preventDefault();
    redo();
  } else if (command && key.toLowerCase() === "a") {
    event.preventDefault();
    canvas.selectAll();
  } else if (command || event.altKey) {
    return;
  } else if (key === "Delete" || key === "Backspace") {
    event.preventDefault();
    deleteSelection();
  } else if (key === "Escape") {
    canvas.clearSelection();
  } else if (key.startsWith("Arrow") && canvas.selection.size) {
    event.preventDefault();
    const step = event.shiftKey ? 10 : 1;
    const offset = {
      x: key === "ArrowLeft" ? -step : key === "ArrowRight" ? step : 0,
      y: key === "ArrowUp" ? step : key === "ArrowDown" ? -step : 0,
    };
    // Presses in quick succession are one gesture: one undo step.
    arrowGesture ??= "keys-" + Math.random().toString(36).slice(2);
    clearTimeout(arrowTimer);
    arrowTimer = setTimeout(() => (arrowGesture = null), 1000);
    perform([{ type: "moveEmojis", ids: [...canvas.selection], offset }], arrowGesture).catch(() => {});
  } else if ((key === "]" || key === "[") && canvas.selection.size) {
    perform([{ type: "resizeEmojis", ids: [...canvas.selection], scale: key === "]" ? 1.25 : 0.8 }]).catch(() => {});
  } else if (key === "+" || key === "=") {
    canvas.zoomBy(1.25);
  } else if (key === "-") {
    canvas.zoomBy(0.8);
  } else if (key === "0") {
    canvas.zoomToFit();
  }
});

// Paste works like drop, at the middle of what is visible.
document.addEventListener("paste", (event) => {
  if (isTextField(event.target) || !state || !event.clipboardData) return;
  event.preventDefault();
  receive(event.clipboardData, canvas.visibleCentre());
});

// Dropping outside the canvas should not navigate away from the editor.
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => event.preventDefault());

// MARK: - Zoom and pan, remembered per window

let viewTimer = 0;
function saveView(view) {
  clearTimeout(viewTimer);
  viewTimer = setTimeout(() => sessionStorage.setItem(VIEW_KEY, JSON.stringify(view)), 100);
}
addEventListener("pagehide", () => sessionStorage.setItem(VIEW_KEY, JSON.stringify(canvas.view)));

function restoreView() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(VIEW_KEY) || "null");
    if (saved) canvas.setView(saved, { notify: false });
  } catch {
    /* a bad saved view just means the default one */
  }
  zoomLevel.textContent = Math.round(canvas.zoom * 100) + "%";
}

// Another window may have changed the document while this one was hidden.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && state && pending === 0) {
    api.getDocument(documentId).then(render, () => {});
  }
});

// MARK: - Start

async function start() {
  restoreView();
  palettes.load();
  try {
    render(await api.getDocument(documentId));
    setStatus("saved", "All changes saved");
    document.body.dataset.ready = "true";
  } catch (error) {
    setStatus("error", "Not loaded", error.message);
    notify(error.message, { kind: "error", title: "Couldn’t open this document" });
  }
}

start();
