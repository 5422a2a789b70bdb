// The addresses of the documents this browser keeps (./document-copies.js), each holding the
// editor's page in the service worker's shell cache: the browser opens a kept document from there
// by the worker's static routes (./service-worker.js) — before the worker has even started, and
// with no server. A miss there goes to the server, so a kept document's address is written before
// its copy and removed after it. The worker writes them all itself when it installs a new shell
// (from the copies); these keep them in step as copies come and go. Failing here only means the
// page comes from the server (or, with none, from nowhere) — never a lost copy.

/** The caches of the app shell, as ./service-worker.js names them: one per server version. */
const SHELL_CACHE_PREFIX = "emojiart-shell-";

/** The path document `id` opens at, as the browser asks for it. */
const documentAddress = (id) => "/documents/" + encodeURIComponent(id);

async function shellCaches() {
  if (!globalThis.caches) return [];
  const names = (await caches.keys()).filter((name) => name.startsWith(SHELL_CACHE_PREFIX));
  return Promise.all(names.map((name) => caches.open(name)));
}

/** Writes the editor's page at the address of each of `ids` it isn't at yet, in every shell cache there is. */
export async function keepAddresses(ids) {
  try {
    for (const cache of await shellCaches()) {
      const page = await cache.match("/editor.html");
      for (const id of page ? ids : []) {
        if (!(await cache.match(documentAddress(id)))) await cache.put(documentAddress(id), page.clone());
      }
    }
  } catch {
    /* opened from the server instead */
  }
}

/** Removes the address of each of `ids` from every shell cache. */
export async function forgetAddresses(ids) {
  try {
    for (const cache of await shellCaches()) for (const id of ids) await cache.delete(documentAddress(id));
  } catch {
    /* an address kept opens the editor's page, which asks the server what it may show */
  }
}
