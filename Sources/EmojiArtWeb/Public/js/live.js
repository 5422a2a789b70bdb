// The live connection of one window to one document (docs/API.md, "Live documents").
//
// The server is authoritative: this module never applies an edit itself. It sends requests in
// order and reports what the server says back — the document as a snapshot, then each
// committed version as a patch, background states, and the answer to each request.
//
// Requests made while the connection is down wait in an outbox, in order, and are sent once it
// is back. A request that was sent but not answered when the connection dropped is sent again
// with the same id: the server recognises ids it has already applied and only acknowledges
// them, so nothing is applied twice and nothing acknowledged is lost. A journal, when given,
// keeps each request before it is sent and forgets it once answered, so the requests a closed
// window left unanswered can be handed to the next one (`adopt`) and sent again with their ids.
//
// This module imports nothing (Tests/EmojiArtLiveTests/ChromiumReplay.swift runs a copy of it
// alone in Chromium): whoever makes the connection hands it its backoff (../backoff.js).

/** The sockets `connect` took from the page (opened as it started), with what each heard until `open`. */
const earlySockets = new WeakMap();

/** The server's limit on one message (docs/API.md); larger requests are refused here. */
const MAXIMUM_MESSAGE_BYTES = 1024 * 1024;

/** The ws: or wss: URL of a path on this server. */
export const socketURL = (path) => `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;

/** Why the server refused a request (`code` as in the HTTP API), or why it was never sent. */
class LiveRefusal extends Error {
  constructor(code, message, currentVersion) {
    super(message);
    this.name = "LiveRefusal";
    this.code = code;
    this.currentVersion = currentVersion;
  }
}

export class LiveConnection {
  /**
   * @param {string} documentId
   * @param {object} handlers
   *   snapshot(state) — the whole document (on connect, or when too far behind to catch up);
   *   change(message) — one committed version: {version, undoActionName, redoActionName, updatedAt, patch};
   *   synced(message) — caught up after a reconnect: {version, undoActionName, redoActionName, backgroundState};
   *   background(backgroundState); deleted(dropped) — with the requests it drops; missing?() — the server has no such document: resolves
   *   true once it has (made from this browser), false if it is gone; presence(message) — another window's pointer,
   *   selection and view, or that it left, or (`you`) how the others see this one; summon(message)
   *   — another window asks everyone to follow it; status({state, retryIn?, waiting}) where state is
   *   "connecting" | "online" | "offline" | "gone".
   * @param {() => number | null} currentVersion the version the window shows (to reconnect from)
   * @param {import("./backoff.js").Backoff} backoff how long to wait before each reconnection
   * @param {{keep(item): Promise<void>, forget(item, answer?): void, prepare?(item): "ready" | "wait" | {code, message}, holding?: boolean} | null} journal
   *   where requests are kept before they are sent ({id, message, body, creates}) and forgotten
   *   once answered (with the answer: `{type: "ack", version}` or a refusal); `prepare` says
   *   whether a request may go now, may go later (it names emojis not made yet), or never;
   *   `holding` holds every request back until `release`
   */
  constructor(documentId, handlers, currentVersion, backoff, journal = null) {
    this.documentId = documentId;
    this.handlers = handlers;
    this.currentVersion = currentVersion;
    this.backoff = backoff;
    /** Requests not yet answered, in order: {id, message, body, resolve, reject, sent, kept}. */
    this.outbox = [];
    this.journal = journal;
    this.holding = Boolean(journal?.holding); // until `release`: earlier windows' requests go first
    /** Request ids are this prefix and a count: unique to this window, so a resent request is recognised. */
    this.requestPrefix = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
    this.requestCounter = 0;
    this.socket = null;
    this.ready = false; // the server has sent the snapshot or `synced`
    this.retryTimer = 0;
    this.gone = false; // the document no longer exists: stop for good
    this.leaving = false; // the page is going: what waits stays kept, for the next window
    this.fromScratch = false; // reconnect for a snapshot rather than the changes since a version
  }

  /** Requests waiting to be sent or answered. */
  get waiting() {
    return this.outbox.length;
  }

  get online() {
    return this.ready;
  }

  /**
   * A socket to the document's channel — from `version` on, or for a snapshot — for `open` to
   * take in the same task (before any event is missed): the one the page opened as it started if
   * it is the same, else opened now.
   */
  static connect(documentId, version = null) {
    const query = version === null || version === undefined ? "" : "?version=" + encodeURIComponent(version);
    const url = socketURL(`/api/documents/${encodeURIComponent(documentId)}/live${query}`);
    // The editor's page opened one as it started (its inline script), while its styles and its
    // script were on their way: taken once, if it is the same (else closed, so no second window).
    const early = globalThis.earlyLiveSocket;
    globalThis.earlyLiveSocket = null;
    if (early?.socket.url === url) return earlySockets.set(early.socket, early) && early.socket;
    early?.stop();
    early?.socket.close(1000, "Not needed.");
    return new WebSocket(url);
  }

  /** Connects (with `socket`, one `connect` opened for this document, or a new one). */
  open(socket = null) {
    if (this.gone || this.socket) return socket?.close();
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    const version = this.fromScratch ? null : this.currentVersion();
    this.fromScratch = false;
    this.report("connecting");
    socket ??= LiveConnection.connect(this.documentId, version);
    this.socket = socket;
    const listen = () => {
      socket.addEventListener("message", (event) => this.receive(event.data));
      socket.addEventListener("close", (event) => this.closed(socket, event));
    };
    const early = earlySockets.get(socket);
    if (!early) return listen();
    earlySockets.delete(socket);
    // What the early socket heard, once this task is done (no socket event comes between: each is a
    // task), each apart as events are (one that throws stops no other), none after its close.
    queueMicrotask(() => {
      early.stop();
      listen();
      for (const event of early.heard) {
        queueMicrotask(() => {
          if (this.socket !== socket) return;
          if (event.type === "message") this.receive(event.data);
          else this.closed(socket, event);
        });
      }
    });
  }

  /** Closes for good (the page is going away). Unanswered requests stay unanswered, and kept. */
  close() {
    this.gone = true;
    this.leaving = true;
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close(1000, "Leaving.");
  }

  /** Drops the connection and starts again from a snapshot (the window lost track). */
  resynchronize() {
    this.fromScratch = true;
    if (this.socket) this.socket.close(1000, "Resynchronizing.");
  }

  /** Reconnects now, without waiting for the backoff (the user asked to). */
  retryNow() {
    if (this.gone || this.socket) return;
    this.backoff.reset();
    this.open();
  }

  /**
   * Sends `{type: "edit" | "undo" | "redo", …}` in order after every earlier request.
   * Resolves with the version the server acknowledged; rejects with a LiveRefusal.
   * `whenOffline: "refuse"` refuses at once instead of waiting while the connection is down.
   * `creates`: temporary ids of the emojis it makes (for the journal; never sent).
   */
  request(body, { whenOffline = "queue", creates = [] } = {}) {
    if (this.gone) return Promise.reject(new LiveRefusal("gone", "This document no longer exists."));
    if (whenOffline === "refuse" && !this.ready) {
      return Promise.reject(new LiveRefusal("offline", "Not connected to the server; try again when it is back."));
    }
    const id = `${this.requestPrefix}-${++this.requestCounter}`;
    const message = JSON.stringify({ ...compacted(body), requestId: id });
    if (new Blob([message]).size > MAXIMUM_MESSAGE_BYTES) {
      return Promise.reject(new LiveRefusal("too_large", "That change is too large to send (over 1 MiB)."));
    }
    return new Promise((resolve, reject) => {
      const item = { id, message, body, creates, resolve, reject, sent: false, kept: !this.journal };
      this.outbox.push(item);
      if (this.journal) {
        const kept = () => {
          item.kept = true;
          this.flush();
        };
        this.journal.keep(item).then(kept, kept); // kept or not (storage refused), it is sent
      }
      this.flush();
      this.report(this.ready ? "online" : "offline");
    });
  }

  /** Puts what earlier windows left unanswered ({id, message, body, creates}, oldest first) ahead of this window's: a promise each. */
  adopt(earlier) {
    const promises = [];
    const items = earlier.map(({ id, message, body, creates = [] }) => {
      const item = { id, message, body, creates, sent: false, kept: true };
      promises.push(new Promise((resolve, reject) => Object.assign(item, { resolve, reject })));
      return item;
    });
    this.outbox.unshift(...items);
    this.release(this.holding);
    return promises;
  }

  /** Lets requests go — or, with `hold`, not yet (the journal's hold: until who is asking is known). */
  release(hold = false) {
    this.holding = hold;
    this.flush();
    if (!this.gone) this.report(this.ready ? "online" : "offline");
  }

  /** Takes back every request not sent yet (made as someone not signed in now): kept for them, refused here as "withdrawn". */
  withdraw() {
    const items = this.outbox.splice(0);
    for (const item of items) item.reject(new LiveRefusal("withdrawn", "Made as someone else: kept for them."));
    return items.length;
  }

  /** `item` says `body` now (its emojis' real ids in place of temporary ones): its message is written again. */
  reword(item, body) {
    item.body = body;
    item.message = JSON.stringify({ ...compacted(body), requestId: item.id });
  }

  // MARK: - Internals

  flush() {
    if (!this.ready || !this.socket || this.holding) return;
    for (let index = 0; index < this.outbox.length; index += 1) {
      const item = this.outbox[index];
      if (!item.kept) break; // in order: nothing goes before an earlier request is kept
      if (item.sent) continue;
      const verdict = this.journal?.prepare?.(item) ?? "ready";
      if (verdict === "wait") break; // it names emojis an earlier request is making
      if (verdict !== "ready") {
        // It never can go ({code, message}): refused here, as the server would refuse it.
        this.outbox.splice(index--, 1);
        this.journal.forget(item, { type: "refused", ...verdict });
        item.reject(new LiveRefusal(verdict.code, verdict.message));
        continue;
      }
      this.socket.send(item.message);
      item.sent = item.wasSent = true;
    }
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    switch (message.type) {
      case "snapshot":
        this.handlers.snapshot(message.state);
        this.becomeReady();
        break;
      case "synced":
        this.handlers.synced(message);
        this.becomeReady();
        break;
      case "change":
        this.handlers.change(message);
        break;
      case "background":
        this.handlers.background(message.backgroundState);
        break;
      case "ack":
      case "refused":
        this.answer(message);
        break;
      case "access":
        this.handlers.access?.(message.role);
        break;
      case "deleted":
        this.gone = true;
        this.handlers.deleted();
        break;
      case "presence":
        this.handlers.presence?.(message);
        break;
      case "comments":
        this.handlers.comments?.();
        break;
      case "summon":
        this.handlers.summon?.(message);
        break;
    }
  }

  /**
   * Tells the other windows where this one's pointer is and what it has selected
   * ({pointer: {x, y} | null, selection: [ids]}). Presence isn't queued: while offline it is
   * dropped, and the next one says it all again.
   */
  sendPresence(presence) {
    if (!this.ready || !this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify({ type: "presence", ...presence }));
  }

  /** "Bring everyone here": asks every other window to follow this one (editors and owners; not queued). */
  sendSummon() {
    if (!this.ready || !this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify({ type: "summon" }));
    return true;
  }

  becomeReady() {
    this.ready = true;
    this.backoff.reset();
    this.flush();
    this.report("online");
  }

  answer(message) {
    const index = this.outbox.findIndex((item) => item.id === message.requestId);
    if (index < 0) return;
    if (message.type === "refused" && message.code === "unavailable") {
      // The server's database is away: nothing was kept. The request stays, and is sent again
      // (by id, so never applied twice) once the connection, which the server closes, is back.
      this.outbox[index].sent = false;
      this.report("offline");
      return;
    }
    const [item] = this.outbox.splice(index, 1);
    this.journal?.forget(item, message);
    if (message.type === "ack") item.resolve(message.version);
    else item.reject(new LiveRefusal(message.code, message.message, message.currentVersion));
    this.report("online");
  }

  closed(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.ready = false;
    if (this.leaving) return; // the journal keeps what waits: the next window sends it
    for (const item of this.outbox) item.sent = false; // sent again (by id) once back
    if (event.code === 4401 || event.code === 4403) {
      // No one signed in, or this window's access ended (a revoked link, a changed role):
      // reconnecting would not help; the editor finds out what it may do now. What the journal
      // keeps stays (signed in again, it is sent); the editor forgets it if access is gone.
      this.gone = true;
      const code = event.code === 4401 ? "signed_out" : "forbidden";
      for (const item of this.outbox.splice(0)) {
        item.reject(new LiveRefusal(code, event.reason || "Your access to this document ended."));
      }
      this.handlers.accessEnded?.(event.code, event.reason || "");
      this.report("gone");
      return;
    }
    if (event.code === 4404 && !this.gone && this.handlers.missing) {
      // Not on the server (yet?): a document this browser made offline is made there first,
      // then the connection opens again; else it is gone.
      this.report("connecting");
      this.handlers.missing().then((made) => (made ? this.open() : this.vanished(event.code)));
      return;
    }
    if (event.code === 4404 || this.gone) return this.vanished(event.code);
    if (event.code === 4400) {
      // The server could not read a request — the oldest one unanswered, the one it was reading:
      // a defect, not something a retry mends. It goes; the others are sent again.
      const index = this.outbox.findIndex((item) => item.wasSent);
      if (index >= 0) {
        const [item] = this.outbox.splice(index, 1);
        this.journal?.forget(item, { type: "refused", code: "bad_message" });
        item.reject(new LiveRefusal("bad_message", event.reason || "The server could not read a change."));
      }
    }
    for (const item of this.outbox) item.wasSent = false;
    const delay = this.backoff.afterClose(event.code);
    this.retryTimer = setTimeout(() => this.open(), delay);
    this.report("offline", delay);
  }

  /** The document no longer exists (4404), or this connection was closed for good. */
  vanished(code) {
    this.gone = true;
    const dropped = this.outbox.splice(0);
    for (const item of dropped) {
      this.journal?.forget(item);
      item.reject(new LiveRefusal("gone", "This document no longer exists."));
    }
    if (code === 4404) this.handlers.deleted(dropped);
    this.report("gone");
  }

  report(state, retryIn) {
    this.handlers.status({ state: this.gone ? "gone" : state, retryIn, waiting: this.outbox.length });
  }
}

/**
 * A request with each big list of emoji ids sent as runs (`idRanges: [[1, 10000]]`, docs/API.md),
 * so moving 10,000 selected emojis sends a message of about the same size as moving ten. The
 * order of the ids never matters to an edit, so they are sorted first.
 */
function compacted(body) {
  if (!Array.isArray(body.edits)) return body;
  return {
    ...body,
    edits: body.edits.map((edit) => {
      if (!Array.isArray(edit.ids) || edit.ids.length < 8) return edit;
      const sorted = [...new Set(edit.ids)].sort((a, b) => a - b);
      const runs = [];
      for (const id of sorted) {
        const last = runs[runs.length - 1];
        if (last && id === last[1] + 1) last[1] = id;
        else runs.push([id, id]);
      }
      if (runs.length * 2 >= edit.ids.length || sorted.length !== edit.ids.length) return edit;
      const { ids, ...rest } = edit;
      return { ...rest, idRanges: runs };
    }),
  };
}

/**
 * `emojis` with the patch's `inserted` ({index, emoji}, each index a place in the order as it is
 * once the ones before are in) put in, one by one. Throws if one doesn't fit. Inserts at rising
 * indices (a mosaic's tens of thousands) are one merge, not a splice each, which would move the
 * rest of the array every time.
 */
function inserting(emojis, inserted) {
  const present = new Set(emojis.map((emoji) => emoji.id));
  const fits = ({ index, emoji }, length) => !present.has(emoji.id) && Number.isInteger(index) && index >= 0 && index <= length;
  const rising = inserted.every((item, i) => i === 0 || item.index > inserted[i - 1].index);
  if (!rising) {
    for (const item of inserted) {
      if (!fits(item, emojis.length)) throw new Error("the change does not fit this copy of the document");
      emojis.splice(item.index, 0, item.emoji);
      present.add(item.emoji.id);
    }
    return emojis;
  }
  // Each lands at its own index (later ones, further on, don't move it); the others fill the rest in order.
  const merged = new Array(emojis.length + inserted.length);
  let from = 0;
  let next = 0;
  for (let place = 0; place < merged.length; place += 1) {
    const item = inserted[next];
    if (item?.index === place) {
      if (!fits(item, emojis.length + next)) throw new Error("the change does not fit this copy of the document");
      merged[place] = item.emoji;
      present.add(item.emoji.id);
      next += 1;
    } else {
      merged[place] = emojis[from++];
    }
  }
  if (next < inserted.length) throw new Error("the change does not fit this copy of the document");
  return merged;
}

/**
 * Applies one `change` message's patch to a document state in the HTTP API's shape
 * (docs/API.md, "Document state"), returning a new state. Throws, changing nothing, if the
 * change does not follow `state` directly or does not fit it — the same checks as the server's
 * `DocumentPatch.apply`: removed ids a copy lacks are ignored; an inserted emoji must be new
 * and its index within the drawing order; an updated or moved emoji must be there. A window that
 * gets a change that does not fit has lost track and takes a snapshot.
 *
 * `moved` holds groups of emojis that only moved: `{idRanges: [[first, last], ...], offset}`
 * (ids as runs, so moving 10,000 emojis is one small group).
 */
export function applyChange(state, change) {
  if (change.version !== state.version + 1) {
    throw new Error(`change ${change.version} does not follow version ${state.version}`);
  }
  const patch = change.patch;
  const moved = patch.moved || [];
  let emojis = state.emojis;
  if (patch.removed.length) {
    const removed = new Set(patch.removed);
    emojis = emojis.filter((emoji) => !removed.has(emoji.id));
  } else if (patch.inserted.length || patch.updated.length || moved.length) {
    emojis = emojis.slice();
  }
  if (patch.inserted.length) emojis = inserting(emojis, patch.inserted);
  if (patch.updated.length) {
    const updated = new Map(patch.updated.map((emoji) => [emoji.id, emoji]));
    let found = 0;
    emojis = emojis.map((emoji) => {
      const now = updated.get(emoji.id);
      if (!now) return emoji;
      found += 1;
      return now;
    });
    if (found !== updated.size) {
      const missing = [...updated.keys()].find((id) => !emojis.some((emoji) => emoji.id === id));
      throw new Error(`the change names emoji ${missing}, which this copy lacks`);
    }
  }
  if (moved.length) {
    // Each emoji's offset, then one pass over the emojis.
    const offsets = new Map();
    for (const { idRanges, offset } of moved) {
      for (const [first, last] of idRanges) {
        for (let id = first; id <= last; id += 1) offsets.set(id, offset);
      }
    }
    let found = 0;
    emojis = emojis.map((emoji) => {
      const offset = offsets.get(emoji.id);
      if (!offset) return emoji;
      found += 1;
      return { ...emoji, x: emoji.x + offset.x, y: emoji.y + offset.y };
    });
    if (found !== offsets.size) throw new Error("the change moves an emoji this copy lacks");
  }
  const next = {
    ...state,
    emojis,
    version: change.version,
    undoActionName: change.undoActionName,
    redoActionName: change.redoActionName,
    updatedAt: change.updatedAt,
    nextEmojiId: patch.nextEmojiId,
  };
  if ("title" in patch) next.title = patch.title;
  if ("background" in patch) next.background = patch.background;
  return next;
}
