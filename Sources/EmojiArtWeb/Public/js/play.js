// Find or Lose (PRODUCT.md §2). The game runs on the server (GET /api/game/live, a WebSocket):
// this page sends intents — play, stop, tap a tile — and renders the state it is sent: the
// title, the score as it drains, the four tiles, why the last game ended. Pictures come from
// the server's own /api/images, never from a third party.
import { Backoff } from "./backoff.js";

const TOO_MANY_MESSAGES = 4429; // docs/API.md close codes: the server's message limit
const SIGN_IN = 4401; // only people with an account play
const TAP_GRACE_MS = 300; // a new level's tiles ignore taps this long (the server's FindOrLose.tapGrace)

class GamePage {
  constructor() {
    this.$ = (id) => document.getElementById(id);
    this.tiles = [...document.querySelectorAll(".tile")];
    this.playButton = this.$("play");
    /** The last state from the server (null while not connected), and the connection. */
    this.state = null;
    this.socket = null;
    this.backoff = new Backoff({ last: 8000 }); // reconnecting: 250 ms doubling to 8 s, ±20 %
    /** Until when (performance.now()) new tiles ignore taps. */
    this.graceUntil = 0;
    /** Why the last game ended, when the page learned it from the connection rather than a state. */
    this.notice = "";
    /** The server said only people with an account play: no more connecting until they sign in. */
    this.signedOut = false;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/api/game/live`);
    this.socket = socket;
    socket.addEventListener("open", () => this.render());
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") {
        // Connected for real once the game's state comes (an upgrade the server then closes
        // doesn't count), so a server that keeps closing is asked less and less often.
        this.backoff.reset();
        const newTiles = message.phase === "playing" && (this.state?.phase !== "playing" || this.state?.level !== message.level);
        this.state = message;
        if (newTiles) {
          // The second click of a double-click lands here: the tiles wait a moment, as the server does.
          this.graceUntil = performance.now() + TAP_GRACE_MS;
          setTimeout(() => this.render(), TAP_GRACE_MS);
        }
        this.render();
      }
    });
    socket.addEventListener("close", (event) => {
      this.socket = null;
      // A new connection is a new game; say why the old one ended when the server ended it.
      if (event.code === TOO_MANY_MESSAGES) {
        const level = this.state?.level ? ` at level ${this.state.level}` : "";
        this.notice = `The game${level} was stopped: this page sent too many messages at once. Play to start a new game.`;
      }
      this.state = null;
      this.signedOut = event.code === SIGN_IN;
      this.render();
      if (!this.signedOut) setTimeout(() => this.connect(), this.backoff.afterClose(event.code));
    });
  }

  send(intent) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(intent));
  }

  togglePlay() {
    if (!this.state) return;
    this.send({ type: this.state.phase === "stopped" ? "play" : "stop" });
  }

  tap(index) {
    // Tapping before the pictures are in does nothing (the original crashed here).
    if (!this.state || this.state.phase !== "playing" || performance.now() < this.graceUntil) return;
    this.send({ type: "tap", tile: index });
  }

  renderTile(button, tile, index) {
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
    button.disabled = !tile || this.state?.phase !== "playing" || performance.now() < this.graceUntil;
    button.setAttribute("aria-label", `Tile ${index + 1}`);
  }

  render() {
    const { $, state } = this;
    const connected = this.socket?.readyState === WebSocket.OPEN && state;
    const phase = state?.phase ?? "stopped";
    $("game-title").textContent = state?.title ?? "Find or Lose";
    $("score").textContent = `Score: ${state?.score ?? 0}`;
    $("tiles").dataset.phase = phase;
    this.tiles.forEach((button, index) => this.renderTile(button, state?.tiles?.[index], index));
    this.playButton.textContent = phase === "stopped" ? "Play" : "Stop";
    this.playButton.disabled = !connected;
    this.playButton.setAttribute("aria-pressed", String(phase !== "stopped"));

    const failed = phase === "stopped" && state?.error;
    $("game-error").hidden = !failed;
    $("game-error-text").textContent = failed ? state.message : "";
    // A used-up allowance comes back by itself within the hour: Play again would only repeat it.
    $("game-retry").hidden = !failed || state.error === "rate_limited";
    if (phase !== "stopped") this.notice = "";
    const notice =
      this.notice || (!connected ? "Connecting to the game…" : phase === "loading" ? "Fetching pictures…" : failed ? "" : state.message ?? "");
    $("game-message").hidden = !notice || this.signedOut;
    $("game-message").textContent = notice;
    $("game-signin").hidden = !this.signedOut;

    const source = state?.source;
    let sourceText = source ? `Pictures: ${source.name}` : "";
    if (source && source.remainingCalls != null) {
      sourceText += ` · ${source.remainingCalls} of ${source.callLimit ?? "?"} calls left this hour (2 per level)`;
    }
    $("game-source").textContent = sourceText;
  }

  start() {
    this.$("game-signin-link").href = "/signin?next=" + encodeURIComponent(location.pathname);
    this.playButton.addEventListener("click", () => this.togglePlay());
    this.$("game-retry").addEventListener("click", () => this.send({ type: "play" }));
    this.tiles.forEach((button, index) => button.addEventListener("click", () => this.tap(index)));
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key >= "1" && event.key <= "4") {
        event.preventDefault();
        this.tap(Number(event.key) - 1);
      } else if (event.key.toLowerCase() === "p") {
        event.preventDefault();
        this.togglePlay();
      }
    });
    this.render();
    this.connect();
  }
}

new GamePage().start();
