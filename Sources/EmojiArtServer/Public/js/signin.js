// The sign-in page (accounts mode): name and password, then back where the user was going.
// With open sign-up it also makes accounts.
import * as api from "./api.js";

const $ = (id) => document.getElementById(id);
const form = $("signin-form");
const errorBox = $("signin-error");
const submit = $("signin-submit");
let signingUp = false;

/**
 * Where to go afterwards: a page of this site only. The address is resolved as the browser
 * would (tabs and newlines dropped, backslashes as slashes) and kept only if it stays here.
 */
export function nextPath(search) {
  const next = new URLSearchParams(search).get("next") || "/";
  try {
    const url = new URL(next, location.origin);
    if (url.origin === location.origin) return url.pathname + url.search + url.hash;
  } catch {
    /* not an address at all */
  }
  return "/";
}

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

function setMode(signup) {
  signingUp = signup;
  $("signin-heading").textContent = signup ? "Create an account" : "Sign in";
  submit.textContent = signup ? "Create account" : "Sign in";
  $("signin-password").autocomplete = signup ? "new-password" : "current-password";
  $("signup-toggle").textContent = signup ? "Sign in instead" : "Create an account";
  showError("");
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("signin-name").value.trim();
  const password = $("signin-password").value;
  if (!name || !password) {
    showError("Enter your name and password.");
    return;
  }
  submit.disabled = true;
  try {
    if (signingUp) await api.signUp(name, password);
    else await api.signIn(name, password);
    location.assign(nextPath(location.search));
  } catch (error) {
    showError(error.message);
    $("signin-password").select();
  } finally {
    submit.disabled = false;
  }
});

$("signup-toggle").addEventListener("click", () => setMode(!signingUp));

async function start() {
  try {
    const health = await api.health();
    if (health.access !== "accounts") {
      location.assign(nextPath(location.search)); // local mode: nothing to sign in to
      return;
    }
    $("signup-switch").hidden = !health.signup;
  } catch {
    /* the form still works */
  }
  $("signin-name").focus();
  document.body.dataset.ready = "true";
}

start();
