// Installs the service worker (/sw.js, ./service-worker.js), which keeps the app shell so the
// pages open at once and with no server (docs/OFFLINE.md). Browsers offer service workers only
// to secure pages: https, or http on localhost and 127.0.0.1; elsewhere the pages work as before.
// Once it runs, and whenever a new one takes over, the addresses the kept documents open at are
// made to follow the copies (./shell-addresses.js).

/** @param {import("./document-copies.js").DocumentCopies} copies the page's copies of documents */
export function registerServiceWorker(copies) {
  if (!("serviceWorker" in navigator)) return;
  const register = () =>
    navigator.serviceWorker
      .register("/sw.js")
      .then(() => navigator.serviceWorker.ready)
      .then(() => copies.syncAddresses())
      .catch(() => {});
  navigator.serviceWorker.addEventListener("controllerchange", () => copies.syncAddresses());
  // After the page is up: installing fetches the whole shell, which shouldn't compete with it.
  if (document.readyState === "complete") register();
  else addEventListener("load", register, { once: true });
}
