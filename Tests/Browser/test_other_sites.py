"""Another web site's page, open in the same browser, can't read or change the user's documents:
its fetches, form posts and WebSockets against the local server all fail and change nothing."""

ATTACKS = """async ([base, id]) => {
  const results = {};
  const attempt = async (name, run) => {
    try { results[name] = await run(); } catch (error) { results[name] = "failed: " + error.name; }
  };
  // A simple request needs no preflight: it reaches the server, which must refuse it.
  await attempt("import", () => fetch(base + "/api/documents/import", {
    method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
    body: JSON.stringify({emojis: [], uniqueEmojiId: 0})}).then(r => r.type));
  await attempt("edit", () => fetch(base + "/api/documents/" + id + "/edits", {
    method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
    body: JSON.stringify({baseVersion: 0, edits: [{type: "addEmoji", text: "💣", position: {x: 0, y: 0}, size: 40}]})
  }).then(r => r.type));
  await attempt("undo", () => fetch(base + "/api/documents/" + id + "/undo", {method: "POST", mode: "no-cors"})
    .then(r => r.type));
  await attempt("delete", () => fetch(base + "/api/documents/" + id, {method: "DELETE"}).then(r => r.status));
  await attempt("read", () => fetch(base + "/api/documents").then(r => r.text()));
  await attempt("json", () => fetch(base + "/api/documents", {
    method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"}).then(r => r.status));
  for (const path of ["/api/documents/" + id + "/live", "/api/palettes/live", "/api/game/live"]) {
    results["ws " + path] = await new Promise(resolve => {
      const socket = new WebSocket(base.replace("http", "ws") + path);
      let opened = false, messages = 0;
      socket.onopen = () => { opened = true; };
      socket.onmessage = () => { messages += 1; };
      socket.onclose = () => resolve({opened, messages});
      setTimeout(() => { resolve({opened, messages, timedOut: true}); socket.close(); }, 3000);
    });
  }
  return results;
}"""


def test_another_sites_page_can_neither_read_nor_change_anything(browser, server, api, other_site):
    doc = api.create("Private", emojis=[("🐶", 0, 0, 40)])
    before = api.documents()
    context = browser.new_context()
    page = context.new_page()
    page.goto(other_site)
    results = page.evaluate(ATTACKS, [server, doc["id"]])
    # Opaque answers for no-cors requests: the page learns nothing, and the server refused them.
    assert results["read"].startswith("failed"), results
    assert results["delete"].startswith("failed"), results
    assert results["json"].startswith("failed"), results
    for path in ["/api/documents/" + doc["id"] + "/live", "/api/palettes/live", "/api/game/live"]:
        outcome = results["ws " + path]
        assert outcome["opened"] is False and outcome["messages"] == 0, (path, outcome)

    # A form post navigates the page to the answer: the refusal.
    page.evaluate("""([action]) => {
      const form = document.createElement("form");
      form.method = "POST"; form.action = action; form.enctype = "text/plain";
      const input = document.createElement("input");
      input.name = '{"title":"planted","x":"'; input.value = '"}';
      form.append(input); document.body.append(form); form.submit();
    }""", [server + "/api/documents"])
    page.wait_for_url(server + "/api/documents")
    assert '"cross_site"' in page.content()
    context.close()

    after = api.documents()
    assert [d["id"] for d in after] == [d["id"] for d in before]
    state = api.get(doc)
    assert state["version"] == doc["version"] and state["title"] == "Private"
    assert [e["text"] for e in state["emojis"]] == ["🐶"]

