// What the document will look like once edits still waiting to be sent are applied: drawn while
// the window is offline so work shows at once, each emoji they touch marked `pending`. Only the
// server interprets edits for real (ids, rounding, limits); when the connection is back the
// predictions are dropped and the server's answers — its changes, or a refusal — take their place.

const SIZE_RANGE = [1, 1024];
const clampSize = (size) => Math.min(SIZE_RANGE[1], Math.max(SIZE_RANGE[0], Math.round(size)));
const turn = (rotation, degrees) => ((((rotation || 0) + degrees) % 360) + 360) % 360;

/** Drawing order for a reorder (the same rule as the server's `ReorderPlacement.arrange`). */
function arrange(order, moving, to) {
  const inSet = (emoji) => moving.has(emoji.id);
  if (to === "front") return order.filter((e) => !inSet(e)).concat(order.filter(inSet));
  if (to === "back") return order.filter(inSet).concat(order.filter((e) => !inSet(e)));
  const result = order.slice();
  if (to === "forward") {
    for (let i = result.length - 2; i >= 0; i--) {
      if (inSet(result[i]) && !inSet(result[i + 1])) [result[i], result[i + 1]] = [result[i + 1], result[i]];
    }
  } else if (to === "backward") {
    for (let i = 1; i < result.length; i++) {
      if (inSet(result[i]) && !inSet(result[i - 1])) [result[i], result[i - 1]] = [result[i - 1], result[i]];
    }
  }
  return result;
}

/**
 * `state` with `batches` ({edits, creates}, in the order they were made) applied as well as the
 * page can tell. New emojis get the temporary ids `creates` gives them, in order (negative: the
 * server gives the real ones, ./temporary-ids.js).
 */
export function predict(state, batches) {
  try {
    return drawn(state, batches);
  } catch {
    // One this page can't read (a kept record from elsewhere): the others are drawn, it is left to the server.
    return drawn(state, batches.filter((batch) => {
      try {
        drawn(state, [batch]);
        return true;
      } catch {
        return false;
      }
    }));
  }
}

function drawn(state, batches) {
  let emojis = state.emojis.slice();
  let title = state.title;
  let creates = [];
  let spareId = -1; // for a batch without enough temporary ids (none is made so)
  const touched = new Set();
  const update = (ids, change) => {
    const chosen = new Set(ids);
    emojis = emojis.map((emoji) => (chosen.has(emoji.id) ? (touched.add(emoji.id), change(emoji)) : emoji));
  };
  const add = (emoji) => {
    const id = creates.length ? creates.shift() : spareId--;
    touched.add(id);
    emojis.push({ ...emoji, id });
  };
  for (const batch of batches) {
    creates = [...(batch.creates ?? [])];
    for (const edit of batch.edits) {
      switch (edit.type) {
        case "addEmoji":
          add({ text: edit.text, x: edit.position.x, y: edit.position.y, size: edit.size });
          break;
        case "paste":
          for (const e of edit.emojis) add({ text: e.text, x: e.position.x, y: e.position.y, size: e.size, rotation: e.rotation || 0 });
          break;
        case "duplicate": {
          const chosen = new Set(edit.ids);
          for (const e of emojis.filter((emoji) => chosen.has(emoji.id))) {
            add({ text: e.text, x: e.x + edit.offset.x, y: e.y + edit.offset.y, size: e.size, rotation: e.rotation || 0 });
          }
          break;
        }
        case "moveEmojis":
          update(edit.ids, (e) => ({ ...e, x: e.x + edit.offset.x, y: e.y + edit.offset.y }));
          break;
        case "resizeEmojis":
          update(edit.ids, (e) => ({ ...e, size: clampSize(e.size * edit.scale) }));
          break;
        case "rotate":
          update(edit.ids, (e) => ({ ...e, rotation: turn(e.rotation, edit.degrees) }));
          break;
        case "deleteEmojis": {
          const gone = new Set(edit.ids);
          emojis = emojis.filter((emoji) => !gone.has(emoji.id));
          break;
        }
        case "reorder":
          emojis = arrange(emojis, new Set(edit.ids), edit.to);
          for (const id of edit.ids) touched.add(id);
          break;
        case "replaceEmoji":
          update(edit.ids, (e) => ({ ...e, text: edit.text }));
          break;
        case "setLocked":
          update(edit.ids, (e) => ({ ...e, locked: Boolean(edit.locked) }));
          break;
        case "setEmojiTexts": {
          const texts = new Map(edit.texts.map(({ id, text }) => [id, text]));
          update([...texts.keys()], (e) => ({ ...e, text: texts.get(e.id) }));
          break;
        }
        case "retitle":
          title = edit.title;
          break;
        default:
          break; // a background waits for the server, which fetches and checks it
      }
    }
  }
  if (touched.size) emojis = emojis.map((emoji) => (touched.has(emoji.id) ? { ...emoji, pending: true } : emoji));
  return { ...state, title, emojis };
}
