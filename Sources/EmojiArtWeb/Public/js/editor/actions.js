// Every command of the editor, in one table (after Excalidraw's `register`): its name, label,
// keyboard shortcuts, when it applies and what it does. The toolbar, the keyboard, the context
// menu and the shortcuts panel are all drawn from this table, so they can't disagree.
//
// Shortcuts are written "Mod+Shift+Z": Mod is Ctrl (⌘ on a Mac). Letters match the key typed;
// digits and brackets match the key's place (so Shift+1 is Shift+1 on any layout); other symbols
// (+, −, ?) match the character, whatever Shift it took to type it.

const NUDGE = 1; // document points per arrow press; ×10 with Shift
const NUDGE_FAR = 10;

const nudge = (name, label, key, dx, dy) => ({
  name,
  label,
  group: "Arrange",
  keys: [key, "Shift+" + key],
  hint: `Shift: ${NUDGE_FAR} points`,
  predicate: (editor) => editor.canEdit && editor.hasSelection,
  perform: (editor, event) => {
    const step = event?.shiftKey ? NUDGE_FAR : NUDGE;
    editor.nudgeSelection(dx * step, dy * step);
  },
});

/**
 * `label` names the action in the shortcuts panel; `currentLabel`, when there is one, names it on
 * buttons and in the menu as things are now ("Undo Move"). `menu`: offered by the context menu
 * (`"canvas"`: only when it opens on empty canvas, not on an emoji).
 * `byBrowser`: the browser turns its keys into an event of its own (copy, cut, paste) that the
 * editor handles, so the key itself is left alone.
 * @type {Array<{name: string, label: string, currentLabel?: (editor) => string, group: string,
 *   keys?: string[], hint?: string, menu?: boolean | "canvas", byBrowser?: boolean, predicate?: (editor) => boolean,
 *   perform: (editor, event?) => void}>}
 */
