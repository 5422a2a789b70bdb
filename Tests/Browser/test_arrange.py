"""Drawing order and rotation in the editor (issue #18 item 5): the four reorder commands by key and
by context menu, the rotation handle (Shift snaps to 15°), R and Shift+R, each one undo step."""

import math

from playwright.sync_api import expect

from helpers import emoji, open_editor, screen_point, wait_version


def ids_in_page_order(page):
    return [int(i) for i in page.locator("#canvas .emoji").evaluate_all("es => es.map(e => e.dataset.id)")]


def test_reorder_by_keys_and_context_menu(page, api):
    doc = api.create("Order", emojis=[("🟥", 0, 0, 60), ("🟩", 20, 0, 60), ("🟦", 40, 0, 60), ("🟨", 60, 0, 60)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, -25, 0))  # the red square's left edge: only it is under there
    expect(emoji(page, 1)).to_have_class("emoji selected")
    steps = [
        ("Control+Shift+BracketRight", [2, 3, 4, 1], "Bring to Front"),
        ("Control+BracketLeft", [2, 3, 1, 4], "Send Backward"),
        ("Control+Shift+BracketLeft", [1, 2, 3, 4], "Send to Back"),
        ("Control+BracketRight", [2, 1, 3, 4], "Bring Forward"),
    ]
    version = doc["version"]
    for keys, order, name in steps:
        page.keyboard.press(keys)
        version += 1
        wait_version(page, version)
        state = api.get(doc)
        assert [e["id"] for e in state["emojis"]] == order and state["undoActionName"] == name
        assert ids_in_page_order(page) == order  # drawn in the new order
    page.keyboard.press("Control+z")
    wait_version(page, version + 1)
    assert [e["id"] for e in api.get(doc)["emojis"]] == [1, 2, 3, 4]

    # The menu offers only what would change something: the bottom emoji can't go further back.
    page.mouse.click(*screen_point(page, -25, 0), button="right")
    menu = page.locator("#context-menu")
    expect(menu.locator('[data-action="bringToFront"]')).to_contain_text("Ctrl+Shift+]")
    expect(menu.locator('[data-action="sendToBack"]')).to_have_count(0)
    expect(menu.locator('[data-action="sendBackward"]')).to_have_count(0)
    menu.locator('[data-action="bringToFront"]').click()
    wait_version(page, version + 2)
    assert [e["id"] for e in api.get(doc)["emojis"]] == [2, 3, 4, 1]
    page.keyboard.press("Control+Shift+BracketRight")  # already in front: nothing is sent
    page.wait_for_timeout(300)
    assert api.get(doc)["version"] == version + 2


def drag_rotation_handle(page, degrees, shift=False, steps=12):
    handle = page.locator(".rotate-handle")
    expect(handle).to_be_visible()
    hb = handle.bounding_box()
    start = (hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
    box = page.locator(".selection-box").bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    radius = math.hypot(start[0] - centre[0], start[1] - centre[1])
    begin = math.atan2(start[1] - centre[1], start[0] - centre[0])
    page.mouse.move(*start)
    page.mouse.down()
    if shift:
        page.keyboard.down("Shift")
    for step in range(1, steps + 1):
        angle = begin + math.radians(degrees) * step / steps
        page.mouse.move(centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))
    page.mouse.up()
    if shift:
        page.keyboard.up("Shift")


def test_the_rotation_handle_turns_an_emoji_and_shift_snaps_to_15_degrees(page, api):
    doc = api.create("Turn", emojis=[("➖", 0, 0, 80)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    drag_rotation_handle(page, 37)
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert abs(state["emojis"][0]["rotation"] - 37) <= 1 and state["undoActionName"] == "Rotate"
    assert (state["emojis"][0]["x"], state["emojis"][0]["y"]) == (0, 0)  # alone, it turns in place
    expect(emoji(page, 1)).to_have_css("rotate", f"{state['emojis'][0]['rotation']}deg")

    drag_rotation_handle(page, 50, shift=True)  # 37 + 50 = 87, snapped: 90
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"][0]["rotation"] == 90
    box = emoji(page, 1).bounding_box()
    assert box["height"] > box["width"] * 1.2  # the wide bar stands up

    page.keyboard.press("r")
    wait_version(page, doc["version"] + 3)
    assert api.get(doc)["emojis"][0]["rotation"] == 105
    page.keyboard.press("Shift+R")
    page.keyboard.press("Shift+R")
    wait_version(page, doc["version"] + 5)
    assert api.get(doc)["emojis"][0]["rotation"] == 75
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 6)
    assert api.get(doc)["emojis"][0]["rotation"] == 90


def test_turning_several_emojis_carries_them_round_their_middle_in_one_step(page, api):
    doc = api.create("Group", emojis=[("🍏", -100, 0, 40), ("🍎", 100, 0, 40)])
    open_editor(page, doc)
    page.keyboard.press("Control+a")
    drag_rotation_handle(page, 90, shift=True)
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert [(e["x"], e["y"], e["rotation"]) for e in state["emojis"]] == [(0, 100, 90), (0, -100, 90)]
    assert state["undoActionName"] == "Rotate"
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 2)
    state = api.get(doc)
    assert [(e["x"], e["y"], e.get("rotation", 0)) for e in state["emojis"]] == [(-100, 0, 0), (100, 0, 0)]
