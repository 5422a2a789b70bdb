// The addresses of the documents this browser keeps (./document-copies.js), each holding the
// editor's page in the service worker's shell cache: the browser opens a kept document from there
// by the worker's static routes (./service-worker.js) — before the worker has even started, and
// with no server. A miss there goes to the server, not to the worker, so the addresses follow the
// copies: `syncAddresses` makes every shell cache hold exactly the addresses of the documents
// anyone here keeps, under a lock the worker takes too while it writes a new shell's. A copy
// saved also writes its own address beside it at once (a page going has no time for more).
// Failing here only means a page comes from the server (or, with none, not at all) — never a lost
// copy.

/** The caches of the app shell, as ./service-worker.js names them: one per server version. */
const SHELL_CACHE_PREFIX = "emojiart-shell-";
/** The Web Lock the pages and the worker write addresses under (./service-worker.js names it too). */
const ADDRESSES_LOCK = "emojiart-shell-addresses";
const ADDRESS = /^\/documents\/[^/]+$/;

/** The path document `id` opens at, as the browser asks for it. */
const documentAddress = (id) => "/documents/" + encodeURIComponent(id);

/** The shell caches there are, each with the editor's page it holds. */
async function shellCaches() {
  const found = [];
  for (const name of (await caches.keys()).filter((name) => name.startsWith(SHELL_CACHE_PREFIX))) {
    if (!(await caches.has(name))) continue; // deleted meanwhile (a new shell took over): not made again
    const cache = await caches.open(name);
    const page = await cache.match("/editor.html");
    if (page) found.push({ cache, page });
  }
  return found;
}

/** Writes the editor's page at the address of each of `ids` it isn't at yet, in every shell cache. */
export async function keepAddresses(ids) {
  try {
    for (const { cache, page } of await shellCaches()) {
      for (const id of ids) if (!(await cache.match(documentAddress(id)))) await cache.put(documentAddress(id), page.clone());
    }
  } catch {
    /* opened from the server instead */
  }
}

/**
 * Makes every shell cache hold the addresses of the documents `keptIds()` names and no others;
 * `keptIds` is asked under the lock, so no other page or worker writes between its answer and
 * these writes.
 */
export async function syncAddresses(keptIds) {
  if (!globalThis.caches) return;
  const sync = async () => {
    const kept = new Set((await keptIds()).map(documentAddress));
    for (const { cache, page } of await shellCaches()) {
      const held = new Set((await cache.keys()).map((request) => new URL(request.url).pathname).filter((path) => ADDRESS.test(path)));
      for (const path of held) if (!kept.has(path)) await cache.delete(path);
      for (const path of kept) if (!held.has(path)) await cache.put(path, page.clone());
    }
  };
  try {
    await (navigator.locks ? navigator.locks.request(ADDRESSES_LOCK, sync) : sync());
  } catch {
    /* the next sync does it; meanwhile a page may come from the server */
  }
}
