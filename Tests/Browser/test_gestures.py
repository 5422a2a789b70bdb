"""The editor's gestures as design tools have them (issue #18): marquee selection, pan and zoom by
wheel, keys, Space, the middle button and touch, the context menu and the shortcuts panel — all
with real mouse, keyboard and touch input."""

import pytest
from playwright.sync_api import expect

from helpers import Touch, drag, emoji, open_editor, screen_point, touch_device, view, wait_version


def test_dragging_on_empty_canvas_draws_a_marquee_that_selects_what_it_touches(page, api):
    doc = api.create("Marquee", emojis=[("🍎", -100, 0, 40), ("🍐", 0, 0, 40), ("🍊", 200, 0, 40), ("🍋", 0, 200, 40)])
    open_editor(page, doc)
    selected = page.locator("#canvas .emoji.selected")
    marquee = page.locator("#canvas .marquee")
    before = view(page)
    # From empty canvas to the middle of the pear: touching counts, it needn't be inside.
    start = screen_point(page, -160, 60)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*screen_point(page, 0, 0), steps=8)
    expect(marquee).to_be_visible()
    expect(selected).to_have_count(2)  # selected live, while drawing
    page.mouse.up()
    expect(marquee).to_be_hidden()
    assert sorted(int(i) for i in selected.evaluate_all("es => es.map(e => e.dataset.id)")) == [1, 2]
    after = view(page)
    assert (after["panX"], after["panY"]) == (before["panX"], before["panY"])  # it did not pan

    # Shift adds to the selection; a new marquee without it replaces the selection.
    page.keyboard.down("Shift")
    drag(page, screen_point(page, 260, 40), screen_point(page, 190, -40))
    page.keyboard.up("Shift")
    expect(selected).to_have_count(3)
    drag(page, screen_point(page, 60, 260), screen_point(page, -60, 190))
    expect(selected).to_have_count(1)
    expect(emoji(page, 4)).to_have_class("emoji selected")

    # Escape while drawing puts the selection back as it was.
    page.mouse.move(*screen_point(page, -300, 100))
    page.mouse.down()
    page.mouse.move(*screen_point(page, 300, -100), steps=6)
    expect(selected).to_have_count(3)
    page.keyboard.press("Escape")
    page.mouse.up()
    expect(selected).to_have_count(1)
    expect(marquee).to_be_hidden()
    assert api.get(doc)["version"] == doc["version"]  # selecting is not an edit


def test_escape_while_dragging_puts_the_emojis_back_and_sends_nothing(page, api):
    doc = api.create("Cancel", emojis=[("🐝", 0, 0, 50)])
    open_editor(page, doc)
    before = emoji(page, 1).bounding_box()
    start = screen_point(page, 0, 0)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 90, start[1], steps=6)
    assert emoji(page, 1).bounding_box()["x"] > before["x"] + 80
    page.keyboard.press("Escape")
    expect(page.locator("#canvas")).to_have_attribute("data-gesture", "idle")
    assert abs(emoji(page, 1).bounding_box()["x"] - before["x"]) < 1
    page.mouse.up()
    page.wait_for_timeout(300)
    assert api.get(doc)["version"] == doc["version"]


def test_zoom_keys_fit_and_zoom_to_selection(page, api):
    doc = api.create("Keys", emojis=[("🐘", -1500, 0, 40), ("🐭", 1500, 900, 40), ("🐜", 20, 20, 10)])
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("+")
    assert view(page)["zoom"] == pytest.approx(1.25)
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert view(page)["zoom"] == pytest.approx(0.8)
    page.keyboard.press("0")
    assert view(page)["zoom"] == pytest.approx(1)
    page.keyboard.press("Shift+Digit1")  # zoom to fit: everything shows
    fitted = view(page)
    assert fitted["zoom"] < 0.5
    canvas = page.locator("#canvas").bounding_box()
    for i in (1, 2):
        box = emoji(page, i).bounding_box()
        assert canvas["x"] <= box["x"] and box["x"] + box["width"] <= canvas["x"] + canvas["width"]
    expect(page.locator("#zoom-level")).to_have_text(f"{round(fitted['zoom'] * 100)}%")
    # Zoom to selection: the ant fills the view (capped at 400 %), centred.
    page.keyboard.press("Control+a")
    page.keyboard.press("Escape")
    page.mouse.click(*screen_point(page, 20, 20))
    expect(emoji(page, 3)).to_have_class("emoji selected")
    page.keyboard.press("Shift+Digit2")
    zoomed = view(page)
    assert zoomed["zoom"] == pytest.approx(4)
    box = emoji(page, 3).bounding_box()
    assert abs(box["x"] + box["width"] / 2 - (canvas["x"] + canvas["width"] / 2)) < 2
    assert api.get(doc)["version"] == doc["version"]


