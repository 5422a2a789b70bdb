// The Jokes page (PRODUCT.md §3): a joke when the page appears and on refresh. The server
// fetches it (GET /api/jokes/random); this page shows the joke, a progress indicator while
// fetching, and any error in its place — one button fetches, and after an error it says
// "Try again".
import * as api from "./api.js";

class JokesPage {
  constructor() {
    const $ = (id) => document.getElementById(id);
    this.jokeText = $("joke");
    this.button = $("fetch-joke");
    this.label = this.button.querySelector(".fetch-joke-label");
    this.errorBox = $("joke-error");
    this.errorText = $("joke-error-text");
    /** The observable state: the joke shown, whether a fetch is under way, what went wrong. */
    this.state = { joke: "", isFetching: false, error: "" };
  }

  render() {
    const { joke, isFetching, error } = this.state;
    this.jokeText.textContent = joke;
    this.jokeText.hidden = !joke;
    this.button.disabled = isFetching;
    this.button.setAttribute("aria-busy", String(isFetching));
    this.button.dataset.fetching = String(isFetching);
    this.label.textContent = error ? "Try again" : "Fetch a joke";
    this.button.setAttribute("aria-label", isFetching ? "Fetching a joke…" : this.label.textContent);
    this.errorBox.hidden = !error;
    this.errorText.textContent = error;
  }

  async fetchJoke() {
    if (this.state.isFetching) return; // one fetch at a time from this page
    this.state.isFetching = true;
    this.render();
    try {
      this.state.joke = (await api.randomJoke()).value;
      this.state.error = "";
    } catch (error) {
      this.state.joke = ""; // an old joke above the error would read as the answer
      this.state.error = error.message;
    } finally {
      this.state.isFetching = false; // on every way out
      this.render();
    }
  }

  start() {
    this.button.addEventListener("click", () => this.fetchJoke());
    document.addEventListener("keydown", (event) => {
      if (event.key.toLowerCase() === "r" && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        this.fetchJoke();
      }
    });
    this.fetchJoke();
  }
}

new JokesPage().start();
