// What a drop on the canvas brings, or a paste that isn't emojis (./clipboard-commands.js): an
// emoji dragged from a palette or the picker (added where it lands), an image file (uploaded as
// the background, over HTTP: image bytes don't go over the live connection), or an address — of
// an image, which the server fetches as the background, or else text taken as an emoji.
import * as api from "../api.js";
import { notify } from "../dom.js";
import { EMOJI_DRAG_TYPE } from "../palette-bar.js";

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

  /** Uploads over HTTP; the change comes back live. */
  async uploadBackground(file) {
    const editor = this.editor;
    if (!editor.canEdit) return;
    try {
      await api.uploadBackground(editor.documentId, editor.state.version, file);
    } catch (error) {
      notify(error.message, { kind: "error", title: "Couldn’t set the background" });
    }
  }
}
