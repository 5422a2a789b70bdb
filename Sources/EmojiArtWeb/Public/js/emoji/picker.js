// The emoji picker (after nolanlawson/emoji-picker-element): every emoji of the catalogue by
// group, a search box that finds them by name and keyword in the page's language, a skin-tone
// chooser, the emojis used last as the first row, long press or right-click for an emoji's
// tones, and every part usable from the keyboard. Opened by the editor (its palette-bar button,
// the E key, "Replace with…") and by the palette editor; whoever opens it says what choosing does.
//
// It is a non-modal panel (the canvas stays a drop target, so an emoji can be dragged from it as
// from the palette) placed by the button that opened it, or a sheet along the bottom of a phone.
// The grid draws only the rows in view (./picker-grid.js).
import { el } from "../dom.js";
import { EMOJI_DRAG_TYPE, followTouchDrag } from "../palette-bar.js";
import { loadCatalogue } from "./catalogue.js";
import { PickerGrid } from "./picker-grid.js";

const LONG_PRESS_MS = 500;
const CLICK_AFTER_RELEASE_MS = 400; // a busy page may deliver the click of a lifted finger this late
const SEARCH_LIMIT = 500; // results shown; a one-letter query matches most of the catalogue
const ANNOUNCE_DELAY = 500; // ms of quiet typing before the number of results is read out
const PHONE_WIDTH = 600; // px: narrower than this, the picker is a sheet along the bottom
const TONE_SAMPLE = "✋";
const TONES = ["", "\u{1F3FB}", "\u{1F3FC}", "\u{1F3FD}", "\u{1F3FE}", "\u{1F3FF}"];
const RECENT_TITLE = "Recently used";

export class EmojiPicker {
  /** @param {import("./preferences.js").EmojiPreferences} preferences the user's tone and recent emojis */
  constructor(preferences) {
    this.preferences = preferences;
    this.catalogue = null;
    this.root = null;
    this.options = null;
    this.query = "";
    this.announceTimer = 0;
    this.press = null;
    preferences.subscribe(() => {
      if (this.isOpen && !this.query) this.showBrowse({ keepScroll: true });
      if (this.root) this.showTone();
    });
  }

  get isOpen() {
    return Boolean(this.root) && !this.root.hidden;
  }

  /**
   * Loads the catalogue and folds the search's terms when the page is idle, so that even the
   * first keystroke is quick — asked for once the page has drawn what it opened with.
   */
  prepare() {
    requestIdleCallback(() => loadCatalogue().then((catalogue) => requestIdleCallback(() => catalogue.prepareSearch(), { timeout: 5000 }), () => {}), { timeout: 2000 });
  }

  /**
   * Opens the picker by `anchor` (the button that opened it; focus returns there on Escape).
   * `choose(emoji)`: what choosing an emoji does. `place(emoji, clientX, clientY)`: where an emoji
   * dragged out of it by touch lands (the editor's canvas), if anywhere. `label`: what the picker
   * is for ("Add an emoji", "Replace with…").
   */
  open({ anchor, choose, place = null, label = "Emojis" }) {
    this.build();
    if (this.isOpen) this.close({ focus: false }); // opened again from elsewhere: that opener is done
    this.options = { anchor, choose, place };
    this.title.textContent = label;
    this.showTone();
    // Inside a modal dialog (the palette editor), anything outside it is inert: join it.
    const host = anchor?.closest("dialog") ?? document.body;
    if (this.root.parentElement !== host) host.append(this.root);
    this.root.hidden = false;
    anchor?.setAttribute("aria-expanded", "true");
    this.search.value = "";
    this.query = "";
    this.collapseTones({ focus: false });
    this.closeVariants({ focus: false });
    this.place();
    this.search.focus();
    this.preferences.load();
    if (this.catalogue) this.showBrowse();
    else {
      this.status.textContent = "Loading emojis…";
      loadCatalogue().then(
        (catalogue) => {
          this.catalogue = catalogue;
          this.showTabs();
          this.showTone();
          if (this.isOpen) this.searched(); // what was typed meanwhile is searched, not drawn over
          // Fold the search's terms after the first group is drawn, before the first keystroke.
          setTimeout(() => catalogue.prepareSearch(), 50);
        },
        (error) => (this.status.textContent = "Couldn’t load the emojis: " + error.message),
      );
    }
    document.body.dataset.emojiPicker = "open";
  }