export const ACTIONS = [
  {
    name: "undo",
    label: "Undo",
    currentLabel: (editor) => (editor.undoActionName ? "Undo " + editor.undoActionName : "Undo"),
    group: "Edit",
    keys: ["Mod+Z"],
    menu: true,
    predicate: (editor) => editor.canUndo,
    perform: (editor) => editor.requests.undo(),
  },
  {
    name: "redo",
    label: "Redo",
    currentLabel: (editor) => (editor.redoActionName ? "Redo " + editor.redoActionName : "Redo"),
    group: "Edit",
    keys: ["Mod+Shift+Z", "Mod+Y"],
    menu: true,
    predicate: (editor) => editor.canRedo,
    perform: (editor) => editor.requests.redo(),
  },
  {
    name: "delete",
    label: "Delete",
    group: "Edit",
    keys: ["Delete", "Backspace"],
    menu: true,
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.deleteSelection(),
  },
  {
    name: "cut",
    label: "Cut",
    group: "Edit",
    keys: ["Mod+X"],
    byBrowser: true,
    menu: true,
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.clipboard.command("cut"),
  },
  {
    name: "copy",
    label: "Copy",
    group: "Edit",
    keys: ["Mod+C"],
    byBrowser: true,
    menu: true,
    predicate: (editor) => editor.hasSelection,
    perform: (editor) => editor.clipboard.command("copy"),
  },
  {
    name: "paste",
    label: "Paste",
    group: "Edit",
    keys: ["Mod+V"],
    byBrowser: true,
    hint: "emojis from EmojiArt or as text; an image or its address sets the background",
    menu: true,
    predicate: (editor) => editor.canEdit,
    perform: (editor) => editor.clipboard.pasteFromClipboard(),
  },
  {
    name: "duplicate",
    label: "Duplicate",
    group: "Edit",
    keys: ["Mod+D"],
    menu: true,
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.clipboard.duplicate(),
  },
  {
    name: "emojiPicker",
    label: "Add an Emoji…",
    group: "Edit",
    keys: ["E"],
    hint: "search every emoji by name; the one chosen goes in the middle, selected",
    predicate: (editor) => editor.canEdit,
    perform: (editor) => editor.emoji.openPicker(),
  },
  {
    name: "replaceWith",
    label: "Replace with…",
    group: "Edit",
    menu: true,
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.emoji.replaceSelection(),
  },
  {
    name: "makeMosaic",
    label: "Make Mosaic…",
    group: "Background",
    menu: "canvas",
    // Viewers may open it too, to preview: its Apply says why it is off for them.
    predicate: (editor) => editor.mosaic.available,
    perform: (editor) => editor.mosaic.open(),
  },
  {
    name: "find",
    label: "Find Emojis…",
    group: "Select",
    keys: ["Mod+F"],
    hint: "by name or keyword; Enter for the next",
    predicate: (editor) => Boolean(editor.state),
    perform: (editor) => editor.emoji.find(),
  },
  {
    name: "selectAll",
    label: "Select All",
    group: "Select",
    keys: ["Mod+A"],
    menu: true,
    predicate: (editor) => editor.emojiCount > 0,
    perform: (editor) => editor.canvas.selectAll(),
  },
  {
    name: "endPreview",
    label: "Back to now",
    group: "History",
    keys: ["Escape"],
    predicate: (editor) => editor.previewing,
    perform: (editor) => editor.history.backToNow(),
  },
  {
    name: "deselect",
    label: "Deselect",
    group: "Select",
    keys: ["Escape"],
    menu: true,
    predicate: (editor) => editor.hasSelection,
    perform: (editor) => editor.canvas.clearSelection(),
  },
  ...[
    ["focusLeft", "Focus the Emoji to the Left", "ArrowLeft", "left"],
    ["focusRight", "Focus the Emoji to the Right", "ArrowRight", "right"],
    ["focusUp", "Focus the Emoji Above", "ArrowUp", "up"],
    ["focusDown", "Focus the Emoji Below", "ArrowDown", "down"],
  ].map(([name, label, key, direction]) => ({
    name,
    label,
    group: "Select",
    keys: [key],
    hint: "when nothing is selected",
    predicate: (editor) => !editor.hasSelection && editor.emojiCount > 0,
    perform: (editor) => editor.canvas.focusTowards(direction),
  })),
  {
    name: "toggleFocused",
    label: "Select or Deselect the Focused Emoji",
    group: "Select",
    keys: [" ", "Enter"],
    predicate: (editor) => editor.canvas.focusedId !== null,
    perform: (editor) => editor.canvas.select([editor.canvas.focusedId], { toggle: true }),
  },
  nudge("nudgeLeft", "Nudge Left", "ArrowLeft", -1, 0),
  nudge("nudgeRight", "Nudge Right", "ArrowRight", 1, 0),
  nudge("nudgeUp", "Nudge Up", "ArrowUp", 0, 1),
  nudge("nudgeDown", "Nudge Down", "ArrowDown", 0, -1),
  ...[
    ["bringToFront", "Bring to Front", "front", "Mod+Shift+]"],
    ["bringForward", "Bring Forward", "forward", "Mod+]"],
    ["sendBackward", "Send Backward", "backward", "Mod+["],
    ["sendToBack", "Send to Back", "back", "Mod+Shift+["],
  ].map(([name, label, to, key]) => ({
    name,
    label,
    group: "Arrange",
    keys: [key],
    menu: true,
    predicate: (editor) => editor.canReorder(to),
    perform: (editor) => editor.reorderSelection(to),
  })),
  {
    name: "rotateClockwise",
    label: "Rotate 15° Clockwise",
    group: "Arrange",
    keys: ["R"],
    hint: "or drag the round handle above the selection; Shift snaps to 15°",
    menu: true,
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.turnSelection(15),
  },
  {
    name: "rotateCounterclockwise",
    label: "Rotate 15° Counterclockwise",
    group: "Arrange",
    keys: ["Shift+R"],
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor) => editor.turnSelection(-15),
  },
  {
    name: "grow",
    label: "Make Bigger",
    group: "Arrange",
    keys: ["]", "Alt+ArrowUp", "Alt+ArrowRight"],
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor, event) => editor.scaleSelection(event?.altKey ? 1.1 : 1.25),
  },
  {
    name: "shrink",
    label: "Make Smaller",
    group: "Arrange",
    keys: ["[", "Alt+ArrowDown", "Alt+ArrowLeft"],
    predicate: (editor) => editor.canEdit && editor.hasSelection,
    perform: (editor, event) => editor.scaleSelection(event?.altKey ? 1 / 1.1 : 0.8),
  },
  {
    name: "zoomIn",
    label: "Zoom In",
    group: "View",
    keys: ["+", "="],
    perform: (editor) => editor.canvas.zoomBy(1.25),
  },
  {
    name: "zoomOut",
    label: "Zoom Out",
    group: "View",
    keys: ["-"],
    perform: (editor) => editor.canvas.zoomBy(0.8),
  },
  {
    name: "resetZoom",
    label: "Zoom to 100%",
    group: "View",
    keys: ["0"],
    perform: (editor) => editor.canvas.resetZoom(),
  },
  {
    name: "zoomToFit",
    label: "Zoom to Fit",
    group: "View",
    keys: ["Shift+1"],
    hint: "or double-click empty canvas",
    menu: true,
    perform: (editor) => editor.canvas.zoomToFit(),
  },
  {
    name: "zoomToSelection",
    label: "Zoom to Selection",
    group: "View",
    keys: ["Shift+2"],
    menu: true,
    predicate: (editor) => editor.hasSelection,
    perform: (editor) => editor.canvas.zoomToSelection(),
  },
  {
    name: "history",
    label: "History",
    currentLabel: (editor) => (editor.historyOpen ? "Close History" : "History"),
    group: "History",
    keys: ["Shift+H"],
    predicate: (editor) => Boolean(editor.state),
    perform: (editor) => editor.history.toggle(),
  },
  {
    name: "shortcuts",
    label: "Keyboard Shortcuts",
    group: "Help",
    keys: ["?"],
    menu: true,
    perform: (editor) => editor.showShortcuts(),
  },
];

/** Gestures that aren't keys, listed in the shortcuts panel beside the table's actions. */
export const GESTURE_HELP = [
  ["Select", "Click; Shift or Ctrl+click adds or removes; drag on empty canvas to select what the box touches"],
  ["Move", "Drag the selection"],
  ["Resize", "Drag the selection's corner handle, or Alt+wheel"],
  ["Rotate", "Drag the round handle above the selection; Shift snaps to 15°"],
  ["Pan", "Scroll, Space+drag, middle-button drag, or one finger on empty canvas"],
  ["Zoom", "Ctrl+wheel or pinch, around the pointer"],
  ["Add", "Drag an emoji from the palette or the emoji picker, or click it (or Enter on it) to add it in the middle, selected"],
  ["Skin tones", "In the emoji picker: right-click an emoji, or hold a finger on it"],
  ["Actions", "Right-click, or hold a finger still"],
];
