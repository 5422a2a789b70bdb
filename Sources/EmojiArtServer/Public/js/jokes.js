// The Jokes page (PRODUCT.md §3): a joke when the page appears and on refresh. The server
// fetches it (GET /api/jokes/random); this page shows the joke, a progress indicator while
// fetching, and any error with a way to try again.
import * as api from "./api.js";

const $ = (id) => document.getElementById(id);
const jokeText = $("joke");
const button = $("fetch-joke");
const errorBox = $("joke-error");

/** The observable state: the joke shown and whether a fetch is under way. */
const state = { joke: "", isFetching: false, error: "" };

function render() {
  jokeText.textContent = state.joke;
  button.disabled = state.isFetching;
  button.setAttribute("aria-busy", String(state.isFetching));
  button.dataset.fetching = String(state.isFetching);
  button.setAttribute("aria-label", state.isFetching ? "Fetching a joke…" : "Fetch a joke");
  errorBox.hidden = !state.error;
  $("joke-error-text").textContent = state.error;
}

async function fetchJoke() {
  if (state.isFetching) return; // one fetch at a time from this page
  state.isFetching = true;
  state.error = "";
  render();
  try {
    state.joke = (await api.randomJoke()).value;
  } catch (error) {
    state.error = error.message;
  } finally {
    state.isFetching = false; // on every way out
    render();
  }
}

button.addEventListener("click", fetchJoke);
$("joke-retry").addEventListener("click", fetchJoke);
document.addEventListener("keydown", (event) => {
  if (event.key.toLowerCase() === "r" && !event.ctrlKey && !event.metaKey && !event.altKey) {
    event.preventDefault();
    fetchJoke();
  }
});

fetchJoke();