  close({ focus = true } = {}) {
    if (!this.isOpen) return;
    this.root.hidden = true;
    this.closeVariants({ focus: false });
    delete document.body.dataset.emojiPicker;
    const anchor = this.options?.anchor;
    anchor?.setAttribute("aria-expanded", "false");
    if (focus && anchor?.isConnected) anchor.focus({ preventScroll: true });
  }

  /** Chooses an emoji: remembered as recent, handed to whoever opened the picker, which closes. */
  choose(emoji) {
    const { choose } = this.options;
    this.close();
    this.preferences.addRecent(emoji);
    choose(emoji);
  }

  // MARK: - Building (once, at the first open)

  build() {
    if (this.root) return;
    this.title = el("h2", { class: "picker-title", id: "emoji-picker-title" });
    this.search = el("input", {
      type: "search", class: "picker-search", id: "emoji-picker-search", placeholder: "Search emojis", autocomplete: "off",
      spellcheck: "false", maxlength: "100", "aria-label": "Search emojis", "aria-controls": "emoji-picker-grid",
    });
    this.toneButton = el("button", {
      type: "button", class: "picker-tone", id: "emoji-picker-tone", "aria-haspopup": "true", "aria-expanded": "false",
      "aria-controls": "emoji-picker-tones",
    });
    this.tones = el("div", { class: "picker-tones", id: "emoji-picker-tones", role: "radiogroup", "aria-label": "Skin tone", hidden: true });
    this.tabs = el("div", { class: "picker-tabs", role: "tablist", "aria-label": "Emoji groups" });
    const scroller = el("div", { class: "picker-scroll" });
    this.grid = new PickerGrid(scroller, {
      label: (emoji) => this.catalogue?.name(emoji) ?? "",
      activated: (index) => this.showPreview(this.grid.items[index]),
    });
    this.preview = el("div", { class: "picker-preview", "aria-hidden": "true" });
    this.status = el("p", { class: "picker-status", role: "status", "aria-live": "polite" });
    this.root = el("section", {
      class: "emoji-picker", id: "emoji-picker", role: "dialog", "aria-modal": "false", "aria-labelledby": "emoji-picker-title", hidden: true,
    },
      el("div", { class: "picker-head" }, this.title,
        el("button", { type: "button", class: "button icon picker-close", "aria-label": "Close", title: "Close (Esc)", text: "×",
          on: { click: () => this.close() } })),
      el("div", { class: "picker-bar" }, this.search, this.toneButton, this.tones),
      this.tabs, scroller, this.preview, this.status);
    this.listen(scroller);
  }

