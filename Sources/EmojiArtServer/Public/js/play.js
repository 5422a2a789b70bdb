// Find or Lose (PRODUCT.md §2). The game runs on the server (GET /api/game/live, a WebSocket):
// this page sends intents — play, stop, tap a tile — and renders the state it is sent: the
// title, the score as it drains, the four tiles, why the last game ended. Pictures come from
// the server's own /api/images, never from a third party.

const $ = (id) => document.getElementById(id);
const tiles = [...document.querySelectorAll(".tile")];
const playButton = $("play");

/** The last state from the server, and whether we are connected. */
let state = null;
let socket = null;
let retryDelay = 250;

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/api/game/live`);
  socket.addEventListener("open", () => {
    retryDelay = 250;
    render();
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      state = message;
      render();
    }
  });
  socket.addEventListener("close", () => {
    socket = null;
    state = null; // a new connection is a new game
    render();
    setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 8000);
  });
}

function send(intent) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(intent));
}

function togglePlay() {
  if (!state) return;
  send({ type: state.phase === "stopped" ? "play" : "stop" });
}

function tap(index) {
  // Tapping before the pictures are in does nothing (the original crashed here).
  if (!state || state.phase !== "playing") return;
  send({ type: "tap", tile: index });
}

function renderTile(button, tile, index) {
  const key = tile ? tile.emoji ?? tile.image : "";
  if (button.dataset.key !== key) {
    button.dataset.key = key;
    button.replaceChildren();
    if (tile?.emoji) {
      const emoji = document.createElement("span");
      emoji.className = "tile-emoji";
      emoji.textContent = tile.emoji;
      button.append(emoji);
    } else if (tile?.image) {
      const image = document.createElement("img");
      image.src = tile.image;
      image.alt = "";
      image.draggable = false;
      button.append(image);
    }
  }
  button.disabled = !tile || state?.phase !== "playing";
  button.setAttribute("aria-label", `Tile ${index + 1}`);
}

function render() {
  const connected = socket?.readyState === WebSocket.OPEN && state;
  const phase = state?.phase ?? "stopped";
  $("game-title").textContent = state?.title ?? "Find or Lose";
  $("score").textContent = `Score: ${state?.score ?? 0}`;
  $("tiles").dataset.phase = phase;
  tiles.forEach((button, index) => renderTile(button, state?.tiles?.[index], index));
  playButton.textContent = phase === "stopped" ? "Play" : "Stop";
  playButton.disabled = !connected;
  playButton.setAttribute("aria-pressed", String(phase !== "stopped"));

  const failed = phase === "stopped" && state?.error;
  $("game-error").hidden = !failed;
  $("game-error-text").textContent = failed ? state.message : "";
  const notice = !connected ? "Connecting to the game…" : phase === "loading" ? "Fetching pictures…" : failed ? "" : state.message ?? "";
  $("game-message").hidden = !notice;
  $("game-message").textContent = notice;

  const source = state?.source;
  let sourceText = source ? `Pictures: ${source.name}` : "";
  if (source && source.remainingCalls != null) {
    sourceText += ` · ${source.remainingCalls} of ${source.callLimit ?? "?"} calls left this hour (2 per level)`;
  }
  $("game-source").textContent = sourceText;
}

playButton.addEventListener("click", togglePlay);
$("game-retry").addEventListener("click", () => send({ type: "play" }));
tiles.forEach((button, index) => button.addEventListener("click", () => tap(index)));
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key >= "1" && event.key <= "4") {
    event.preventDefault();
    tap(Number(event.key) - 1);
  } else if (event.key.toLowerCase() === "p") {
    event.preventDefault();
    togglePlay();
  }
});

render();
connect();
