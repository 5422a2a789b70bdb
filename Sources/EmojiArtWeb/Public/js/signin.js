// The sign-in page (accounts mode): name and password, then back where the user was going.
// With open sign-up it also makes accounts.
import * as api from "./api.js";
import { Identity } from "./offline/identity.js";
import { LocalStore } from "./offline/local-store.js";

const OWN_HOSTS = () => new Set([location.hostname.toLowerCase(), "localhost", "127.0.0.1", "[::1]"]);
const PATH_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;
const SUFFIX_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%]/;

function escaped(text, safe) {
  let out = "";
  for (const ch of text) out += safe.test(ch) ? ch : encodeURIComponent(ch);
  return out;
}

/** RFC 3986's remove_dot_segments, for an absolute path. */
function removingDotSegments(path) {
  const segments = path.split("/").slice(1);
  const output = [];
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === ".") {
      if (last) output.push("");
    } else if (segment === "..") {
      output.pop();
      if (last) output.push("");
    } else output.push(segment);
  });
  return "/" + output.join("/");
}

/** Percent-escapes decoded until none is left (four rounds at most); null when they don't decode. */
function decodedPath(path) {
  let current = path;
  for (let round = 0; round < 4; round++) {
    if (!/%[0-9A-Fa-f]{2}/.test(current)) return current;
    let next;
    try {
      next = decodeURIComponent(current.replace(/%(?![0-9A-Fa-f]{2})/g, "%25"));
    } catch {
      return null;
    }
    if (next === current) return current;
    current = next;
  }
  return /%[0-9A-Fa-f]{2}/.test(current) ? null : current;
}

/**
 * Where the browser may go after signing in: a path of this site, never another. The same
 * rules as the server's (ReturnPath.swift), which answers the value to use; the page checks
 * again. Tabs and newlines are dropped, backslashes are slashes, escapes decoded, dot segments
 * resolved; what is left must start with one "/". An absolute URL counts only if it names this
 * server. Anything else is "/".
 */
export function returnPath(next) {
  if (typeof next !== "string" || next.length > 2048) return "/";
  let text = next.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
  text = text.replace(/\\/g, "/");
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
  if (scheme) {
    if (!["http", "https"].includes(scheme[1].toLowerCase())) return "/";
    const rest = text.slice(scheme[0].length).replace(/^\/+/, "");
    const end = rest.search(/[/?#]/);
    const authority = end < 0 ? rest : rest.slice(0, end);
    const host = authority.startsWith("[") ? authority.slice(0, authority.indexOf("]") + 1) : authority.split(":")[0];
    if (authority.includes("@") || !OWN_HOSTS().has(host.toLowerCase().replace(/\.$/, ""))) return "/";
    const tail = end < 0 ? "" : rest.slice(end);
    text = tail.startsWith("/") ? tail : "/" + tail;
  }
  if (!text.startsWith("/") || text.startsWith("//")) return "/";
  const cut = text.search(/[?#]/);
  const rawPath = cut < 0 ? text : text.slice(0, cut);
  const suffix = cut < 0 ? "" : escaped(text.slice(cut), SUFFIX_SAFE);
  const decoded = decodedPath(rawPath);
  if (decoded === null) return "/";
  const path = removingDotSegments(decoded.replace(/\\/g, "/"));
  // eslint-disable-next-line no-control-regex
  if (!path.startsWith("/") || path.startsWith("//") || /[\u0000-\u001f\u007f]/.test(path)) return "/";
  return escaped(path, PATH_SAFE) + suffix;
}

/** Where to go afterwards, from the page's query (`?next=`). */
function nextPath(search) {
  return returnPath(new URLSearchParams(search).get("next") || "/");
}

class SignInPage {
  constructor() {
    this.$ = (id) => document.getElementById(id);
    this.form = this.$("signin-form");
    this.errorBox = this.$("signin-error");
    this.submit = this.$("signin-submit");
    this.signingUp = false;
    this.form.addEventListener("submit", (event) => this.submitted(event));
    this.$("signup-toggle").addEventListener("click", () => this.setMode(!this.signingUp));
  }

  showError(message) {
    this.errorBox.textContent = message;
    this.errorBox.hidden = !message;
  }

  setMode(signup) {
    const $ = this.$;
    this.signingUp = signup;
    $("signin-heading").textContent = signup ? "Create an account" : "Sign in";
    this.submit.textContent = signup ? "Create account" : "Sign in";
    $("signin-password").autocomplete = signup ? "new-password" : "current-password";
    $("signup-toggle").textContent = signup ? "Sign in instead" : "Create an account";
    this.showError("");
  }

  async submitted(event) {
    event.preventDefault();
    const name = this.$("signin-name").value.trim();
    const password = this.$("signin-password").value;
    if (!name || !password) {
      this.showError("Enter your name and password.");
      return;
    }
    this.submit.disabled = true;
    try {
      const next = new URLSearchParams(location.search).get("next") || "/";
      const answer = this.signingUp ? await api.signUp(name, password, next) : await api.signIn(name, password, next);
      // What this browser keeps is theirs from now on (another account's copies go: docs/OFFLINE.md).
      await new Identity(new LocalStore()).signedIn(answer).catch(() => {});
      // The server says where to go; the page holds it to the same rules.
      location.assign(returnPath(answer?.next ?? nextPath(location.search)));
    } catch (error) {
      this.showError(error.message);
      this.$("signin-password").select();
    } finally {
      this.submit.disabled = false;
    }
  }

  async start() {
    try {
      const health = await api.health();
      if (health.access !== "accounts") {
        location.assign(nextPath(location.search)); // local mode: nothing to sign in to
        return;
      }
      this.$("signup-switch").hidden = !health.signup;
    } catch {
      /* the form still works */
    }
    this.$("signin-name").focus();
    document.body.dataset.ready = "true";
  }
}

new SignInPage().start();
