"""How the pages look (issue #18 item 11): dark mode from the system's setting, and an icon for
every page with no request left unanswered."""

from playwright.sync_api import expect

from helpers import open_editor

PAGES = ["/", "/play", "/jokes", "/signin"]


def luminance(css_colour: str) -> float:
    r, g, b = [int(part) for part in css_colour[css_colour.index("(") + 1 : css_colour.index(")")].split(",")[:3]]
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_dark_mode_follows_the_system(page, api):
    doc = api.create("Dark", emojis=[("🌙", 0, 0, 40)])
    page.emulate_media(color_scheme="light")
    open_editor(page, doc)
    style = "e => getComputedStyle(e).backgroundColor"
    assert luminance(page.locator("body").evaluate(style)) > 0.9
    assert luminance(page.locator("#canvas").evaluate(style)) > 0.9
    page.emulate_media(color_scheme="dark")
    assert luminance(page.locator("body").evaluate(style)) < 0.15
    assert luminance(page.locator("#canvas").evaluate(style)) < 0.15
    assert luminance(page.locator(".app-bar").evaluate("e => getComputedStyle(e).color")) > 0.8  # light text
    page.goto("/")
    assert luminance(page.locator("body").evaluate(style)) < 0.15


def test_every_page_has_an_icon_and_nothing_404s(page, api):
    doc = api.create("Icon", emojis=[])
    missing: list[str] = []
    page.on("response", lambda response: missing.append(response.url) if response.status == 404 else None)
    for path in PAGES + [f"/documents/{doc['id']}"]:
        page.goto(path)
        expect(page.locator('link[rel="icon"]')).to_have_attribute("href", "/favicon.svg")
        page.wait_for_load_state("networkidle")
    assert not missing, missing
    for path in ("/favicon.svg", "/favicon.ico"):
        response = page.request.get(path)
        assert response.status == 200 and response.headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in response.body()
