// The others in the document, for the editor: who is here (./people-row.js), following one of
// them (./follow-mode.js), and being brought to someone's view ("Bring everyone here"). It hears
// the live connection's presence and summon messages; pointers and selections are drawn by the
// canvas's presence layer.
import { notify } from "../dom.js";
import { FollowMode } from "./follow-mode.js";
import { PeopleRow } from "./people-row.js";

export class People {
  /** @param {import("./document-editor.js").DocumentEditor} editor */
  constructor(editor) {
    this.editor = editor;
    this.follow = new FollowMode(document.getElementById("follow-frame"), editor.canvas.viewport, {
      changed: (peer) => {
        this.row.setFollowed(peer);
        editor.presence.changed(); // the others learn whom this window follows
      },
      stopped: (reason, name) => {
        if (reason === "left") notify(`${name} left, so you are no longer following them.`, { title: "Follow" });
        if (reason === "circle") notify(`${name} is following you, so you are no longer following them.`, { title: "Follow" });
        editor.announcer.say(`Stopped following ${name}`);
        editor.actions.refresh();
      },
    });
    this.row = new PeopleRow(document.getElementById("people"), {
      follow: (peer) => (peer ? this.followPeer(peer) : this.follow.stop("stopped")),
      changed: () => editor.actions.refresh(),
    });
  }

  /** How many others are here. */
  get count() {
    return this.row.count;
  }

  /** A presence message: someone's latest (their pointer is drawn by the canvas), or that they left. */
  receive(message) {
    this.editor.canvas.presence.receive(message);
    this.row.receive(message);
    this.follow.receive(message);
  }

  /** The connection went: who is here is told again when it is back; meanwhile no one is known to be. */
  offline() {
    this.follow.forget();
    this.editor.canvas.presence.clear();
    this.row.clear();
  }

  /** Follows someone in the row of people. */
  followPeer(peer) {
    const person = this.row.others.get(peer);
    if (!person) return;
    if (!this.follow.start(peer, person.name, person.colour)) {
      notify(`${person.name} is following you, so you can't follow them.`, { title: "Follow" });
      return;
    }
    this.editor.announcer.say(`Following ${person.name}. Press Escape to stop.`);
    this.editor.actions.refresh();
  }

  /** "Bring everyone here": every other window follows this one until it stops. */
  bringEveryoneHere() {
    // Everyone will follow this window: it follows no one.
    this.follow.stop("stopped");
    if (!this.editor.live.sendSummon()) return;
    const count = this.count;
    notify(`Asked ${count === 1 ? "1 other window" : count + " other windows"} to follow your view.`, { title: "Bring Everyone Here" });
  }

  /** Someone asked everyone to follow them. */
  summoned(message) {
    if (typeof message.peer !== "string" || this.follow.peer === message.peer) return;
    const name = String(message.name);
    if (!this.follow.start(message.peer, name, message.colour)) return;
    notify(`${name} brought everyone to their view. Pan, zoom or press Esc to stop following.`, {
      title: "Following " + name,
      action: { label: "Stop", perform: () => this.follow.stop("stopped") },
    });
    this.editor.actions.refresh();
  }
}
