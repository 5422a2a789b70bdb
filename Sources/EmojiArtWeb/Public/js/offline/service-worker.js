// The service worker (served as /sw.js, after a first line the server writes: `self.APP_SHELL =
// {version, paths}`, AppShell.swift). It keeps the app shell — the document list's and the
// editor's pages, scripts, styles, icons — in a cache named by version, and serves them from
// there, so the editor opens at once and with no server at all (docs/OFFLINE.md). A new server
// version is a new script: it fetches the new shell whole, then takes over and deletes the old.
//
// The browser itself answers from that cache, before this worker has started (Chromium's static
// routes, `shellRoutes`): the shell's files, the list at "/", and each kept document at its own
// address (/documents/{id}), which holds the editor's page — written here from the copies the
// pages keep when a shell is installed, and by the pages as copies come and go
// (./shell-addresses.js). Where routes aren't offered, this worker serves all of it as before.
//
// Besides: the emoji catalogue's files are kept as they are fetched, and so are the stored images
// the pages draw (backgrounds) — those asked of the server each time, which decides who may see
// them, and served from here only when it can't be reached. The API itself is never answered
// from here: the pages keep what they need of documents in IndexedDB, per user.

const SHELL = self.APP_SHELL ?? { version: "none", paths: [] };
const SHELL_CACHE = "emojiart-shell-" + SHELL.version;
const CATALOGUE_CACHE = "emojiart-catalogue";
const IMAGES_CACHE = "emojiart-images"; // as ./document-copies.js names it: deleted on signing out
const DATABASE = "emojiart"; // the pages' IndexedDB database (./local-store.js)
const ADDRESSES_LOCK = "emojiart-shell-addresses"; // as ./shell-addresses.js names it

/** The page a navigation shows, kept in the shell: the list, or the editor for any document. */
function shellPage(url) {
  if (url.pathname === "/" || url.pathname === "/index.html") return "/index.html";
  if (/^\/documents\/[^/]+\/?$/.test(url.pathname) || url.pathname === "/editor.html") return "/editor.html";
  return null;
}

/**
 * The requests the browser answers from the shell's cache without this worker, each with no
 * query: the shell's files and the list's address (as the fetch handler would), and a document's
 * address navigated to while this worker isn't running — from the cache when the document is kept
 * here, else from the server (which sends a visitor who may not see it to sign in); while it runs,
 * the fetch handler gives any document's address the editor's page, as ever.
 */
function shellRoutes() {
  const source = { cacheName: SHELL_CACHE };
  const exactly = (pathname) => ({ urlPattern: { pathname: pathname.replace(/[\\:*?+(){}]/g, "\\$&"), search: "" } });
  const aDocument = { urlPattern: { pathname: "/documents/:id", search: "" }, requestMode: "navigate" };
  return [
    { condition: { ...aDocument, runningStatus: "not-running" }, source },
    { condition: { or: ["/", ...SHELL.paths].map(exactly) }, source },
  ];
}

self.addEventListener("install", (event) => {
  let routed; // where routes aren't offered, or refused, the fetch handler serves all
  try {
    routed = event.addRoutes?.(shellRoutes())?.catch(() => {});
  } catch {
    routed = undefined;
  }
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // Each file as the server has it now, not from the HTTP cache; all or nothing.
      await cache.addAll(SHELL.paths.map((path) => new Request(path, { cache: "reload" })));
      await writeAddresses(cache).catch(() => {}); // optional: without them, pages come from the server
      await routed;
      await self.skipWaiting();
    })(),
  );
});

/**
 * Writes the list's address ("/") and each kept document's (./shell-addresses.js) into the new
 * shell's cache, under the lock the pages write them under, so that a sign-out meanwhile can't
 * leave an address of the documents it took away.
 */
async function writeAddresses(cache) {
  const list = await cache.match("/index.html");
  if (list) await cache.put("/", list);
  const editor = await cache.match("/editor.html");
  if (!editor) return;
  const write = async () => {
    for (const id of await keptDocumentIds()) await cache.put("/documents/" + encodeURIComponent(id), editor.clone());
  };
  await (self.navigator.locks ? self.navigator.locks.request(ADDRESSES_LOCK, write) : write());
}

/** The ids of the documents the pages keep copies of (./document-copies.js), for anyone: none when unreadable. */
async function keptDocumentIds() {
  try {
    if (!(await indexedDB.databases()).some((database) => database.name === DATABASE)) return []; // not made here
    const database = await new Promise((resolve, reject) => {
      const request = indexedDB.open(DATABASE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    database.onversionchange = () => database.close(); // a page upgrading it goes first
    try {
      const keys = await new Promise((resolve, reject) => {
        const request = database.transaction("documents").objectStore("documents").getAllKeys();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      return [...new Set(keys.map(([, id]) => id))];
    } finally {
      database.close();
    }
  } catch {
    return []; // each opens from the server until its page keeps its address again
  }
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("emojiart-shell-") && name !== SHELL_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const page = request.mode === "navigate" ? shellPage(url) : null;
  if (page) {
    event.respondWith(fromShell(page, request));
  } else if (SHELL.paths.includes(url.pathname) && !url.search) {
    event.respondWith(fromShell(url.pathname, request));
  } else if (url.pathname.startsWith("/emoji/")) {
    event.respondWith(keptAsFetched(CATALOGUE_CACHE, request, { revalidate: !url.searchParams.has("v") }));
  } else if (/^\/api\/images\/[^/]+$/.test(url.pathname)) {
    event.respondWith(fromServerElseKept(IMAGES_CACHE, request));
  }
});

/** Whether a response is worth keeping: the file itself, not an error or a sign-in page it was sent to. */
const keepable = (response) => response.ok && response.type === "basic" && !response.redirected;

/** A file of the shell from its cache; from the server when the cache lacks it (being replaced). */
async function fromShell(path, request) {
  const cached = await caches.match(path, { cacheName: SHELL_CACHE });
  if (cached) return cached;
  return fetch(request.mode === "navigate" ? request : path);
}

/**
 * What is kept as fetched: from the cache when there (and, with `revalidate`, fetched again
 * behind it for next time), else from the server, kept when it answered 200.
 */
async function keptAsFetched(cacheName, request, { revalidate }) {
  const cache = await caches.open(cacheName);
  const cached = await cache.match(request);
  const fetching = () =>
    fetch(request).then((response) => {
      if (keepable(response)) cache.put(request, response.clone());
      return response;
    });
  if (!cached) return fetching();
  if (revalidate) fetching().catch(() => {});
  return cached;
}

/**
 * A stored image: from the server, which decides who may see it, and kept for when there is no
 * server; the kept copy only when the server can't be reached. One the server refuses (401, 404)
 * is forgotten here too.
 */
async function fromServerElseKept(cacheName, request) {
  const cache = await caches.open(cacheName);
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    const cached = await cache.match(request);
    if (cached) return cached;
    throw error;
  }
  if (keepable(response)) await cache.put(request, response.clone());
  else if (response.status === 401 || response.status === 403 || response.status === 404) await cache.delete(request);
  return response;
}