def test_context_menu_lists_what_applies_and_performs_it(page, api):
    doc = api.create("Menu", emojis=[("🍕", 0, 0, 50), ("🍔", 150, 0, 50)])
    open_editor(page, doc)
    menu = page.locator("#context-menu")
    # On empty canvas with nothing selected: no Delete, but Select All and the view.
    page.mouse.click(*screen_point(page, -300, 200), button="right")
    expect(menu).to_be_visible()
    labels = menu.locator(".menu-label")
    expect(labels).to_contain_text(["Select All", "Zoom to Fit", "Keyboard Shortcuts"])
    assert "Delete" not in labels.all_inner_texts()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()

    # On an emoji: it is selected and the menu offers to delete it, with its shortcut.
    page.mouse.click(*screen_point(page, 150, 0), button="right")
    expect(emoji(page, 2)).to_have_class("emoji selected")
    item = menu.locator('[data-action="delete"]')
    expect(item).to_contain_text("Delete")
    expect(item.locator("kbd")).to_have_text("Delete")
    item.click()
    expect(menu).to_be_hidden()
    wait_version(page, doc["version"] + 1)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🍕"]

    # Undo is in the menu with its action name; the keyboard moves through the items.
    page.mouse.click(*screen_point(page, 300, 200), button="right")
    expect(menu.locator('[data-action="undo"]')).to_contain_text("Undo Delete")
    expect(menu.locator(".menu-item").first).to_be_focused()
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 2)
    assert len(api.get(doc)["emojis"]) == 2

    # From the keyboard: the menu key (Shift+F10) opens it beside the selection; arrows move through it.
    page.keyboard.press("Control+a")
    page.locator("#canvas").focus()
    page.keyboard.press("Shift+F10")
    expect(menu).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(menu.locator(".menu-item").nth(2)).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(page.locator("#canvas")).to_be_focused()


def test_question_mark_shows_every_shortcut_of_the_action_table(page, api):
    doc = api.create("Help", emojis=[])
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("?")
    dialog = page.locator("#shortcuts-dialog")
    expect(dialog).to_be_visible()
    table = page.evaluate("""async () => {
        const { ACTIONS } = await import("/js/editor/actions.js");
        const { shortcutLabel } = await import("/js/editor/action-manager.js");
        return ACTIONS.filter((a) => a.keys).map((a) => [a.name, a.keys.map(shortcutLabel)]);
    }""")
    assert len(table) >= 15
    for name, keys in table:
        row = dialog.locator(f'dt[data-action="{name}"]')
        expect(row).to_have_count(1)
        expect(row.locator("xpath=following-sibling::dd[1]").locator("kbd")).to_have_text(keys)
    expect(dialog).to_contain_text("Space+drag")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    # The toolbar's buttons come from the same table: their titles carry its shortcuts.
    expect(page.locator("#zoom-fit")).to_have_attribute("title", "Zoom to Fit (Shift+1)")
    expect(page.locator("#show-shortcuts")).to_have_attribute("title", "Keyboard Shortcuts (?)")


def test_shortcuts_match_keys_by_the_rules_of_the_table(page, api):
    doc = api.create("Match", emojis=[])
    open_editor(page, doc)
    results = page.evaluate("""async () => {
        const { matchesShortcut } = await import("/js/editor/action-manager.js");
        const key = (key, code, mods = {}) => ({ key, code, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
        return [
            matchesShortcut("Mod+Z", key("z", "KeyZ", { ctrlKey: true })),
            matchesShortcut("Mod+Z", key("z", "KeyZ", { metaKey: true })),
            !matchesShortcut("Mod+Z", key("Z", "KeyZ", { ctrlKey: true, shiftKey: true })),
            matchesShortcut("Mod+Shift+Z", key("Z", "KeyZ", { ctrlKey: true, shiftKey: true })),
            matchesShortcut("Shift+1", key("!", "Digit1", { shiftKey: true })),
            !matchesShortcut("Shift+1", key("1", "Digit1")),
            matchesShortcut("0", key("0", "Digit0")),
            matchesShortcut("+", key("+", "Equal", { shiftKey: true })),
            matchesShortcut("?", key("?", "Slash", { shiftKey: true })),
            matchesShortcut("Mod+Shift+]", key("}", "BracketRight", { ctrlKey: true, shiftKey: true })),
            !matchesShortcut("Mod+]", key("}", "BracketRight", { ctrlKey: true, shiftKey: true })),
            !matchesShortcut("Delete", key("Delete", "Delete", { altKey: true })),
            matchesShortcut("Shift+ArrowLeft", key("ArrowLeft", "ArrowLeft", { shiftKey: true })),
        ];
    }""")
    assert results == [True] * len(results), results


