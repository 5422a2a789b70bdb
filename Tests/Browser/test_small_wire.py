"""Small wire (issue #21 item 5): moving a big selection sends an edit and a change whose size
does not grow with the number of emojis — ids as runs and one offset, not each emoji's state —
and every window ends with every emoji moved."""

import json

from helpers import emoji, open_editor, wait_version


def test_moving_a_thousand_selected_emojis_sends_a_few_hundred_bytes_each_way(page, api, browser, server):
    emojis = [("🐝", (i % 40) * 30 - 600, (i // 40) * 30 - 375, 20) for i in range(1_000)]
    doc = api.create("Swarm", emojis=emojis[:500])  # in two requests: each body is at most 64 KiB
    doc = api.edit(
        doc, [{"type": "addEmoji", "text": t, "position": {"x": x, "y": y}, "size": z} for (t, x, y, z) in emojis[500:]]
    )
    before = api.get(doc)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)) if "/live" in ws.url else None)
    open_editor(page, doc)

    context = browser.new_context(base_url=server, viewport={"width": 1000, "height": 700})
    other = context.new_page()
    received: list[str] = []
    other.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(payload)) if "/live" in ws.url else None)
    open_editor(other, doc)
    # Two emojis near the middle of the view: a document this big has options only round it.
    first, last = emoji(other, 501).bounding_box(), emoji(other, 541).bounding_box()

    page.locator("#canvas").focus()
    page.keyboard.press("Control+a")
    page.keyboard.press("Shift+ArrowRight")
    wait_version(page, doc["version"] + 1)
    wait_version(other, doc["version"] + 1)

    (edit,) = [json.loads(text) for text in sent if '"type":"edit"' in text]
    assert edit["edits"][0]["type"] == "moveEmojis"
    assert edit["edits"][0]["idRanges"] == [[1, 1_000]] and "ids" not in edit["edits"][0]
    assert len(json.dumps(edit)) < 400

    (change,) = [json.loads(text) for text in received if text.startswith('{"type":"change"')]
    patch = change["patch"]
    assert patch["updated"] == [] and patch["inserted"] == [] and patch["removed"] == []
    (group,) = patch["moved"]
    assert group["idRanges"] == [[1, 1_000]]
    offset = group["offset"]
    assert offset["x"] > 0 and offset["y"] == 0
    assert len(next(text for text in received if text.startswith('{"type":"change"'))) < 400

    # Every emoji moved by the offset, on the server and in the other window's copy.
    after = api.get(doc)
    assert [(e["x"], e["y"]) for e in after["emojis"]] == [(e["x"] + offset["x"], e["y"]) for e in before["emojis"]]
    for element, box in ((emoji(other, 501), first), (emoji(other, 541), last)):
        moved = element.bounding_box()
        assert moved["x"] > box["x"] and abs(moved["y"] - box["y"]) < 0.5
    context.close()
