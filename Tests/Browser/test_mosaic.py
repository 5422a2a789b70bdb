"""Emoji art from a photo (issue #35): the Make Mosaic dialog (a live preview the server draws,
Apply as one undo step, a region dragged on the canvas), Copy as emoji text, and emoji text
pasted back as the same grid."""

from __future__ import annotations

import re
import struct
import zlib

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from helpers import Touch, drag, open_editor, screen_point, touch_device, wait_version
from test_accounts import accounts_server, session  # noqa: F401 (a fixture, and signing in for the API)

SIZE_TEXT = re.compile(r"^(\d+) × (\d+) · ([\d,]+) emojis?$")
FILLERS = {"\u3000", " ", "\u00a0", "\u2003"}


def gradient_png(width: int, height: int) -> bytes:
    """A width×height RGB PNG: red across, blue down (shades enough for a mosaic of several emojis)."""
    rows = b"".join(
        b"\x00" + bytes(v for x in range(width) for v in (x * 255 // (width - 1), 128, y * 255 // (height - 1)))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def with_background(api, title: str, width: int = 64, height: int = 48) -> dict:
    doc = api.create(title)
    return api.call("PUT", f"/api/documents/{doc['id']}/background?baseVersion={doc['version']}", raw=gradient_png(width, height))


def open_with_background(page, doc: dict) -> None:
    open_editor(page, doc)
    expect(page.locator("#canvas img.background")).to_have_count(1)
    expect(page.locator("#make-mosaic")).to_be_visible()  # shown once the document has its picture


def export_text(api, doc: dict, query: str = "") -> str:
    return api.call("GET", f"/api/documents/{doc['id']}/export?format=text{query}").decode()


def grid_cells(text: str) -> list[tuple[int, int, str]]:
    """(column, row, emoji) of each emoji of emoji text, as the page reads it (one grapheme a cell;
    the tests' emojis are single code points or flags, so graphemes are easy to find here)."""
    cells = []
    for row, line in enumerate(text.rstrip().split("\n")):
        column = 0
        chars = list(line.rstrip())
        i = 0
        while i < len(chars):
            char = chars[i]
            if 0x1F1E6 <= ord(char) <= 0x1F1FF:  # a flag: two regional indicators
                char += chars[i + 1]
                i += 1
            if char not in FILLERS:
                cells.append((column, row, char))
            column += 1
            i += 1
    return cells


def cells_of(emojis: list[dict], pitch: int) -> list[tuple[int, int, str]]:
    """The grid cells of emojis laid out `pitch` apart, relative to the top left cell."""
    left = min(e["x"] for e in emojis)
    top = max(e["y"] for e in emojis)
    cells = []
    for e in emojis:
        assert (e["x"] - left) % pitch == 0 and (top - e["y"]) % pitch == 0, (e, pitch)
        cells.append(((e["x"] - left) // pitch, (top - e["y"]) // pitch, e["text"]))
    return sorted(cells, key=lambda c: (c[1], c[0]))


@pytest.fixture
def clip_page(page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    return page


def test_the_dialog_previews_live_applies_as_one_step_and_undo_takes_it_all_away(page, api):
    doc = with_background(api, "Mosaic")
    open_with_background(page, doc)
    page.locator("#make-mosaic").click()
    dialog = page.locator("#mosaic-dialog")
    expect(dialog).to_be_visible()
    picture = dialog.locator("img.mosaic-image")
    size = dialog.locator("#mosaic-size")
    expect(picture).to_have_attribute("src", re.compile("^blob:"))
    expect(size).to_have_text(re.compile(r"^60 × \d+ · [\d,]+ emojis$"))
    first = picture.get_attribute("src")

    # A smaller mosaic: the slider asks for a new picture (a moment after it stops).
    dialog.locator("#mosaic-columns-range").fill("12")
    expect(dialog.locator("#mosaic-columns")).to_have_value("12")
    expect(size).to_have_text(re.compile(r"^12 × \d+ · [\d,]+ emojis?$"))
    expect(dialog).to_have_attribute("data-preview", "shown")
    assert picture.get_attribute("src") != first
    columns, rows, count = SIZE_TEXT.match(size.text_content()).groups()
    count = int(count.replace(",", ""))
    assert 0 < count <= int(columns) * int(rows) <= 300

    dialog.get_by_role("button", name="Apply").click()
    expect(dialog).to_be_hidden()
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    assert len(state["emojis"]) == count and state["undoActionName"] == "Make Mosaic"
    expect(page.locator("#canvas .emoji")).to_have_count(count)  # drawn live, from the change's patch
    expect(page.locator("#undo")).to_have_text("Undo Make Mosaic")
    expect(page.locator("#announcer")).to_contain_text("Made a mosaic")

    page.keyboard.press("Control+z")  # one step takes the whole mosaic away
    wait_version(page, doc["version"] + 2)
    assert api.get(doc)["emojis"] == []
    expect(page.locator("#canvas .emoji")).to_have_count(0)


def test_a_region_dragged_on_the_canvas_in_the_pictures_pixels_escape_and_axe(page, api):
    doc = with_background(api, "Region", 128, 96)
    open_with_background(page, doc)
    page.mouse.click(*screen_point(page, 200, 200), button="right")  # on empty canvas
    page.locator('#context-menu [data-action="makeMosaic"]').click()
    dialog = page.locator("#mosaic-dialog")
    expect(dialog).to_have_attribute("data-preview", "shown")
    whole = dialog.locator("#mosaic-size").text_content()

    dialog.get_by_label("A region").check()
    for name, value in (("x", "0"), ("y", "0"), ("width", "128"), ("height", "96")):  # the whole picture to start with
        expect(dialog.locator(f"#mosaic-region-{name}")).to_have_value(value)
    dialog.get_by_role("button", name="Draw on the canvas…").click()
    expect(dialog).to_be_hidden()  # stepped aside
    expect(page.locator(".region-bar")).to_contain_text("Drag over the picture")
    # Document (x, y) is picture pixel (x + 64, 48 − y): this is pixels 32…96 across, 24…56 down.
    drag(page, screen_point(page, -32, 24), screen_point(page, 32, -8))
    expect(dialog).to_be_visible()
    expect(page.locator(".region-bar")).to_be_hidden()
    got = {name: int(dialog.locator(f"#mosaic-region-{name}").input_value()) for name in ("x", "y", "width", "height")}
    assert all(abs(got[k] - v) <= 1 for k, v in {"x": 32, "y": 24, "width": 64, "height": 32}.items()), got
    expect(page.locator(".region-outline")).to_be_visible()
    expect(dialog).to_have_attribute("data-preview", "shown")
    expect(dialog.locator("#mosaic-size")).not_to_have_text(whole)  # the same columns over a wider shape: fewer rows

    # Typed numbers are kept inside the picture.
    dialog.locator("#mosaic-region-width").fill("500")
    dialog.locator("#mosaic-region-width").press("Tab")
    expect(dialog.locator("#mosaic-region-width")).to_have_value(str(128 - got["x"]))

    violations = [v for v in Axe().run(page, context="#mosaic-dialog").response["violations"] if v["impact"] in ("serious", "critical")]
    assert not violations, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(".region-outline")).to_be_hidden()
    expect(page.locator("#canvas")).to_be_focused()
    assert api.get(doc)["version"] == doc["version"]  # previews change nothing


def test_on_a_phone_the_dialog_fits_and_a_finger_drags_the_region(browser, server, api):
    doc = with_background(api, "Phone", 64, 48)
    with touch_device(browser, server, 390, 780) as page:
        open_editor(page, doc)
        page.locator("#toolbar-more").tap()
        page.locator("#make-mosaic").tap()
        dialog = page.locator("#mosaic-dialog")
        expect(dialog).to_have_attribute("data-preview", "shown")
        box = dialog.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # nothing wider than the screen
        dialog.get_by_label("A region").tap()
        dialog.get_by_role("button", name="Draw on the canvas…").tap()
        expect(dialog).to_be_hidden()
        # The whole picture is shown for it; one finger frames instead of panning.
        Touch(page).drag(screen_point(page, -32, 24), screen_point(page, 0, 0))
        expect(dialog).to_be_visible()
        got = [int(dialog.locator(f"#mosaic-region-{name}").input_value()) for name in ("x", "y", "width", "height")]
        assert all(abs(a - b) <= 1 for a, b in zip(got, [0, 0, 32, 24])), got
        page.wait_for_timeout(600)  # Chrome ignores a tap on what appeared under the finger less than 0.5 s ago
        dialog.get_by_role("button", name="Cancel").tap()
        expect(dialog).to_be_hidden()


def test_the_dialog_shows_the_servers_refusal_and_stays_open(page, api):
    doc = with_background(api, "Refused")
    open_with_background(page, doc)
    page.locator("#make-mosaic").click()
    dialog = page.locator("#mosaic-dialog")
    dialog.get_by_label("Emojis", exact=True).select_option("text")
    field = dialog.get_by_label("These emojis")
    expect(field).to_be_focused()
    expect(dialog.get_by_role("button", name="Apply")).to_be_disabled()  # nothing to make it of yet
    field.fill("abc")  # no emoji at all: the server says why
    expect(dialog.get_by_role("alert")).not_to_be_empty()
    expect(dialog).to_have_attribute("data-preview", "failed")
    field.fill("🟥🟦")
    expect(dialog).to_have_attribute("data-preview", "shown")
    expect(dialog.get_by_role("alert")).to_be_hidden()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()


def test_a_viewer_may_preview_a_mosaic_but_not_make_one(browser, accounts_server):  # noqa: F811
    base = accounts_server
    ada = session(base, "ada")
    doc = ada.post(base + "/api/documents", json={"title": "Look only"}, timeout=10).json()
    reply = ada.put(f"{base}/api/documents/{doc['id']}/background?baseVersion={doc['version']}", data=gradient_png(64, 48), timeout=10)
    assert reply.status_code == 200, reply.text
    link = ada.post(f"{base}/api/documents/{doc['id']}/links", json={"role": "view"}, timeout=10).json()["url"]
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(link)
    expect(page.locator("body")).to_have_attribute("data-role", "viewer")
    page.locator("#make-mosaic").click()
    dialog = page.locator("#mosaic-dialog")
    expect(dialog).to_have_attribute("data-preview", "shown")
    expect(dialog.locator("#mosaic-size")).to_have_text(SIZE_TEXT)
    apply = dialog.get_by_role("button", name="Apply")
    expect(apply).to_be_disabled()
    expect(apply).to_have_accessible_description(re.compile("only an editor can make one"))
    made = page.evaluate("""(id) => fetch(`/api/documents/${id}/mosaic`, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ columns: 20, emojis: "all", dither: false, fit: "background", replace: false }) }).then((r) => r.status)""", doc["id"])
    assert made == 403
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    context.close()
    assert not errors, errors


def test_pasting_emoji_text_lays_it_out_as_a_grid_in_one_paste(clip_page, api):
    page = clip_page
    doc = api.create("Grid", emojis=[])
    open_editor(page, doc)
    page.evaluate("navigator.clipboard.writeText('🌞\\u3000🌈\\n\\u3000🇫🇷\\n')")
    page.locator("#canvas").focus()
    page.keyboard.press("Control+v")
    wait_version(page, doc["version"] + 1)
    state = api.get(doc)
    # A cell is a new emoji's size (40 at 100 %); the block's middle one paste step (16) off the view's.
    assert [(e["text"], e["x"], e["y"], e["size"]) for e in state["emojis"]] == [
        ("🌞", -24, 4, 40), ("🌈", 56, 4, 40), ("🇫🇷", 16, -36, 40)]
    assert state["undoActionName"] == "Paste"
    expect(page.locator("#canvas .emoji.selected")).to_have_count(3)

    # Windows line ends, spaces as empty cells, trailing blanks: the same grid, a step further.
    page.evaluate("navigator.clipboard.writeText('🌞 🌈  \\r\\n\\u00a0🇫🇷\\r\\n\\r\\n')")
    page.keyboard.press("Control+v")
    wait_version(page, doc["version"] + 2)
    again = api.get(doc)["emojis"][3:]
    assert [(e["text"], e["x"], e["y"]) for e in again] == [("🌞", -8, -12), ("🌈", 72, -12), ("🇫🇷", 32, -52)]


def test_emoji_text_exported_and_pasted_into_another_document_is_the_same_grid(clip_page, api):
    page = clip_page
    pitch = 50
    layout = [("🍎", 0, 0), ("🍌", 1, 0), ("🍇", 3, 0), ("🥝", 0, 1), ("🍋", 2, 2), ("🇯🇵", 4, 2)]
    source = api.create("Fruit", emojis=[(t, c * pitch, -r * pitch, pitch) for t, c, r in layout])
    text = export_text(api, source)
    assert text.endswith("\n") and grid_cells(text) == sorted([(c, r, t) for t, c, r in layout], key=lambda c: (c[1], c[0]))

    target = api.create("Pasted", emojis=[])
    open_editor(page, target)
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.locator("#canvas").focus()
    page.keyboard.press("Control+v")
    wait_version(page, target["version"] + 1)
    pasted = api.get(target)["emojis"]
    assert {e["size"] for e in pasted} == {40}
    assert cells_of(pasted, 40) == cells_of(api.get(source)["emojis"], pitch)
    assert export_text(api, target) == text  # and it exports as the same text again


def test_copy_as_emoji_text_puts_the_documents_or_the_selections_text_on_the_clipboard(clip_page, api):
    page = clip_page
    doc = api.create("Copy text", emojis=[("🐶", 0, 0, 40), ("🐱", 40, 0, 40), ("🐭", 80, -40, 40)])
    open_editor(page, doc)
    menu = page.locator(".editor-bar details.menu")
    menu.locator("summary").click()
    menu.locator('[data-format="text"]').click()
    rows = len(export_text(api, doc).splitlines())
    expect(page.locator("#notices")).to_contain_text(f"Copied {rows} rows of emoji text")
    assert page.evaluate("navigator.clipboard.readText()") == export_text(api, doc)

    page.mouse.click(*screen_point(page, 80, -40))  # one emoji selected: only it
    menu.locator("summary").click()
    expect(menu.locator('[data-format="text"]')).to_have_text("Copy selection as emoji text")
    menu.locator('[data-format="text"]').click()
    expect(page.locator("#notices")).to_contain_text("Copied 1 row of emoji text")
    assert page.evaluate("navigator.clipboard.readText()") == export_text(api, doc, "&ids=3") == "🐭\n"


def test_copy_as_emoji_text_without_the_clipboard_offers_the_text_to_copy_by_hand(page, api):
    doc = api.create("By hand", emojis=[("🌵", 0, 0, 40), ("🌴", 40, 0, 40)])
    open_editor(page, doc)
    page.evaluate("""() => {
        const refuse = () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError"));
        Object.defineProperty(navigator, "clipboard", { value: { write: refuse, writeText: refuse }, configurable: true });
    }""")
    menu = page.locator(".editor-bar details.menu")
    menu.locator("summary").click()
    menu.locator('[data-format="text"]').click()
    dialog = page.locator("#copy-text-dialog")
    expect(dialog).to_be_visible()
    area = dialog.get_by_label("Emoji text")
    expect(area).to_be_focused()
    assert area.input_value() == export_text(api, doc)
    assert page.evaluate("() => { const a = document.activeElement; return a.selectionEnd - a.selectionStart; }") == len(
        area.input_value().encode("utf-16-le")) // 2  # all of it selected
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
