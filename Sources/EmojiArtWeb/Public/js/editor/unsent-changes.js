// The changes this window made that the server hasn't answered, kept in the browser
// (../offline/unsent-queue.js) so that none is lost with the tab (docs/OFFLINE.md). It is the
// live connection's journal: each request is written before it is sent and deleted when the
// server answers. When the editor opens, it takes over what closed windows of the document
// left — after a reload, a closed tab, a crashed browser — draws it pending and sends it first,
// with the original request ids, so each is applied once; what the server refuses is named in
// one notice. Where the browser keeps nothing (a private window, storage full) the editor works
// as before, with a warning. A request naming emojis added offline waits for the request that
// adds them; once the server has answered that one, it names their real ids, kept so before the
// answered request is forgotten (./temporary-ids.js).
import * as api from "../api.js";
import { notify } from "../dom.js";
import { isQuotaError } from "../offline/local-store.js";
import { ACCOUNT_CHANNEL } from "../offline/sign-out.js";
import { holdWindowLock, UnsentQueue } from "../offline/unsent-queue.js";
import { changeLabel, refusalReason } from "./change-labels.js";
import { namesTemporary, temporaryIdsIn } from "./temporary-ids.js";

const changes = (count) => (count === 1 ? "1 change" : `${count} changes`);

export class UnsentChanges {
  /**
   * @param {import("./document-editor.js").DocumentEditor} editor
   * @param {{store: import("../offline/local-store.js").LocalStore, identity: import("../offline/identity.js").Identity}} kept
   */
  constructor(editor, { store, identity }) {
    this.editor = editor;
    this.store = store;
    this.identity = identity;
    /** Resolves to the queue, or null when the browser keeps nothing. */
    this.queue = null;
    this.confirmed = false; // the server has said who is asking, and what was kept for them is taken over
    this.takenOver = 0; // how many requests closed windows left were taken over
    this.warned = false;
    /** What LiveConnection keeps requests with; it holds them until `restore` hands over the earlier ones. */
    this.journal = {
      holding: true,
      keep: (item) => this.keep(item),
      forget: (item, answer) => this.forget(item, answer),
      prepare: (item) => this.prepare(item),
    };
  }

  /**
   * Takes over what earlier windows of the document left unsent and draws it pending, then — once
   * the server has said who is signed in — lets it and this window's requests go. Nothing is sent
   * before that: a queue written under one account is never sent under another. While it can't be
   * asked (offline), what is taken over and what this window makes are kept under the last
   * account it named, and given to the one it names once back (or kept for the first, if another).
   */
  async restore() {
    const editor = this.editor;
    const windowId = editor.live.requestPrefix;
    // What waits when the window closes is sent by the next one, unless the browser won't keep it: then ask first.
    addEventListener("beforeunload", (event) => {
      if (editor.live.waiting > 0 && !editor.gone && !this.kept) event.preventDefault();
    });
    this.listenForSignOut();
    let queue = null;
    try {
      this.queue = this.identity.whoIsAsking().then(({ key }) => new UnsentQueue(this.store, key, editor.documentId, windowId));
      queue = await this.queue;
      holdWindowLock(windowId);
      await this.checkRoom();
      await this.takeOver(queue); // drawn at once, offline too
      let who = await this.identity.whoIsAsking();
      while (!who.confirmed) {
        await this.nextChance();
        who = await this.identity.whoIsAsking({ again: true });
      }
      if (queue.owner === "unknown") await queue.reown(who.key);
      else if (who.key !== queue.owner) this.madeAsSomeoneElse(queue, who.key);
      await this.takeOver(queue); // theirs, if another; and what windows closed meanwhile left
      this.confirmed = true;
    } catch {
      notify("Changes this browser kept for this document couldn’t be read; they were skipped.", { kind: "warning", title: "Unsent changes" });
    }
    document.body.dataset.restored = String(this.takenOver);
    editor.live.release();
  }

  /**
   * The connection is back: what windows of the document closed meanwhile left (another tab,
   * closed while this one was offline) is taken over and sent too.
   */
  async takeOverMore() {
    const queue = await this.queue?.catch(() => null);
    if (queue && this.confirmed && !this.signedOut) await this.takeOver(queue).catch(() => {});
  }

