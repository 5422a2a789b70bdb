"""The editor at /documents/{id}: palette drops, selection, move, resize, delete, undo, zoom and pan."""

import math
import re

from playwright.sync_api import expect

from helpers import (
    expect_emoji_texts,
    PNG_IMAGE, drag, drop_data, drop_files, emoji, open_editor, pan_drag, paste, screen_point, view, wait_version,
)


def position(doc, emoji_id):
    (e,) = [e for e in doc["emojis"] if e["id"] == emoji_id]
    return e


def test_drag_an_emoji_from_the_palette_onto_the_canvas(page, api):
    doc = api.create("Palette drop")
    open_editor(page, doc)
    first = page.locator(".palette-emoji").first
    text = first.text_content()
    box = page.locator("#canvas").bounding_box()
    first.drag_to(page.locator("#canvas"), target_position={"x": box["width"] / 2 + 100, "y": box["height"] / 2 - 50})
    wait_version(page, doc["version"] + 1)
    expect(page.locator("#canvas .emoji")).to_have_count(1)
    expect(page.locator("#canvas .emoji")).to_have_attribute("data-text", text)
    expect(page.locator("#canvas .emoji")).to_be_visible()
    state = api.get(doc)
    (added,) = state["emojis"]
    assert added["text"] == text
    assert abs(added["x"] - 100) <= 1 and abs(added["y"] - 50) <= 1  # y up
    assert added["size"] == 40
    assert state["undoActionName"] == f"Add {text}"
    expect(page.locator("#undo")).to_have_text(f"Undo Add {text}")


def test_dropped_emoji_size_is_40_over_zoom(page, api):
    doc = api.create("Zoomed drop")
    open_editor(page, doc)
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()  # 1.5625×
    zoom = view(page)["zoom"]
    assert math.isclose(zoom, 1.5625, rel_tol=1e-6)
    page.locator(".palette-emoji").first.drag_to(page.locator("#canvas"))
    wait_version(page, doc["version"] + 1)
    assert api.get(doc)["emojis"][0]["size"] == round(40 / zoom)


def test_move_an_emoji_by_dragging(page, api):
    doc = api.create("Move", emojis=[("🍎", 0, 0, 60)])
    open_editor(page, doc)
    start = screen_point(page, 0, 0)
    before = emoji(page, 1).bounding_box()
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 80, start[1] + 30, steps=10)
    # Live feedback while dragging, and nothing sent yet.
    during = emoji(page, 1).bounding_box()
    assert abs(during["x"] - before["x"] - 80) <= 1 and abs(during["y"] - before["y"] - 30) <= 1
    assert api.get(doc)["version"] == doc["version"]
    page.mouse.up()
    wait_version(page, doc["version"] + 1)  # one edit for the whole drag
    state = api.get(doc)
    assert (state["emojis"][0]["x"], state["emojis"][0]["y"]) == (80, -30)  # y up: down the screen is −y
    assert state["undoActionName"] == "Move"
    after = emoji(page, 1).bounding_box()
    assert abs(after["x"] - before["x"] - 80) <= 1 and abs(after["y"] - before["y"] - 30) <= 1


def test_dragging_a_selected_emoji_moves_the_selection_and_an_unselected_one_moves_alone(page, api):
    doc = api.create("Selection", emojis=[("🅰️", -150, 0, 50), ("🅱️", 150, 0, 50), ("🆎", 0, 200, 50)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, -150, 0))
    page.keyboard.down("Shift")
    page.mouse.click(*screen_point(page, 150, 0))
    page.keyboard.up("Shift")
    expect(page.locator("#canvas .emoji.selected")).to_have_count(2)
    start = screen_point(page, -150, 0)
    drag(page, start, (start[0] + 20, start[1] - 40))
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert [(e["x"], e["y"]) for e in state["emojis"]] == [(-130, 40), (170, 40), (0, 200)]
    expect(page.locator("#canvas .emoji.selected")).to_have_count(2)  # the selection is kept

    # Dragging an emoji outside the selection selects it alone and moves it alone.
    start = screen_point(page, 0, 200)
    drag(page, start, (start[0] - 10, start[1] + 10))
    wait_version(page, doc["version"] + 2)
    state = api.get(doc)
    assert [(e["x"], e["y"]) for e in state["emojis"]] == [(-130, 40), (170, 40), (-10, 190)]
    expect(page.locator("#canvas .emoji.selected")).to_have_count(1)
    expect(emoji(page, 3)).to_have_class("emoji selected")


