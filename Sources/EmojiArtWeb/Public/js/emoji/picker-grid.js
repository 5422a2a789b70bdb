// The picker's grid of emojis: sections (Recently used, each group, or the search's results),
// each a heading row and rows of emojis, drawn only where the grid is scrolled to — the whole
// catalogue is ~1,900 emojis, and a page holding them all as elements opens and scrolls slowly.
// An ARIA grid with a roving tabindex: arrows, Home/End (Ctrl: first/last), PageUp/PageDown move
// the focus; the emoji focused is always drawn, so the keyboard never loses it.
import { el } from "../dom.js";

const CELL = 42; // px: an emoji's square (a finger's width)
const HEADING = 28; // px: a section's heading row
const OVERSCAN = 4; // rows drawn beyond each edge, so a fling doesn't show blank rows

export class PickerGrid {
  /**
   * @param {HTMLElement} scroller the scrolling element (fixed height)
   * @param {{label: (emoji: string) => string, activated: (index: number) => void}} handlers
   *   `label`: an emoji's accessible name; `activated`: the focused emoji changed (its index)
   */
  constructor(scroller, handlers) {
    this.scroller = scroller;
    this.handlers = handlers;
    this.grid = el("div", { class: "picker-grid", role: "grid", id: "emoji-picker-grid", "aria-label": "Emojis" });
    scroller.append(this.grid);
    /** @type {Array<{title: string, emojis: string[], start: number}>} */
    this.sections = [];
    /** Every emoji of every section, in order (an index into it names an emoji of the grid). */
    this.items = [];
    this.rows = [];
    this.offsets = [];
    this.columns = 8;
    this.active = 0;
    /** row index → its element, for the rows drawn now */
    this.drawn = new Map();
    this.generation = 0;
    this.frame = 0;
    scroller.addEventListener("scroll", () => this.scheduleDraw(), { passive: true });
    new ResizeObserver(() => this.resized()).observe(scroller);
  }

  /** Shows new sections ({title, emojis}); the focus goes to `active` (default the first emoji). */
  show(sections, { active = 0, scrollTop = 0 } = {}) {
    this.sections = [];
    this.items = [];
    for (const section of sections) {
      if (!section.emojis.length) continue;
      this.sections.push({ title: section.title, emojis: section.emojis, start: this.items.length });
      for (const emoji of section.emojis) this.items.push(emoji);
    }
    this.active = Math.min(active, Math.max(0, this.items.length - 1));
    this.grid.hidden = !this.items.length;
    this.layout();
    this.scroller.scrollTop = scrollTop;
    this.draw();
  }

  resized() {
    const columns = Math.max(4, Math.floor(this.scroller.clientWidth / CELL));
    if (columns === this.columns && this.rows.length) return this.draw();
    this.columns = columns;
    this.layout();
    this.draw();
  }

  /** Rows for the sections at the current width: [{section, heading} | {section, start, count}], with their tops. */
  layout() {
    this.generation += 1;
    this.rows = [];
    this.offsets = [];
    this.firstRows = [];
    let top = 0;
    for (const [index, section] of this.sections.entries()) {
      this.offsets.push(top);
      this.rows.push({ section: index, heading: true });
      this.firstRows.push(this.rows.length);
      top += HEADING;
      for (let at = 0; at < section.emojis.length; at += this.columns) {
        this.offsets.push(top);
        this.rows.push({ section: index, start: section.start + at, count: Math.min(this.columns, section.emojis.length - at) });
        top += CELL;
      }
    }
    this.height = top;
    this.grid.style.height = top + "px";
    this.grid.setAttribute("aria-rowcount", String(this.rows.length));
    this.grid.setAttribute("aria-colcount", String(this.columns));
    this.grid.style.setProperty("--picker-columns", String(this.columns));
    for (const element of this.drawn.values()) element.remove();
    this.drawn.clear();
  }

  /** The row an emoji (by index) is in. */
  rowOf(index) {
    for (let i = this.sections.length - 1; i >= 0; i--) {
      const section = this.sections[i];
      if (index >= section.start) return this.firstRows[i] + Math.floor((index - section.start) / this.columns);
    }
    return -1;
  }

