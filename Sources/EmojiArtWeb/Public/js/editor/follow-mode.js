// Following someone's view: this window pans and zooms, smoothly, to show what they show (the
// `view` of their presence: the middle and size of what they see, fitted into this window) until
// this window's own view is changed — a pan, a zoom, Fit — or Escape or Stop is pressed, or they
// leave. A frame in their colour and "Following Ada" say so meanwhile.

const GLIDE_MS = 180; // how long a move to a new view takes

export class FollowMode {
  /**
   * @param {HTMLElement} frame the frame shown while following (holds .follow-label and .follow-stop)
   * @param {import("../canvas/viewport.js").Viewport} viewport
   * @param {{changed?: (peer: string | null) => void, stopped?: (reason: string) => void}} handlers
   */
  constructor(frame, viewport, handlers) {
    this.frame = frame;
    this.viewport = viewport;
    this.handlers = handlers;
    /** @type {Map<string, {x: number, y: number, width: number, height: number}>} each peer's latest view */
    this.views = new Map();
    /** @type {Map<string, string>} whom each peer follows */
    this.follows = new Map();
    /** This window's peer id (the server's `you`), to keep from following its own followers. */
    this.me = null;
    this.peer = null;
    this.name = "";
    this.glide = null; // {from, to, start}
    this.frameRequest = 0;
    /** The view this mode last showed: anything else means someone else (the user) moved it. */
    this.shown = null;
    this.applying = false;
    frame.querySelector(".follow-stop").addEventListener("click", () => this.stop("stopped"));
  }

  get following() {
    return this.peer !== null;
  }

  /** A presence message: a peer's view is remembered; the followed one's is shown. */
  receive(message) {
    if (typeof message.peer !== "string") return;
    if (message.you) {
      this.me = message.peer;
      return;
    }
    if (message.left) {
      this.views.delete(message.peer);
      this.follows.delete(message.peer);
      if (message.peer === this.peer) this.stop("left");
      return;
    }
    if (typeof message.following === "string") this.follows.set(message.peer, message.following);
    else this.follows.delete(message.peer);
    if (message.peer === this.peer && this.leadsBackToMe(message.peer)) return this.stop("circle");
    const view = message.view;
    if (!view || ![view.x, view.y, view.width, view.height].every(Number.isFinite) || view.width <= 0 || view.height <= 0) return;
    this.views.set(message.peer, view);
    if (message.peer === this.peer) this.glideTo(view);
  }

  /**
   * Whether following `peer` would follow this window round a circle (they follow someone who
   * follows … this window): each would fit the other's view into its own and zoom out forever.
   */
  leadsBackToMe(peer) {
    const seen = new Set();
    for (let next = this.follows.get(peer); next && !seen.has(next); next = this.follows.get(next)) {
      if (next === this.me) return true;
      seen.add(next);
    }
    return false;
  }

  /** Follows `peer` (called `name`, framed in `colour`) from now on; false if they follow this window. */
  start(peer, name, colour) {
    if (this.leadsBackToMe(peer)) return false;
    this.peer = peer;
    this.name = String(name);
    this.frame.style.setProperty("--peer", /^#[0-9a-f]{6}$/i.test(colour) ? colour : "#888888");
    this.frame.querySelector(".follow-label").textContent = `Following ${this.name}`; // text, never markup
    this.frame.hidden = false;
    document.body.dataset.following = peer;
    // From now on a view other than this mode's means the user moved: even before the first glide.
    this.shown = { zoom: this.viewport.zoom, panX: this.viewport.panX, panY: this.viewport.panY };
    const view = this.views.get(peer);
    if (view) this.glideTo(view);
    this.handlers.changed?.(peer);
    return true;
  }

  /** The connection went: what was known of everyone goes too. */
  forget() {
    this.stop("offline");
    this.views.clear();
    this.follows.clear();
  }

  /** Stops following ("stopped", "moved" or "left"). */
  stop(reason = "stopped") {
    if (!this.following) return;
    const name = this.name;
    this.peer = null;
    this.glide = null;
    cancelAnimationFrame(this.frameRequest);
    this.frameRequest = 0;
    this.frame.hidden = true;
    delete document.body.dataset.following;
    this.handlers.changed?.(null);
    this.handlers.stopped?.(reason, name);
  }

  /** This window's view changed: unless this mode changed it, the user took over. */
  viewChanged() {
    if (this.following && !this.applying && !this.showing()) this.stop("moved");
  }

  /** Whether the viewport still shows what this mode last put there. */
  showing() {
    if (!this.shown) return true;
    const { zoom, panX, panY } = this.viewport;
    const near = (a, b) => Math.abs(a - b) <= 0.5 + Math.abs(b) * 1e-6;
    return Math.abs(zoom / this.shown.zoom - 1) < 1e-6 && near(panX, this.shown.panX) && near(panY, this.shown.panY);
  }

  glideTo(view) {
    if (!this.showing()) return this.stop("moved");
    // The area in world coordinates (document ones with y down), fitted edge to edge.
    const to = this.viewport.fitted(
      { left: view.x - view.width / 2, right: view.x + view.width / 2, top: -view.y - view.height / 2, bottom: -view.y + view.height / 2 },
      { margin: 0 },
    );
    const from = { zoom: this.viewport.zoom, panX: this.viewport.panX, panY: this.viewport.panY };
    const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduced || document.hidden) {
      this.show(to);
      return;
    }
    this.glide = { from, to, start: performance.now() };
    if (!this.frameRequest) this.frameRequest = requestAnimationFrame((now) => this.step(now));
  }

  step(now) {
    this.frameRequest = 0;
    if (!this.glide || !this.following) return;
    if (!this.showing()) return this.stop("moved");
    const { from, to, start } = this.glide;
    const t = Math.min(1, (now - start) / GLIDE_MS);
    const ease = 1 - (1 - t) ** 3;
    // Zoom glides in proportion (log scale); the pan follows the point at the middle.
    const zoom = from.zoom * (to.zoom / from.zoom) ** ease;
    const mix = (a, b) => a + (b - a) * ease;
    this.show({ zoom, panX: mix(from.panX / from.zoom, to.panX / to.zoom) * zoom, panY: mix(from.panY / from.zoom, to.panY / to.zoom) * zoom });
    if (t < 1) this.frameRequest = requestAnimationFrame((next) => this.step(next));
    else this.glide = null;
  }

  show(view) {
    this.applying = true;
    try {
      this.viewport.set(view, { notify: false });
    } finally {
      this.applying = false;
    }
    this.shown = { zoom: this.viewport.zoom, panX: this.viewport.panX, panY: this.viewport.panY };
  }
}