def test_click_selects_just_that_emoji_shift_click_toggles_and_empty_canvas_deselects(page, api):
    doc = api.create("Toggle", emojis=[("🐱", 0, 0, 60), ("🐶", 150, 0, 60)])
    open_editor(page, doc)
    selected = page.locator("#canvas .emoji.selected")
    page.mouse.click(*screen_point(page, 0, 0))
    expect(selected).to_have_count(1)
    page.mouse.click(*screen_point(page, 150, 0))
    expect(selected).to_have_count(1)  # a plain click replaces the selection
    expect(emoji(page, 2)).to_have_class("emoji selected")
    for modifier in ("Shift", "Control"):
        page.keyboard.down(modifier)
        page.mouse.click(*screen_point(page, 0, 0))
        page.keyboard.up(modifier)
        expect(selected).to_have_count(2)  # added
        page.keyboard.down(modifier)
        page.mouse.click(*screen_point(page, 150, 0))
        page.keyboard.up(modifier)
        expect(selected).to_have_count(1)  # and taken out again
        expect(emoji(page, 1)).to_have_class("emoji selected")
        page.mouse.click(*screen_point(page, 150, 0))
    # A plain click on one of several selected emojis selects just it.
    page.keyboard.press("Control+a")
    expect(selected).to_have_count(2)
    page.mouse.click(*screen_point(page, 0, 0))
    expect(selected).to_have_count(1)
    expect(emoji(page, 1)).to_have_class("emoji selected")
    page.mouse.click(*screen_point(page, 300, 200))
    expect(selected).to_have_count(0)
    page.keyboard.press("Control+a")
    page.keyboard.press("Escape")
    expect(selected).to_have_count(0)
    assert api.get(doc)["version"] == doc["version"]  # selection is not an edit


