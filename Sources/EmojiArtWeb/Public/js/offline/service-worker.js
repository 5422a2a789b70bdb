// The service worker (served as /sw.js, after a first line the server writes: `self.APP_SHELL =
// {version, paths}`, AppShell.swift). It keeps the app shell — the document list's and the
// editor's pages, scripts, styles, icons — in a cache named by version, and serves them from
// there, so the editor opens at once and with no server at all (docs/OFFLINE.md). A new server
// version is a new script: it fetches the new shell whole, then takes over and deletes the old.
//
// Besides: the emoji catalogue's files are kept as they are fetched, and so are the stored images
// the pages draw (backgrounds) — those asked of the server each time, which decides who may see
// them, and served from here only when it can't be reached. The API itself is never answered
// from here: the pages keep what they need of documents in IndexedDB, per user.

const SHELL = self.APP_SHELL ?? { version: "none", paths: [] };
const SHELL_CACHE = "emojiart-shell-" + SHELL.version;
const CATALOGUE_CACHE = "emojiart-catalogue";
const IMAGES_CACHE = "emojiart-images"; // as ./document-copies.js names it: deleted on signing out

/** The page a navigation shows, kept in the shell: the list, or the editor for any document. */
function shellPage(url) {
  if (url.pathname === "/" || url.pathname === "/index.html") return "/index.html";
  if (/^\/documents\/[^/]+\/?$/.test(url.pathname) || url.pathname === "/editor.html") return "/editor.html";
  return null;
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // Each file as the server has it now, not from the HTTP cache; all or nothing.
      await cache.addAll(SHELL.paths.map((path) => new Request(path, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

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
