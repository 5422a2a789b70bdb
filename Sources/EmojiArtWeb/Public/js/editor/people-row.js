// Who is in the document, as a row of avatars in the toolbar (docs/API.md, "Presence") while
// anyone else is: this window first ("you"), then everyone else in the order they arrived — initials on their
// colour, the name on hover. Clicking someone follows their view (./follow-mode.js); "Bring
// everyone here" (editors and owners) asks every other window to follow this one. Names are
// text, never markup.

const SHOWN = 5; // avatars of others shown; the rest are counted in "+N"

/** "Ada Lovelace" → "AL", "Guest 3" → "G3", "ada" → "A" (whole characters, so emoji and accents survive). */
function initials(name) {
  const words = String(name).trim().split(/\s+/).filter(Boolean);
  const first = (word) => Array.from(word)[0] || "";
  if (!words.length) return "?";
  if (words.length === 1) return first(words[0]).toUpperCase();
  return (first(words[0]) + first(words[words.length - 1])).toUpperCase();
}

const safeColour = (colour) => (/^#[0-9a-f]{6}$/i.test(colour) ? colour : "#888888");

export class PeopleRow {
  /**
   * @param {HTMLElement} root the row's element
   * @param {{follow: (peer: string) => void, changed?: () => void}} handlers
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    /** This window as the others see it: {peer, name, colour}, once the server said. */
    this.you = null;
    /** @type {Map<string, {peer: string, name: string, colour: string}>} everyone else, by peer id, in arrival order */
    this.others = new Map();
    this.followed = null;
    /** Whether everyone is shown, not the first few and "+N". */
    this.expanded = false;
    this.list = root.querySelector(".people-list");
  }

  get count() {
    return this.others.size;
  }

  /** Someone's name, or null when they are not (or no longer) here. */
  nameOf(peer) {
    return this.others.get(peer)?.name ?? null;
  }

  /** A presence message (its `you` form describes this window). */
  receive(message) {
    if (typeof message.peer !== "string") return;
    if (message.you) {
      this.you = { peer: message.peer, name: String(message.name), colour: safeColour(message.colour) };
    } else if (message.left) {
      if (!this.others.delete(message.peer)) return;
    } else {
      const known = this.others.get(message.peer);
      const name = String(message.name);
      const colour = safeColour(message.colour);
      if (known && known.name === name && known.colour === colour) return; // a pointer moved: the row is the same
      this.others.set(message.peer, { peer: message.peer, name, colour });
    }
    this.draw();
    this.handlers.changed?.();
  }

  /** The connection went: who is here is told again when it is back. */
  clear() {
    this.others.clear();
    this.draw();
    this.handlers.changed?.();
  }

  /** Marks the person followed (or none). */
  setFollowed(peer) {
    this.followed = peer;
    this.draw();
  }

  draw() {
    // The row is drawn afresh; the person (or "+N") that had the focus keeps it.
    const focused = this.list.contains(document.activeElement) ? document.activeElement.dataset.peer : undefined;
    const avatars = [];
    if (this.you) {
      const you = this.avatar(this.you, "span");
      you.classList.add("you");
      you.title = `${this.you.name} (you)`;
      you.setAttribute("role", "img"); // so its name is read
      you.setAttribute("aria-label", `${this.you.name} (you)`);
      avatars.push(you);
    }
    const others = [...this.others.values()];
    const shown = this.expanded ? others.length : SHOWN;
    for (const person of others.slice(0, shown)) {
      const button = this.avatar(person, "button");
      button.type = "button";
      button.title = person.name;
      const following = this.followed === person.peer;
      button.setAttribute("aria-label", following ? `Stop following ${person.name}` : `Follow ${person.name}`);
      button.setAttribute("aria-pressed", String(following));
      button.addEventListener("click", () => this.handlers.follow(following ? null : person.peer));
      avatars.push(button);
    }
    if (others.length > shown) {
      const more = document.createElement("button");
      more.type = "button";
      more.className = "avatar more";
      more.dataset.peer = "more";
      more.textContent = `+${others.length - shown}`;
      more.title = others.slice(shown).map((person) => person.name).join(", ");
      more.setAttribute("aria-label", `Show ${others.length - shown} more: ${more.title}`);
      more.addEventListener("click", () => {
        this.expanded = true;
        this.draw();
        this.list.querySelector(`button[data-peer="${CSS.escape(others[shown].peer)}"]`)?.focus();
      });
      avatars.push(more);
    }
    this.list.replaceChildren(...avatars);
    if (focused !== undefined) {
      const again = this.list.querySelector(`button[data-peer="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    }
    // Alone, there is no one to show: the row appears (and the toolbar makes room) when someone joins.
    this.root.hidden = !others.length;
    this.root.dataset.count = String(others.length);
  }

  avatar(person, tag) {
    const element = document.createElement(tag);
    element.className = "avatar";
    element.dataset.peer = person.peer;
    element.style.setProperty("--peer", person.colour);
    element.textContent = initials(person.name); // text, never markup
    return element;
  }
}
