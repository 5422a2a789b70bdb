// The sign-in page (accounts mode): name and password, then back where the user was going.
// With open sign-up it also makes accounts.
import * as api from "./api.js";

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
      if (this.signingUp) await api.signUp(name, password);
      else await api.signIn(name, password);
      location.assign(nextPath(location.search));
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
