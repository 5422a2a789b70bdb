// "Make Mosaic…" (issue #35): the dialog that lays the document's background picture out in
// emojis. Its controls — columns, which emojis, dither, the area (the whole picture, or a region
// dragged on the canvas and kept in the picture's pixels), keep or replace what is there — drive
// a preview the server draws (./mosaic-preview.js). Apply asks the server to make it: one undo
// step ("Make Mosaic") that every window, this one included, receives live as a change; the
// dialog shows progress until the new emojis are drawn, then closes. Viewers may preview only.
import * as api from "../api.js";
import { el } from "../dom.js";
import { intl } from "../intl.js";
import { MosaicPreview } from "./mosaic-preview.js";

const COLUMNS = { min: 10, max: 300, initial: 60 };
const DRAWN_WAIT_MS = 30_000; // the change the server answered is drawn by then, or the dialog closes anyway
const CHECK_DRAWN_MS = 50;
/** Errors a preview shares with Apply: the mosaic as set up can't be made. */
const SETUP_ERRORS = new Set(["out_of_range", "invalid_emoji", "invalid_background", "too_large"]);
const numbers = () => intl(Intl.NumberFormat);

/**
 * A world rectangle (y down; the picture centred at the origin, a point a pixel) as a region of
 * the picture `size` in its pixels — origin at its top left, y down — clamped to it; null when
 * nothing of the picture is left.
 */
function imageRegion(rect, size) {
  const x = (value) => Math.min(size.width, Math.max(0, Math.round(value + size.width / 2)));
  const y = (value) => Math.min(size.height, Math.max(0, Math.round(value + size.height / 2)));
  const region = { x: x(rect.left), y: y(rect.top), width: x(rect.right) - x(rect.left), height: y(rect.bottom) - y(rect.top) };
  return region.width >= 1 && region.height >= 1 ? region : null;
}

/** A region of the picture `size` (its pixels) as a world rectangle: the inverse of imageRegion. */
const worldRect = (region, size) => ({
  left: region.x - size.width / 2,
  top: region.y - size.height / 2,
  right: region.x + region.width - size.width / 2,
  bottom: region.y + region.height - size.height / 2,
});

/** A region made whole and kept inside the picture `size`, at least a pixel each way. */
function clampRegion(region, size) {
  const whole = (value, low, high) => Math.min(high, Math.max(low, Math.round(Number(value) || 0)));
  const x = whole(region.x, 0, size.width - 1);
  const y = whole(region.y, 0, size.height - 1);
  return { x, y, width: whole(region.width, 1, size.width - x), height: whole(region.height, 1, size.height - y) };
}

/** "80 × 60 · 4,800 emojis" */
const mosaicSize = ({ columns, rows, emojis }) =>
  `${numbers().format(columns)} × ${numbers().format(rows)} · ${numbers().format(emojis)} ${emojis === 1 ? "emoji" : "emojis"}`;

