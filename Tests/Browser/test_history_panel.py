"""The History panel in Chromium (issue #19): sessions and versions, a read-only preview that
changes nothing, scrubbing with the slider, Restore seen live by another window, a replay whose
frames come in version order, and the replay exported as an animated PNG."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import drag, emoji, open_editor, screen_point, wait_version


@pytest.fixture
def second(browser, server):
    context = browser.new_context(base_url=server, viewport={"width": 1000, "height": 700})
    other = context.new_page()
    other.set_default_timeout(10_000)
    yield other
    context.close()


def made(api, count: int = 4) -> dict:
    """A document made one emoji at a time, then renamed: versions 1…count+1."""
    doc = api.create("Made slowly")
    for index in range(count):
        doc = api.edit(doc, [{"type": "addEmoji", "text": "🐝", "position": {"x": index * 60 - 90, "y": 0}, "size": 40}])
    return api.call("PATCH", f"/api/documents/{doc['id']}", {"title": "Finished"})


def test_previewing_a_version_changes_nothing_and_restore_reaches_every_window(page, second, api):
    doc = made(api)
    open_editor(page, doc)
    open_editor(second, doc)
    page.keyboard.press("Shift+H")
    panel = page.locator("#history-panel")
    expect(panel).to_be_visible()
    expect(panel.locator(".history-summary")).to_have_text(["4 emojis added, renamed"])
    expect(panel.locator(".history-version .history-action")).to_have_text(
        ["Rename", "Add 🐝", "Add 🐝", "Add 🐝", "Add 🐝", "Created"])

    # Choosing version 2 shows it, read-only; the document and the other window are untouched.
    panel.locator('.history-version[data-version="2"]').click()
    expect(page.locator("body")).to_have_attribute("data-previewing", "2")
    expect(page.locator("#canvas .emoji")).to_have_count(2)
    expect(page.locator("#doc-title")).to_have_value("Made slowly")
    expect(page.locator("#doc-title")).to_be_disabled()
    start = screen_point(page, -90, 0)
    drag(page, start, (start[0] + 120, start[1] + 80))
    page.keyboard.press("Delete")
    expect(second.locator("#canvas .emoji")).to_have_count(4)
    assert api.get(doc)["version"] == doc["version"]

    # The slider scrubs: all the way left is the empty document it was created as.
    slider = panel.locator("#history-slider")
    slider.focus()
    page.keyboard.press("Home")
    expect(page.locator("body")).to_have_attribute("data-previewing", "0")
    expect(page.locator("#canvas .emoji")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-previewing", "3")
    expect(page.locator("#canvas .emoji")).to_have_count(3)

    panel.locator(".history-restore").click()
    wait_version(page, doc["version"] + 1)
    expect(page.locator("body")).not_to_have_attribute("data-previewing", "3")
    wait_version(second, doc["version"] + 1)
    expect(second.locator("#canvas .emoji")).to_have_count(3)
    expect(second.locator("#doc-title")).to_have_value("Made slowly")
    newest = api.call("GET", f"/api/documents/{doc['id']}/history?limit=1")["versions"][0]["actionName"]
    assert newest.startswith("Restore Version of ")
    expect(second.locator("#undo")).to_have_text("Undo " + newest)
    assert api.call("GET", f"/api/documents/{doc['id']}/export") == api.call(
        "GET", f"/api/documents/{doc['id']}/export?version=3")
    expect(panel.locator(".history-version").first).to_contain_text("Restore Version of")
    # Undo brings the document back: restoring is one undoable change.
    second.locator("#undo").click()
    wait_version(page, doc["version"] + 2)
    expect(page.locator("#canvas .emoji")).to_have_count(4)
    assert not page.js_errors


def test_a_replay_plays_every_version_in_order_and_exports_an_animated_png(page, api):
    doc = made(api, count=6)
    open_editor(page, doc)
    page.locator("#show-history").click()
    panel = page.locator("#history-panel")
    expect(panel.locator(".history-version")).to_have_count(doc["version"] + 1)
    page.evaluate("""() => {
      window.seenVersions = [];
      new MutationObserver(() => {
        const v = document.body.dataset.previewing;
        if (v !== undefined && window.seenVersions[window.seenVersions.length - 1] !== Number(v)) window.seenVersions.push(Number(v));
        if (document.body.dataset.replaying === "true") window.sawReplaying = true;
      }).observe(document.body, { attributes: true, attributeFilter: ["data-previewing", "data-replaying"] });
    }""")
    panel.locator("#history-speed").select_option(label="Fastest")
    panel.locator(".history-play").click()
    # At the fastest speed a replay of a few versions can be over before a poll would see it:
    # the observer records that it was replaying.
    page.wait_for_function("() => window.sawReplaying === true")
    expect(page.locator("body")).not_to_have_attribute("data-replaying", "true", timeout=10_000)
    seen = page.evaluate("window.seenVersions")
    assert seen == list(range(0, doc["version"] + 1)), seen
    expect(page.locator("#canvas .emoji")).to_have_count(6)
    assert page.get_attribute("body", "data-previewing") is None

    # The export is an animated PNG with one frame per version.
    href = panel.locator(".history-export").get_attribute("href")
    frames = page.evaluate("""async (href) => {
      const bytes = await (await fetch(href)).arrayBuffer();
      const decoder = new ImageDecoder({ data: bytes, type: "image/apng" });
      await decoder.tracks.ready;
      await decoder.completed;
      const first = await decoder.decode({ frameIndex: 0 });
      return { count: decoder.tracks.selectedTrack.frameCount, width: first.image.displayWidth };
    }""", href)
    assert frames["count"] == doc["version"] + 1, frames
    assert frames["width"] > 100
    # …and as a GIF for chat apps: every version a frame, looping for ever.
    gif = page.evaluate("""async (href) => {
      const response = await fetch(href);
      const decoder = new ImageDecoder({ data: await response.arrayBuffer(), type: "image/gif" });
      await decoder.tracks.ready;
      await decoder.completed;
      const track = decoder.tracks.selectedTrack;
      return { type: response.headers.get("content-type"), count: track.frameCount, loops: String(track.repetitionCount) };
    }""", panel.locator(".history-export-gif").get_attribute("href"))
    assert gif == {"type": "image/gif", "count": doc["version"] + 1, "loops": "Infinity"}, gif
    assert not page.js_errors


def test_a_replay_starts_once_and_not_after_the_panel_closed(page, api):
    doc = made(api, count=24)
    open_editor(page, doc)
    page.locator("#show-history").click()
    panel = page.locator("#history-panel")
    expect(panel.locator(".history-version")).to_have_count(doc["version"] + 1)
    panel.locator("#history-speed").select_option(label="Slow")

    # Closing while the replay's start is still on its way: no replay begins.
    page.evaluate("""() => {
      document.querySelector('.history-play').click();
      document.querySelector('.history-close').click();
    }""")
    page.wait_for_timeout(800)
    assert page.get_attribute("body", "data-replaying") is None
    assert page.get_attribute("body", "data-previewing") is None
    expect(panel).to_be_hidden()

    # Two clicks before the first is answered play one replay, at the chosen speed.
    page.locator("#show-history").click()
    expect(panel.locator(".history-version")).to_have_count(doc["version"] + 1)
    page.evaluate("""() => {
      window.seenVersions = [];
      new MutationObserver(() => {
        const v = document.body.dataset.previewing;
        if (v !== undefined && window.seenVersions[window.seenVersions.length - 1] !== Number(v)) window.seenVersions.push(Number(v));
      }).observe(document.body, { attributes: true, attributeFilter: ["data-previewing"] });
      const play = document.querySelector('.history-play');
      play.click();
      play.click();
    }""")
    expect(page.locator("body")).to_have_attribute("data-replaying", "true")
    page.wait_for_timeout(2_500)
    seen = page.evaluate("window.seenVersions")
    # 4 versions a second: about 10 in 2.5 s; two replays at once would show twice as many.
    assert 3 <= len(seen) <= 15, seen
    assert seen == list(range(seen[0], seen[0] + len(seen))), seen
    panel.locator(".history-play").click()
    assert page.get_attribute("body", "data-replaying") is None
    assert not page.js_errors
