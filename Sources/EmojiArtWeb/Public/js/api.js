// The HTTP API (docs/API.md) as small async functions. Every failure is thrown as an ApiError
// carrying the server's `{"error": {"code", "message"}}`, so callers can show `message` as is.

class ApiError extends Error {
  /** @param {number} status HTTP status (0 when the server could not be reached). */
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/**
 * Sends one request and returns the parsed JSON answer (null for 204).
 * `json` is sent as a JSON body; `body` is sent as is (a File, Blob or ArrayBuffer). A 401 goes
 * to the sign-in page, unless `signIn` is false (the caller decides).
 */
export async function request(method, path, { json, body, headers = {}, signIn = true } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    init.body = body;
    if (!init.headers["Content-Type"]) {
      init.headers["Content-Type"] = (body && body.type) || "application/octet-stream";
    }
  }
  // A GET the page asked for already as it started (its inline script), taken once.
  const early = method === "GET" && !Object.keys(headers).length ? globalThis.earlyRequests?.[path] : undefined;
  if (early) delete globalThis.earlyRequests[path];
  let response;
  try {
    response = await (early ?? fetch(path, init));
  } catch {
    throw new ApiError(0, "network", "Couldn't reach the EmojiArt server. Check that it is running, then try again.");
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (response.status === 401 && signIn && !path.startsWith("/api/session") && !path.startsWith("/api/users")) {
    goToSignIn();
  }
  if (!response.ok) {
    const error = data && data.error;
    if (error && typeof error.message === "string") {
      throw new ApiError(response.status, String(error.code || "error"), error.message);
    }
    throw new ApiError(response.status, "http_" + response.status,
      `The server answered ${response.status} ${response.statusText || ""}`.trim() + ".");
  }
  return data;
}

const doc = (id) => "/api/documents/" + encodeURIComponent(id);

/** A page of the list: `{documents, next}`, `next` the `cursor` of the page after it (null: the last). */
export function listDocuments({ limit, cursor, q } = {}) {
  // Percent-encoded (a space as %20, not the form encoding's +, which the server takes as a +).
  const query = Object.entries({ limit, cursor, q }).filter(([, value]) => value)
    .map(([name, value]) => name + "=" + encodeURIComponent(value));
  return request("GET", "/api/documents" + (query.length ? "?" + query.join("&") : ""));
}
/** The document's state; `signIn: false` throws a 401 rather than go to the sign-in page. */
/** A new document under the id this browser made (201), or the one there already (200): docs/OFFLINE.md. */
export const createDocumentWithID = (id, title) =>
  request("PUT", doc(id), { json: title === undefined ? {} : { title } });
export const getDocument = (id, { signIn = true } = {}) => request("GET", doc(id), { signIn });
/** The HTTP status of reading a document (200 if this browser may see it), without going to sign-in on 401. */
export const documentStatus = (id) => fetch(doc(id), { headers: { Accept: "application/json" } }).then((r) => r.status, () => 0);
export const renameDocument = (id, title) => request("PATCH", doc(id), { json: { title } });
export const deleteDocument = (id) => request("DELETE", doc(id));
export const duplicateDocument = (id, title) =>
  request("POST", doc(id) + "/duplicate", { json: title === undefined ? {} : { title } });

/** Imports a `.emojiart` file (a File or Blob); `title` names formats that carry none. */
export function importDocument(file, title) {
  const query = title ? "?title=" + encodeURIComponent(title) : "";
  return request("POST", "/api/documents/import" + query, {
    body: file,
    headers: { "Content-Type": "application/octet-stream" },
  });
}

export const exportURL = (id, format) => doc(id) + "/export?format=" + encodeURIComponent(format);

/** Ids as the `ids=` of a query: sorted runs, "3-40,57,60-61". */
export function idRanges(ids) {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const runs = [];
  for (const id of sorted) {
    const last = runs[runs.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else runs.push([id, id]);
  }
  return runs.map(([first, last]) => (first === last ? String(first) : `${first}-${last}`)).join(",");
}

/**
 * The document (or only the emojis `ids`) as emoji text: rows of emojis on a grid, empty cells
 * as U+3000 (docs/API.md, "Emoji text"). Answers the text.
 */
export async function emojiText(id, { ids } = {}) {
  const query = ids?.length ? "&ids=" + idRanges(ids) : "";
  const response = await send(doc(id) + "/export?format=text" + query, { headers: { Accept: "text/plain" } });
  return response.text();
}

/** What a mosaic is asked for with: {columns, emojis, dither, fit, region?, replace} (docs/API.md, "Mosaic"). */
const mosaicRequest = ({ columns, emojis, dither, fit, region, replace }) =>
  fit === "region" ? { columns, emojis, dither, fit, region, replace } : { columns, emojis, dither, fit, replace };

/**
 * The picture a mosaic would make, changing nothing: `{picture: Blob, columns, rows, emojis}`
 * (emojis: how many it would place). `signal` aborts it.
 */
export async function mosaicPreview(id, options, signal) {
  const response = await send(doc(id) + "/mosaic?preview=1", {
    method: "POST", body: JSON.stringify(mosaicRequest(options)), signal, headers: { Accept: "image/png", "Content-Type": "application/json" },
  });
  const header = (name) => Number(response.headers.get("EmojiArt-Mosaic-" + name)) || 0;
  return { picture: await response.blob(), columns: header("Columns"), rows: header("Rows"), emojis: header("Emojis") };
}

/** Makes the mosaic: one undo step ("Make Mosaic"); answers the document's state. */
export const makeMosaic = (id, options) => request("POST", doc(id) + "/mosaic", { json: mosaicRequest(options) });

/**
 * A fetch whose answer isn't JSON: a failure is thrown as an ApiError with the server's message
 * (and `retryAfter`, in seconds, when the server says when to try again); an abort as is.
 */
async function send(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new ApiError(0, "network", "Couldn't reach the EmojiArt server. Check that it is running, then try again.");
  }
  if (response.ok) return response;
  if (response.status === 401) goToSignIn();
  let error = null;
  try {
    error = (await response.json())?.error;
  } catch {
    /* not JSON: the status says it */
  }
  const failure = error && typeof error.message === "string"
    ? new ApiError(response.status, String(error.code || "error"), error.message)
    : new ApiError(response.status, "http_" + response.status, `The server answered ${response.status} ${response.statusText || ""}`.trim() + ".");
  const retryAfter = Number(response.headers.get("Retry-After"));
  if (retryAfter > 0) failure.retryAfter = retryAfter;
  throw failure;
}

/** Uploads image bytes as the embedded background. */
export function uploadBackground(id, baseVersion, file) {
  return request("PUT", doc(id) + "/background?baseVersion=" + encodeURIComponent(baseVersion), {
    body: file,
    headers: { "Content-Type": file.type || "application/octet-stream" },
  });
}

/** Imports the original apps' stored palette JSON (a File). */
export const importPalettes = (file) =>
  request("POST", "/api/palettes/import", { body: file, headers: { "Content-Type": "application/json" } });

/** A picture of the document: `format` "svg" or "png", `scale` 1–3 (PNG). */
export const pictureURL = (id, format, scale = 1) =>
  doc(id) + "/picture?format=" + encodeURIComponent(format) + (format !== "svg" ? "&scale=" + scale : "");

/** The document browser's small picture of a document (`version` makes each change a new URL). */
// History (docs/API.md, "History").
export const history = (id, { before, limit } = {}) => {
  const query = new URLSearchParams();
  if (before !== undefined) query.set("before", before);
  if (limit !== undefined) query.set("limit", limit);
  return request("GET", doc(id) + "/history" + (query.size ? "?" + query : ""));
};
export const getVersion = (id, version) => request("GET", doc(id) + "?version=" + encodeURIComponent(version));
export const historyChanges = (id, after, limit = 500) =>
  request("GET", doc(id) + "/history/changes?after=" + encodeURIComponent(after) + "&limit=" + limit);
export const restoreVersion = (id, version) =>
  request("POST", doc(id) + "/restore", { json: { version, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone } });
export const replayURL = (id, { from, to, format } = {}) => {
  const query = new URLSearchParams();
  if (from !== undefined) query.set("from", from);
  if (from !== undefined && to !== undefined) query.set("to", to);
  if (format) query.set("format", format);
  const text = query.toString();
  return doc(id) + "/replay" + (text ? "?" + text : "");
};

export const thumbnailURL = (id, version) => doc(id) + "/thumbnail?v=" + encodeURIComponent(version);

/** A joke fetched by the server: `{value}`; failures carry the service's problem in `message`. */
export const randomJoke = () => request("GET", "/api/jokes/random");

/** Sends the browser to the sign-in page, coming back here afterwards. */
export function goToSignIn() {
  if (location.pathname === "/signin") return;
  // Escaped as the server's own redirect escapes it (slashes kept), so both send to the same address.
  location.assign("/signin?next=" + encodeURIComponent(location.pathname + location.search).replace(/%2F/g, "/"));
}

// MARK: - Who is asking (docs/API.md, "Who may ask")

/** `{access: "local"|"accounts", signup}`: open to anyone. */
export const health = () => request("GET", "/api/health");
/** `{access, user: {id, name, isAdmin}, signup}`, or an ApiError 401 when no one is signed in. */
export const session = () => request("GET", "/api/session");
/** `next`: where the page means to go afterwards; the answer's `next` is the path to use. */
export const signIn = (name, password, next) => request("POST", "/api/session", { json: { name, password, next } });
export const signOut = () => request("DELETE", "/api/session");
export const signUp = (name, password, next) => request("POST", "/api/users", { json: { name, password, next } });

// MARK: - Sharing

export const listLinks = async (id) => (await request("GET", doc(id) + "/links")).links;
/** `role`: "view" or "edit"; answers `{id, role, url, createdAt}`. */
export const createLink = (id, role) => request("POST", doc(id) + "/links", { json: { role } });
export const revokeLink = (id, linkId) => request("DELETE", doc(id) + "/links/" + encodeURIComponent(linkId));
export const listMembers = async (id) => (await request("GET", doc(id) + "/members")).members;
/** `role`: "editor" or "viewer"; answers the members. */
export const setMember = async (id, name, role) =>
  (await request("PUT", doc(id) + "/members/" + encodeURIComponent(name), { json: { role } })).members;
export const removeMember = (id, name) => request("DELETE", doc(id) + "/members/" + encodeURIComponent(name));

// Comment threads (docs/API.md, "Comments"). `where`: {position: {x, y}} or {emojiId}.
const comments = (id, commentId) => doc(id) + "/comments" + (commentId ? "/" + encodeURIComponent(commentId) : "");
export const listComments = async (id) => (await request("GET", comments(id))).comments;
export const createComment = (id, text, where) => request("POST", comments(id), { json: { text, ...where } });
export const replyToComment = (id, threadId, text) => request("POST", comments(id, threadId) + "/replies", { json: { text } });
export const changeComment = (id, commentId, changes) => request("PATCH", comments(id, commentId), { json: changes });
export const deleteComment = (id, commentId) => request("DELETE", comments(id, commentId));