  /**
   * Takes over the records windows of the document that are gone left for `queue`'s owner: put
   * ahead of this window's requests, drawn pending, and what the server refuses named in one notice.
   */
  async takeOver(queue) {
    const editor = this.editor;
    const { records, skipped } = await queue.takeOver();
    this.reportSkipped(skipped);
    this.takenOver += records.length;
    if (!records.length) return;
    const answers = editor.live.adopt(records.map((record) => ({
      id: record.requestId, message: record.message, body: JSON.parse(record.message), creates: record.creates ?? [],
    })));
    this.orphans(records);
    const refused = [];
    records.forEach((record, index) => {
      const answer = answers[index].catch((error) => {
        refused.push({ label: record.label || "A change", error });
      });
      if (Array.isArray(record.edits)) editor.requests.drawPending(record.edits, record.creates ?? [], answer);
    });
    Promise.all(answers.map((answer) => answer.catch(() => {}))).then(() => refused.length && this.reportRefused(refused));
  }

  /**
   * This window's requests were kept under the account the browser last knew, and the server now
   * names another (or nobody): they stay that account's, sent when it is back, and this window
   * goes on as the one named.
   */
  madeAsSomeoneElse(queue, owner) {
    const count = this.editor.live.withdraw();
    queue.owner = owner;
    if (count) {
      notify(`${changes(count)} made here offline ${count === 1 ? "was" : "were"} made as another account; ${count === 1 ? "it is" : "they are"} kept, and sent when that account signs in here again.`, { kind: "warning", title: "Not sent" });
    }
  }

  /**
   * Someone signed out in another tab: if it is who this window keeps things for, it stops —
   * nothing more is kept (the other tab deleted it all) — and goes to the sign-in page.
   */
  listenForSignOut() {
    if (!globalThis.BroadcastChannel) return;
    new BroadcastChannel(ACCOUNT_CHANNEL).addEventListener("message", async ({ data }) => {
      if (!data?.signedOut || data.signedOut !== (await this.queue)?.owner) return;
      this.signedOut = true;
      this.editor.gone = true; // no copy saved, nothing sent
      this.editor.live.close();
      api.goToSignIn();
    });
  }

  /** Resolves when the server may answer again: the connection came back, or a few seconds passed online. */
  nextChance() {
    return new Promise((resolve) => {
      this.wake = resolve;
      if (this.editor.online) setTimeout(resolve, 3000);
    });
  }

  /** The connection is back: a good time to ask again who is signed in, and to take over what closed windows left. */
  backOnline() {
    this.wake?.();
    this.takeOverMore();
  }

  /** Whether what waits is kept in the browser (if not, closing the window loses it). */
  get kept() {
    return !["refused", "full"].includes(document.body.dataset.storage);
  }

  keep(item) {
    const label = changeLabel(item.body, this.editor.state);
    return (async () => {
      const queue = await this.queue;
      if (!queue || this.signedOut) throw new Error("nothing is kept");
      await queue.keep({ requestId: item.id, message: item.message, edits: item.body?.edits, creates: item.creates, label });
    })().catch((error) => this.signedOut || this.warn(isQuotaError(error) ? "full" : "refused"));
  }

  /** The server answered `item` (or it can never be sent): forgotten, once what it made is known. */
  async forget(item, answer) {
    try {
      if (item.creates?.length) await this.settleCreated(item, answer);
      await (await this.queue)?.forget(item.id);
    } catch {
      /* a record left behind is sent again, by id: applied once all the same */
    }
  }

  // MARK: - Emojis added offline (./temporary-ids.js)

  /** Whether `item` may go now: "wait" while it names emojis an earlier request is still making. */
  prepare(item) {
    const edits = item.body?.edits;
    if (!namesTemporary(edits)) return "ready";
    const now = this.editor.requests.temporary.resolve(edits);
    if (now.never) return { code: "conflict", message: "The emoji it changes was never added." };
    if (!now.ready) return "wait";
    this.editor.live.reword(item, { ...item.body, edits: now.edits });
    this.queue?.then((queue) => queue?.rewrite(item.id, item.message, now.edits)).catch(() => {});
    return "ready";
  }