@pytest.fixture
def touch_page(browser, server):
    with touch_device(browser, server, 900, 700, mobile=False) as page:
        yield page


def test_touch_one_finger_pans_empty_canvas_and_moves_an_emoji(touch_page, api):
    page = touch_page
    doc = api.create("Touch", emojis=[("🦆", 0, 0, 60)])
    open_editor(page, doc)
    touch = Touch(page)
    before = view(page)
    start = screen_point(page, -200, 100)
    touch.drag(start, (start[0] + 80, start[1] + 40))
    after = view(page)
    assert (after["panX"], after["panY"]) == (before["panX"] + 80, before["panY"] + 40)
    expect(page.locator("#canvas .marquee")).to_be_hidden()

    start = screen_point(page, 0, 0)
    touch.drag(start, (start[0] + 50, start[1] - 30))
    wait_version(page, doc["version"] + 1)
    moved = api.get(doc)["emojis"][0]
    assert (moved["x"], moved["y"]) == (50, 30)
    assert api.get(doc)["undoActionName"] == "Move"


def test_two_fingers_pinch_zoom_around_their_middle_and_pan(touch_page, api):
    page = touch_page
    doc = api.create("Pinch", emojis=[("🦋", 100, 0, 40)])
    open_editor(page, doc)
    touch = Touch(page)
    middle = screen_point(page, 100, 0)
    touch.down(0, middle[0] - 50, middle[1])
    touch.down(1, middle[0] + 50, middle[1])
    touch.move({0: (middle[0] - 100, middle[1]), 1: (middle[0] + 100, middle[1])})  # twice as far apart
    touch.up(1)
    touch.up(0)
    zoomed = view(page)
    assert zoomed["zoom"] == pytest.approx(2, rel=0.02)
    now = screen_point(page, 100, 0)
    assert abs(now[0] - middle[0]) < 2 and abs(now[1] - middle[1]) < 2  # the point between the fingers stayed

    # Both fingers moving together pan.
    touch.down(0, 300, 300)
    touch.down(1, 400, 300)
    touch.move({0: (340, 260), 1: (440, 260)})
    touch.up(0)
    touch.up(1)
    panned = view(page)
    assert panned["zoom"] == pytest.approx(zoomed["zoom"])
    assert (round(panned["panX"] - zoomed["panX"]), round(panned["panY"] - zoomed["panY"])) == (40, -40)
    assert api.get(doc)["version"] == doc["version"]


def test_dragging_from_the_palette_by_touch_adds_an_emoji_where_the_finger_lifts(touch_page, api):
    page = touch_page
    doc = api.create("Palette touch", emojis=[])
    open_editor(page, doc)
    item = page.locator(".palette-emoji").first
    expect(item).to_be_visible()
    text = item.inner_text()
    box = item.bounding_box()
    touch = Touch(page)
    target = screen_point(page, -100, 50)
    touch.drag((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2), target, steps=12)
    wait_version(page, doc["version"] + 1)
    (added,) = api.get(doc)["emojis"]
    assert added["text"] == text and abs(added["x"] + 100) <= 1 and abs(added["y"] - 50) <= 1


def test_a_long_press_opens_the_context_menu(touch_page, api):
    page = touch_page
    doc = api.create("Long press", emojis=[("🌵", 0, 0, 60)])
    open_editor(page, doc)
    touch = Touch(page)
    touch.down(0, *screen_point(page, 0, 0))
    page.wait_for_timeout(700)
    menu = page.locator("#context-menu")
    expect(menu).to_be_visible()
    touch.up(0)
    expect(emoji(page, 1)).to_have_class("emoji selected")
    menu.locator('[data-action="delete"]').tap()
    wait_version(page, doc["version"] + 1)
    assert api.get(doc)["emojis"] == []


