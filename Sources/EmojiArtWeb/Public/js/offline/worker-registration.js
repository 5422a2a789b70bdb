// Installs the service worker (/sw.js, ./service-worker.js), which keeps the app shell so the
// pages open at once and with no server (docs/OFFLINE.md). Browsers offer service workers only
// to secure pages: https, or http on localhost and 127.0.0.1; elsewhere the pages work as before.

export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  const register = () => navigator.serviceWorker.register("/sw.js").catch(() => {});
  // After the page is up: installing fetches the whole shell, which shouldn't compete with it.
  if (document.readyState === "complete") register();
  else addEventListener("load", register, { once: true });
}
