"""Presence (issue #18 item 7): every window shows the other windows' pointers and selections,
live, with a name and a colour; a pointer goes when its window leaves; at most 20 updates a
second per window; presence never touches the log or the store."""

import time

from playwright.sync_api import expect

from helpers import emoji, open_editor, screen_point


def second_window(browser, server, doc):
    context = browser.new_context(base_url=server, viewport={"width": 1000, "height": 700})
    page = context.new_page()
    page.set_default_timeout(10_000)
    open_editor(page, doc)
    return context, page


def test_other_windows_pointers_and_selections_show_live_and_go_when_they_leave(page, api, browser, server):
    doc = api.create("Together", emojis=[("🦊", -100, 0, 50), ("🐻", 150, 60, 50)])
    open_editor(page, doc)  # window A: Guest 1
    context, other = second_window(browser, server, doc)  # window B: Guest 2
    frames: list[str] = []
    other.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)) if "/live" in ws.url else None)
    other.reload()
    open_editor(other, doc)

    page.mouse.move(*screen_point(page, 100, 50))
    page.mouse.move(*screen_point(page, 120, 40), steps=3)
    pointer = other.locator(".peer-pointer")
    expect(pointer).to_have_count(1)
    expect(pointer).to_be_visible()
    expect(pointer.locator(".peer-name")).to_have_text("Guest 1")
    there = screen_point(other, 120, 40)

    def at_the_same_point() -> bool:
        box = pointer.bounding_box()
        return abs(box["x"] - there[0]) <= 2 and abs(box["y"] - there[1]) <= 2

    # The last of A's moves arrives within 50 ms of the one before it (20 a second).
    deadline = time.monotonic() + 3
    while not at_the_same_point() and time.monotonic() < deadline:
        other.wait_for_timeout(20)
    assert at_the_same_point()  # at the same document point

    page.mouse.click(*screen_point(page, 150, 60))  # A selects the bear
    outline = other.locator(".peer-selection")
    expect(outline).to_be_visible()
    bear = emoji(other, 2).bounding_box()
    drawn = outline.bounding_box()
    assert drawn["x"] <= bear["x"] and drawn["x"] + drawn["width"] >= bear["x"] + bear["width"]
    colour = outline.evaluate("e => getComputedStyle(e).borderTopColor")
    assert colour == pointer.locator(".peer-name").evaluate("e => getComputedStyle(e).backgroundColor")

    # A busy pointer: at most 20 updates a second reach the other window.
    frames.clear()
    began = time.monotonic()
    x, y = screen_point(page, -200, -100)
    for i in range(120):
        page.mouse.move(x + i * 2, y)
    elapsed = time.monotonic() - began
    other.wait_for_timeout(300)
    presence = [f for f in frames if '"presence"' in f]
    assert 3 <= len(presence) <= 20 * (elapsed + 0.3) + 2, (len(presence), elapsed)

    assert api.get(doc)["version"] == doc["version"]  # nothing of it is an edit

    page.close()  # A leaves: its pointer and selection go from B
    expect(other.locator(".peer-pointer")).to_have_count(0)
    expect(other.locator(".peer-selection")).to_have_count(0)
    context.close()
