"""Find on the canvas and Replace with… (issue #34): Ctrl+F selects the emojis whose name or
keyword matches and zooms to them, "n of m" with next and previous; "Replace with…" swaps every
selected emoji for the one chosen in the picker as one edit, undone by one Ctrl+Z."""

from __future__ import annotations

from playwright.sync_api import expect

from helpers import expect_emoji_texts, open_editor, view, wait_version


def selected_texts(page):
    return page.locator("#canvas .emoji[aria-selected=true]").evaluate_all("es => es.map((e) => e.dataset.text)")


def test_ctrl_f_selects_what_matches_zooms_to_it_and_steps_through_n_of_m(page, api):
    doc = api.create("Find", emojis=[
        ("🐶", -600, 300, 40), ("🐱", 0, 0, 40), ("🐕", 600, -300, 40), ("🌲", 100, 200, 40), ("🦮", 50, 50, 30),
    ])
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("Control+f")
    find = page.locator("#find-input")
    expect(find).to_be_focused()
    page.keyboard.type("dog")
    count = page.locator("#find-count")
    expect(count).to_have_text("3 matches")
    assert sorted(selected_texts(page)) == sorted(["🐶", "🐕", "🦮"])
    page.keyboard.press("Enter")
    expect(count).to_have_text("1 of 3")
    zoom = view(page)["zoom"]

    def centred_on(x, y):
        v = view(page)
        return abs(v["panX"] + x * v["zoom"]) < 2 and abs(v["panY"] - y * v["zoom"]) < 2

    assert centred_on(-600, 300)  # the first in drawing order, in the middle of the view
    page.keyboard.press("Enter")
    expect(count).to_have_text("2 of 3")
    assert centred_on(600, -300) and view(page)["zoom"] == zoom
    page.locator('#find-bar button[aria-label^="Next"]').click()
    expect(count).to_have_text("3 of 3")
    page.keyboard.press("Shift+Enter")
    expect(count).to_have_text("2 of 3")

    # An emoji, in any tone, finds itself; a name in the page's language finds the emojis that have it.
    find.fill("🐕")
    expect(count).to_have_text("1 match")
    find.fill("zzzz")
    expect(count).to_have_text("No matches")
    assert selected_texts(page) == []
    page.keyboard.press("Escape")
    expect(page.locator("#find-bar")).to_be_hidden()
    expect(page.locator("#canvas")).to_be_focused()
    assert api.get(doc)["version"] == doc["version"]  # finding changes nothing


def test_replace_with_swaps_the_selection_in_one_edit_and_one_ctrl_z_restores_every_text(page, api):
    doc = api.create("Replace", emojis=[("🐶", -100, 0, 40), ("🐱", 0, 0, 60), ("🌲", 100, 0, 40)])
    ids = [e["id"] for e in doc["emojis"]]
    api.edit(doc, [{"type": "rotate", "ids": [ids[1]], "degrees": 30}])
    doc = api.get(doc)
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("Control+a")
    page.locator(f'#canvas .emoji[data-id="{ids[2]}"]').click(modifiers=["Shift"])  # 🐶 and 🐱 stay selected
    assert sorted(selected_texts(page)) == ["🐱", "🐶"]
    page.locator(f'#canvas .emoji[data-id="{ids[0]}"]').click(button="right")
    page.locator('#context-menu [data-action="replaceWith"]').click()
    picker = page.locator("#emoji-picker")
    expect(picker).to_be_visible()
    expect(page.locator("#emoji-picker-title")).to_have_text("Replace 2 emojis with…")
    page.keyboard.type("palm tree")
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 1)
    after = api.get(doc)
    assert [(e["text"], e["x"], e["y"], e["size"], e.get("rotation", 0)) for e in after["emojis"]] == [
        ("🌴", -100, 0, 40, 0), ("🌴", 0, 0, 60, 30), ("🌲", 100, 0, 40, 0)]
    assert after["undoActionName"] == "Replace with 🌴"
    expect_emoji_texts(page, ["🌴", "🌴", "🌲"])
    expect(page.locator("#undo")).to_have_text("Undo Replace with 🌴")

    page.locator("#canvas").focus()
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 2)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🐶", "🐱", "🌲"]
    expect_emoji_texts(page, ["🐶", "🐱", "🌲"])


def test_replace_with_is_a_toolbar_button_for_the_selection(page, api):
    doc = api.create("Replace button", emojis=[("🍎", 0, 0, 40)])
    open_editor(page, doc)
    button = page.locator("#replace-selection")
    expect(button).to_be_disabled()  # nothing selected
    page.locator('#canvas .emoji[data-id="1"]').click()
    expect(button).to_be_enabled()
    button.click()
    page.keyboard.type("pear")
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 1)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🍐"]