def test_resize_with_the_corner_handle(page, api):
    doc = api.create("Resize", emojis=[("🌻", 0, 0, 40)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    handle = page.locator(".resize-handle")
    expect(handle).to_be_visible()
    hb = handle.bounding_box()
    hx, hy = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
    cx, cy = screen_point(page, 0, 0)
    drag(page, (hx, hy), (cx + (hx - cx) * 2, cy + (hy - cy) * 2))
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert 74 <= state["emojis"][0]["size"] <= 86, state["emojis"][0]
    assert (state["emojis"][0]["x"], state["emojis"][0]["y"]) == (0, 0)
    assert state["undoActionName"] == "Resize"


def test_wheel_pans_ctrl_wheel_zooms_around_the_pointer_and_alt_wheel_resizes(page, api):
    doc = api.create("Wheel", emojis=[("🌵", 0, 0, 40), ("🌴", 100, 50, 40)])
    open_editor(page, doc)
    before = view(page)
    page.mouse.move(*screen_point(page, 0, 0))
    page.mouse.wheel(30, 100)  # a trackpad's two-finger scroll, or a mouse wheel: pans
    expect(page.locator("#canvas")).not_to_have_attribute("data-pan-y", str(before["panY"]))
    after = view(page)
    assert (after["zoom"], after["panX"], after["panY"]) == (1, before["panX"] - 30, before["panY"] - 100)

    # Ctrl+wheel (a trackpad pinch arrives so too) zooms, keeping the point under the pointer.
    under = screen_point(page, 100, 50)
    page.mouse.move(*under)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    assert view(page)["zoom"] > 1
    still = screen_point(page, 100, 50)
    assert abs(still[0] - under[0]) < 1 and abs(still[1] - under[1]) < 1
    page.wait_for_timeout(400)
    assert api.get(doc)["version"] == doc["version"]  # zooming is not an edit

    page.mouse.click(*screen_point(page, 0, 0))
    page.keyboard.down("Alt")
    page.mouse.wheel(0, -30)
    page.mouse.wheel(0, -30)
    page.keyboard.up("Alt")
    wait_version(page, doc["version"] + 1)  # the whole wheel gesture is one edit
    state = api.get(doc)
    assert state["emojis"][0]["size"] > 40 and state["undoActionName"] == "Resize"


def test_undo_and_redo_with_buttons_and_keyboard(page, api):
    doc = api.create("Undo", emojis=[("🚗", 0, 0, 40)])
    doc = api.edit(doc, [{"type": "moveEmojis", "ids": [1], "offset": {"x": 25, "y": 5}}])
    open_editor(page, doc)
    undo, redo = page.locator("#undo"), page.locator("#redo")
    expect(undo).to_have_text("Undo Move")
    expect(undo).to_have_attribute("title", "Undo Move (Ctrl+Z)")
    expect(undo).to_be_enabled()
    expect(redo).to_be_disabled()

    undo.click()
    wait_version(page, doc["version"] + 1)
    assert (api.get(doc)["emojis"][0]["x"], api.get(doc)["emojis"][0]["y"]) == (0, 0)
    expect(redo).to_have_text("Redo Move")
    expect(redo).to_have_attribute("title", "Redo Move (Ctrl+Shift+Z)")
    expect(undo).to_have_text("Undo Add 🚗")

    redo.click()
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"][0]["x"] == 25
    expect(redo).to_be_disabled()

    page.locator("#canvas").focus()
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 3)
    assert api.get(doc)["emojis"][0]["x"] == 0
    page.keyboard.press("Control+Shift+z")
    wait_version(page, doc["version"] + 4)
    assert api.get(doc)["emojis"][0]["x"] == 25
    page.keyboard.press("Control+z")
    page.keyboard.press("Control+z")
    wait_version(page, doc["version"] + 6)
    assert api.get(doc)["emojis"] == []
    expect(undo).to_be_disabled()
    expect(undo).to_have_text("Undo")


def test_delete_key_deletes_the_selection(page, api):
    doc = api.create("Delete", emojis=[("🍩", 0, 0, 50), ("🍪", 120, 0, 50)])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    page.keyboard.press("Delete")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert [e["text"] for e in state["emojis"]] == ["🍪"]
    assert state["undoActionName"] == "Delete"
    expect(page.locator("#canvas .emoji")).to_have_count(1)
    expect(page.locator("#undo")).to_have_text("Undo Delete")
    page.keyboard.press("Delete")  # nothing selected: nothing happens
    page.wait_for_timeout(300)
    assert api.get(doc)["version"] == doc["version"] + 1


def test_reload_shows_the_same_document_zoom_and_pan(page, api):
    doc = api.create("Reload", emojis=[("🌙", -60, 30, 50), ("⭐", 80, -20, 30)], background=None)
    open_editor(page, doc)
    page.mouse.move(*screen_point(page, 200, 100))
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    empty = screen_point(page, -300, -250)
    pan_drag(page, empty, (empty[0] + 70, empty[1] - 40))
    before = view(page)
    assert before["zoom"] > 1 and before["panX"] != 0
    boxes = [emoji(page, i).bounding_box() for i in (1, 2)]
    page.wait_for_timeout(300)
    page.reload()
    open_editor(page, api.get(doc))
    after = view(page)
    assert (after["zoom"], after["panX"], after["panY"]) == (before["zoom"], before["panX"], before["panY"])
    expect_emoji_texts(page, ["🌙", "⭐"])
    for i, old in zip((1, 2), boxes):
        new = emoji(page, i).bounding_box()
        assert abs(new["x"] - old["x"]) < 1 and abs(new["y"] - old["y"]) < 1


def test_space_drag_and_middle_button_drag_pan(page, api):
    doc = api.create("Pan", emojis=[("🐟", 0, 0, 40)])
    open_editor(page, doc)
    before = emoji(page, 1).bounding_box()
    start = screen_point(page, 0, 0)  # even starting on an emoji: Space+drag never moves it
    pan_drag(page, start, (start[0] - 120, start[1] + 60))
    after = emoji(page, 1).bounding_box()
    assert abs(after["x"] - before["x"] + 120) <= 1 and abs(after["y"] - before["y"] - 60) <= 1

    start = screen_point(page, 200, 200)
    page.mouse.move(*start)
    page.mouse.down(button="middle")
    page.mouse.move(start[0] + 50, start[1] - 20, steps=6)
    page.mouse.up(button="middle")
    final = emoji(page, 1).bounding_box()
    assert abs(final["x"] - after["x"] - 50) <= 1 and abs(final["y"] - after["y"] + 20) <= 1
    expect(page.locator("#canvas .emoji.selected")).to_have_count(0)
    assert api.get(doc)["version"] == doc["version"]


def test_double_click_on_empty_canvas_zooms_to_fit(page, api):
    doc = api.create("Fit", emojis=[("🐘", -1500, 0, 40), ("🐭", 1500, 900, 40)])
    open_editor(page, doc)
    canvas = page.locator("#canvas").bounding_box()

    def inside(box):
        return (
            box["x"] >= canvas["x"] and box["y"] >= canvas["y"]
            and box["x"] + box["width"] <= canvas["x"] + canvas["width"]
            and box["y"] + box["height"] <= canvas["y"] + canvas["height"]
        )

    assert not inside(emoji(page, 1).bounding_box())
    page.mouse.dblclick(*screen_point(page, 0, 300))
    assert view(page)["zoom"] < 1
    assert inside(emoji(page, 1).bounding_box()) and inside(emoji(page, 2).bounding_box())


def test_palette_button_cycles_and_wraps(page, api):
    palettes = api.call("GET", "/api/palettes")["palettes"]
    doc = api.create("Palettes")
    open_editor(page, doc)
    name = page.locator("#palette-name")
    for palette in palettes + palettes[:1]:
        expect(name).to_have_text(palette["name"])
        first = page.locator(".palette-emoji").first.text_content()
        assert palette["emojis"].startswith(first)
        page.get_by_role("button", name="Next palette").click()


def test_dropping_a_url_or_an_image_file_sets_the_background(page, api):
    doc = api.create("Background")
    open_editor(page, doc)
    drop_data(page, "#canvas", {"text/uri-list": "https://example.com/beach.jpg"})
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert state["background"] == {"kind": "url", "url": "https://example.com/beach.jpg"}
    assert state["undoActionName"] == "Set Background"

    # An image-search link carries the image's address in its query.
    drop_data(page, "#canvas", {"text/plain": "https://www.google.com/imgres?imgurl=https://example.com/real.png&imgrefurl=https://example.com/"})
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["background"]["url"] == "https://example.com/real.png"

    drop_files(page, "#canvas", [("dot.png", PNG_IMAGE, "image/png")])
    wait_version(page, doc["version"] + 3)
    background = api.get(doc)["background"]
    assert background["kind"] == "image" and background["mimeType"] == "image/png"
    # The page draws the server's stored copy, never the data: URL.
    expect(page.locator("#canvas img.background")).to_have_attribute("src", re.compile(r"^/api/images/[0-9a-f]{64}$"))

    paste(page, {"text/plain": "https://example.com/pasted.gif"})
    wait_version(page, doc["version"] + 4)
    assert api.get(doc)["background"] == {"kind": "url", "url": "https://example.com/pasted.gif"}


def test_editing_the_title(page, api):
    doc = api.create("Old title")
    open_editor(page, doc)
    field = page.locator("#doc-title")
    field.fill("New title 🎈")
    field.press("Enter")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert state["title"] == "New title 🎈" and state["undoActionName"] == "Rename"
    assert page.title().startswith("New title 🎈")
    page.get_by_role("link", name="Documents").click()
    page.wait_for_url("**/")


def test_server_errors_are_shown(page, api):
    doc = api.create("Errors")
    open_editor(page, doc)
    drop_data(page, "#canvas", {"text/plain": "abc"})  # not an emoji: the server refuses it
    expect(page.get_by_role("alert")).to_contain_text("emoji")
    # Refused means nothing changed: everything acknowledged is still saved.
    expect(page.locator("#save-status")).to_have_attribute("data-state", "saved")
    assert api.get(doc)["emojis"] == [] and api.get(doc)["version"] == doc["version"]


def scene_alpha(page, x: float, y: float) -> int:
    """The opacity (0–255) of the drawn scene at document point (x, y)."""
    return page.locator("#canvas canvas.scene").evaluate(
        """(c, [x, y]) => { const left = parseFloat(c.style.left), top = parseFloat(c.style.top);
             const scale = c.width / parseFloat(c.style.width);
             return c.getContext('2d').getImageData(Math.floor((x - left) * scale), Math.floor((-y - top) * scale), 1, 1).data[3]; }""",
        [x, y],
    )


def draws(page) -> int:
    return int(page.locator("#canvas canvas.scene").get_attribute("data-draws") or 0)


def test_the_scene_moves_with_a_pan_and_is_drawn_again_only_when_outrun_or_zoomed(page, api):
    emojis = [("🌼", 250 + (i % 20) * 15, -150 + (i // 20) * 15, 20) for i in range(400)] + [("🟥", -200, 100, 60)]
    doc = api.create("Big", emojis=emojis)
    open_editor(page, doc)
    page.wait_for_timeout(300)  # the view settles
    assert scene_alpha(page, -200, 100) == 255 and scene_alpha(page, -100, 100) == 0  # drawn where it is, nowhere else
    drawn = draws(page)
    before = emoji(page, 1).bounding_box()
    start = screen_point(page, -300, 0)
    page.mouse.move(*start)
    page.mouse.down(button="middle")
    page.mouse.move(start[0] + 60, start[1] + 20, steps=5)
    page.mouse.move(start[0] - 90, start[1] + 45, steps=5)
    page.mouse.up(button="middle")
    page.wait_for_timeout(300)
    assert draws(page) == drawn  # a pan within the drawn margin moves the canvas, it draws nothing
    after = emoji(page, 1).bounding_box()
    assert abs(after["x"] - before["x"] + 90) <= 1 and abs(after["y"] - before["y"] - 45) <= 1

    # Outrun: a pan of more than the margin draws the scene again, where the view is now.
    start = screen_point(page, -300, 0)
    page.mouse.move(*start)
    page.mouse.down(button="middle")
    page.mouse.move(start[0] + 900, start[1], steps=10)
    page.mouse.up(button="middle")
    page.wait_for_timeout(300)
    assert draws(page) > drawn
    assert scene_alpha(page, -200, 100) == 255
    drawn = draws(page)

    box = page.locator("#canvas").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, 200)
    page.keyboard.up("Control")
    page.wait_for_timeout(600)
    assert view(page)["zoom"] < 1
    assert draws(page) > drawn  # drawn sharp at the new zoom once the wheel is still
    assert scene_alpha(page, -200, 100) == 255
    assert api.get(doc)["version"] == doc["version"]
