// Who is asking, as the key of what this browser keeps for them (./local-store.js): "user:<id>"
// for someone signed in (or the local user, in local mode), "guest" for a visitor who came
// through share links. The server says who it is (`GET /api/session`); while it can't be reached
// the last answer, remembered (in IndexedDB, which a crashed browser doesn't lose), stands in.
import { palettesKey } from "../palettes.js";
import { DocumentCopies } from "./document-copies.js";

const REMEMBERED = "identity";

/** A remembered key as this page writes them, or undefined (none, or a record spoilt). */
const rememberedKey = (value) => (typeof value === "string" && (value === "guest" || value.startsWith("user:")) ? value : undefined);

/** The key of a `GET /api/session` answer (null: nobody signed in, a link visitor at most). */
const identityKey = (session) => (session?.user?.id ? "user:" + session.user.id : "guest");

export class Identity {
  /** @param {import("./local-store.js").LocalStore} store */
  constructor(store) {
    this.store = store;
    this.asking = null;
  }

  /**
   * {key, previous, confirmed, session}: whose things this page may read and write, and the
   * server's answer (`GET /api/session`, null for nobody). `previous` is the key remembered from
   * an earlier answer when it differs (someone else used this browser since); `confirmed` is
   * false when the server couldn't be asked and the remembered key stands in (or, with none
   * remembered, "unknown", whose things are never sent). Asked once per page; `again` asks again
   * when the last answer wasn't confirmed, `fresh` asks again whatever it was (before sending
   * what was kept for one account: another tab may have signed in as someone else).
   */
  whoIsAsking({ again = false, fresh = false } = {}) {
    if (fresh) this.asking = this.ask();
    if (again && this.asking) this.asking = this.asking.then((who) => (who.confirmed ? who : this.ask()));
    this.asking ??= this.ask();
    return this.asking;
  }

  async ask() {
    const [before, response] = await Promise.all([
      this.store.readMeta(REMEMBERED).then(rememberedKey, () => undefined),
      fetch("/api/session", { headers: { Accept: "application/json" } }).catch(() => null),
    ]);
    const session = response?.status === 200 && !response.redirected ? await response.json().catch(() => null) : null;
    // Only a 200 with a session, or a 401, is an answer (not a network failure, a 5xx, or a
    // portal's page in its place).
    if (!(session?.user || response?.status === 401)) {
      return { key: before ?? "unknown", previous: null, confirmed: false, session: null };
    }
    return this.confirmed(session, before);
  }

  /**
   * The server named `session`'s user (null: nobody, a guest): remembered, and when it is another
   * account than the one remembered (`before`), that one's copies of documents go — their unsent
   * changes stay theirs, never sent as anyone else, until they sign out or come back.
   */
  async confirmed(session, before) {
    const key = identityKey(session);
    const previous = before && before !== key ? before : null;
    if (key !== before) await this.store.writeMeta(REMEMBERED, key).catch(() => {});
    if (previous && key.startsWith("user:")) {
      await new DocumentCopies(this.store).forgetAll(previous).catch(() => {});
      await this.store.writeMeta(palettesKey(previous), undefined).catch(() => {});
    }
    return { key, previous, confirmed: true, session };
  }

  /** Someone just signed in (the sign-in page): `session` is who is asking from now on. */
  async signedIn(session) {
    const before = await this.store.readMeta(REMEMBERED).then(rememberedKey, () => undefined);
    this.asking = this.confirmed(session, before);
    await this.asking;
  }

  /** Nobody is signed in here any more (signed out): forget the remembered key. */
  forget() {
    return this.store.writeMeta(REMEMBERED, undefined);
  }
}
