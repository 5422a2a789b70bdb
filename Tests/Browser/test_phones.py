"""Phones and tablets (issue #18 item 10): at 390×844 and 768×1024 both pages fit the screen; on a
phone the palette is one row that scrolls by swiping, the editor's tools fold behind ⋯, and the
document list is cards."""

import pytest
from playwright.sync_api import expect

from helpers import Touch, open_editor, touch_device


@pytest.fixture
def device(browser, server, request):
    width, height = request.param
    with touch_device(browser, server, width, height) as page:
        yield page


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth && document.body.scrollWidth <= innerWidth")


@pytest.mark.parametrize("device", [(390, 844), (768, 1024)], indirect=True, ids=["phone", "tablet"])
def test_both_pages_fit_without_scrolling_sideways(device, api):
    page = device
    doc = api.create("A title long enough to need folding on a small phone screen", emojis=[("🍕", 0, 0, 50)])
    page.goto("/")
    expect(page.locator("#document-rows tr").first).to_be_visible()
    assert fits(page)
    open_editor(page, doc)
    assert fits(page)
    expect(page.locator(".palette-emoji").first).to_be_visible()
    assert fits(page)


@pytest.mark.parametrize("device", [(390, 844)], indirect=True, ids=["phone"])
def test_on_a_phone_the_tools_fold_the_palette_scrolls_and_the_list_is_cards(device, api):
    page = device
    doc = api.create("Phone", emojis=[("🍕", -100, 0, 50), ("🌮", 100, 0, 50)])
    page.goto("/")
    expect(page.locator("#documents thead")).to_be_hidden()
    card = page.locator("#document-rows tr").first
    assert card.evaluate("e => getComputedStyle(e).display") == "grid"
    title, actions = card.locator(".doc-title").bounding_box(), card.locator(".actions").bounding_box()
    assert actions["y"] >= title["y"] + title["height"] - 1  # the actions sit under the title

    open_editor(page, doc)
    fit = page.locator("#zoom-fit")
    expect(fit).to_be_hidden()
    page.locator("#toolbar-more").tap()
    expect(fit).to_be_visible()
    expect(page.locator("#toolbar-more")).to_have_attribute("aria-expanded", "true")
    fit.tap()
    expect(fit).to_be_hidden()  # a choice closes the menu
    assert float(page.locator("#canvas").get_attribute("data-zoom")) > 1  # and it did fit

    row = page.locator("#palette-emojis")
    assert row.evaluate("e => e.scrollWidth > e.clientWidth + 50")  # more emojis than fit: one scrolling row
    box = row.bounding_box()
    y = box["y"] + box["height"] / 2
    Touch(page).drag((box["x"] + box["width"] - 20, y), (box["x"] + 40, y), steps=10)
    page.wait_for_timeout(300)
    assert row.evaluate("e => e.scrollLeft") > 50  # a sideways swipe scrolls the palette…
    assert page.evaluate("document.body.dataset.version") == str(doc["version"])  # …and adds nothing