  listen(scroller) {
    const root = this.root;
    this.search.addEventListener("input", () => this.searched());
    this.search.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" && this.grid.items.length) {
        event.preventDefault();
        this.grid.activate(0);
      } else if (event.key === "Enter" && this.query && this.grid.items.length) {
        event.preventDefault();
        this.choose(this.grid.items[0]);
      }
    });
    this.toneButton.addEventListener("click", () => (this.tones.hidden ? this.expandTones() : this.collapseTones()));
    this.tones.addEventListener("keydown", (event) => this.toneKey(event));
    this.tabs.addEventListener("keydown", (event) => this.tabKey(event));
    scroller.addEventListener("scroll", () => this.followScroll(), { passive: true });
    const cellOf = (event) => event.target.closest?.(".picker-emoji");
    const emojiOf = (cell) => this.grid.items[Number(cell.dataset.index)];
    this.grid.grid.addEventListener("click", (event) => {
      const cell = cellOf(event);
      // Not after a long press or a drag by touch, nor on the emoji whose tones are showing.
      if (!cell || this.press?.consumed || this.variants?.cell === cell) return;
      this.choose(emojiOf(cell));
    });
    this.grid.grid.addEventListener("focusin", (event) => {
      const cell = cellOf(event);
      if (cell && Number(cell.dataset.index) !== this.grid.active) this.grid.activate(Number(cell.dataset.index), { focus: false });
    });
    this.grid.grid.addEventListener("pointerover", (event) => {
      const cell = cellOf(event);
      if (cell) this.showPreview(emojiOf(cell));
    });
    this.grid.grid.addEventListener("keydown", (event) => {
      const cell = cellOf(event);
      if (!cell) return;
      if (this.grid.key(event)) return;
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        this.choose(emojiOf(cell));
      } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
        this.search.focus(); // typing anywhere in the grid searches
      }
    });
    this.grid.grid.addEventListener("contextmenu", (event) => {
      const cell = cellOf(event);
      if (!cell) return;
      event.preventDefault();
      this.openVariants(cell);
    });
    this.grid.grid.addEventListener("dragstart", (event) => {
      const cell = cellOf(event);
      if (!cell) return;
      const emoji = emojiOf(cell);
      event.dataTransfer.setData(EMOJI_DRAG_TYPE, emoji);
      event.dataTransfer.setData("text/plain", emoji);
      event.dataTransfer.effectAllowed = "copy";
    });
    this.grid.grid.addEventListener("pointerdown", (event) => this.pointerDown(event));
    // Keys inside the picker are the picker's: none of them is an editor shortcut.
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault(); // inside the palette editor, Escape would close it too
        if (this.variants) this.closeVariants();
        else if (!this.tones.hidden) this.collapseTones();
        else this.close();
      }
      event.stopPropagation();
    });
    document.addEventListener("pointerdown", (event) => {
      if (!this.isOpen || root.contains(event.target) || this.options?.anchor?.contains(event.target)) return;
      if (event.target.closest?.(".picker-variants")) return;
      this.close({ focus: false });
    }, { capture: true });
    addEventListener("resize", () => this.isOpen && this.place());
  }

  /** By the anchor, above it when there is room (the palette bar is at the bottom); a bottom sheet on a phone. */
  place() {
    const root = this.root;
    root.classList.toggle("sheet", innerWidth < PHONE_WIDTH);
    root.style.left = root.style.top = root.style.bottom = "";
    if (innerWidth < PHONE_WIDTH) return;
    const anchor = this.options.anchor?.getBoundingClientRect() ?? { left: innerWidth / 2, top: innerHeight / 2, bottom: innerHeight / 2 };
    const width = root.offsetWidth;
    const height = root.offsetHeight;
    root.style.left = Math.max(8, Math.min(anchor.left, innerWidth - width - 8)) + "px";
    if (anchor.top - height - 8 >= 8) root.style.top = anchor.top - height - 8 + "px";
    else root.style.top = Math.max(8, Math.min(anchor.bottom + 8, innerHeight - height - 8)) + "px";
  }

  // MARK: - What the grid shows

  /** The groups (tone applied), with the recent emojis first. */
  showBrowse({ keepScroll = false } = {}) {
    if (!this.catalogue) return;
    const tone = this.preferences.skinTone;
    const sections = this.catalogue.groups.map((group) => ({
      title: group.name,
      emojis: tone ? group.emojis.map((emoji) => this.catalogue.withTone(emoji, tone)) : group.emojis,
    }));
    const recent = this.preferences.recentEmojis;
    if (recent.length) sections.unshift({ title: RECENT_TITLE, emojis: recent });
    // Redrawn while someone works in it (their tone or recent emojis arrived): the focus stays where it was.
    const focused = keepScroll ? this.focusedPlace() : null;
    this.closeVariants({ focus: false }); // its emoji's cell is drawn anew: the focus goes back to that emoji
    this.sectionTitles = sections.map((section) => section.title);
    this.grid.show(sections, { scrollTop: keepScroll ? this.grid.scroller.scrollTop : 0 });
    this.tabs.hidden = false;
    this.showTabs();
    this.status.textContent = "";
    this.showPreview(this.grid.items[0]);
    if (focused) this.refocus(focused);
  }

  /** Where the focus is among the tabs or the emojis, by section title (indices move when the recent ones appear). */
  focusedPlace() {
    let element = document.activeElement;
    if (this.variants?.list.contains(element)) element = this.variants.cell;
    if (element?.parentElement === this.tabs) return { tab: element.getAttribute("aria-label") };
    if (!element?.classList.contains("picker-emoji") || !this.grid.grid.contains(element)) return null;
    const index = Number(element.dataset.index);
    const section = this.grid.sections.findLast((s) => index >= s.start);
    return section ? { section: section.title, offset: index - section.start } : null;
  }

  refocus(place) {
    if (place.tab !== undefined) {
      const tab = [...this.tabs.children].find((each) => each.getAttribute("aria-label") === place.tab);
      if (!tab) return;
      this.markTab(Number(tab.dataset.section)); // selected as it was, and the tab stop
      tab.focus();
      return;
    }
    const section = this.grid.sections.find((s) => s.title === place.section);
    const index = section ? section.start + Math.min(place.offset, section.emojis.length - 1) : this.grid.active;
    this.grid.activate(index);
  }

  searched() {
    this.query = this.search.value;
    clearTimeout(this.announceTimer);
    if (!this.catalogue) return;
    if (!this.query.trim()) {
      this.showBrowse();
      return;
    }
    const tone = this.preferences.skinTone;
    const found = this.catalogue.search(this.query, SEARCH_LIMIT).map((result) => (tone ? this.catalogue.withTone(result.emoji, tone) : result.emoji));
    this.sectionTitles = [];
    this.grid.show([{ title: "Search results", emojis: found }]);
    this.tabs.hidden = true;
    this.showPreview(found[0]);
    const count = found.length;
    const message = count ? (count === 1 ? "1 emoji found" : `${count >= SEARCH_LIMIT ? "More than " + (SEARCH_LIMIT - 1) : count} emojis found`) : "No emoji found";
    if (!count) this.status.textContent = message;
    else this.status.textContent = "";
    this.announceTimer = setTimeout(() => (this.status.textContent = message), ANNOUNCE_DELAY);
  }

  showPreview(emoji) {
    if (!emoji || !this.catalogue) {
      this.preview.replaceChildren();
      return;
    }
    this.preview.replaceChildren(
      el("span", { class: "picker-preview-emoji", text: emoji }),
      el("span", { class: "picker-preview-name", text: this.catalogue.name(emoji) }));
  }

  // MARK: - Tabs: one per group (and Recently used), scrolling the grid to it

  showTabs() {
    if (!this.catalogue) return;
    const titles = this.sectionTitles ?? [];
    const icons = new Map(this.catalogue.groups.map((group) => [group.name, group.icon]));
    icons.set(RECENT_TITLE, "🕘");
    const current = Math.max(0, this.grid.topSection);
    this.tabs.replaceChildren(...titles.map((title, index) =>
      el("button", {
        type: "button", role: "tab", class: "picker-tab", "aria-label": title, title, "aria-controls": "emoji-picker-grid",
        "aria-selected": String(index === current), tabindex: index === current ? "0" : "-1", dataset: { section: String(index) },
        on: { click: () => this.goToSection(index) },
      }, el("span", { "aria-hidden": "true", text: icons.get(title) ?? "•" }))));
  }

  goToSection(index) {
    this.grid.scrollToSection(index);
    this.grid.activate(this.grid.sections[index].start, { focus: false });
    this.markTab(index);
  }

  followScroll() {
    if (this.query || this.followFrame) return;
    this.followFrame = requestAnimationFrame(() => {
      this.followFrame = 0;
      this.markTab(this.grid.topSection);
    });
  }

  markTab(index) {
    for (const tab of this.tabs.children) {
      const selected = Number(tab.dataset.section) === index;
      tab.tabIndex = selected ? 0 : -1; // one tab stop, whichever tab was focused last
      if ((tab.getAttribute("aria-selected") === "true") === selected) continue;
      tab.setAttribute("aria-selected", String(selected));
    }
  }

  tabKey(event) {
    const tabs = [...this.tabs.children];
    const at = tabs.indexOf(document.activeElement);
    if (at < 0) return;
    let to = null;
    if (event.key === "ArrowRight") to = (at + 1) % tabs.length;
    else if (event.key === "ArrowLeft") to = (at - 1 + tabs.length) % tabs.length;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = tabs.length - 1;
    else if (event.key === "ArrowDown") {
      event.preventDefault();
      this.grid.activate(this.grid.active);
      return;
    }
    if (to === null) return;
    event.preventDefault();
    this.goToSection(to);
    tabs[to].focus();
  }

  // MARK: - Skin tone

  toneLabel(tone) {
    return tone ? this.catalogue?.name(TONES[tone]) || `skin tone ${tone}` : "No skin tone";
  }

  showTone() {
    const tone = this.preferences.skinTone;
    this.toneButton.textContent = TONE_SAMPLE + TONES[tone];
    this.toneButton.setAttribute("aria-label", "Skin tone: " + this.toneLabel(tone));
    this.toneButton.title = "Skin tone: " + this.toneLabel(tone);
    this.tones.replaceChildren(...TONES.map((modifier, tone) =>
      el("button", {
        type: "button", role: "radio", class: "picker-tone-choice", "aria-checked": String(tone === this.preferences.skinTone),
        tabindex: tone === this.preferences.skinTone ? "0" : "-1", "aria-label": this.toneLabel(tone), title: this.toneLabel(tone),
        dataset: { tone: String(tone) }, text: TONE_SAMPLE + modifier,
        on: { click: () => this.chooseTone(tone) },
      })));
  }

  expandTones() {
    this.showTone();
    this.tones.hidden = false;
    this.toneButton.setAttribute("aria-expanded", "true");
    this.tones.querySelector('[aria-checked="true"]')?.focus();
  }

  collapseTones({ focus = true } = {}) {
    if (this.tones.hidden) return;
    this.tones.hidden = true;
    this.toneButton.setAttribute("aria-expanded", "false");
    if (focus) this.toneButton.focus();
  }

  chooseTone(tone) {
    this.preferences.setSkinTone(tone); // redraws through the subscription
    this.collapseTones();
    if (this.query) this.searched();
  }

  toneKey(event) {
    const choices = [...this.tones.children];
    const at = choices.indexOf(document.activeElement);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (step) {
      event.preventDefault();
      choices[(at + step + choices.length) % choices.length].focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      choices[event.key === "Home" ? 0 : choices.length - 1].focus();
    }
  }

  // MARK: - An emoji's tones: right-click, the context-menu key, or a long press

  openVariants(cell) {
    const emoji = this.grid.items[Number(cell.dataset.index)];
    const variants = this.catalogue?.variants(emoji) ?? [];
    if (!variants.length) return false;
    this.closeVariants({ focus: false });
    const base = this.catalogue.entry(emoji).emoji;
    const name = this.catalogue.name(base);
    const options = [base, ...variants].map((variant) =>
      el("button", {
        type: "button", role: "option", class: "picker-variant", tabindex: "-1", draggable: "true", "aria-selected": String(variant === emoji),
        "aria-label": this.catalogue.name(variant) || variant, title: this.catalogue.name(variant), text: variant,
        on: {
          click: () => this.choose(variant),
          dragstart: (event) => {
            event.dataTransfer.setData(EMOJI_DRAG_TYPE, variant);
            event.dataTransfer.setData("text/plain", variant);
            event.dataTransfer.effectAllowed = "copy";
          },
        },
      }));
    const list = el("div", { class: "picker-variants", role: "listbox", "aria-label": `Skin tones of ${name}` }, options);
    list.addEventListener("keydown", (event) => this.variantKey(event, options));
    this.root.append(list);
    const box = cell.getBoundingClientRect();
    const home = this.root.getBoundingClientRect();
    const width = list.offsetWidth;
    list.style.left = Math.max(4, Math.min(box.left - home.left - width / 2 + box.width / 2, home.width - width - 4)) + "px";
    list.style.top = Math.max(4, box.top - home.top - list.offsetHeight - 4) + "px";
    this.variants = { list, cell };
    (options.find((option) => option.getAttribute("aria-selected") === "true") ?? options[0]).focus();
    return true;
  }

  closeVariants({ focus = true } = {}) {
    if (!this.variants) return;
    const { list, cell } = this.variants;
    this.variants = null;
    list.remove();
    if (focus) this.grid.activate(Number(cell.dataset.index));
  }

  variantKey(event, options) {
    const at = options.indexOf(document.activeElement);
    const columns = 6;
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[event.key];
    if (step) {
      event.preventDefault();
      options[Math.max(0, Math.min(options.length - 1, at + step))].focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      options[event.key === "Home" ? 0 : options.length - 1].focus();
    } else if (event.key === "Tab") {
      event.preventDefault();
      this.closeVariants();
    }
  }

  // MARK: - Touch: a tap chooses, a long press shows the tones, a sideways drag carries the emoji out

  pointerDown(event) {
    if (this.variants) this.closeVariants({ focus: false }); // a press elsewhere in the grid puts the tones away
    const cell = event.target.closest?.(".picker-emoji");
    if (!cell || event.pointerType !== "touch") return;
    const emoji = this.grid.items[Number(cell.dataset.index)];
    const press = { consumed: false };
    this.press = press;
    const place = this.options.place;
    const drag = followTouchDrag({ currentTarget: cell, pointerId: event.pointerId, clientX: event.clientX, clientY: event.clientY }, emoji,
      (chosen, x, y) => {
        this.preferences.addRecent(chosen);
        place?.(chosen, x, y);
      },
      (ended) => {
        if (ended.dragged) press.consumed = true;
      });
    const timer = setTimeout(() => {
      if (drag.dragged) return;
      press.consumed = true;
      if (this.openVariants(cell)) drag.cancel();
      else if (place) drag.lift();
    }, LONG_PRESS_MS);
    // The click that follows the finger lifting is not a choice after a long press or a drag.
    const release = (e) => {
      if (e.pointerId !== event.pointerId) return;
      clearTimeout(timer);
      removeEventListener("pointerup", release, true);
      removeEventListener("pointercancel", release, true);
      setTimeout(() => this.press === press && (this.press = null), CLICK_AFTER_RELEASE_MS);
    };
    addEventListener("pointerup", release, true);
    addEventListener("pointercancel", release, true);
  }
}
