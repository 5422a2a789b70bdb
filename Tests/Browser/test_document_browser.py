"""The document browser at `/`: new, open, rename, duplicate, delete, errors, user text."""

import re
import uuid

from playwright.sync_api import expect

from helpers import open_editor, row


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:6]}"


def test_new_document_opens_the_editor(page, api):
    before = {d["id"] for d in api.documents()}
    page.goto("/")
    page.get_by_role("button", name="New document").click()
    page.wait_for_url(re.compile(r"/documents/[^/]+$"))
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    new_id = page.url.rsplit("/", 1)[1]
    assert new_id not in before
    assert api.get(new_id)["title"] == "Untitled"
    expect(page.locator("#doc-title")).to_have_value("Untitled")
    expect(page.locator("#save-status")).to_have_attribute("data-state", "saved")


def test_list_shows_title_count_and_change_and_opens_on_click(page, api):
    title = unique("Party 🎉")
    doc = api.create(title, emojis=[("🎈", 0, 0, 40), ("🎂", 10, 10, 40)])
    page.goto("/")
    line = row(page, title)
    expect(line).to_have_count(1)
    expect(line.locator(".emoji-count")).to_have_text("2")
    expect(line.locator("time")).to_have_text(re.compile(r"now|second|minute"))
    # The full date is the tooltip, written once the pointer comes near (not while listing).
    line.locator("time").hover()
    expect(line.locator("time")).to_have_attribute("title", re.compile(r"\d{4}|\d:\d\d"))
    line.locator(".doc-title").click()
    page.wait_for_url(f"**/documents/{doc['id']}")
    expect(page.locator("#doc-title")).to_have_value(title)


def test_rename(page, api):
    title = unique("Alpha")
    doc = api.create(title)
    page.goto("/")
    row(page, title).get_by_role("button", name="Rename").click()
    field = page.locator(".rename-input")
    field.fill("Beta ✨")
    field.press("Enter")
    expect(row(page, "Beta ✨").filter(has=page.locator(f'a[href="/documents/{doc["id"]}"]'))).to_have_count(1)
    assert api.get(doc)["title"] == "Beta ✨"


def test_rename_error_is_shown_readably(page, api):
    title = unique("Keep")
    doc = api.create(title)
    expected = api.call("PATCH", f"/api/documents/{doc['id']}", {"title": ""}, expect=422)["error"]["message"]
    page.goto("/")
    row(page, title).get_by_role("button", name="Rename").click()
    page.locator(".rename-input").fill("")
    page.locator(".rename-input").press("Enter")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text(expected)
    assert api.get(doc)["title"] == title


def test_duplicate(page, api):
    title = unique("Original")
    doc = api.create(title, emojis=[("🐶", 5, 5, 30)])
    page.goto("/")
    row(page, title).get_by_role("button", name="Duplicate").click()
    expect(row(page, title + " copy")).to_have_count(1)
    copies = [d for d in api.documents() if d["title"] == title + " copy"]
    assert len(copies) == 1 and copies[0]["id"] != doc["id"] and copies[0]["emojiCount"] == 1


def test_delete_asks_for_confirmation(page, api):
    title = unique("Doomed")
    doc = api.create(title)
    page.goto("/")
    row(page, title).get_by_role("button", name="Delete").click()
    dialog = page.locator("#confirm-delete")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(title)
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    assert api.get(doc)["id"] == doc["id"]
    expect(row(page, title)).to_have_count(1)

    row(page, title).get_by_role("button", name="Delete").click()
    dialog.get_by_role("button", name="Delete").click()
    expect(row(page, title)).to_have_count(0)
    api.call("GET", f"/api/documents/{doc['id']}", expect=404)


def test_markup_in_a_title_is_text_in_the_list_and_the_editor(page, api):
    title = "<img src=x onerror=alert(1)>"
    doc = api.create(title, emojis=[("🎈", 0, 0, 40)])
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    page.goto("/")
    line = page.locator(f'#document-rows tr[data-id="{doc["id"]}"]')
    expect(line.locator(".doc-title")).to_have_text(title)
    expect(line.locator(".doc-title")).to_be_visible()
    assert page.locator('img[src="x"]').count() == 0

    row(page, title).first.get_by_role("button", name="Delete").click()
    expect(page.locator("#confirm-delete-title")).to_have_text(title)
    page.locator("#confirm-delete").get_by_role("button", name="Cancel").click()

    open_editor(page, doc)
    expect(page.locator("#doc-title")).to_have_value(title)
    assert page.title().startswith(title)
    assert page.locator('img[src="x"]').count() == 0
    page.wait_for_timeout(300)
    assert dialogs == []


def test_the_list_loads_more_as_it_scrolls_and_searches_on_the_server(page, api):
    tag = uuid.uuid4().hex[:8]
    made = [api.create(f"Scroll {tag} {index:03}")["id"] for index in range(120)]
    other = api.create(f"Elsewhere {tag}")
    page.goto("/")
    search = page.get_by_role("searchbox", name="Search documents by title")
    search.fill(f"scroll {tag}")
    rows = page.locator("#document-rows tr[data-id]")
    # The first page only: the server searched (a space sent as a space), and the rest waits for the scroll.
    expect(rows.first).to_contain_text(f"Scroll {tag} 119")
    expect(rows).to_have_count(50)
    expect(page.locator(f"tr[data-id='{other['id']}']")).to_have_count(0)
    page.mouse.move(640, 400)
    for expected in (100, 120):
        for _ in range(50):
            if rows.count() >= expected:
                break
            page.mouse.wheel(0, 2000)
            page.wait_for_timeout(100)
        expect(rows).to_have_count(expected)
    expect(page.get_by_role("button", name="Show more")).to_be_hidden()
    ids = rows.evaluate_all("(rows) => rows.map((row) => row.dataset.id)")
    assert ids == list(reversed(made)), "newest change first, each once"
    # A search that finds nothing says so, as text.
    search.fill(f"<b>{tag}")
    expect(page.locator("#no-match")).to_have_text(f"No documents match “<b>{tag}”.")
    expect(rows).to_have_count(0)
    expect(page.locator("#no-match b")).to_have_count(0)
    search.fill("")
    expect(page.locator(f"tr[data-id='{other['id']}']")).to_have_count(1)
    # Case and accents are ignored, as the server folds them.
    accented = api.create(f"Crème brûlée {tag}")
    search.fill(f"CREME BRULEE {tag}")
    expect(rows).to_have_count(1)
    expect(page.locator(f"tr[data-id='{accented['id']}']")).to_have_count(1)
