// What a drop on the canvas brings, or a paste that isn't emojis (./clipboard-commands.js): an
// emoji dragged from a palette or the picker (added where it lands), an image file (uploaded as
// the background, over HTTP: image bytes don't go over the live connection), or an address — of
// an image, which the server fetches as the background, or else text taken as an emoji.
//
// An image file chosen with no connection can't be uploaded, so it becomes a change like any
// other (docs/OFFLINE.md): the background as a data: URL in one live request, kept in the
// browser and sent in its place among the others. A live request holds at most 1 MiB, so a
// bigger image is made smaller first (WebP, fewer pixels), and the notice says so.
import * as api from "../api.js";
import { notify } from "../dom.js";
import { EMOJI_DRAG_TYPE } from "../palette-bar.js";

const KEPT_IMAGE_LIMIT = 1_000_000; // characters of data: URL: one live request, with room for the rest

/** `blob` as a data: URL. */
const dataURL = (blob) =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });

/**
 * The image `file` as a data: URL that fits one live request — as it is, or drawn again smaller
 * as WebP — with whether it was made smaller; null when the browser can't read it as an image.
 */
async function keptImage(file) {
  const url = await dataURL(file);
  if (url.length <= KEPT_IMAGE_LIMIT) return { url, smaller: false };
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return null;
  }
  for (let scale = Math.min(1, 2048 / Math.max(bitmap.width, bitmap.height)); scale > 0.01; scale *= 0.7) {
    const canvas = new OffscreenCanvas(Math.max(1, Math.round(bitmap.width * scale)), Math.max(1, Math.round(bitmap.height * scale)));
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const smaller = await dataURL(await canvas.convertToBlob({ type: "image/webp", quality: 0.85 }));
    if (smaller.length <= KEPT_IMAGE_LIMIT) return { url: smaller, smaller: true };
  }
  return null;
}

/**
 * A dropped or pasted URL may be an image-search result link that carries the image's real
 * address in its query (`imgurl=…`, or the first query value starting with http).
 */
function imageURL(text) {
  let url;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  const params = [...url.searchParams];
  const imgurl = params.find(([key]) => key.toLowerCase() === "imgurl");
  if (imgurl && /^https?:\/\//i.test(imgurl[1])) return imgurl[1];
  const first = params.find(([, value]) => /^https?:\/\//i.test(value));
  return first ? first[1] : text;
}

export class DropReceiver {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
  }

  /** Handles dropped or pasted data (a DataTransfer, or what the clipboard API read) at `point`. */
  receive(data, point) {
    const editor = this.editor;
    if (editor.readOnly) {
      notify("You can view this document but not change it.", { title: "View only" });
      return;
    }
    const emoji = data.getData(EMOJI_DRAG_TYPE);
    if (emoji) return editor.addEmoji(emoji, point);
    const files = Array.from(data.files || []);
    if (files.length) {
      const image = files.find((file) => file.type.startsWith("image/")) || (files.length === 1 ? files[0] : null);
      if (image && (image.type.startsWith("image/") || image.type === "")) return this.uploadBackground(image);
      notify("Drop an image to set the background. Import .emojiart documents from the document list.", { kind: "error", title: "Set Background" });
      return;
    }
    const uriList = (data.getData("text/uri-list") || "")
      .split(/\r?\n/)
      .map((line) => line.trim())
      .find((line) => line && !line.startsWith("#"));
    const text = (uriList || data.getData("text/plain") || "").trim();
    if (!text) return;
    if (/^(https?:\/\/|data:image\/)/i.test(text)) return this.setBackgroundURL(imageURL(text));
    return editor.addEmoji(text, point);
  }

  setBackgroundURL(url) {
    // A pasted data: URL may be larger than a live message: send its bytes as an upload.
    if (/^data:/i.test(url)) {
      return fetch(url)
        .then((response) => response.blob())
        .then(
          (blob) => this.uploadBackground(blob),
          () => notify("That image data is not valid.", { kind: "error", title: "Set Background" }),
        );
    }
    this.editor.backgroundNotices.willSet(url);
    return this.editor.requests.perform([{ type: "setBackground", background: url }]);
  }

  /** Uploads over HTTP; the change comes back live. With no connection, it is kept as a change (above). */
  async uploadBackground(file) {
    const editor = this.editor;
    if (!editor.canEdit) return;
    if (editor.online) {
      try {
        return await api.uploadBackground(editor.documentId, editor.state.version, file);
      } catch (error) {
        if (error.status !== 0) return notify(error.message, { kind: "error", title: "Couldn’t set the background" });
      }
    }
    const kept = await keptImage(file).catch(() => null);
    if (!kept) return notify("That image can’t be read, so it can’t be kept until the connection is back.", { kind: "error", title: "Couldn’t set the background" });
    const smaller = kept.smaller ? " It was made smaller to be kept in the browser; set it again when connected for the full image." : "";
    notify(`No connection: the background is set when the connection is back.${smaller}`, { title: "Set Background" });
    return editor.requests.perform([{ type: "setBackground", background: kept.url }]);
  }
}