export class MosaicDialog {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    this.dialog = null; // built when first opened
    this.size = null; // the picture's pixel size when opened: {width, height}
    this.pictureURL = null; // which picture `region` belongs to
    this.region = null; // the area in the picture's pixels, when it is "A region"
    this.framing = false; // stepped aside while a region is dragged on the canvas
    this.applying = false;
    this.lastPreview = null;
    this.setupError = null;
    this.preview = new MosaicPreview(editor.documentId, {
      loading: () => this.showLoading(),
      shown: (preview) => this.showPreview(preview),
      failed: (error) => this.showPreviewError(error),
    });
  }

  /** Whether the command applies: the document has its background picture (viewers may preview). */
  get available() {
    const editor = this.editor;
    const background = editor.state?.backgroundState;
    return Boolean(background) && background.status === "found" && background.width > 0 && background.height > 0
      && !editor.gone && !editor.previewing;
  }

  get isOpen() {
    return Boolean(this.dialog?.open) || this.framing;
  }

  open() {
    if (!this.available || this.isOpen) return;
    this.dialog ??= this.build();
    const background = this.editor.state.backgroundState;
    this.size = { width: Number(background.width), height: Number(background.height) };
    if (this.pictureURL !== background.imageURL) {
      this.pictureURL = background.imageURL;
      this.region = { x: 0, y: 0, ...this.size };
    }
    this.region = clampRegion(this.region, this.size);
    this.showRegion();
    this.fillEmojiChoices();
    this.unsubscribe = this.editor.palettes.dialogs.feed.subscribe(() => this.fillEmojiChoices());
    this.showRole();
    this.dialog.showModal();
    this.ask({ now: true });
  }

  close() {
    if (this.dialog?.open) this.dialog.close();
  }

  /** The dialog closed (Cancel, Escape, or done): everything it showed goes. */
  closed() {
    if (this.framing) return; // only stepped aside
    this.preview.stop();
    this.picture.hidden = true; // the next opening shows its own
    this.picture.removeAttribute("src");
    this.sizeText.textContent = "";
    this.lastPreview = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.editor.canvas.region.show(null);
    this.editor.canvas.root.focus({ preventScroll: true });
  }

  // MARK: - The controls

  build() {
    const id = (name) => "mosaic-" + name;
    const radio = (name, value, text, checked = false) =>
      el("label", { class: "choice" }, el("input", { type: "radio", name, value, checked }), el("span", { text }));
    const columns = { min: COLUMNS.min, max: COLUMNS.max, step: 1, value: COLUMNS.initial };

    this.columnsRange = el("input", { type: "range", id: id("columns-range"), ...columns });
    this.columnsNumber = el("input", { type: "number", id: id("columns"), ...columns, inputmode: "numeric", "aria-label": "Columns (number)" });
    this.emojiSet = el("select", { id: id("emojis") });
    this.emojiText = el("input", {
      type: "text", id: id("emoji-text"), placeholder: "Type or paste emojis", autocomplete: "off", spellcheck: "false",
      "aria-label": "These emojis", hidden: true,
    });
    this.dither = el("input", { type: "checkbox", id: id("dither") });
    const regionFields = [["x", "X"], ["y", "Y"], ["width", "Width"], ["height", "Height"]];
    this.regionFields = Object.fromEntries(regionFields.map(([name]) => [name, el("input", {
      type: "number", id: id("region-" + name), min: name === "x" || name === "y" ? 0 : 1, step: 1, inputmode: "numeric",
    })]));
    this.drawButton = el("button", { type: "button", class: "button small", id: id("draw-region"), text: "Draw on the canvas…" });
    this.regionBox = el("div", { class: "mosaic-region", hidden: true },
      this.drawButton,
      el("div", { class: "mosaic-region-fields" }, regionFields.map(([name, label]) =>
        el("label", { class: "field" }, el("span", { text: label }), this.regionFields[name]))),
      el("p", { class: "hint", text: "In the picture’s pixels, from its top left corner." }));

    this.picture = el("img", { class: "mosaic-image", alt: "", hidden: true });
    this.loading = el("div", { class: "mosaic-loading", "aria-hidden": "true", hidden: true },
      el("span", { class: "spinner" }), el("span", { text: "Drawing…" }));
    this.sizeText = el("p", { class: "mosaic-size", id: id("size"), "aria-live": "polite" });
    this.error = el("p", { class: "form-error", id: id("error"), role: "alert", hidden: true });
    this.viewerNote = el("p", {
      class: "hint", id: id("viewer-note"), hidden: true,
      text: "You can view this document but not change it: the preview shows what a mosaic would look like; only an editor can make one.",
    });
    this.progressText = el("span", { id: id("progress-text"), text: "Making mosaic…" });
    this.progressBar = el("progress", { max: 1, "aria-labelledby": id("progress-text") });
    this.progress = el("div", { class: "mosaic-progress", role: "status", hidden: true }, this.progressBar, this.progressText);
    this.cancelButton = el("button", { type: "button", class: "button", text: "Cancel" });
    this.applyButton = el("button", { type: "button", class: "button primary", id: id("apply"), text: "Apply" });

    const form = el("form", { class: "mosaic-form", on: { submit: (event) => event.preventDefault() } },
      el("h2", { id: id("title"), text: "Make Mosaic" }),
      el("div", { class: "mosaic-body" },
        el("figure", { class: "mosaic-preview" },
          el("div", { class: "mosaic-picture" }, this.picture, this.loading),
          el("figcaption", {}, this.sizeText)),
        el("div", { class: "mosaic-controls" },
          el("div", { class: "field" }, el("label", { for: id("columns-range"), text: "Columns" }),
            el("div", { class: "mosaic-columns" }, this.columnsRange, this.columnsNumber)),
          el("div", { class: "field" }, el("label", { for: id("emojis"), text: "Emojis" }), this.emojiSet, this.emojiText),
          el("label", { class: "choice" }, this.dither, el("span", { text: "Dither (mix emojis for the shades between them)" })),
          el("fieldset", { class: "mosaic-area" }, el("legend", { text: "Area" }),
            radio("mosaic-fit", "background", "Whole background", true),
            radio("mosaic-fit", "region", "A region"),
            this.regionBox),
          el("fieldset", {}, el("legend", { text: "Emojis already there" }),
            radio("mosaic-replace", "keep", "Keep the emojis already there", true),
            radio("mosaic-replace", "replace", "Replace the emojis in the area")))),
      this.error,
      this.progress,
      this.viewerNote,
      el("div", { class: "dialog-actions" }, this.cancelButton, this.applyButton));
    this.form = form;
    const dialog = el("dialog", { class: "dialog mosaic-dialog", id: "mosaic-dialog", "aria-labelledby": id("title") }, form);
    document.body.append(dialog);
    this.listen(dialog);
    return dialog;
  }

  /** Any change of a control asks for a new preview; the buttons do what they say. */
  listen(dialog) {
    const changed = () => this.ask();
    this.columnsRange.addEventListener("input", () => {
      this.columnsNumber.value = this.columnsRange.value;
      changed();
    });
    this.columnsNumber.addEventListener("input", () => {
      const value = Number(this.columnsNumber.value);
      if (!Number.isInteger(value) || value < COLUMNS.min || value > COLUMNS.max) return;
      this.columnsRange.value = String(value);
      changed();
    });
    this.columnsNumber.addEventListener("change", () => {
      this.columnsNumber.value = this.columnsRange.value = String(this.columns);
      changed();
    });
    this.emojiSet.addEventListener("change", () => {
      this.emojiText.hidden = this.emojiSet.value !== "text";
      if (!this.emojiText.hidden) this.emojiText.focus();
      changed();
    });
    this.emojiText.addEventListener("input", (event) => !event.isComposing && changed());
    this.dither.addEventListener("change", changed);
    for (const radio of this.form.querySelectorAll("input[type=radio]")) {
      radio.addEventListener("change", () => {
        this.showRegion();
        changed();
      });
    }
    for (const field of Object.values(this.regionFields)) {
      field.addEventListener("change", () => {
        const typed = Object.fromEntries(Object.entries(this.regionFields).map(([name, input]) => [name, input.value]));
        this.region = clampRegion(typed, this.size);
        this.showRegion();
        changed();
      });
    }
    this.drawButton.addEventListener("click", () => this.stepAside());
    this.cancelButton.addEventListener("click", () => this.close());
    this.applyButton.addEventListener("click", () => this.apply());
    dialog.addEventListener("cancel", (event) => this.applying && event.preventDefault());
    dialog.addEventListener("close", () => this.closed());
  }

  /** The columns asked for: the number typed, kept within 10–300 (the slider's, while the field is empty). */
  get columns() {
    const value = Math.round(Number(this.columnsNumber.value || this.columnsRange.value));
    return Number.isFinite(value) ? Math.min(COLUMNS.max, Math.max(COLUMNS.min, value)) : COLUMNS.initial;
  }

  get fit() {
    return this.form.querySelector("input[name=mosaic-fit]:checked").value;
  }

  /** The mosaic as the controls have it (the body of docs/API.md's mosaic requests). */
  get options() {
    const set = this.emojiSet.value;
    return {
      columns: this.columns,
      emojis: set === "text" ? this.emojiText.value.trim() : set,
      dither: this.dither.checked,
      fit: this.fit,
      region: this.fit === "region" ? this.region : undefined,
      replace: this.form.querySelector("input[name=mosaic-replace]:checked").value === "replace",
    };
  }

  /** "All emojis", each of the user's palettes, "These emojis:"; the choice made stays if it still can. */
  fillEmojiChoices() {
    const chosen = this.emojiSet.value || "all";
    const palettes = this.editor.palettes.dialogs.feed.palettes;
    this.emojiSet.replaceChildren(
      el("option", { value: "all", text: "All emojis" }),
      ...palettes.map((palette) => el("option", { value: "palette:" + palette.id, text: palette.name })),
      el("option", { value: "text", text: "These emojis:" }));
    this.emojiSet.value = [...this.emojiSet.options].some((option) => option.value === chosen) ? chosen : "all";
    this.emojiText.hidden = this.emojiSet.value !== "text";
  }

  showRole() {
    const canEdit = this.editor.canEdit;
    this.viewerNote.hidden = canEdit;
    if (canEdit) this.applyButton.removeAttribute("aria-describedby");
    else this.applyButton.setAttribute("aria-describedby", this.viewerNote.id);
    this.enable();
  }

  /** Apply applies when this user may edit, nothing is under way, and the last preview found nothing wrong. */
  enable() {
    const controls = this.form.querySelectorAll(".mosaic-controls input, .mosaic-controls select, .mosaic-controls button");
    for (const control of controls) control.disabled = this.applying;
    this.cancelButton.disabled = this.applying;
    this.applyButton.disabled = this.applying || !this.editor.canEdit || this.setupError !== null || !this.options.emojis;
  }

  showRegion() {
    const region = this.fit === "region";
    this.regionBox.hidden = !region;
    for (const [name, input] of Object.entries(this.regionFields)) {
      input.value = String(this.region[name]);
      if (name === "x" || name === "width") input.max = String(this.size.width - (name === "width" ? this.region.x : 1));
      else input.max = String(this.size.height - (name === "height" ? this.region.y : 1));
    }
    this.editor.canvas.region.show(region && !this.framing ? worldRect(this.region, this.size) : null);
  }

  // MARK: - The preview

  ask({ now = false } = {}) {
    if (!this.dialog) return;
    if (!this.options.emojis) {
      this.preview.cancel();
      this.showLoading(false);
      this.dialog.dataset.preview = "failed";
      this.showError("Type or paste the emojis to make the mosaic of.");
      return;
    }
    this.preview.ask(this.options, { now });
  }

  showLoading(loading = true) {
    this.loading.hidden = !loading;
    this.sizeText.classList.toggle("stale", loading);
    if (loading) this.dialog.dataset.preview = "loading";
  }

  showPreview(preview) {
    this.lastPreview = preview;
    this.picture.src = preview.url;
    this.picture.alt = "Preview of the mosaic";
    this.picture.hidden = false;
    this.loading.hidden = true;
    this.sizeText.classList.remove("stale");
    this.sizeText.textContent = mosaicSize(preview);
    this.dialog.dataset.preview = "shown";
    this.setupError = null;
    this.showError(null);
  }

  showPreviewError(error) {
    this.loading.hidden = true;
    this.dialog.dataset.preview = "failed";
    this.setupError = SETUP_ERRORS.has(error.code) ? error.code : null;
    this.showError(error.retryAfter ? `${error.message} Trying again shortly…` : error.message);
  }

  /** Shows what went wrong in the dialog (its notices would be behind it); null clears it. */
  showError(message) {
    this.error.hidden = !message;
    if (message && this.error.textContent !== message) this.error.textContent = message;
    this.enable();
  }

  // MARK: - A region dragged on the canvas

  /** The dialog steps aside while a rectangle is dragged over the picture, and comes back with it. */
  stepAside() {
    const canvas = this.editor.canvas;
    this.framing = true;
    this.preview.cancel();
    this.dialog.close();
    canvas.region.show(null);
    // The whole picture in view, as large as it goes: the rectangle is drawn over it (zoom and pan still work).
    const picture = canvas.background.box;
    if (picture) canvas.viewport.fit({ left: -picture.w / 2, top: -picture.h / 2, right: picture.w / 2, bottom: picture.h / 2 }, { margin: 48 });
    canvas.region.start({
      prompt: "Drag over the picture to choose the area of the mosaic.",
      chosen: (rect) => {
        const region = imageRegion(rect, this.size);
        if (!region) {
          canvas.region.say("That missed the picture: drag a rectangle over it.");
          return;
        }
        this.region = region;
        canvas.region.stop();
        this.comeBack();
      },
      cancelled: () => this.comeBack(),
    });
  }

  comeBack() {
    this.framing = false;
    this.dialog.showModal();
    this.showRegion();
    this.drawButton.focus();
    this.ask({ now: true });
  }

  // MARK: - Apply

  async apply() {
    if (this.applying || !this.editor.canEdit) return;
    const options = this.options;
    this.applying = true;
    this.preview.cancel();
    this.showError(null);
    this.showProgress("Making mosaic…", null);
    let state;
    try {
      state = await api.makeMosaic(this.editor.documentId, options);
    } catch (error) {
      this.applying = false;
      this.progress.hidden = true;
      this.showError(error.message);
      return;
    }
    const placed = this.lastPreview?.emojis;
    this.showProgress(placed ? `Drawing ${numbers().format(placed)} ${placed === 1 ? "emoji" : "emojis"}…` : "Drawing the emojis…", 0);
    await this.drawn(state.version);
    this.applying = false;
    this.progress.hidden = true;
    this.close();
    this.editor.announcer.say(placed ? `Made a mosaic of ${numbers().format(placed)} ${placed === 1 ? "emoji" : "emojis"}` : "Made a mosaic");
  }

  /** Shows the progress bar with `text`; `value` 0–1, or null while the server works (indeterminate). */
  showProgress(text, value) {
    this.progress.hidden = false;
    this.progressText.textContent = text;
    if (value === null) this.progressBar.removeAttribute("value");
    else this.progressBar.value = value;
    this.enable();
  }

  /** Resolves once this window shows `version` (the change comes live) with every emoji drawn, or after a while. */
  drawn(version) {
    const editor = this.editor;
    const until = Date.now() + DRAWN_WAIT_MS;
    return new Promise((resolve) => {
      const check = () => {
        const arrived = editor.state.version >= version && !editor.renderScheduled;
        const drawn = arrived ? editor.canvas.layer.drawn : 0;
        if (arrived) this.progressBar.value = drawn;
        if ((arrived && drawn === 1) || Date.now() > until || editor.gone) resolve();
        else setTimeout(check, CHECK_DRAWN_MS);
      };
      check();
    });
  }
}
