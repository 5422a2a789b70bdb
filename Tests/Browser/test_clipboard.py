"""Copy, cut, paste and duplicate (issue #18 item 4), with the real clipboard: Ctrl+C / Ctrl+X /
Ctrl+V / Ctrl+D and the context menu, within a document, between documents, and plain text."""

import pytest
from playwright.sync_api import expect

from helpers import emoji, open_editor, screen_point, wait_version


@pytest.fixture
def clip_page(page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    return page


def texts_and_places(state):
    return [(e["text"], e["x"], e["y"], e["size"], e.get("rotation", 0)) for e in state["emojis"]]


def selected_ids(page):
    return sorted(int(i) for i in page.locator("#canvas .emoji.selected").evaluate_all("es => es.map(e => e.dataset.id)"))


def test_copy_and_paste_within_a_document_lands_offset_selected_and_undoes_in_one_step(clip_page, api):
    page = clip_page
    doc = api.create("Copy", emojis=[("🍕", 0, 0, 50), ("🍔", 100, 0, 40), ("🌮", 0, 150, 40)])
    doc = api.edit(doc, [{"type": "rotate", "ids": [2], "degrees": 30}])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    page.keyboard.down("Shift")
    page.mouse.click(*screen_point(page, 100, 0))
    page.keyboard.up("Shift")
    page.keyboard.press("Control+c")
    assert page.evaluate("navigator.clipboard.readText()") == "🍕🍔"  # the emojis themselves, as text
    page.keyboard.press("Control+v")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert texts_and_places(state)[3:] == [("🍕", 16, -16, 50, 0), ("🍔", 116, -16, 40, 30)]
    assert state["undoActionName"] == "Paste"
    expect(page.locator("#canvas .emoji.selected")).to_have_count(2)
    assert selected_ids(page) == [4, 5]  # what was pasted is selected
    page.keyboard.press("Control+v")  # again: one step further
    wait_version(page, doc["version"] + 2)
    assert texts_and_places(api.get(doc))[5:] == [("🍕", 32, -32, 50, 0), ("🍔", 132, -32, 40, 30)]
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 3)
    assert len(api.get(doc)["emojis"]) == 5


def test_paste_into_another_document_and_cut(clip_page, api):
    page = clip_page
    source = api.create("Source", emojis=[("🦊", -30, 20, 60), ("🐻", 400, 300, 30)])
    target = api.create("Target", emojis=[])
    open_editor(page, source)
    page.mouse.click(*screen_point(page, -30, 20))
    page.keyboard.press("Control+x")  # cut: copied, then deleted
    wait_version(page, source["version"] + 1)
    assert [e["text"] for e in api.get(source)["emojis"]] == ["🐻"]

    other = page.context.new_page()
    open_editor(other, target)
    other.locator("#canvas").focus()
    other.keyboard.press("Control+v")
    wait_version(other, target["version"] + 1)
    (pasted,) = api.get(target)["emojis"]
    assert (pasted["text"], pasted["size"], pasted["x"], pasted["y"]) == ("🦊", 60, -14, 4)
    expect(emoji(other, pasted["id"])).to_have_class("emoji selected")
    other.close()


def test_pasting_plain_text_emojis_adds_them_and_other_text_is_refused(clip_page, api):
    page = clip_page
    doc = api.create("Text", emojis=[])
    open_editor(page, doc)
    # Tabs between them: not emoji text's grid (test_mosaic.py), so a row in the middle of the view.
    page.evaluate("navigator.clipboard.writeText('🌞\\t🌈\\t🇫🇷')")
    page.locator("#canvas").focus()
    page.keyboard.press("Control+v")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert [e["text"] for e in state["emojis"]] == ["🌞", "🌈", "🇫🇷"]
    assert [e["y"] for e in state["emojis"]] == [-16, -16, -16] and state["undoActionName"] == "Paste"
    expect(page.locator("#canvas .emoji.selected")).to_have_count(3)

    page.evaluate("navigator.clipboard.writeText('hello 🌞')")
    page.keyboard.press("Control+v")
    expect(page.get_by_role("alert")).to_contain_text("isn’t emojis")
    page.wait_for_timeout(300)
    assert api.get(doc)["version"] == doc["version"] + 1


def test_duplicate_and_the_menus_copy_and_paste(clip_page, api):
    page = clip_page
    doc = api.create("Dup", emojis=[("🐙", 0, 0, 50)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    page.keyboard.press("Control+d")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert texts_and_places(state) == [("🐙", 0, 0, 50, 0), ("🐙", 16, -16, 50, 0)]
    assert state["undoActionName"] == "Duplicate"
    assert selected_ids(page) == [2]
    page.keyboard.press("Control+d")  # duplicating the copy cascades on
    wait_version(page, doc["version"] + 2)
    assert texts_and_places(api.get(doc))[2] == ("🐙", 32, -32, 50, 0)

    page.mouse.click(*screen_point(page, 0, 0), button="right")
    page.locator('#context-menu [data-action="copy"]').click()
    assert page.evaluate("navigator.clipboard.readText()") == "🐙"
    page.mouse.click(*screen_point(page, -300, 200), button="right")
    page.locator('#context-menu [data-action="paste"]').click()
    wait_version(page, doc["version"] + 3)
    assert len(api.get(doc)["emojis"]) == 4 and api.get(doc)["undoActionName"] == "Paste"
