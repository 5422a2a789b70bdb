"""Locked emojis (issue #37 item 4): Ctrl+Shift+L locks the selection; a locked emoji is drawn as
usual but a click, a drag, a marquee, Ctrl+A and the keyboard pass it by; a right-click on it
offers Unlock; both are undoable steps; the server refuses changes to it with 422 `locked`."""

from playwright.sync_api import expect

from helpers import drag, emoji, open_editor, screen_point, wait_version


def test_lock_and_unlock_with_undo(page, api):
    doc = api.create("Locks", emojis=[("🦊", -100, 0, 60), ("🐻", 100, 0, 60)])
    open_editor(page, doc)
    version = doc["version"]
    page.mouse.click(*screen_point(page, -100, 0))
    expect(emoji(page, 1)).to_have_class("emoji selected")
    # The menu on a selection offers Lock, with its keys.
    page.mouse.click(*screen_point(page, -100, 0), button="right")
    lock = page.locator("#context-menu").get_by_role("menuitem", name="Lock", exact=False).first
    expect(lock).to_contain_text("Lock")
    expect(lock).to_contain_text("Ctrl+Shift+L")
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+L")
    version += 1
    wait_version(page, version)
    state = api.get(doc)
    assert [e.get("locked", False) for e in state["emojis"]] == [True, False]
    assert state["undoActionName"] == "Lock"
    expect(page.locator("#undo")).to_have_text("Undo Lock")
    expect(page.locator("#canvas .selection-box")).to_be_hidden()  # it left the selection
    expect(emoji(page, 1)).to_have_count(0)  # nor is it a keyboard stop
    expect(emoji(page, 2)).to_have_count(1)

    # A click and a drag on it don't pick it: the drag draws a marquee that selects nothing there.
    page.mouse.click(*screen_point(page, -100, 0))
    expect(page.locator("#canvas .emoji.selected")).to_have_count(0)
    drag(page, screen_point(page, -100, 0), screen_point(page, -40, 30))
    page.wait_for_timeout(300)
    assert api.get(doc)["version"] == version  # the fox didn't move
    expect(page.locator("#canvas .emoji.selected")).to_have_count(0)  # and the marquee over it chose nothing
    # Ctrl+A and a marquee over both select the bear alone.
    page.locator("#canvas").focus()
    page.keyboard.press("Control+a")
    expect(page.locator("#canvas .emoji.selected")).to_have_count(1)
    expect(emoji(page, 2)).to_have_class("emoji selected")
    page.keyboard.press("Escape")
    drag(page, screen_point(page, -200, 100), screen_point(page, 200, -100))
    expect(page.locator("#canvas .emoji.selected")).to_have_count(1)
    # Delete now deletes the bear only.
    page.keyboard.press("Delete")
    version += 1
    wait_version(page, version)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🦊"]
    page.keyboard.press("Control+z")
    version += 1
    wait_version(page, version)

    # A right-click finds it, and offers Unlock.
    page.mouse.click(*screen_point(page, -100, 0), button="right")
    menu = page.locator("#context-menu")
    expect(menu.get_by_role("menuitem", name="Unlock", exact=True)).to_be_visible()
    expect(menu.get_by_role("menuitem", name="Delete", exact=True)).to_have_count(0)
    menu.get_by_role("menuitem", name="Unlock", exact=True).click()
    version += 1
    wait_version(page, version)
    state = api.get(doc)
    assert not state["emojis"][0].get("locked") and state["undoActionName"] == "Unlock"
    page.mouse.click(*screen_point(page, -100, 0))
    expect(emoji(page, 1)).to_have_class("emoji selected")

    # Undo locks it again.
    page.keyboard.press("Control+z")
    version += 1
    wait_version(page, version)
    assert api.get(doc)["emojis"][0]["locked"] is True
    expect(emoji(page, 1)).to_have_count(0)

    # The server refuses to change it, whoever asks.
    refused = api.call("POST", f"/api/documents/{doc['id']}/edits",
                       {"baseVersion": version, "edit": {"type": "moveEmojis", "ids": [1], "offset": {"x": 5, "y": 0}}},
                       expect=422)
    assert refused["error"]["code"] == "locked", refused
    assert api.get(doc)["version"] == version

    # With emojis locked, the menu on empty canvas offers Unlock All.
    page.mouse.click(*screen_point(page, 0, 200), button="right")
    menu.get_by_role("menuitem", name="Unlock All").click()
    version += 1
    wait_version(page, version)
    assert not any(e.get("locked") for e in api.get(doc)["emojis"])
