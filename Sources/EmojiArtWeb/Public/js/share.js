// The owner's Share dialog: links (view, comment or edit) with copy and revoke, and people by name with
// their role. Every change goes to the server at once; the lists show what the server answers.
import * as api from "./api.js";
import { el, notify } from "./dom.js";

const ROLE_NAMES = { edit: "Can edit", comment: "Can comment", view: "Can view" };

export class ShareDialog {
  constructor(dialog, documentId) {
    this.dialog = dialog;
    this.documentId = documentId;
    this.links = dialog.querySelector("#share-links");
    this.people = dialog.querySelector("#share-people");
    this.error = dialog.querySelector("#share-error");
    this.name = dialog.querySelector("#share-name");
    this.role = dialog.querySelector("#share-role");
    dialog.querySelector("#share-new-view").addEventListener("click", () => this.createLink("view"));
    dialog.querySelector("#share-new-comment").addEventListener("click", () => this.createLink("comment"));
    dialog.querySelector("#share-new-edit").addEventListener("click", () => this.createLink("edit"));
    dialog.querySelector("#share-add").addEventListener("click", () => this.share());
    this.name.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.share();
      }
    });
  }

  async open() {
    this.showError("");
    if (!this.dialog.open) this.dialog.showModal();
    await Promise.all([this.loadLinks(), this.loadPeople()]);
  }

  showError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
  }

  async attempt(action) {
    this.showError("");
    try {
      await action();
    } catch (error) {
      this.showError(error.message);
    }
  }

  loadLinks() {
    return this.attempt(async () => {
      const links = await api.listLinks(this.documentId);
      this.links.replaceChildren(...(links.length ? links.map((link) => this.linkRow(link)) : [el("li", { class: "hint", text: "No links yet." })]));
    });
  }

  linkRow(link) {
    const url = el("input", { type: "text", class: "share-url", value: link.url, readonly: true, "aria-label": ({ edit: "Edit", comment: "Comment" }[link.role] ?? "View") + " link" });
    url.addEventListener("focus", () => url.select());
    return el("li", { dataset: { linkId: link.id, role: link.role } },
      el("span", { class: "role-badge", text: ROLE_NAMES[link.role] ?? "Can view" }),
      url,
      el("button", { type: "button", class: "button small", text: "Copy", on: { click: () => this.copy(link.url) } }),
      el("button", { type: "button", class: "button small danger", text: "Revoke", on: { click: () => this.revoke(link) } }));
  }

  async copy(url) {
    try {
      await navigator.clipboard.writeText(url);
      notify("Link copied.");
    } catch {
      this.showError("Couldn’t copy: select the link and copy it yourself.");
    }
  }

  createLink(role) {
    return this.attempt(async () => {
      await api.createLink(this.documentId, role);
      await this.loadLinks();
    });
  }

  revoke(link) {
    return this.attempt(async () => {
      await api.revokeLink(this.documentId, link.id);
      await this.loadLinks();
    });
  }

  loadPeople() {
    return this.attempt(async () => this.showPeople(await api.listMembers(this.documentId)));
  }

  showPeople(members) {
    this.people.replaceChildren(...members.map((member) => {
      if (member.role === "owner") {
        return el("li", {}, el("span", { class: "member-name", text: member.name }), el("span", { class: "hint", text: "Owner" }));
      }
      const select = el("select", { "aria-label": "Role of " + member.name },
        el("option", { value: "editor", text: "Can edit" }), el("option", { value: "commenter", text: "Can comment" }),
        el("option", { value: "viewer", text: "Can view" }));
      select.value = member.role;
      select.addEventListener("change", () =>
        this.attempt(async () => this.showPeople(await api.setMember(this.documentId, member.name, select.value))));
      return el("li", { dataset: { member: member.name } },
        el("span", { class: "member-name", text: member.name }), select,
        el("button", { type: "button", class: "button small danger", text: "Remove", on: { click: () => this.unshare(member.name) } }));
    }));
  }

  share() {
    const name = this.name.value.trim();
    if (!name) {
      this.showError("Type the user name of the person to share with.");
      return;
    }
    return this.attempt(async () => {
      this.showPeople(await api.setMember(this.documentId, name, this.role.value));
      this.name.value = "";
    });
  }

  unshare(name) {
    return this.attempt(async () => {
      await api.removeMember(this.documentId, name);
      await this.loadPeople();
    });
  }
}
