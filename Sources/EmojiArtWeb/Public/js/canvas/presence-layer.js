// The other windows in the document: each one's pointer (an arrow with its name, in its colour)
// and the outline of what it has selected, drawn over the canvas in screen pixels and kept in
// place as this window pans and zooms. What they are comes over the live connection.
import { boundsOf } from "./viewport.js";

export class PresenceLayer {
  /**
   * @param {HTMLElement} root the canvas element
   * @param {import("./viewport.js").Viewport} viewport
   * @param {import("./emoji-layer.js").EmojiLayer} layer for the boxes of selected emojis
   */
  constructor(root, viewport, layer) {
    this.viewport = viewport;
    this.layer = layer;
    this.container = document.createElement("div");
    this.container.className = "presence";
    this.container.setAttribute("aria-hidden", "true");
    root.append(this.container);
    /** @type {Map<string, {message: object, pointer: HTMLElement, outline: HTMLElement}>} */
    this.peers = new Map();
  }

  /** A presence message: a peer's latest, or that it left. */
  receive(message) {
    if (typeof message.peer !== "string" || message.you) return;
    if (message.left) {
      const peer = this.peers.get(message.peer);
      peer?.pointer.remove();
      peer?.outline.remove();
      this.peers.delete(message.peer);
      return;
    }
    let peer = this.peers.get(message.peer);
    if (!peer) {
      const pointer = document.createElement("div");
      pointer.className = "peer-pointer";
      pointer.dataset.peer = message.peer;
      const label = document.createElement("span");
      label.className = "peer-name";
      pointer.append(label);
      const outline = document.createElement("div");
      outline.className = "peer-selection";
      outline.dataset.peer = message.peer;
      this.container.append(outline, pointer);
      peer = { message, pointer, outline };
      this.peers.set(message.peer, peer);
    }
    peer.message = message;
    const colour = /^#[0-9a-f]{6}$/i.test(message.colour) ? message.colour : "#888888";
    peer.pointer.style.setProperty("--peer", colour);
    peer.outline.style.setProperty("--peer", colour);
    const label = peer.pointer.firstChild;
    if (label.textContent !== String(message.name)) label.textContent = String(message.name); // text, never markup
    this.place(peer);
  }

  /** The connection went: everyone's marks go (who is here is told again when it is back). */
  clear() {
    for (const peer of this.peers.values()) {
      peer.pointer.remove();
      peer.outline.remove();
    }
    this.peers.clear();
  }

  /** The view or the emojis changed: put every peer's marks where they belong now. */
  placeAll() {
    for (const peer of this.peers.values()) this.place(peer);
  }

  place(peer) {
    const { pointer, selection } = peer.message;
    if (pointer && Number.isFinite(pointer.x) && Number.isFinite(pointer.y)) {
      const at = this.viewport.screenPoint(pointer.x, -pointer.y);
      peer.pointer.hidden = false;
      peer.pointer.style.transform = `translate(${at.x}px, ${at.y}px)`;
    } else {
      peer.pointer.hidden = true;
    }
    const boxes = (Array.isArray(selection) ? selection : []).map((id) => this.layer.box(id)).filter(Boolean);
    const bounds = boundsOf(boxes);
    if (!bounds) {
      peer.outline.hidden = true;
      return;
    }
    const a = this.viewport.screenPoint(bounds.left, bounds.top);
    const b = this.viewport.screenPoint(bounds.right, bounds.bottom);
    peer.outline.hidden = false;
    Object.assign(peer.outline.style, { left: a.x - 3 + "px", top: a.y - 3 + "px", width: b.x - a.x + 6 + "px", height: b.y - a.y + 6 + "px" });
  }
}