  /** The first row whose bottom is below `y`. */
  rowAt(y) {
    let low = 0;
    let high = this.rows.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.offsets[middle] <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The section shown at the top of the view (for the tabs), as an index into the sections. */
  get topSection() {
    if (!this.rows.length) return -1;
    return this.rows[this.rowAt(this.scroller.scrollTop + HEADING / 2)].section;
  }

  scrollToSection(index) {
    const row = this.rows.findIndex((r) => r.section === index);
    if (row >= 0) this.scroller.scrollTop = this.offsets[row];
    this.draw();
  }

  scheduleDraw() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws the rows in view (and a few more), and the active emoji's row; removes the rest. */
  draw() {
    if (!this.rows.length) return;
    const top = this.scroller.scrollTop;
    const first = Math.max(0, this.rowAt(top) - OVERSCAN);
    const last = Math.min(this.rows.length - 1, this.rowAt(top + (this.scroller.clientHeight || 400)) + OVERSCAN);
    const keep = new Set();
    for (let i = first; i <= last; i++) keep.add(i);
    const activeRow = this.rowOf(this.active);
    if (activeRow >= 0) keep.add(activeRow);
    for (const [index, element] of this.drawn) {
      if (keep.has(index)) continue;
      if (element.contains(document.activeElement)) continue; // never drop the focus
      element.remove();
      this.drawn.delete(index);
    }
    for (const index of keep) {
      if (this.drawn.has(index)) continue;
      const element = this.rowElement(index);
      this.drawn.set(index, element);
      this.grid.append(element);
    }
  }

  rowElement(index) {
    const row = this.rows[index];
    const element = el("div", { class: "picker-row", role: "row", "aria-rowindex": String(index + 1) });
    element.style.top = this.offsets[index] + "px";
    if (row.heading) {
      element.classList.add("picker-heading");
      element.append(el("div", { role: "gridcell", "aria-colspan": String(this.columns), text: this.sections[row.section].title }));
      return element;
    }
    for (let i = 0; i < row.count; i++) {
      const at = row.start + i;
      const emoji = this.items[at];
      const label = this.handlers.label(emoji);
      element.append(el("div", {
        class: "picker-emoji", role: "gridcell", tabindex: at === this.active ? "0" : "-1", draggable: "true",
        "aria-colindex": String(i + 1), "aria-label": label || emoji, title: label, dataset: { index: String(at) }, text: emoji,
      }));
    }
    return element;
  }

  /** The element of the emoji at `index`, drawing its row if needed. */
  cell(index) {
    const row = this.rowOf(index);
    if (row < 0) return null;
    if (!this.drawn.has(row)) {
      const element = this.rowElement(row);
      this.drawn.set(row, element);
      this.grid.append(element);
    }
    return this.drawn.get(row).querySelector(`[data-index="${index}"]`);
  }

  /** Makes the emoji at `index` the one in the tab order, scrolled into view, and focuses it if asked. */
  activate(index, { focus = true } = {}) {
    if (!this.items.length) return;
    index = Math.max(0, Math.min(this.items.length - 1, index));
    this.cell(this.active)?.setAttribute("tabindex", "-1");
    this.active = index;
    const row = this.rowOf(index);
    const top = this.offsets[row];
    const view = this.scroller;
    if (top < view.scrollTop + (row > 0 && this.rows[row - 1].heading ? HEADING : 0)) {
      view.scrollTop = top - (row > 0 && this.rows[row - 1].heading ? HEADING : 0);
    } else if (top + CELL > view.scrollTop + view.clientHeight) {
      view.scrollTop = top + CELL - view.clientHeight;
    }
    const cell = this.cell(index);
    cell?.setAttribute("tabindex", "0");
    if (focus) cell?.focus({ preventScroll: true });
    this.draw();
    this.handlers.activated(index);
  }

  /** Moves the focus for a key; true when the key was the grid's. */
  key(event) {
    const index = this.active;
    const row = this.rowOf(index);
    const column = index - this.rows[row].start;
    const emojiRow = (from, step) => {
      for (let r = from + step; r >= 0 && r < this.rows.length; r += step) if (!this.rows[r].heading) return r;
      return -1;
    };
    const inRow = (r) => this.rows[r].start + Math.min(column, this.rows[r].count - 1);
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / CELL) - 1);
    let to = null;
    switch (event.key) {
      case "ArrowRight": to = index + 1; break;
      case "ArrowLeft": to = index - 1; break;
      case "ArrowDown": { const r = emojiRow(row, 1); to = r < 0 ? index : inRow(r); break; }
      case "ArrowUp": { const r = emojiRow(row, -1); to = r < 0 ? index : inRow(r); break; }
      case "PageDown":
      case "PageUp": {
        let r = row;
        for (let i = 0; i < page; i++) {
          const next = emojiRow(r, event.key === "PageDown" ? 1 : -1);
          if (next < 0) break;
          r = next;
        }
        to = inRow(r);
        break;
      }
      case "Home": to = event.ctrlKey || event.metaKey ? 0 : this.rows[row].start; break;
      case "End": to = event.ctrlKey || event.metaKey ? this.items.length - 1 : this.rows[row].start + this.rows[row].count - 1; break;
      default: return false;
    }
    event.preventDefault();
    this.activate(to);
    return true;
  }
}