def test_a_big_selection_moves_resizes_and_turns_as_a_bitmap_then_as_emojis(page, api):
    emojis = [("🌼", -150 + (i % 20) * 15, -150 + (i // 20) * 15, 14) for i in range(400)]
    doc = api.create("Big selection", emojis=emojis)
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("Control+a")
    lifted = page.locator("#canvas canvas.lifted")
    start = screen_point(page, -150, -150)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 30, start[1] - 20, steps=5)
    expect(lifted).to_have_count(1)  # the scene isn't drawn on every frame: one bitmap moves
    page.mouse.move(start[0] + 50, start[1] - 40, steps=5)
    page.mouse.up()
    wait_version(page, doc["version"] + 1)
    expect(lifted).to_have_count(0)
    state = api.get(doc)
    assert (state["emojis"][0]["x"], state["emojis"][0]["y"]) == (-100, -110)
    box = emoji(page, 1).bounding_box()
    there = screen_point(page, -100, -110)
    assert abs(box["x"] + box["width"] / 2 - there[0]) <= 1.5 and abs(box["y"] + box["height"] / 2 - there[1]) <= 1.5

    handle = page.locator(".resize-handle").bounding_box()
    hx, hy = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    page.mouse.move(hx, hy)
    page.mouse.down()
    page.mouse.move(hx + 60, hy + 60, steps=6)
    expect(lifted).to_have_count(1)
    page.mouse.up()
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"][0]["size"] > 14 and api.get(doc)["undoActionName"] == "Resize"
    expect(lifted).to_have_count(0)


def test_moving_snaps_to_other_emojis_with_guides_and_alt_turns_it_off(page, api):
    doc = api.create("Guides", emojis=[("🍎", 0, 0, 40), ("🍐", 200, 100, 40)])
    open_editor(page, doc)
    guides = page.locator("#canvas .guide")
    start = screen_point(page, 0, 0)
    target = screen_point(page, 197, -150)  # 3 points short of the pear's centre line
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*target, steps=8)
    expect(guides).to_have_count(1)
    expect(guides.first).to_have_attribute("data-axis", "x")
    page.mouse.up()
    expect(guides).to_have_count(0)
    wait_version(page, doc["version"] + 1)
    apple = api.get(doc)["emojis"][0]
    assert (apple["x"], apple["y"]) == (200, -150)  # snapped to the pear's centre

    start = screen_point(page, 200, -150)
    page.keyboard.down("Alt")
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*screen_point(page, 203, 97), steps=8)  # near the pear on both axes…
    expect(guides).to_have_count(0)
    page.mouse.up()
    page.keyboard.up("Alt")
    wait_version(page, doc["version"] + 2)
    apple = api.get(doc)["emojis"][0]
    assert (apple["x"], apple["y"]) == (203, 97)  # …but Alt: exactly where it was dropped


def test_snapping_targets_edges_centres_and_the_background_centre(page, api):
    doc = api.create("Snap rules", emojis=[])
    open_editor(page, doc)
    result = page.evaluate("""async () => {
        const { SnapTargets } = await import("/js/canvas/snapping.js");
        const targets = new SnapTargets([{ cx: 100, cy: 0, w: 50, h: 40 }], { cx: 0, cy: 0, w: 600, h: 400 });
        const moving = { left: -10, top: 290, right: 10, bottom: 310 }; // a 20×20 box centred at (0, 300)
        return [
            targets.snap(moving, 73, 0, 4),   // its left edge (63) reaches 4 from… nothing; centre 73 → 75 (left edge of the box)
            targets.snap(moving, 2, 0, 4),    // centre 2 → the background's centre line 0
            targets.snap(moving, 123, -298, 4),  // right 133 → nothing; centre 123 → 125 (right edge); top −8 → …
            targets.snap(moving, 40, 0, 4),   // nothing near
        ].map(({ dx, dy, guides }) => [dx, dy, guides.map((g) => g.axis + ":" + g.value)]);
    }""")
    assert result[0][0] == 75 and result[0][2] == ["x:75"]
    assert result[1][0] == 0 and result[1][2] == ["x:0"]
    assert result[2][0] == 125 and "x:125" in result[2][2]
    assert result[3] == [40, 0, []]


def test_a_drag_whose_moves_never_arrive_still_moves(page, api):
    """A flick can reach the page as a press and a release far apart, with no move between."""
    doc = api.create("Flick", emojis=[("🪁", 0, 0, 50)])
    open_editor(page, doc)
    page.evaluate("""() => {
        const canvas = document.getElementById("canvas");
        const target = canvas.querySelector('.emoji[data-id="1"]').getBoundingClientRect();
        const x = target.left + target.width / 2, y = target.top + target.height / 2;
        const at = (type, cx, cy) => new PointerEvent(type, { bubbles: true, pointerId: 7, pointerType: "mouse", button: 0, buttons: type === "pointerup" ? 0 : 1, clientX: cx, clientY: cy });
        canvas.querySelector('.emoji[data-id="1"]').dispatchEvent(at("pointerdown", x, y));
        canvas.dispatchEvent(at("pointerup", x + 40, y));
    }""")
    wait_version(page, doc["version"] + 1)
    moved = api.get(doc)["emojis"][0]
    assert (moved["x"], moved["y"]) == (40, 0)
