"""Palettes in the web editor: the chooser and its menu, the editor, the manager, shared live by
every window. Each test has its own server, since palettes are shared by the whole server."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from playwright.sync_api import expect

from browser_server import DEFAULT_BIN, Api, running_server
from helpers import FIXTURES



@pytest.fixture
def data(tmp_path) -> str:
    return str(tmp_path / "data")


@pytest.fixture
def own(data):
    with running_server(data) as base:
        yield base


@pytest.fixture
def papi(own) -> Api:
    return Api(own)


@pytest.fixture
def windows(browser, own):
    """Opens browser windows on this test's server; checks none had a JavaScript error."""
    contexts, errors = [], []

    def open_window(path: str):
        context = browser.new_context(base_url=own, viewport={"width": 1100, "height": 720})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path)
        if path.startswith("/documents/"):
            expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#palette-name, #manage-palettes").first).to_be_visible()
        return page

    yield open_window
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def editor_window(windows, papi):
    doc = papi.create("Palettes")
    page = windows(f"/documents/{doc['id']}")
    expect(page.locator("#palette-name")).to_have_text("Vehicles")
    return page, doc


def names(papi) -> list[str]:
    return [p["name"] for p in papi.call("GET", "/api/palettes")["palettes"]]


def wait_names(papi, first: list[str]) -> None:
    """The server's palettes begin with `first`: changes are drawn at once, before the server has them."""
    deadline = time.monotonic() + 5
    while names(papi)[:len(first)] != first:
        assert time.monotonic() < deadline, f"the server has {names(papi)[:len(first)]}, not {first}"
        time.sleep(0.05)


def menu(page, item: str):
    page.locator("#palette-menu-button").click()
    page.get_by_role("menuitem", name=item).click()


def test_a_new_palette_keeps_only_typed_emojis_and_other_windows_see_it(windows, papi):
    page, doc = editor_window(windows, papi)
    other = windows(f"/documents/{doc['id']}")
    browser_page = windows("/")
    browser_page.locator("#manage-palettes").click()
    expect(browser_page.locator("#palette-rows .palette-row")).to_have_count(9)

    menu(page, "New Palette")
    editor = page.locator("#palette-editor")
    expect(editor).to_be_visible()
    expect(page.locator("#palette-editor-name")).to_have_value("New")
    assert names(papi)[1] == "New"  # right after the current palette
    page.locator("#palette-editor-name").fill("<script>alert(1)</script>")
    page.locator("#palette-editor-add").press_sequentially("a😀b😀🚀")
    expect(editor.locator(".palette-editor-emoji")).to_have_text(["😀", "🚀"])
    expect(page.locator("#palette-name")).to_have_text("<script>alert(1)</script>")  # as text, never markup
    expect(page.locator("#palette-bar .palette-emoji")).to_have_text(["😀", "🚀"])

    # Within a second, the other editor window and the document browser's manager show it.
    started = time.monotonic()
    expect(browser_page.locator("#palette-rows .palette-row-name").nth(1)).to_have_text(
        "<script>alert(1)</script>", timeout=1_000)
    assert time.monotonic() - started < 1.0
    other.locator("#palette-menu-button").click()
    expect(other.get_by_role("menuitemradio", name="<script>alert(1)</script>")).to_be_visible(timeout=1_000)
    # No script was made of it: the page's one inline script (in its head, opening the live
    # connection) is all there is.
    assert page.evaluate("() => document.querySelectorAll('body script, script:not([src]) ~ script:not([src])').length") == 0
    assert page.evaluate("() => [...document.scripts].some((script) => script.textContent.includes('alert'))") is False

    # Press an emoji to remove it; the other windows follow.
    editor.get_by_role("listitem", name="Remove 😀").click()
    expect(editor.locator(".palette-editor-emoji")).to_have_text(["🚀"])
    expect(browser_page.locator("#palette-rows .palette-row-preview").nth(1)).to_have_text("🚀", timeout=1_000)
    page.keyboard.press("Escape")
    expect(editor).to_be_hidden()
    palette = papi.call("GET", "/api/palettes")["palettes"][1]
    assert palette["emojis"] == "🚀"


def test_the_editor_works_from_the_keyboard(windows, papi):
    page, _ = editor_window(windows, papi)
    page.locator("#palette-menu-button").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#palette-menu")).to_be_visible()
    page.keyboard.press("End")  # Manage Palettes…
    page.keyboard.press("ArrowUp")  # Delete
    page.keyboard.press("ArrowUp")  # Edit “Vehicles”…
    page.keyboard.press("Enter")
    expect(page.locator("#palette-editor")).to_be_visible()
    page.keyboard.press("Control+a")
    page.keyboard.type("Cars")
    page.keyboard.press("Tab")
    page.keyboard.insert_text("🛴🚙")  # as a paste would; 🚙 is already there
    page.keyboard.press("Enter")
    expect(page.locator("#palette-editor .palette-editor-emoji").first).to_have_text("🛴")
    page.locator("#palette-editor .palette-editor-emoji").nth(1).focus()
    page.keyboard.press("Delete")
    expect(page.locator("#palette-name")).to_have_text("Cars")
    expect(page.locator("#palette-editor .palette-editor-emoji").nth(1)).not_to_have_text("🚙")
    wait_names(papi, ["Cars"])
    deadline = time.monotonic() + 5
    while "🚙" in (vehicles := papi.call("GET", "/api/palettes")["palettes"][0])["emojis"]:
        assert time.monotonic() < deadline, vehicles  # drawn at once; the server has it a moment later
        time.sleep(0.05)
    assert vehicles["name"] == "Cars"
    assert vehicles["emojis"].startswith("🛴") and "🚙" not in vehicles["emojis"]
    assert vehicles["emojis"].count("🛴") == 1


