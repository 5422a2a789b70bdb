// The editor for one document: sends intents to the server over the document's live connection
// and renders the state the server answers, whichever window (or script) changed it.
import * as api from "./api.js";
import { CanvasView } from "./canvas.js";
import { notify } from "./dom.js";
import { exportMenu } from "./export-menu.js";
import { applyChange, LiveConnection } from "./live.js";
import { EMOJI_DRAG_TYPE, PaletteBar } from "./palette-bar.js";
import { ShareDialog } from "./share.js";

const documentId = decodeURIComponent(location.pathname.replace(/^\/documents\//, "").replace(/\/+$/, ""));
const VIEW_KEY = "emojiart:view:" + documentId; // zoom and pan, per window (sessionStorage)
const BACKGROUND_KEY = "emojiart:background:" + documentId; // URLs this window set, failures it showed
const COORDINATE_LIMIT = 1_000_000;

const $ = (id) => document.getElementById(id);
const titleInput = $("doc-title");
const undoButton = $("undo");
const redoButton = $("redo");
const deleteButton = $("delete-selection");
const zoomLevel = $("zoom-level");
const statusBox = $("save-status");
const statusText = $("save-status-text");

/** The document as the server last described it; every edit is sent with its version as baseVersion. */
let state = null;
/** The requester's role (docs/API.md "Who may ask"): a viewer's editor changes nothing. */
let role = null;
const readOnly = () => role === "viewer";

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

/** Shows `next` (the whole state) at once. */
function render(next) {
  state = next;
  renderScheduled = false;
  document.body.dataset.version = String(state.version);
  document.title = state.title + " — EmojiArt";
  if (document.activeElement !== titleInput) titleInput.value = state.title;
  titleInput.disabled = gone || readOnly();
  setActionButton(undoButton, "Undo", state.undoActionName, "Ctrl+Z");
  setActionButton(redoButton, "Redo", state.redoActionName, "Shift+Ctrl+Z");
  const previous = shownBackgroundState;
  shownBackgroundState = state.backgroundState || { status: "none" };
  canvas.render(state);
  backgroundStateRendered(previous, shownBackgroundState, state.background);
}

/** Changes arriving in a burst are drawn once, at the next frame (or soon, when hidden). */
let renderScheduled = false;
function scheduleRender() {
  if (renderScheduled) return;
  renderScheduled = true;
  const draw = () => renderScheduled && render(state);
  if (document.hidden) setTimeout(draw, 250);
  else requestAnimationFrame(draw);
}

function setActionButton(button, verb, actionName, shortcut) {
  const label = actionName ? `${verb} ${actionName}` : verb;
  button.textContent = label;
  button.title = `${label} (${shortcut})`;
  button.disabled = !actionName || gone || readOnly();
}

// MARK: - The live connection (docs/API.md, "Live documents")
//
// Edits go to the server in order and come back as changes, like everyone else's; the window
// draws only what the server committed. While the connection is down, edits wait in order and
// are sent when it is back (the status says how many wait); undo and redo are refused while
// offline, because the shared history may have moved on.

/** The document was deleted: nothing more can be edited here. */
let gone = false;

const live = new LiveConnection(
  documentId,
  {
    snapshot: (next) => {
      render(next);
      document.body.dataset.ready = "true";
    },
    synced: (message) => {
      state = {
        ...state,
        undoActionName: message.undoActionName,
        redoActionName: message.redoActionName,
        backgroundState: message.backgroundState,
      };
      render(state);
    },
    change: (message) => {
      try {
        state = applyChange(state, message);
      } catch {
        live.resynchronize(); // cannot happen with a correct server: start again from a snapshot
        return;
      }
      scheduleRender();
    },
    background: (backgroundState) => {
      state = { ...state, backgroundState };
      scheduleRender();
    },
    deleted: () => {
      if (gone) return;
      gone = true;
      if (!state) {
        notify("There is no such document. It may have been deleted.", { kind: "error", title: "Couldn’t open this document" });
        return;
      }
      render(state);
      notify("This document was deleted in another window. Nothing more can be changed here.", {
        kind: "error",
        title: "Document deleted",
      });
    },
    status: showConnection,
    accessEnded: (code, reason) => accessEnded(code, reason),
  },
  () => (state ? state.version : null),
);

function showConnection({ state: connection, retryIn, waiting }) {
  const changes = waiting === 1 ? "1 change" : `${waiting} changes`;
  if (connection === "gone") {
    setStatus("error", state ? "Deleted" : "Not found", "This document no longer exists.");
  } else if (connection === "online") {
    if (readOnly()) setStatus("saved", "Live", "Following every change as it is made");
    else if (waiting) setStatus("saving", "Saving…");
    else setStatus("saved", "All changes saved");
  } else if (connection === "connecting") {
    setStatus("loading", state ? "Reconnecting…" : "Connecting…", waiting ? `${changes} waiting to be saved` : "");
  } else {
    const seconds = Math.max(1, Math.round((retryIn || 0) / 1000));
    const text = waiting ? `Offline — ${changes} waiting` : "Offline";
    setStatus("offline", text, `Not connected to the server; trying again in ${seconds} s. Click to retry now.`);
  }
  statusBox.dataset.waiting = String(waiting);
  const offline = connection !== "online";
  undoButton.disabled = offline || !state?.undoActionName || gone;
  redoButton.disabled = offline || !state?.redoActionName || gone;
}

statusBox.addEventListener("click", () => live.retryNow());

/** Reports a refused request; the document itself converges through the live changes. */
function refused(error, title = "Couldn’t make that change") {
  if (error.code === "conflict") {
    notify("The document changed in another window, so that change no longer applies.", { title: "Not changed" });
  } else if (error.code !== "gone") {
    notify(error.message, { kind: "error", title });
  }
}

/** Sends edits as one undo step (`gesture` extends the previous step with the same key). */
function perform(edits, gesture) {
  if (!state || gone || readOnly()) return Promise.resolve();
  const body = { type: "edit", baseVersion: state.version, edits };
  if (gesture) body.gesture = gesture;
  return live.request(body).catch((error) => refused(error));
}

// MARK: - Intents

function addEmoji(text, point) {
  const size = Math.min(1024, Math.max(1, Math.round(40 / canvas.zoom)));
  const coordinate = (v) => Math.max(-COORDINATE_LIMIT, Math.min(COORDINATE_LIMIT, Math.round(v)));
  return perform([{ type: "addEmoji", text, position: { x: coordinate(point.x), y: coordinate(point.y) }, size }]);
}

function setBackgroundURL(url) {
  // A pasted data: URL may be larger than a live message: send its bytes as an upload.
  if (/^data:/i.test(url)) {
    return fetch(url)
      .then((response) => response.blob())
      .then(uploadBackground, () => notify("That image data is not valid.", { kind: "error", title: "Set Background" }));
  }
  rememberSetURL(url);
  return perform([{ type: "setBackground", background: url }]);
}

/** Uploads over HTTP (image bytes are not sent over the live connection); the change comes back live. */
async function uploadBackground(file) {
  if (!state || gone || readOnly()) return;
  try {
    await api.uploadBackground(documentId, state.version, file);
  } catch (error) {
    notify(error.message, { kind: "error", title: "Couldn’t set the background" });
  }
}

function deleteSelection() {
  const ids = [...canvas.selection];
  if (!ids.length) return;
  perform([{ type: "deleteEmojis", ids }]);
}

const undo = () =>
  readOnly() ? undefined : live.request({ type: "undo" }, { whenOffline: "refuse" }).catch((error) => refused(error, "Couldn’t undo"));
const redo = () =>
  readOnly() ? undefined : live.request({ type: "redo" }, { whenOffline: "refuse" }).catch((error) => refused(error, "Couldn’t redo"));

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
  if (readOnly()) {
    notify("You can view this document but not change it.", { title: "View only" });
    return;
  }
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
// server's copy. Its state (fetching, found, failed) arrives over the live connection.

/** The backgroundState last rendered (null before the first render). */
let shownBackgroundState = null;
/** URLs this window saw being fetched: when one is found, zoom to fit once. */
const fetchesSeen = new Set();
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
  } else if (status === "found") {
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

addEventListener("pagehide", (event) => {
  if (!event.persisted) live.close();
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
  perform([{ type: "retitle", title }]).then(() => {
    if (document.activeElement !== titleInput) titleInput.value = state.title;
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
    perform([{ type: "moveEmojis", ids: [...canvas.selection], offset }], arrowGesture);
  } else if ((key === "]" || key === "[") && canvas.selection.size) {
    perform([{ type: "resizeEmojis", ids: [...canvas.selection], scale: key === "]" ? 1.25 : 0.8 }]);
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

// Edits still waiting when the window closes would be lost: ask first.
addEventListener("beforeunload", (event) => {
  if (live.waiting > 0 && !gone) event.preventDefault();
});

// MARK: - Start

/**
 * This window's access ended while open: signed out (4401), or a revoked link or changed role
 * (4403). If the document can still be seen, the page starts again with the role it has now.
 */
async function accessEnded(code, reason) {
  if (code === 4401) {
    api.goToSignIn();
    return;
  }
  if ((await api.documentStatus(documentId)) === 200) {
    location.reload(); // a new role: start again with it
    return;
  }
  gone = true;
  if (state) render(state);
  setStatus("error", "No access", reason);
  notify((reason || "Your access to this document ended.") + " Ask its owner for a new link.", {
    kind: "error",
    title: "Access ended",
  });
}

/** Learns the requester's role, then sets the editor up for it. */
async function loadRole() {
  try {
    role = (await api.getDocument(documentId)).role || "owner";
  } catch (error) {
    if (error.status !== 401) role = null; // 404: the live connection says so too
    return;
  }
  document.body.dataset.role = role;
  document.body.classList.toggle("read-only", readOnly());
  $("view-only").hidden = !readOnly();
  canvas.readOnly = readOnly();
  if (role === "owner" && !sharing) {
    const signedIn = await api.session().then((session) => session.access === "accounts", () => false);
    if (signedIn) {
      sharing = new ShareDialog($("share-dialog"), documentId);
      $("share").hidden = false;
      $("share").addEventListener("click", () => sharing.open());
    }
  }
  if (state) render(state);
}

let sharing = null;

function start() {
  $("export-slot").replaceWith(exportMenu(documentId));
  restoreView();
  loadRole().then(() => {
    if (!readOnly()) palettes.load();
  });
  live.open();
}

start();
