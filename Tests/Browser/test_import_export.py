"""Importing .emojiart files (file picker and drop) and exporting them again (download)."""

import json
import urllib.parse
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

from helpers import FIXTURES, drop_files, row

FIXTURE_FILES = sorted(FIXTURES.glob("*.emojiart"))


def expected_emojis(path: Path) -> list[tuple]:
    """The emojis a fixture holds, as (text, x, y-up, size), read independently of the server."""
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    result = []
    for e in data["emojis"]:
        if "text" in e:  # CS193P 2021: y down
            result.append((e["text"], e["x"], -e["y"], e["size"]))
        else:
            result.append((e["string"], e["position"]["x"], e["position"]["y"], e["size"]))
    return result


def emojis_of(state: dict) -> list[tuple]:
    return [(e["text"], e["x"], e["y"], e["size"]) for e in state["emojis"]]


def import_via_api(api, data: bytes, title: str) -> dict:
    result = api.call("POST", "/api/documents/import?title=" + urllib.parse.quote(title), raw=data, expect=201)
    return result["document"]


def test_fixtures_exist():
    assert len(FIXTURE_FILES) >= 5, f"no fixtures found in {FIXTURES}"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_import_with_the_file_picker_and_export_again(page, api, tmp_path, path):
    name = f"{path.stem}-{uuid.uuid4().hex[:6]}"
    copy = tmp_path / f"{name}.emojiart"
    copy.write_bytes(path.read_bytes())
    page.goto("/")
    expect(page.locator("#loading")).to_be_hidden()
    page.set_input_files("#import-file", str(copy))
    line = row(page, name)
    expect(line).to_have_count(1)
    expect(page.locator("#notices")).to_contain_text(f"Imported “{name}”")
    doc_id = line.get_attribute("data-id")
    state = api.get(doc_id)
    assert emojis_of(state) == expected_emojis(path)
    expect(line.locator(".emoji-count")).to_have_text(str(len(state["emojis"])))

    for fmt in ("native", "cs193p-2023", "cs193p-2021"):
        line.locator("summary", has_text="Export").click()
        with page.expect_download() as info:
            line.locator(f'a[data-format="{fmt}"]').click()
        download = info.value
        assert download.suggested_filename.endswith(".emojiart"), download.suggested_filename
        data = Path(download.path()).read_bytes()
        again = import_via_api(api, data, f"re-{name}-{fmt}")
        assert emojis_of(again) == emojis_of(state), fmt
        if fmt == "native":
            assert again["title"] == name


def test_import_by_dropping_a_file_anywhere_on_the_page(page, api):
    path = FIXTURES / "2023-url.emojiart"
    name = f"dropped-{uuid.uuid4().hex[:6]}"
    page.goto("/")
    expect(page.locator("#loading")).to_be_hidden()
    drop_files(page, "main", [(f"{name}.emojiart", path.read_bytes(), "")])
    line = row(page, name)
    expect(line).to_have_count(1)
    state = api.get(line.get_attribute("data-id"))
    assert emojis_of(state) == expected_emojis(path)
    assert state["background"] == {"kind": "url", "url": json.loads(path.read_text())["background"]}
    expect(page.locator("#drop-overlay")).to_be_hidden()


def test_a_bad_file_shows_the_servers_error(page, api):
    bad = b'{"emojis": [{"string": "\xf0\x9f\x98\x80", "position": {"x": 2.5, "y": 0}, "size": 40, "id": 1}], "uniqueEmojiId": 1}'
    result = api.call("POST", "/api/documents/import?title=bad", raw=bad, expect=422)
    page.goto("/")
    expect(page.locator("#loading")).to_be_hidden()
    drop_files(page, "body", [("bad.emojiart", bad, "")])
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(result["error"]["message"])
    expect(alert).to_contain_text("bad.emojiart")


def test_pictures_export_from_the_editor_and_the_png_imports_as_the_document(page, api, tmp_path):
    import xml.etree.ElementTree as ElementTree

    doc = api.create("Picture <i>", emojis=[("👨‍👩‍👧‍👦", -30, 10, 64), ("🇯🇵", 40, -20, 48), ("👋🏽", 0, 60, 40)])
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    menu = page.locator(".editor-bar details.menu")
    menu.locator("summary").click()
    with page.expect_download() as info:
        menu.locator('a[data-format="svg"]').click()
    svg_path = tmp_path / "picture.svg"
    info.value.save_as(svg_path)
    root = ElementTree.parse(svg_path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.find(f"{ns}title").text == "Picture <i>"
    assert [t.text for t in root.iter(f"{ns}text")] == ["👨‍👩‍👧‍👦", "🇯🇵", "👋🏽"]

    menu.locator("summary").click()
    with page.expect_download() as info:
        menu.locator('a[data-format="png@2x"]').click()
    assert info.value.suggested_filename == "Picture <i>.png" or info.value.suggested_filename.endswith(".png")
    png_path = tmp_path / "picture.png"
    info.value.save_as(png_path)
    assert png_path.read_bytes().startswith(b"\x89PNG")

    page.goto("/")
    expect(page.locator("#loading")).to_be_hidden()
    before = len(api.documents())
    page.set_input_files("#import-file", str(png_path))
    expect(page.locator("#notices")).to_contain_text("Imported")
    documents = api.documents()
    assert len(documents) == before + 1
    imported = max(documents, key=lambda d: d["createdAt"])
    state = api.get(imported["id"])
    assert [(e["text"], e["x"], e["y"], e["size"]) for e in state["emojis"]] == [
        ("👨‍👩‍👧‍👦", -30, 10, 64), ("🇯🇵", 40, -20, 48), ("👋🏽", 0, 60, 40)]
    # Every row shows a thumbnail drawn by the server.
    thumbnail = row(page, "Picture <i>").first.locator("img.thumbnail")
    expect(thumbnail).to_have_js_property("complete", True)
    assert thumbnail.evaluate("img => img.naturalWidth") > 0
