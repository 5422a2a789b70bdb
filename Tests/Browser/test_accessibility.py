"""Editing without a mouse, and what assistive technology is told (issue #18 item 9): emojis are
options of a listbox with a roving tabindex and labels; arrows move the focus, Space/Enter
select, arrows nudge, Alt+arrows resize, R rotates, Delete deletes; the palette adds by Enter;
changes are announced; axe-core finds no serious or critical violation on the pages."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from helpers import open_editor, wait_version


def focused(page):
    return page.evaluate(
        "() => ({id: document.activeElement.dataset.id, role: document.activeElement.getAttribute('role'),"
        " label: document.activeElement.getAttribute('aria-label'), tag: document.activeElement.tagName})")


def test_editing_an_emoji_from_the_keyboard_alone(page, api):
    doc = api.create("Keys", emojis=[("🐶", 120, -40, 64), ("🐱", -100, 0, 40)])
    open_editor(page, doc)
    page.locator("#canvas").focus()
    page.keyboard.press("Tab")  # into the emojis: one of them is in the tab order
    now = focused(page)
    assert now["role"] == "option" and now["id"] == "1"
    # The name comes from the emoji catalogue, which may still be on its way.
    expect(page.locator("#canvas .emoji:focus")).to_have_attribute("aria-label", "🐶 dog face at 120, −40, size 64")
    expect(page.locator("#canvas .emoji-layer")).to_have_attribute("role", "listbox")
    expect(page.locator("#canvas")).to_have_attribute("aria-label", "Canvas")

    page.keyboard.press("ArrowLeft")  # nothing selected: the arrows move the focus
    assert focused(page)["id"] == "2"
    page.keyboard.press("Space")
    expect(page.locator('#canvas .emoji[data-id="2"]')).to_have_attribute("aria-selected", "true")
    page.keyboard.press("ArrowRight")  # now they nudge the selection
    page.keyboard.press("Shift+ArrowUp")
    wait_version(page, doc["version"] + 2)
    cat = api.get(doc)["emojis"][1]
    assert (cat["x"], cat["y"]) == (-99, 10)
    expect(page.locator("#announcer")).to_have_text("Moved 🐱 cat face at −99, 10, size 40")
    page.keyboard.press("Alt+ArrowUp")
    wait_version(page, doc["version"] + 3)
    assert api.get(doc)["emojis"][1]["size"] == 44
    page.keyboard.press("r")
    wait_version(page, doc["version"] + 4)
    assert api.get(doc)["emojis"][1]["rotation"] == 15
    expect(page.locator('#canvas .emoji[data-id="2"]')).to_have_attribute("aria-label", "🐱 cat face at −99, 10, size 44, turned 15°")
    page.keyboard.press("Delete")
    wait_version(page, doc["version"] + 5)
    assert [e["text"] for e in api.get(doc)["emojis"]] == ["🐶"]
    expect(page.locator("#announcer")).to_have_text("Deleted 1 emoji")
    assert focused(page)["id"] == "1"  # the keyboard carries on from the emoji that is left


def test_enter_on_a_palette_emoji_adds_it_in_the_middle_selected_and_focused(page, api):
    doc = api.create("Palette keys", emojis=[])
    open_editor(page, doc)
    first = page.locator(".palette-emoji").first
    expect(first).to_be_visible()
    text = first.inner_text()
    first.focus()
    page.keyboard.press("Enter")
    wait_version(page, doc["version"] + 1)
    (added,) = api.get(doc)["emojis"]
    assert added["text"] == text and (added["x"], added["y"]) == (0, 0)
    element = page.locator(f'#canvas .emoji[data-id="{added["id"]}"]')
    expect(element).to_have_attribute("aria-selected", "true")
    expect(element).to_be_focused()
    page.keyboard.press("ArrowDown")  # placed, then nudged: all without a mouse
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"][0]["y"] == -1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violations(page, api, scheme):
    doc = api.create("Axe", emojis=[("🍕", 0, 0, 50), ("🐶", 100, 0, 40)])
    page.emulate_media(color_scheme=scheme)
    axe = Axe()
    found = []
    for path in ["/", f"/documents/{doc['id']}", "/play"]:
        page.goto(path)
        if path.startswith("/documents"):
            expect(page.locator("body")).to_have_attribute("data-ready", "true")
            page.locator("#canvas .emoji").first.click()  # with a selection and its handles showing
        page.wait_for_load_state("networkidle")
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in ("serious", "critical"):
                found.append((path, violation["id"], [node["target"] for node in violation["nodes"]][:3]))
    assert not found, found
