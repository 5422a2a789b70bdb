// Emoji text: emojis laid out on a grid as lines of text, one emoji a cell — what the server's
// text export writes (`GET /api/documents/{id}/export?format=text`) and what a paste of such text
// lays out again. Empty cells are fillers: U+3000 IDEOGRAPHIC SPACE (the export's), a space, a
// no-break space or an em space, one cell each. Pure: no DOM, no page state.
import { graphemes } from "../intl.js";
import { isEmoji } from "./catalogue.js";

/** The graphemes that stand for an empty cell. */
const FILLERS = new Set(["\u3000", " ", "\u00A0", "\u2003"]);
const TRAILING_SPACE = /\s+$/u;


/**
 * The grid in `text` when it is emoji text: several lines, or one line of several emojis, and
 * every grapheme an emoji (as EmojiArtKit means it, `isEmoji`) or a filler. Lines end with "\n"
 * or "\r\n"; the whitespace at the end of a line and of the text is left out. Answers
 * `{cells: [{text, column, row}], columns, rows}` (cells in reading order), or null for other text.
 *
 *     emojiGrid("🌞\u3000🌈\n🇫🇷\n").cells
 *     // [{text: "🌞", column: 0, row: 0}, {text: "🌈", column: 2, row: 0}, {text: "🇫🇷", column: 0, row: 1}]
 */
export function emojiGrid(text) {
  if (typeof text !== "string") return null;
  const lines = text.replace(TRAILING_SPACE, "").split(/\r?\n/);
  const cells = [];
  let columns = 0;
  for (let row = 0; row < lines.length; row += 1) {
    let column = 0;
    for (const segment of graphemes(lines[row].replace(TRAILING_SPACE, ""))) {
      if (!FILLERS.has(segment)) {
        if (!isEmoji(segment)) return null;
        cells.push({ text: segment, column, row });
      }
      column += 1;
    }
    columns = Math.max(columns, column);
  }
  if (!cells.length || (lines.length < 2 && cells.length < 2)) return null;
  return { cells, columns, rows: lines.length };
}

/**
 * Where a grid's emojis go: `pitch` document points apart, the middle of the cells that hold an
 * emoji at `centre` (document point, y up). Column c and row r land at x0 + c·pitch, y0 − r·pitch,
 * whole points. Answers [{text, x, y, size}] with size = pitch.
 */
export function gridPlacement(grid, pitch, centre) {
  let left = Infinity, right = -Infinity, top = Infinity, bottom = -Infinity;
  for (const { column, row } of grid.cells) {
    left = Math.min(left, column);
    right = Math.max(right, column);
    top = Math.min(top, row);
    bottom = Math.max(bottom, row);
  }
  const x0 = Math.round(centre.x - ((left + right) / 2) * pitch);
  const y0 = Math.round(centre.y + ((top + bottom) / 2) * pitch);
  return grid.cells.map(({ text, column, row }) => ({ text, x: x0 + column * pitch, y: y0 - row * pitch, size: pitch }));
}
