// The edits this window asks for. Each goes to the server as a request on the document's live
// connection, in order, and comes back as a change like everyone else's: the window draws only
// what the server committed. While the connection is down, requests wait in order (the status
// says how many) and what they would do is drawn at once, marked pending (./prediction.js); once
// the connection is back the server's answers replace those predictions. Undo and redo are
// refused while offline, because the shared history may have moved on.
import { notify } from "../dom.js";
import { TemporaryIds } from "./temporary-ids.js";

const COORDINATE_LIMIT = 1_000_000;
const KEY_RUN_MS = 1000; // key presses of one kind this close together are one undo step

/** A coordinate the server accepts: within ±1,000,000. */
export const clampCoordinate = (v) => Math.max(-COORDINATE_LIMIT, Math.min(COORDINATE_LIMIT, v));

/**
 * The edits that turn `ids` by `degrees`: the turn, then the moves ({id, x, y}) that carry
 * their centres round the pivot, emojis moving by the same offset in one edit. One undo step.
 */
export function turnEdits(ids, degrees, moves) {
  const edits = [{ type: "rotate", ids, degrees }];
  const byOffset = new Map();
  for (const { id, x, y } of moves) {
    const key = x + "," + y;
    if (!byOffset.has(key)) byOffset.set(key, { type: "moveEmojis", ids: [], offset: { x, y } });
    byOffset.get(key).ids.push(id);
  }
  return edits.concat([...byOffset.values()]);
}

export class EditRequests {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    /** Edit batches made while offline, drawn ahead of the server: [{edits, creates}]. */
    this.predicted = [];
    /** The ids of emojis added offline, until the server gives theirs (./temporary-ids.js). */
    this.temporary = new TemporaryIds();
    this.keyRun = null;
    this.keyRunTimer = 0;
  }

  /** Sends edits as one undo step (`gesture` extends the previous step with the same key). */
  perform(edits, gesture) {
    const editor = this.editor;
    if (!editor.canEdit) return Promise.resolve();
    const body = { type: "edit", baseVersion: editor.state.version, edits };
    if (gesture) body.gesture = gesture;
    // Offline, the emojis it makes get temporary ids, so later edits can name them.
    const creates = editor.online ? [] : this.temporary.allocate(edits);
    const request = editor.live.request(body, { creates }).then(
      (version) => {
        editor.announcer.editsDone(edits, editor.state, editor.createdIds(version));
        return version;
      },
      (error) => this.refused(error),
    );
    if (editor.online) return request;
    // Offline: draw it now, marked pending; the gesture that made it can let go of its feedback.
    this.drawPending(edits, creates, request);
    return Promise.resolve(undefined);
  }

  /**
   * Draws `edits` over the document, marked pending (the emojis they make with the temporary ids
   * `creates`), until `answer` settles or the connection is back.
   */
  drawPending(edits, creates, answer) {
    const editor = this.editor;
    if (editor.online) return;
    const entry = { edits, creates };
    this.predicted.push(entry);
    answer.finally(() => {
      const index = this.predicted.indexOf(entry);
      if (index < 0) return;
      this.predicted.splice(index, 1);
      editor.scheduleRender();
    });
    if (editor.state) editor.render(editor.state);
  }

  /** The connection is back: the server's answers to what was waiting replace what this window drew meanwhile. */
  backOnline() {
    if (!this.predicted.length) return;
    this.predicted = [];
    if (this.editor.state) this.editor.render(this.editor.state);
  }

  /** The gesture key for a run of key presses of one kind (moves, or resizes) close together. */
  keyGesture(kind) {
    if (this.keyRun?.kind !== kind) this.keyRun = { kind, key: `keys-${kind}-` + Math.random().toString(36).slice(2) };
    clearTimeout(this.keyRunTimer);
    this.keyRunTimer = setTimeout(() => (this.keyRun = null), KEY_RUN_MS);
    return this.keyRun.key;
  }

  undo() {
    this.editor.live.request({ type: "undo" }, { whenOffline: "refuse" }).catch((error) => this.refused(error, "Couldn’t undo"));
  }

  redo() {
    this.editor.live.request({ type: "redo" }, { whenOffline: "refuse" }).catch((error) => this.refused(error, "Couldn’t redo"));
  }

  /** Reports a refused request; the document itself converges through the live changes. */
  refused(error, title = "Couldn’t make that change") {
    if (error.code === "conflict") {
      notify("The document changed in another window, so that change no longer applies.", { title: "Not changed" });
    } else if (error.code === "nothing_to_undo" || error.code === "nothing_to_redo") {
      // Another window undid (or redid) it first; the buttons follow the live state.
    } else if (!["gone", "signed_out", "withdrawn"].includes(error.code)) {
      notify(error.message, { kind: "error", title });
    }
  }
}