def test_the_manager_reorders_by_keyboard_and_by_dragging(windows, papi):
    page, doc = editor_window(windows, papi)
    other = windows(f"/documents/{doc['id']}")
    menu(page, "Manage Palettes…")
    rows = page.locator("#palette-rows .palette-row")
    expect(rows).to_have_count(9)
    rows.nth(0).focus()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#palette-rows .palette-row-name").nth(1)).to_have_text("Vehicles")
    wait_names(papi, ["Sports", "Vehicles"])
    # The other window keeps showing its palette (Vehicles), wherever it moved.
    expect(other.locator("#palette-name")).to_have_text("Vehicles")

    rows.nth(8).drag_to(rows.nth(0))  # Faces to the top
    expect(page.locator("#palette-rows .palette-row-name").nth(0)).to_have_text("Faces")
    wait_names(papi, ["Faces", "Sports", "Vehicles"])
    other.locator("#palette-menu-button").click()
    expect(other.locator("#palette-menu [role=menuitemradio]").first).to_have_text("Faces")


def confirm_delete(page, answer: str = "Delete"):
    dialog = page.get_by_role("alertdialog")
    expect(dialog).to_contain_text("Delete the palette")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()  # the safe choice is the default
    dialog.get_by_role("button", name=answer).click()
    expect(dialog).to_have_count(0)


def test_deleting_a_palette_asks_first_and_can_be_undone(windows, papi):
    page, doc = editor_window(windows, papi)
    before = papi.call("GET", "/api/palettes")["palettes"]
    vehicles = next(p for p in before if p["name"] == "Vehicles")
    menu(page, "Delete “Vehicles”")
    confirm_delete(page, "Cancel")  # asked, and not deleted
    assert names(papi) == [p["name"] for p in before]
    menu(page, "Delete “Vehicles”")
    confirm_delete(page)
    expect(page.locator("#palette-name")).not_to_have_text("Vehicles")
    wait_names(papi, [p["name"] for p in before if p["name"] != "Vehicles"][:1])
    page.locator("#notices").get_by_role("button", name="Undo").click()
    expect(page.locator("#notices")).to_contain_text("Put back the palette “Vehicles”")
    after = papi.call("GET", "/api/palettes")["palettes"]
    assert [p["name"] for p in after] == [p["name"] for p in before]  # back in its place
    restored = next(p for p in after if p["name"] == "Vehicles")
    assert restored["emojis"] == vehicles["emojis"]  # all of its emojis


def test_deleting_down_to_one_palette_refuses_the_last(windows, papi):
    page, doc = editor_window(windows, papi)
    other = windows(f"/documents/{doc['id']}")
    menu(page, "Delete “Vehicles”")
    confirm_delete(page)
    expect(page.locator("#palette-name")).to_have_text("Sports")  # the one now in its place
    expect(other.locator("#palette-name")).to_have_text("Sports")
    menu(page, "Manage Palettes…")
    rows = page.locator("#palette-rows .palette-row")
    for remaining in range(8, 1, -1):
        expect(rows).to_have_count(remaining)
        rows.first.get_by_role("button", name="Delete").click()
        confirm_delete(page)
    expect(rows).to_have_count(1)
    rows.first.get_by_role("button", name="Delete").click()
    confirm_delete(page)
    expect(page.locator("#notices")).to_contain_text("last")
    expect(rows).to_have_count(1)
    assert names(papi) == ["Faces"]
    expect(other.locator("#palette-name")).to_have_text("Faces")


def test_the_current_palette_is_remembered_per_window_and_cycling_wraps(windows, papi):
    page, doc = editor_window(windows, papi)
    other = windows(f"/documents/{doc['id']}")
    page.locator("#palette-menu-button").click()
    page.get_by_role("menuitemradio", name="Weather").click()
    expect(page.locator("#palette-name")).to_have_text("Weather")
    expect(other.locator("#palette-name")).to_have_text("Vehicles")
    page.reload()
    expect(page.locator("#palette-name")).to_have_text("Weather")
    page.locator("#palette-next").click()
    page.locator("#palette-next").click()
    page.locator("#palette-next").click()
    expect(page.locator("#palette-name")).to_have_text("Vehicles")  # Weather → COVID → Faces → wraps


def test_palettes_import_through_the_manager_and_the_cli_reaches_open_windows(windows, papi, data):
    page, _ = editor_window(windows, papi)
    sports = next(p for p in papi.call("GET", "/api/palettes")["palettes"] if p["name"] == "Sports")
    papi.call("DELETE", f"/api/palettes/{sports['id']}", expect=204)
    menu(page, "Manage Palettes…")
    expect(page.locator("#palette-rows .palette-row")).to_have_count(8)
    page.locator("#palette-manager input[type=file]").set_input_files(str(FIXTURES / "palettes-2021-Default.json"))
    expect(page.locator("#notices")).to_contain_text("Imported 1 palette; 8 already there")
    expect(page.locator("#palette-rows .palette-row")).to_have_count(9)
    expect(page.locator("#palette-rows .palette-row-name").last).to_have_text("Sports")
    imported = 9

    # The CLI on the server's database, while it runs: the open manager shows the change.
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    subprocess.run([binary, "palettes", "add", "From the CLI", "🖥️⌨️", "--at", "1", "--data", data], check=True,
                   capture_output=True)
    expect(page.locator("#palette-rows .palette-row-name").first).to_have_text("From the CLI", timeout=3_000)
    expect(page.locator("#palette-rows .palette-row")).to_have_count(imported + 1)
