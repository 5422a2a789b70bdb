"""The emoji picker (issue #34): every emoji of the catalogue, searched by name and keyword in the
page's language with the server's ranking, skin tones remembered per user, the emojis used last
first, usable from the keyboard, by mouse, and by touch on a phone."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import requests
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from browser_server import running_server
from helpers import Touch, open_editor, screen_point, touch_device, wait_version
from test_accounts import ACCOUNTS, PASSWORD, add_user, sign_in

SEARCH_CASES = Path(__file__).resolve().parents[1] / "Fixtures" / "emoji" / "search-cases.json"


def picker(page):
    return page.locator("#emoji-picker")


def cell(page, text: str):
    return page.locator("#emoji-picker .picker-emoji").filter(has_text=text).first


def open_with_e(page):
    page.locator("#canvas").focus()
    page.keyboard.press("e")
    expect(picker(page)).to_be_visible()
    expect(page.locator("#emoji-picker .picker-emoji").first).to_be_visible()


def test_the_focus_stays_put_when_the_tone_and_recent_emojis_arrive_after_the_picker_opened(page, api):
    """Each open reads the user's tone and recent emojis again; when they arrive the groups are
    drawn anew. Someone already tabbing or arrowing through the picker keeps their place."""
    doc = api.create("Late preferences", emojis=[])
    open_editor(page, doc)
    open_with_e(page)  # the catalogue is loaded
    page.keyboard.press("Escape")
    held = []
    page.route("**/api/session", lambda route: held.append(route))
    for keys, where in (
        (["Tab", "Tab"], ".picker-tab:focus"),  # the first group's tab
        (["Tab", "Tab", "End"], ".picker-tab:focus"),  # the last group's, which can't scroll to the top
        (["ArrowDown", "ArrowRight"], "#emoji-picker .picker-emoji:focus"),  # the second emoji
    ):
        page.locator("#emoji-picker-button").click()
        expect(picker(page)).to_be_visible()
        for key in keys:
            page.keyboard.press(key)
        focused = page.locator(where)
        expect(focused).to_have_count(1)
        before = focused.evaluate_handle("(element) => element")
        label = focused.get_attribute("aria-label")
        for _ in range(100):  # the route's handler runs while playwright waits
            if held:
                break
            page.wait_for_timeout(20)
        assert held, "the page asks who is signed in on every open"
        with page.expect_response("**/api/session"):
            held.pop().continue_()
        # The groups were drawn anew (the element that had the focus is gone) …
        page.wait_for_function("(element) => !element.isConnected", arg=before)
        # … and the same tab or emoji has the focus, the one Tab comes back to.
        expect(page.locator(where)).to_have_attribute("aria-label", label)
        expect(page.locator(where)).to_have_attribute("tabindex", "0")
        page.keyboard.press("Escape")
    assert not page.js_errors


def test_what_is_typed_while_the_emojis_load_is_searched_once_they_have(browser, server, api):
    # No service worker: the catalogue's requests must reach the route below, not the worker's cache.
    context = browser.new_context(base_url=server, viewport={"width": 1200, "height": 800}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    held, gate = [], {"open": False}
    # The catalogue's files wait until the gate opens.
    page.route("**/emoji/**", lambda route: route.continue_() if gate["open"] else held.append(route))
    doc = api.create("Slow catalogue", emojis=[])
    open_editor(page, doc)
    page.locator("#emoji-picker-button").click()
    expect(picker(page)).to_contain_text("Loading emojis…")
    page.keyboard.type("cactus")
    assert held, "the catalogue is asked for"
    gate["open"] = True
    for route in held:
        route.continue_()
    first = page.locator("#emoji-picker .picker-emoji").first
    expect(first).to_have_text("🌵")
    expect(page.locator("#emoji-picker-search")).to_have_value("cactus")
    context.close()
    assert not errors


def test_e_opens_it_searching_fox_finds_the_fox_first_and_enter_adds_it_in_the_middle_selected(page, api):
    doc = api.create("Picker", emojis=[])
    open_editor(page, doc)
    open_with_e(page)
    expect(page.locator("#emoji-picker-search")).to_be_focused()
    page.keyboard.type("fox")
    first = page.locator("#emoji-picker .picker-emoji").first
    expect(first).to_have_text("🦊")
    expect(first).to_have_attribute("aria-label", "fox")
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 1)
    (added,) = api.get(doc)["emojis"]
    assert (added["text"], added["x"], added["y"], added["size"]) == ("🦊", 0, 0, 40)
    new = page.locator(f'#canvas .emoji[data-id="{added["id"]}"]')
    expect(new).to_have_attribute("aria-selected", "true")
    expect(new).to_be_focused()
    expect(picker(page)).to_be_hidden()
    assert api.get(doc)["undoActionName"] == "Add 🦊"


def test_the_button_opens_it_and_the_keyboard_does_everything(page, api):
    doc = api.create("Keys", emojis=[])
    open_editor(page, doc)
    button = page.locator("#emoji-picker-button")
    button.click()
    expect(picker(page)).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "true")
    grid = page.locator("#emoji-picker-grid")
    expect(grid).to_have_attribute("role", "grid")
    # The catalogue loads on the first open: the grid has nothing to move into until it is drawn.
    expect(page.locator("#emoji-picker .picker-emoji").first).to_be_visible()
    page.keyboard.press("ArrowDown")  # from the search box into the grid
    active = page.locator("#emoji-picker .picker-emoji:focus")
    expect(active).to_have_text("😀")
    expect(active).to_have_attribute("aria-label", "grinning face")
    page.keyboard.press("ArrowRight")
    expect(active).to_have_text("😃")
    page.keyboard.press("ArrowDown")  # the same column, one row down
    columns = int(grid.get_attribute("aria-colcount"))
    assert page.evaluate("document.activeElement.dataset.index") == str(1 + columns)
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.index") == str(2 * columns - 1)
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.dataset.index") == str(columns)
    page.keyboard.press("Escape")  # closes, and the focus goes back to the button
    expect(picker(page)).to_be_hidden()
    expect(button).to_be_focused()
    expect(button).to_have_attribute("aria-expanded", "false")

    # Tab goes from the search box to the tone chooser, the group tabs and the grid; a tab jumps to its group.
    button.click()
    page.keyboard.press("Tab")
    expect(page.locator("#emoji-picker-tone")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator(".picker-tab[aria-selected=true]")).to_be_focused()
    page.keyboard.press("End")  # the last group: Flags
    expect(page.locator(".picker-tab:focus")).to_have_attribute("aria-label", "Flags")
    page.keyboard.press("Tab")
    expect(page.locator("#emoji-picker .picker-emoji:focus")).to_have_text("🏁")
    page.keyboard.press("Space")
    wait_version(page, doc["version"] + 1)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🏁"]
    assert not page.js_errors


def test_the_page_ranks_as_the_shared_table_says(page, api):
    """The same table EmojiCatalogueTests checks the Swift search against."""
    cases = json.loads(SEARCH_CASES.read_text())["cases"]
    doc = api.create("Ranking", emojis=[])
    open_editor(page, doc)
    results = page.evaluate("""async (cases) => {
      const { loadCatalogue } = await import("/js/emoji/catalogue.js");
      const out = [];
      for (const c of cases) {
        const catalogue = await loadCatalogue([c.lang]);
        out.push(catalogue.search(c.q, 5000).map((result) => result.emoji));
      }
      return out;
    }""", cases)
    failures = []
    for case, found in zip(cases, results):
        if "first" in case and (not found or found[0] != case["first"]):
            failures.append((case, found[:8]))
        if "within" in case and not set(case["within"]["emojis"]) <= set(found[: case["within"]["n"]]):
            failures.append((case, found[: case["within"]["n"]]))
        if "absent" in case and set(case["absent"]) & set(found):
            failures.append((case, "found"))
    assert not failures, failures


def test_the_language_is_the_browsers_with_english_as_fallback(browser, server, api):
    doc = api.create("Deutsch", emojis=[("🦊", 0, 0, 40)])
    context = browser.new_context(base_url=server, locale="de-CH")
    page = context.new_page()
    open_editor(page, doc)
    expect(page.locator("#canvas .emoji")).to_have_attribute("aria-label", "🦊 Fuchs at 0, 0, size 40")
    page.locator("#canvas").focus()
    page.keyboard.press("e")
    page.keyboard.type("fuchs")
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("🦊")
    page.fill("#emoji-picker-search", "fox")  # English always works too
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("🦊")
    context.close()


def test_the_tone_chosen_applies_to_every_emoji_with_tones_and_is_remembered_after_a_reload(page, api):
    doc = api.create("Tones", emojis=[])
    open_editor(page, doc)
    open_with_e(page)
    page.locator("#emoji-picker-tone").click()
    choices = page.locator("#emoji-picker-tones [role=radio]")
    expect(choices).to_have_count(6)
    expect(choices.nth(0)).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    expect(page.locator("#emoji-picker-tone")).to_have_attribute("aria-label", "Skin tone: medium skin tone")
    page.fill("#emoji-picker-search", "waving hand")
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("👋🏽")
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_attribute("aria-label", "waving hand: medium skin tone")
    page.fill("#emoji-picker-search", "people holding hands")  # everyone in it gets the tone
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("🧑🏽‍🤝‍🧑🏽")
    page.fill("#emoji-picker-search", "fox")  # no tones: as it is
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("🦊")

    page.wait_for_timeout(400)  # saved a moment after the choice
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    open_with_e(page)
    expect(page.locator("#emoji-picker-tone")).to_have_attribute("aria-label", "Skin tone: medium skin tone")
    page.locator(".picker-tab[aria-label='People & Body']").click()
    expect(cell(page, "👋")).to_have_text("👋🏽")
    page.keyboard.press("Escape")

    # A window that places an emoji before it has read anything adds it to what is kept; it
    # doesn't put back its own defaults (no tone, no recents) over them.
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    palette_emoji = page.locator(".palette-emoji").first
    placed = palette_emoji.inner_text()
    palette_emoji.click()
    wait_version(page, doc["version"] + 1)
    page.wait_for_timeout(600)  # saved a moment after the choice
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    open_with_e(page)
    expect(page.locator("#emoji-picker-tone")).to_have_attribute("aria-label", "Skin tone: medium skin tone")
    expect(page.locator("#emoji-picker .picker-row").nth(1).locator(".picker-emoji").first).to_have_text(placed)


def test_right_click_offers_an_emojis_tones(page, api):
    doc = api.create("Variants", emojis=[])
    open_editor(page, doc)
    open_with_e(page)
    page.keyboard.type("thumbs up")
    thumbs = page.locator("#emoji-picker .picker-emoji").first
    expect(thumbs).to_have_text("👍")
    thumbs.click(button="right")
    variants = page.locator(".picker-variants [role=option]")
    expect(variants).to_have_text(["👍", "👍🏻", "👍🏼", "👍🏽", "👍🏾", "👍🏿"])
    expect(variants.nth(0)).to_be_focused()
    expect(variants.nth(5)).to_have_attribute("aria-label", "thumbs up: dark skin tone")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 1)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["👍🏻"]

    # Escape closes the tones first, then the picker; an emoji without tones has none to offer.
    open_with_e(page)
    page.keyboard.type("thumbs up")
    page.locator("#emoji-picker .picker-emoji").first.click(button="right")
    expect(variants).to_have_count(6)
    page.keyboard.press("Escape")
    expect(variants).to_have_count(0)
    expect(picker(page)).to_be_visible()
    page.fill("#emoji-picker-search", "fox")
    page.locator("#emoji-picker .picker-emoji").first.click(button="right")
    expect(variants).to_have_count(0)


def test_the_emojis_used_last_are_the_first_row_most_recent_first(page, api):
    doc = api.create("Recents", emojis=[])
    open_editor(page, doc)
    palette_emoji = page.locator(".palette-emoji").first
    placed = palette_emoji.inner_text()
    palette_emoji.click()  # placing from the palette counts
    wait_version(page, doc["version"] + 1)
    open_with_e(page)
    page.keyboard.type("octopus")
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 2)
    open_with_e(page)
    heading = page.locator("#emoji-picker .picker-heading").first
    expect(heading).to_have_text("Recently used")
    expect(page.locator(".picker-tab").first).to_have_attribute("aria-label", "Recently used")
    first_row = page.locator("#emoji-picker .picker-row").nth(1).locator(".picker-emoji")
    expect(first_row).to_have_text(["🐙", placed])


def test_an_emoji_dragged_from_the_picker_lands_where_it_is_dropped(page, api):
    doc = api.create("Drag", emojis=[])
    open_editor(page, doc)
    page.locator("#emoji-picker-button").click()
    page.keyboard.type("cactus")
    cactus = page.locator("#emoji-picker .picker-emoji").first
    expect(cactus).to_have_text("🌵")
    x, y = screen_point(page, 250, 120)
    box = page.locator("#canvas").bounding_box()
    cactus.drag_to(page.locator("#canvas"), target_position={"x": x - box["x"], "y": y - box["y"]})
    wait_version(page, doc["version"] + 1)
    (added,) = api.get(doc)["emojis"]
    assert added["text"] == "🌵" and abs(added["x"] - 250) <= 1 and abs(added["y"] - 120) <= 1


def test_the_palette_editor_adds_the_emoji_chosen_in_its_picker(page, api):
    palette = api.call("POST", "/api/palettes", {"name": "Picked", "emojis": "🍕"})
    doc = api.create("Palette", emojis=[])
    open_editor(page, doc)
    page.locator("#palette-menu-button").click()
    page.locator(f'#palette-menu [data-id="{palette["id"]}"]').click()
    page.locator("#palette-menu-button").click()
    page.locator('#palette-menu [data-action="edit"]').click()
    editor = page.locator("#palette-editor")
    expect(editor).to_be_visible()
    editor.locator("#palette-editor-picker").click()
    expect(editor.locator("#emoji-picker")).to_be_visible()  # inside the modal dialog, so not inert
    page.keyboard.type("avocado")
    page.keyboard.press("Enter")
    expect(editor.locator(".palette-editor-emoji")).to_have_text(["🥑", "🍕"])
    expect(editor).to_be_visible()  # choosing closed the picker, not the dialog
    expect(editor.locator("#palette-editor-picker")).to_be_focused()
    editor.locator("#palette-editor-picker").click()
    page.keyboard.press("Escape")  # closes the picker only
    expect(editor.locator("#emoji-picker")).to_be_hidden()
    expect(editor).to_be_visible()
    assert api.call("GET", "/api/palettes")["palettes"][-1]["emojis"] == "🥑🍕"


@pytest.fixture
def phone(browser, server):
    with touch_device(browser, server, 390, 844) as page:
        yield page


def test_on_a_phone_it_is_a_sheet_used_by_touch(phone, api):
    page = phone
    doc = api.create("Phone", emojis=[])
    open_editor(page, doc)
    page.locator("#emoji-picker-button").tap()
    sheet = picker(page)
    expect(sheet).to_be_visible()
    box = sheet.bounding_box()
    assert box["x"] == 0 and box["width"] == 390 and abs(box["y"] + box["height"] - 844) <= 1
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    grid = page.locator("#emoji-picker-grid")
    assert int(grid.get_attribute("aria-colcount")) >= 8
    assert page.locator("#emoji-picker .picker-emoji").count() < 200  # only the rows in view are drawn

    page.locator("#emoji-picker .picker-emoji").first.tap()  # a tap chooses
    wait_version(page, doc["version"] + 1)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["😀"]

    # A long press shows the tones; a sideways drag carries an emoji out onto the canvas.
    page.locator("#emoji-picker-button").tap()
    page.locator(".picker-tab[aria-label='People & Body']").tap()
    wave = cell(page, "👋")
    expect(wave).to_be_visible()  # its row is drawn once the grid has scrolled to the group
    # The grid may draw the row again as it settles (the cell is replaced): ask until it holds still.
    wave_box = None
    for _ in range(50):
        if (wave_box := wave.bounding_box()) is not None:
            break
        page.wait_for_timeout(50)
    assert wave_box is not None, "the 👋 cell never held still"
    touch = Touch(page)
    touch.down(0, wave_box["x"] + wave_box["width"] / 2, wave_box["y"] + wave_box["height"] / 2)
    expect(page.locator(".picker-variants [role=option]")).to_have_count(6)  # while the finger is still down
    touch.up(0)
    expect(page.locator(".picker-variants [role=option]")).to_have_count(6)  # lifting it chose nothing
    page.locator(".picker-variants [role=option]").nth(2).tap()
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"][-1]["text"] == "👋🏼"

    page.locator("#emoji-picker-button").tap()
    page.fill("#emoji-picker-search", "cactus")
    cactus = page.locator("#emoji-picker .picker-emoji").first
    expect(cactus).to_have_text("🌵")
    start_box = cactus.bounding_box()
    start = (start_box["x"] + start_box["width"] / 2, start_box["y"] + start_box["height"] / 2)
    target = screen_point(page, 0, 60)
    touch.down(0, *start)
    touch.move({0: (start[0] + 40, start[1])}, steps=4)  # sideways first: not a scroll
    touch.move({0: target}, steps=10)
    touch.up(0)
    wait_version(page, doc["version"] + 3)
    dropped = api.get(doc)["emojis"][-1]
    assert dropped["text"] == "🌵" and abs(dropped["x"]) <= 1 and abs(dropped["y"] - 60) <= 1


def test_axe_finds_no_serious_or_critical_violation_with_the_picker_open(page, api):
    doc = api.create("Axe picker", emojis=[("🐶", 0, 0, 40)])
    open_editor(page, doc)
    open_with_e(page)
    found = []
    for step in ("browse", "search", "tones", "variants"):
        if step == "search":
            page.keyboard.type("hand")
            expect(page.locator("#emoji-picker .picker-emoji").first).to_be_visible()
        elif step == "tones":
            page.locator("#emoji-picker-tone").click()
        elif step == "variants":
            page.keyboard.press("Escape")
            page.locator("#emoji-picker .picker-emoji").first.click(button="right")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for violation in Axe().run(page).response["violations"]:
                if violation["impact"] in ("serious", "critical"):
                    found.append((step, scheme, violation["id"], [node["target"] for node in violation["nodes"]][:3]))
    assert not found, found


@pytest.fixture
def accounts_server():
    folder = tempfile.mkdtemp(prefix="emojiart-picker-accounts-")
    add_user("ada", "--data", folder)
    with running_server(data=folder, env=ACCOUNTS) as base:
        yield base


def picker_signed_in_as_ada(browser, base):
    """A new browser signed in as ada, on a new document, with the picker open."""
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    sign_in(page, base, "ada")
    page.click("#new-document")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.locator("#canvas").focus()
    page.keyboard.press("e")
    return context, page


def test_in_accounts_mode_the_tone_and_recents_are_kept_in_the_store_for_every_browser(browser, accounts_server):
    base = accounts_server
    context, page = picker_signed_in_as_ada(browser, base)
    page.locator("#emoji-picker-tone").click()
    page.locator("#emoji-picker-tones [data-tone='5']").click()
    page.fill("#emoji-picker-search", "thumbs up")
    expect(page.locator("#emoji-picker .picker-emoji").first).to_have_text("👍🏿")
    page.keyboard.press("Enter")
    expect(page.locator("#canvas .emoji")).to_have_count(1)
    http = requests.Session()
    http.post(base + "/api/session", json={"name": "ada", "password": PASSWORD}, timeout=10).raise_for_status()

    def stored():
        return http.get(base + "/api/session/preferences", timeout=10).json()

    for _ in range(50):
        if stored().get("recentEmojis") == ["👍🏿"]:
            break
        page.wait_for_timeout(100)
    assert stored() == {"skinTone": 5, "recentEmojis": ["👍🏿"]}
    assert page.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('emojiart:emoji'))") == []
    context.close()

    # Another browser, signed in as ada: the same tone and recent emojis.
    other, page = picker_signed_in_as_ada(browser, base)
    expect(page.locator("#emoji-picker-tone")).to_have_attribute("aria-label", "Skin tone: dark skin tone")
    expect(page.locator("#emoji-picker .picker-heading").first).to_have_text("Recently used")
    expect(page.locator("#emoji-picker .picker-row").nth(1).locator(".picker-emoji")).to_have_text(["👍🏿"])
    other.close()
