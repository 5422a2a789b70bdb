"""Helpers shared by the browser tests: opening the editor and mapping document points to the screen."""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, expect

FIXTURES = Path(os.environ.get("EMOJIART_FIXTURES", Path(__file__).resolve().parents[1] / "Fixtures"))

# A real 7×5 PNG (the server reads images to the end and refuses broken ones).
OPTION_LIMIT = 300  # the listbox has an option for every emoji of a document this big (emoji-options.js)

PNG_IMAGE = (Path(__file__).resolve().parents[1] / "Fixtures" / "images" / "red-7x5.png").read_bytes()


def open_editor(page: Page, doc: dict) -> None:
    page.goto(f"/documents/{doc['id']}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("body")).to_have_attribute("data-version", str(doc["version"]))
    if len(doc["emojis"]) <= OPTION_LIMIT:  # a bigger document has options only round the view
        # One keyboard stop per emoji; locked emojis are none.
        expect(page.locator("#canvas .emoji")).to_have_count(len([e for e in doc["emojis"] if not e.get("locked")]))


def emoji_texts(page: Page) -> list[str]:
    """The emojis' texts as the listbox's options carry them, in drawing order."""
    return page.locator("#canvas .emoji").evaluate_all("options => options.map((o) => o.dataset.text)")


def expect_emoji_texts(page: Page, texts: list[str]) -> None:
    """Waits until the canvas shows exactly `texts`, in drawing order (the pixels are a canvas;
    each emoji's option says what it is)."""
    page.wait_for_function(
        """want => { const got = [...document.querySelectorAll('#canvas .emoji')].map((o) => o.dataset.text);
                     return got.length === want.length && got.every((text, i) => text === want[i]); }""",
        arg=texts,
        timeout=5000,
    )


def wait_version(page: Page, version: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-version", str(version))


def view(page: Page) -> dict:
    canvas = page.locator("#canvas")
    box = canvas.bounding_box()
    return {
        "box": box,
        "zoom": float(canvas.get_attribute("data-zoom")),
        "panX": float(canvas.get_attribute("data-pan-x")),
        "panY": float(canvas.get_attribute("data-pan-y")),
    }


def screen_point(page: Page, x: float, y: float) -> tuple[float, float]:
    """Where document point (x, y) — y up, origin at the canvas centre — is on the screen."""
    v = view(page)
    box = v["box"]
    return (
        box["x"] + box["width"] / 2 + v["panX"] + x * v["zoom"],
        box["y"] + box["height"] / 2 + v["panY"] - y * v["zoom"],
    )


def emoji(page: Page, emoji_id: int):
    return page.locator(f'#canvas .emoji[data-id="{emoji_id}"]')


def drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def row(page: Page, title: str):
    """The document browser's row for the document with this exact title."""
    return page.locator("#document-rows tr").filter(
        has=page.locator(".doc-title", has_text=re.compile("^" + re.escape(title) + "$"))
    )


def drop_files(page: Page, selector: str, files: list[tuple[str, bytes, str]]) -> None:
    """Dispatches a synthetic drop of files (name, bytes, MIME type) on the element."""
    page.evaluate(
        """([selector, files]) => {
            const data = new DataTransfer();
            for (const [name, bytes, type] of files) data.items.add(new File([new Uint8Array(bytes)], name, { type }));
            const target = document.querySelector(selector);
            const rect = target.getBoundingClientRect();
            const at = { bubbles: true, cancelable: true, dataTransfer: data,
                         clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2 };
            target.dispatchEvent(new DragEvent("dragenter", at));
            target.dispatchEvent(new DragEvent("dragover", at));
            target.dispatchEvent(new DragEvent("drop", at));
        }""",
        [selector, [[name, list(data), mime] for name, data, mime in files]],
    )


def drop_data(page: Page, selector: str, items: dict[str, str], client: tuple[float, float] | None = None) -> None:
    """Dispatches a synthetic drop of string data ({MIME type: text}) on the element."""
    page.evaluate(
        """([selector, items, client]) => {
            const data = new DataTransfer();
            for (const [type, text] of Object.entries(items)) data.setData(type, text);
            const target = document.querySelector(selector);
            const rect = target.getBoundingClientRect();
            const [x, y] = client || [rect.left + rect.width / 2, rect.top + rect.height / 2];
            const at = { bubbles: true, cancelable: true, dataTransfer: data, clientX: x, clientY: y };
            target.dispatchEvent(new DragEvent("dragover", at));
            target.dispatchEvent(new DragEvent("drop", at));
        }""",
        [selector, items, list(client) if client else None],
    )


def paste(page: Page, items: dict[str, str]) -> None:
    page.evaluate(
        """(items) => {
            const data = new DataTransfer();
            for (const [type, text] of Object.entries(items)) data.setData(type, text);
            document.body.dispatchEvent(new ClipboardEvent("paste", { bubbles: true, cancelable: true, clipboardData: data }));
        }""",
        items,
    )


def pan_drag(page: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
    """Pans the view as design tools do: Space held down while dragging."""
    page.locator("#canvas").focus()
    page.keyboard.down(" ")
    drag(page, start, end, steps)
    page.keyboard.up(" ")


class Touch:
    """Real touch input through the DevTools protocol (the page's context needs has_touch=True):
    each call is one touch event with every finger that is down, as a touch screen sends them."""

    def __init__(self, page: Page):
        self.page = page
        self.session = page.context.new_cdp_session(page)
        self.fingers: dict[int, tuple[float, float]] = {}

    def _send(self, kind: str) -> None:
        points = [{"x": x, "y": y, "id": finger} for finger, (x, y) in self.fingers.items()]
        self.session.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def down(self, finger: int, x: float, y: float) -> None:
        self.fingers[finger] = (x, y)
        self._send("touchStart")

    def move(self, moves: dict[int, tuple[float, float]], steps: int = 8) -> None:
        """Moves fingers {id: (x, y)} together in `steps` events."""
        starts = {finger: self.fingers[finger] for finger in moves}
        for step in range(1, steps + 1):
            for finger, (x, y) in moves.items():
                sx, sy = starts[finger]
                self.fingers[finger] = (sx + (x - sx) * step / steps, sy + (y - sy) * step / steps)
            self._send("touchMove")

    def up(self, finger: int) -> None:
        del self.fingers[finger]
        self._send("touchEnd")

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
        self.down(0, *start)
        self.move({0: end}, steps)
        self.up(0)


@contextmanager
def touch_device(browser, server, width: int, height: int, mobile: bool = True):
    """A page with touch (a phone's viewport when `mobile`) that fails the test on any page error."""
    context = browser.new_context(
        base_url=server, viewport={"width": width, "height": height}, has_touch=True, is_mobile=mobile)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors
