// The editor's clipboard commands: Copy, Cut, Paste and Duplicate. Ctrl+C, Ctrl+X and Ctrl+V
// arrive as the browser's copy, cut and paste events; the context menu's Copy and Cut ask the
// browser for its own copy, and its Paste reads the clipboard API (which may ask permission).
// What goes on the clipboard and what is read back is ./clipboard.js; where pasted emojis land —
// a step on from where they were copied, a step more for each paste of the same in a row — is
// decided here.
import { isTyping } from "../canvas/canvas.js";
import { notify } from "../dom.js";
import { emojiGrid, gridPlacement } from "../emoji/emoji-text.js";
import { emojisInText, MAXIMUM_PASTED, readFragment, writeFragment } from "./clipboard.js";
import { clampCoordinate } from "./edit-requests.js";

const EMOJI_LIMIT = 100_000; // a document holds at most this many emojis (DocumentLimits.maximumEmojiCount)
const PASTE_STEP = 16; // screen px: each paste or duplicate lands this far right and down of the last

export class ClipboardCommands {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    /** The last paste: which clipboard content, and how many times in a row it was pasted. */
    this.lastPaste = { key: null, count: 0 };
  }

  /** Handles the browser's copy, cut and paste events (not those meant for a text field). */
  listen() {
    const editor = this.editor;
    const ours = (event) => !isTyping(event.target) && editor.state && event.clipboardData;
    document.addEventListener("copy", (event) => {
      if (ours(event) && this.copyTo(event.clipboardData)) event.preventDefault();
    });
    document.addEventListener("cut", (event) => {
      if (!ours(event) || !this.copyTo(event.clipboardData)) return;
      event.preventDefault();
      if (editor.canEdit) editor.deleteSelection();
    });
    document.addEventListener("paste", (event) => {
      if (!ours(event)) return;
      event.preventDefault();
      this.paste(event.clipboardData);
    });
  }

  /** Copies the selection to the clipboard of a copy or cut event; false when there is none. */
  copyTo(data) {
    const emojis = this.selectedEmojis();
    if (!emojis.length) return false;
    writeFragment(data, emojis);
    this.lastPaste = { key: null, count: 0 };
    return true;
  }

  /** Copy or Cut chosen from a menu: the browser's own copy, which the copy/cut listeners fill. */
  command(name) {
    if (!document.execCommand(name)) notify("The browser didn’t allow that; use the keyboard shortcut.", { title: "Clipboard" });
  }

  /** Paste chosen from a menu: the clipboard is read through the clipboard API (it may ask first). */
  async pasteFromClipboard() {
    let items;
    try {
      items = await navigator.clipboard.read();
    } catch {
      notify("The browser didn’t let the page read the clipboard; press Ctrl+V instead.", { title: "Paste" });
      return;
    }
    const strings = new Map();
    const files = [];
    for (const item of items) {
      for (const type of item.types) {
        const blob = await item.getType(type);
        if (type.startsWith("image/")) files.push(new File([blob], "pasted", { type }));
        else strings.set(type.replace(/^web /, ""), await blob.text());
      }
    }
    this.paste({ getData: (type) => strings.get(type) || "", files });
  }

  /**
   * Handles pasted data (a paste event's DataTransfer, or what the clipboard API read): an
   * EmojiArt fragment, emojis as text, or — as a drop does — an image or an image address.
   */
  paste(data) {
    const editor = this.editor;
    if (editor.readOnly) {
      notify("You can view this document but not change it.", { title: "View only" });
      return;
    }
    const get = (type) => data.getData(type) || "";
    const fragment = readFragment(get);
    if (fragment) return this.pasteEmojis(fragment, JSON.stringify(fragment));
    const files = Array.from(data.files || []).length;
    const grid = files ? null : emojiGrid(get("text/plain"));
    if (grid) return this.pasteGrid(grid);
    const text = get("text/plain").trim();
    const emojis = text && !files ? emojisInText(text) : null;
    if (emojis) return this.pasteText(emojis);
    if (text && !/^(https?:\/\/|data:image\/)/i.test(text) && !get("text/uri-list")) {
      notify("The clipboard holds text that isn’t emojis. Paste emojis, an image, or an image’s address.", { kind: "error", title: "Paste" });
      return;
    }
    return editor.drops.receive(data, editor.canvas.visibleCentre());
  }

  duplicate() {
    const editor = this.editor;
    const ids = [...editor.canvas.selection];
    const offset = this.nextStep("duplicate:" + ids.join(","));
    editor.requests.perform([{ type: "duplicate", ids, offset }]).then((version) => version && editor.selectCreated(version));
  }

  /** The selected emojis as the state has them, in drawing order. */
  selectedEmojis() {
    const { state, canvas } = this.editor;
    const selection = canvas.selection;
    return state ? state.emojis.filter((emoji) => selection.has(emoji.id)) : [];
  }

  /** The offset, in document points, of the next paste of `key` (or a duplicate): a cascade. */
  nextStep(key) {
    this.lastPaste = this.lastPaste.key === key ? { key, count: this.lastPaste.count + 1 } : { key, count: 1 };
    const step = Math.max(1, Math.round(PASTE_STEP / this.editor.canvas.zoom));
    return { x: step * this.lastPaste.count, y: -step * this.lastPaste.count };
  }

  /**
   * Adds copied emojis: where they were, moved one step (and one more for each paste of the
   * same in a row) — or, when that place is out of view, around the middle of the view.
   */
  pasteEmojis(emojis, key) {
    const editor = this.editor;
    if (!editor.canEdit) return;
    const canvas = editor.canvas;
    const xs = emojis.map((emoji) => emoji.x);
    const ys = emojis.map((emoji) => emoji.y);
    const middle = { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: (Math.min(...ys) + Math.max(...ys)) / 2 };
    const visible = canvas.viewport.visibleWorldRect();
    const inView =
      middle.x >= visible.left && middle.x <= visible.left + visible.width && -middle.y >= visible.top && -middle.y <= visible.top + visible.height;
    const step = this.nextStep(key);
    const centre = canvas.visibleCentre();
    const shift = inView ? step : { x: Math.round(centre.x - middle.x) + step.x, y: Math.round(centre.y - middle.y) + step.y };
    const pasted = emojis.map(({ text, x, y, size, rotation }) => ({
      text,
      position: { x: clampCoordinate(x + shift.x), y: clampCoordinate(y + shift.y) },
      size,
      rotation: (((rotation || 0) % 360) + 360) % 360,
    }));
    return editor.requests.perform([{ type: "paste", emojis: pasted }]).then((version) => version && editor.selectCreated(version));
  }

  /** Adds emojis typed or copied as text, in a row around the middle of the view. */
  pasteText(texts) {
    const size = this.editor.newEmojiSize;
    const centre = this.editor.canvas.visibleCentre();
    const gap = Math.round(size * 1.25);
    const start = centre.x - (gap * (texts.length - 1)) / 2;
    const emojis = texts.map((text, i) => ({ text, x: Math.round(start + i * gap), y: Math.round(centre.y), size }));
    return this.pasteEmojis(emojis, null);
  }

  /**
   * Adds emoji text laid out as its grid (../emoji/emoji-text.js): a cell a new emoji's size
   * apart, the block in the middle of the view, as one paste. Text the server exported comes
   * back as the same grid.
   */
  pasteGrid(grid) {
    const editor = this.editor;
    const count = grid.cells.length;
    const many = (n) => n.toLocaleString();
    if (count > MAXIMUM_PASTED) {
      notify(`That text holds ${many(count)} emojis; one paste adds at most ${many(MAXIMUM_PASTED)}.`, { kind: "error", title: "Paste" });
      return;
    }
    if (editor.emojiCount + count > EMOJI_LIMIT) {
      notify(`This document has ${many(editor.emojiCount)} emojis; ${many(count)} more would pass its limit of ${many(EMOJI_LIMIT)}.`,
        { kind: "error", title: "Paste" });
      return;
    }
    // The same grid pasted again (whatever its line ends or fillers) lands one step further.
    return this.pasteEmojis(gridPlacement(grid, editor.newEmojiSize, editor.canvas.visibleCentre()), "grid:" + JSON.stringify(grid.cells));
  }
}
