"""Presence (issue #18 item 7): every window shows the other windows' pointers and selections,
live, with a name and a colour; a pointer goes when its window leaves; at most 20 updates a
second per window; presence never touches the log or the store."""

import time

from playwright.sync_api import expect

from helpers import emoji, open_editor, screen_point, view


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


def centre(page) -> tuple[float, float]:
    """The document point at the middle of what the page shows, and its zoom."""
    v = view(page)
    return (-v["panX"] / v["zoom"], v["panY"] / v["zoom"], v["zoom"])


def shows_the_same_as(follower, leader, tolerance: float = 2.0) -> bool:
    (fx, fy, fz), (lx, ly, lz) = centre(follower), centre(leader)
    return abs(fx - lx) <= tolerance / fz and abs(fy - ly) <= tolerance / fz and abs(fz / lz - 1) < 0.01


def wait_until(page, condition, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        page.wait_for_timeout(30)
    return condition()


def test_people_in_the_room_following_and_bringing_everyone_here(page, api, browser, server):
    """The row of people lists everyone present (initials on their colour, the name on hover);
    clicking someone follows their view, smoothly, until this window pans, zooms or presses
    Escape, framed in their colour; "Bring everyone here" makes every other window follow."""
    doc = api.create("Review", emojis=[("🦊", -300, 0, 50), ("🐻", 400, 200, 50)])
    open_editor(page, doc)  # A: Guest 1
    context, other = second_window(browser, server, doc)  # B: Guest 2, the same size as A
    page.set_viewport_size({"width": 1000, "height": 700})

    people = other.locator("#people")
    expect(people).to_be_visible()
    you = people.locator(".avatar.you")
    expect(you).to_have_text("G2")
    expect(you).to_have_attribute("title", "Guest 2 (you)")
    guest1 = people.get_by_role("button", name="Follow Guest 1")
    expect(guest1).to_have_text("G1")
    expect(guest1).to_have_attribute("title", "Guest 1")
    colour = guest1.evaluate("e => getComputedStyle(e).backgroundColor")
    expect(page.locator("#people .avatar")).to_have_count(2)

    # A looks somewhere else; B doesn't follow until asked.
    page.locator("#canvas").hover()
    for _ in range(3):
        page.keyboard.press("+")
    page.mouse.wheel(300, -200)
    page.wait_for_timeout(200)
    assert not shows_the_same_as(other, page)

    guest1.click()
    expect(other.locator("#follow-frame")).to_be_visible()
    expect(other.locator("#follow-frame .follow-label")).to_have_text("Following Guest 1")
    assert other.locator("#follow-frame").evaluate("e => getComputedStyle(e).borderTopColor") == colour
    expect(people.get_by_role("button", name="Stop following Guest 1")).to_have_attribute("aria-pressed", "true")
    assert wait_until(other, lambda: shows_the_same_as(other, page)), (centre(other), centre(page))

    # A pans and zooms: B follows, through the steps of a glide.
    page.mouse.wheel(-500, 250)
    page.keyboard.press("-")
    assert wait_until(other, lambda: shows_the_same_as(other, page)), (centre(other), centre(page))

    # Escape stops following; A's moves no longer move B.
    other.locator("#canvas").focus()
    other.keyboard.press("Escape")
    expect(other.locator("#follow-frame")).to_be_hidden()
    page.mouse.wheel(400, 0)
    page.wait_for_timeout(300)
    assert not shows_the_same_as(other, page)

    # Following again (by keyboard: the focus stays on the avatar as the row is redrawn)...
    people.get_by_role("button", name="Follow Guest 1").focus()
    other.keyboard.press("Enter")
    expect(people.get_by_role("button", name="Stop following Guest 1")).to_be_focused()
    assert wait_until(other, lambda: shows_the_same_as(other, page))
    # ...A can't follow B back: each would zoom out to fit the other forever.
    page.locator("#people").get_by_role("button", name="Follow Guest 2").click()
    expect(page.locator(".notice-text").filter(has_text="Guest 2 is following you")).to_be_visible()
    expect(page.locator("#follow-frame")).to_be_hidden()
    # Then B's own pan stops it.
    other.locator("#canvas").hover()
    other.mouse.wheel(0, 120)
    expect(other.locator("#follow-frame")).to_be_hidden()
    expect(people.get_by_role("button", name="Follow Guest 1")).to_have_attribute("aria-pressed", "false")

    # "Bring everyone here": B follows A at once, and can stop at once with the banner's Stop.
    page.get_by_role("button", name="Bring everyone here").click()
    expect(other.locator("#follow-frame .follow-label")).to_have_text("Following Guest 1")
    assert wait_until(other, lambda: shows_the_same_as(other, page))
    other.locator("#follow-frame").get_by_role("button", name="Stop").click()
    expect(other.locator("#follow-frame")).to_be_hidden()

    # Following someone who leaves ends with a word.
    people.get_by_role("button", name="Follow Guest 1").click()
    expect(other.locator("#follow-frame")).to_be_visible()
    page.close()
    expect(other.locator("#follow-frame")).to_be_hidden()
    expect(other.locator(".notice-text").filter(has_text="Guest 1 left")).to_be_visible()
    expect(other.locator("#people")).to_be_hidden()  # alone: no row
    assert api.get(doc)["version"] == doc["version"]  # none of it is an edit
    context.close()
