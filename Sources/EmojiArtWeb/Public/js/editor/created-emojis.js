// The emojis each recent change added, by version: [first new id, next id). A window that
// pasted, duplicated or picked something selects what it made once the server's change for it
// arrives (and the announcer names it).

const REMEMBERED = 64; // versions whose new ids are kept

export class CreatedEmojis {
  constructor() {
    this.ranges = new Map();
  }

  /** The change at `version` took the next emoji id from `first` to `next`. */
  remember(version, first, next) {
    if (next > first) this.ranges.set(version, [first, next]);
    if (this.ranges.size > REMEMBERED) this.ranges.delete(this.ranges.keys().next().value);
  }

  has(version) {
    return this.ranges.has(version);
  }

  /** [first new id, next id) of the change at `version`, if this window saw it. */
  range(version) {
    return this.ranges.get(version) ?? null;
  }

  /** The ids of the emojis the change at `version` added that `state` still has. */
  ids(version, state) {
    const range = this.ranges.get(version);
    if (!range || !state) return [];
    const [first, next] = range;
    return state.emojis.filter((emoji) => emoji.id >= first && emoji.id < next).map((emoji) => emoji.id);
  }
}