  /**
   * The request that makes `item.creates` was answered: their real ids are learned (or that they
   * never will be), and every waiting request naming them is written again — in memory and in
   * the browser — before `item` is forgotten, so no crash leaves a request naming ids no one knows.
   */
  async settleCreated(item, answer) {
    const temporary = this.editor.requests.temporary;
    if (answer?.type === "ack") temporary.learn(item.creates, await this.madeBy(answer.version));
    else temporary.refuse(item.creates);
    const queue = await this.queue;
    for (const waiting of this.editor.live.outbox) {
      const edits = waiting.body?.edits;
      const now = namesTemporary(edits) ? temporary.resolve(edits) : null;
      if (!now?.ready) continue;
      this.editor.live.reword(waiting, { ...waiting.body, edits: now.edits });
      await queue?.rewrite(waiting.id, waiting.message, now.edits);
    }
    this.editor.live.flush();
  }

  /** The ids of the emojis the change at `version` made, in order: seen live, or read from the history. */
  async madeBy(version) {
    const range = this.editor.created.range(version);
    if (range) return Array.from({ length: range[1] - range[0] }, (_, i) => range[0] + i);
    const { changes = [] } = await api.historyChanges(this.editor.documentId, version - 1, 1);
    const change = changes.find((candidate) => candidate.version === version);
    return (change?.patch.inserted ?? []).map((entry) => entry.emoji.id).sort((a, b) => a - b);
  }

  /** Temporary ids the taken-over requests name that none of them makes: their emojis were never added. */
  orphans(records) {
    const made = new Set(records.flatMap((record) => record.creates ?? []));
    const never = records.flatMap((record) => temporaryIdsIn(record.edits)).filter((id) => !made.has(id));
    if (never.length) this.editor.requests.temporary.refuse(never);
  }

  /**
   * Access to the document ended for good (or it was deleted): nothing kept for it is sent, and
   * its copy goes. The requests that can't be sent now (`dropped`: the live connection's, this
   * window's and those taken over) are named in a notice.
   */
  async forgetDocument(dropped = []) {
    if (dropped.length) {
      const named = dropped.map((item) => changeLabel(item.body, this.editor.state)).join("; ");
      notify(`${changes(dropped.length)} made here that hadn’t reached the server ${dropped.length === 1 ? "was" : "were"} discarded: ${named}.`, { kind: "error", title: "Not applied" });
    }
    this.editor.copy.forget();
    const queue = await this.queue;
    await queue?.forgetDocument().catch(() => {});
  }

  /**
   * No one is signed in (the live connection closed with 4401): a link visitor's link was revoked
   * (what a guest kept for it goes), or an account's session ended (kept: it is sent once they are
   * back). Then on to the sign-in page.
   */
  async noOneSignedIn() {
    if ((await this.identity.whoIsAsking()).key === "guest") await this.forgetDocument();
    api.goToSignIn();
  }

  // MARK: - Notices

  async checkRoom() {
    const room = await this.store.health();
    if (room.refused) this.warn("refused");
    else if (room.nearlyFull) this.warn("nearly full");
    else document.body.dataset.storage ??= "kept";
  }

  warn(why) {
    if (this.warned) return;
    this.warned = true;
    document.body.dataset.storage = why;
    const text = {
      refused: "This browser won’t keep changes for this site (a private window, or storage is off), so changes made offline are lost if this tab closes before they are sent.",
      full: "This browser is out of room for this site, so changes made offline are lost if this tab closes before they are sent. Free some space to keep them.",
      "nearly full": "This browser’s storage for this site is nearly full; soon changes made offline won’t be kept if this tab closes.",
    }[why];
    notify(text, { kind: "warning", title: "Changes kept in this tab only" });
  }

  reportSkipped({ unreadable, older }) {
    if (unreadable) {
      notify(`${changes(unreadable)} this browser kept couldn’t be read and ${unreadable === 1 ? "was" : "were"} skipped.`, { kind: "warning", title: "Unsent changes" });
    }
    if (older) {
      notify(`${changes(older)} kept by an older version of EmojiArt couldn’t be sent and ${older === 1 ? "was" : "were"} discarded.`, { kind: "warning", title: "Unsent changes" });
    }
  }

  reportRefused(everything) {
    // Signed out meanwhile (kept, sent once back), made as another account (kept for them), or the
    // document gone (named as discarded, `forgetDocument`): not refused.
    const refused = everything.filter(({ error }) => !["signed_out", "withdrawn", "gone"].includes(error?.code));
    if (!refused.length) return;
    const named = refused.map(({ label, error }) => `${label} — ${refusalReason(error, label)}`).join("; ");
    notify(`${changes(refused.length)} couldn’t be applied: ${named}.`, { kind: "error", title: "Not applied" });
  }
}
