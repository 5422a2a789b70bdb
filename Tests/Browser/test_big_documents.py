"""A big document in the editor: emojis are drawn in a canvas found through a spatial index, and
the listbox holds options only for the emojis round the view (issue #21)."""

from __future__ import annotations

from playwright.sync_api import expect

from helpers import OPTION_LIMIT, emoji, open_editor, screen_point, view

COLUMNS = 100


def grid_document(api, count: int = 5000) -> dict:
    """`count` emojis 30 points apart in rows of COLUMNS, from (-1500, 750) rightwards and down."""
    emojis = [("🌼", -1500 + (i % COLUMNS) * 30, 750 - (i // COLUMNS) * 30, 20) for i in range(count)]
    return api.create("Grid", emojis=emojis)


def grid_id(x: int, y: int) -> int:
    return (750 - y) // 30 * COLUMNS + (x + 1500) // 30 + 1


def option_ids(page) -> list[int]:
    return page.locator("#canvas .emoji").evaluate_all("options => options.map((o) => Number(o.dataset.id))")


def test_a_big_document_has_options_round_the_view_and_every_drawn_emoji_answers_the_pointer(page, api):
    doc = grid_document(api)
    open_editor(page, doc)
    page.wait_for_timeout(300)
    ids = option_ids(page)
    assert 0 < len(ids) <= OPTION_LIMIT and ids == sorted(ids)  # a window of the document, in drawing order
    assert grid_id(0, 0) in ids  # the middle of the view has options
    centre = emoji(page, grid_id(0, 0))
    expect(centre).to_have_attribute("aria-setsize", "5000")
    expect(centre).to_have_attribute("aria-posinset", str(grid_id(0, 0)))

    # An emoji drawn near the edge of the view has no option, yet a click on its pixels selects it.
    v = view(page)
    x = int(-v["box"]["width"] / 2 / v["zoom"] + 60) // 30 * 30
    y = int(v["box"]["height"] / 2 / v["zoom"] - 60) // 30 * 30
    far = grid_id(x, y)
    assert far not in ids
    page.mouse.click(*screen_point(page, x, y))
    expect(emoji(page, far)).to_have_class("emoji selected")  # its option is made, selected and focused
    expect(emoji(page, far)).to_be_focused()
    expect(page.locator("#canvas .emoji.selected")).to_have_count(1)

    # The keyboard walks the whole document: each emoji reached gets its option on the way.
    page.keyboard.press("Escape")  # nothing selected: arrows move the focus, not the emojis
    expect(page.locator("#canvas .emoji.selected")).to_have_count(0)
    page.keyboard.press("ArrowLeft")
    expect(emoji(page, far - 1)).to_be_focused()
    expect(emoji(page, far - 1)).to_have_attribute("aria-label", f"🌼 blossom at {x - 30}, {y}, size 20".replace("-", "−"))


def test_panning_a_big_document_moves_its_options_to_the_new_view(page, api):
    doc = grid_document(api)
    open_editor(page, doc)
    page.locator("#canvas").focus()
    box = page.locator("#canvas").bounding_box()
    start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*start)
    page.mouse.down(button="middle")
    page.mouse.move(start[0] + 600, start[1] + 300, steps=8)  # the document's (-600, 300) comes to the middle
    page.mouse.up(button="middle")
    expect(emoji(page, grid_id(-600, 300))).to_have_count(1)  # once the view is still
    assert grid_id(600, -300) not in option_ids(page)
    assert len(option_ids(page)) <= OPTION_LIMIT


def test_a_click_finds_the_topmost_emoji_by_its_turned_shape(page, api):
    # 🟥 (turned 45°) is drawn over 🟦; a corner of 🟥's bounding box, outside its turned shape,
    # is on 🟦, and the middle of 🟥 is on 🟥.
    doc = api.create("Turned", emojis=[("🟦", 0, 0, 80), ("🟥", 0, 0, 40)])
    doc = api.edit(doc, [{"type": "rotate", "ids": [2], "degrees": 45}])
    open_editor(page, doc)
    page.mouse.click(*screen_point(page, 0, 0))
    expect(emoji(page, 2)).to_have_class("emoji selected")
    page.keyboard.press("Escape")
    page.mouse.click(*screen_point(page, 30, 19))  # inside 🟦, outside 🟥's box (25 × 20 half-sizes)
    expect(emoji(page, 1)).to_have_class("emoji selected")
    expect(emoji(page, 2)).not_to_have_class("emoji selected")
