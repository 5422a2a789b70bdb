// Tiny DOM helpers. User text only ever enters the page as text nodes or attribute values.
import { intl, relativePhrase } from "./intl.js";

/**
 * Creates an element. `props`: `class`, `text` (textContent), `on` ({event: handler}),
 * `dataset`, boolean/property-like keys (`disabled`, `hidden`, `value`, `draggable`),
 * anything else becomes an attribute. Children may be nodes or strings (as text).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "on") for (const [type, fn] of Object.entries(value)) node.addEventListener(type, fn);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "value") node.value = value;
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}


/** "5 minutes ago", "yesterday", … for an ISO date string. */
export function relativeTime(iso, now = Date.now()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const seconds = Math.round((date.getTime() - now) / 1000);
  const steps = [
    [60, "second"], [60, "minute"], [24, "hour"], [7, "day"], [4.35, "week"], [12, "month"], [Infinity, "year"],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) {
      if (unit === "second" && Math.abs(value) < 10) return "just now";
      return relativePhrase(Math.round(value), unit);
    }
    value /= size;
  }
  return "";
}

export const formatDate = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : intl(Intl.DateTimeFormat, { dateStyle: "medium", timeStyle: "short" }).format(date);
};

const NOTICE_MS = 5000;
const NOTICE_WITH_ACTION_MS = 12000; // long enough to read the notice and reach its button

/**
 * Shows a short message in the page's notice area (an element with id "notices").
 * kind: "info" | "warning" | "error". Errors and warnings (something works less well than it
 * should, but works) stay until dismissed; info fades after a few seconds (longer with an
 * `action`, a button {label, perform} such as Undo, which also dismisses the notice).
 */
export function notify(message, { kind = "info", title, action } = {}) {
  const area = document.getElementById("notices");
  if (!area) return;
  const close = el("button", { class: "notice-close", type: "button", "aria-label": "Dismiss", text: "×" });
  const button = action ? el("button", { class: "button small notice-action", type: "button", text: action.label }) : null;
  const notice = el("div", { class: "notice notice-" + kind, role: kind === "error" ? "alert" : "status" },
    title ? el("strong", { class: "notice-title", text: title }) : null,
    el("span", { class: "notice-text", text: message }),
    button,
    close);
  close.addEventListener("click", () => notice.remove());
  button?.addEventListener("click", () => {
    notice.remove();
    action.perform();
  });
  area.append(notice);
  while (area.children.length > 4) area.firstElementChild.remove();
  if (kind === "info") setTimeout(() => notice.remove(), action ? NOTICE_WITH_ACTION_MS : NOTICE_MS);
  return notice;
}

/**
 * Asks before something that can't simply be taken back: a modal dialog with the question, a
 * Cancel button (focused, and what Escape does) and a button for `confirmLabel`. Resolves true
 * only when that button is chosen.
 */
export function confirmAction({ title, message, confirmLabel }) {
  const cancel = el("button", { class: "button", value: "cancel", text: "Cancel" });
  const confirm = el("button", { class: "button danger", value: "confirm", text: confirmLabel });
  const heading = el("h2", { id: "confirm-action-title", text: title });
  const dialog = el("dialog", { class: "dialog", role: "alertdialog", "aria-labelledby": "confirm-action-title" },
    el("form", { method: "dialog" }, heading, el("p", { text: message }), el("div", { class: "dialog-actions" }, cancel, confirm)));
  document.body.append(dialog);
  dialog.showModal();
  cancel.focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "confirm");
      dialog.remove();
    });
  });
}


/** A document's file name without its extension: "party.emojiart" → "party". */
export const fileStem = (name) => name.replace(/\.[^./\\]*$/, "") || name;

/**
 * Runs `work` once the page has drawn its next frame and is idle (or after `timeout` ms at most):
 * for what the page needs soon but not on its first screen (docs/PERFORMANCE.md, "Start-up").
 */
export function afterFirstFrame(work, { timeout = 1000 } = {}) {
  requestAnimationFrame(() => {
    if (window.requestIdleCallback) requestIdleCallback(() => work(), { timeout });
    else setTimeout(work, 0);
  });
}
