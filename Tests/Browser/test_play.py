"""Find or Lose (/play) in a real browser: the offline emoji tiles, a folder of pictures, and an
Unsplash-compatible API stubbed on 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import threading
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from browser_server import running_server

IMAGES = Path(__file__).resolve().parents[1] / "Fixtures" / "images"


def open_page(browser, base: str):
    context = browser.new_context(base_url=base)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The page talks to its own server only: pictures included.
    foreign: list[str] = []
    host = urlparse(base).netloc
    page.on("request", lambda request: foreign.append(request.url) if urlparse(request.url).netloc != host else None)
    return context, page, errors, foreign


def tile_keys(page) -> list[str]:
    """What each tile shows: its emoji, or its picture's address."""
    return page.locator(".tile").evaluate_all(
        "tiles => tiles.map(t => t.querySelector('img')?.getAttribute('src') ?? t.textContent)"
    )


def wait_for_level(page, level: int) -> list[str]:
    expect(page.locator("#game-title")).to_have_text(f"Level: {level}")
    expect(page.locator(".tile").first).to_be_enabled()
    keys = tile_keys(page)
    assert all(keys) and len(set(keys)) == 2, keys
    return keys


def odd_and_other(keys: list[str]) -> tuple[int, int]:
    counts = Counter(keys)
    odd = next(i for i, key in enumerate(keys) if counts[key] == 1)
    other = next(i for i, key in enumerate(keys) if counts[key] == 3)
    return odd, other


@pytest.fixture
def offline_page(browser):
    with running_server() as base:
        context, page, errors, foreign = open_page(browser, base)
        yield page
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
        assert not foreign, f"the page contacted other hosts: {foreign}"


def test_a_round_with_emoji_tiles_level_up_then_a_wrong_tile(offline_page):
    page = offline_page
    page.goto("/")
    page.get_by_role("link", name="Find or Lose").click()
    page.wait_for_url("**/play")
    title, score, play = page.locator("#game-title"), page.locator("#score"), page.locator("#play")
    expect(title).to_have_text("Find or Lose")
    expect(score).to_have_text("Score: 0")
    expect(page.locator("#game-source")).to_contain_text("Emoji tiles from your palettes")
    expect(play).to_be_enabled()
    # Nothing to tap before a game.
    expect(page.locator(".tile").first).to_be_disabled()

    play.click()
    keys = wait_for_level(page, 1)
    expect(play).to_have_text("Stop")
    odd, _ = odd_and_other(keys)
    # The score drains from 200 while the level is on.
    expect(score).not_to_have_text("Score: 200", timeout=3_000)
    page.locator(".tile").nth(odd).click()

    keys = wait_for_level(page, 2)
    points = int(score.inner_text().removeprefix("Score: "))
    assert 200 < points <= 400, points  # the score carried over, plus 200
    _, other = odd_and_other(keys)
    page.locator(".tile").nth(other).click()

    expect(title).to_have_text("Find or Lose")
    expect(score).to_have_text("Score: 0")
    expect(play).to_have_text("Play")
    expect(page.locator("#game-message")).to_contain_text("Game over at level 2")
    expect(page.locator(".tile").first).to_be_disabled()


def test_the_keyboard_plays_and_stop_resets(offline_page):
    page = offline_page
    page.goto("/play")
    expect(page.locator("#play")).to_be_enabled()
    page.keyboard.press("p")
    keys = wait_for_level(page, 1)
    odd, _ = odd_and_other(keys)
    page.keyboard.press(str(odd + 1))
    wait_for_level(page, 2)
    page.locator("#play").click()  # Stop
    expect(page.locator("#game-title")).to_have_text("Find or Lose")
    expect(page.locator("#score")).to_have_text("Score: 0")
    expect(page.locator("#play")).to_have_text("Play")


def test_a_folder_of_pictures(browser):
    with running_server(env={"EMOJIART_GAME_IMAGES": str(IMAGES)}) as base:
        context, page, errors, foreign = open_page(browser, base)
        page.goto("/play")
        expect(page.locator("#game-source")).to_contain_text("pictures from images")
        page.locator("#play").click()
        keys = wait_for_level(page, 1)
        assert all(key.startswith("/api/images/") for key in keys), keys
        # The pictures really load.
        page.wait_for_function("[...document.querySelectorAll('.tile img')].every(i => i.complete && i.naturalWidth > 0)")
        context.close()
        assert not errors and not foreign


class UnsplashStub:
    """`GET /photos/random` the way Unsplash answers it, with the rate-limit headers; the
    pictures it names are served from /img/ on the same stub. `mode`: ok, fail, limited."""

    def __init__(self):
        self.mode = "ok"
        self.calls = 0
        self.authorizations: list[str] = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                if self.path.startswith("/img/"):
                    body = (IMAGES / Path(self.path).name).read_bytes()
                    self.reply(200, body, "image/png")
                    return
                stub.calls += 1
                stub.authorizations.append(self.headers.get("Authorization", ""))
                remaining = max(0, 50 - stub.calls)
                if stub.mode == "fail":
                    self.reply(500, b"oops", "text/plain", remaining)
                elif stub.mode == "limited":
                    self.reply(403, b"Rate Limit Exceeded", "text/plain", 0)
                else:
                    name = "red-7x5.png" if stub.calls % 2 else "noise-64x48.png"
                    port = stub.server.server_address[1]
                    body = json.dumps({"urls": {"regular": f"http://127.0.0.1:{port}/img/{name}"}}).encode()
                    self.reply(200, body, "application/json", remaining)

            def reply(self, status, body, content_type, remaining=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                if remaining is not None:
                    self.send_header("X-Ratelimit-Limit", "50")
                    self.send_header("X-Ratelimit-Remaining", str(remaining))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def test_unsplash_pictures_the_allowance_and_errors(browser):
    stub = UnsplashStub()
    env = {"EMOJIART_UNSPLASH_KEY": "test-key", "EMOJIART_UNSPLASH_URL": stub.url}
    try:
        with running_server(env=env) as base:
            context, page, errors, foreign = open_page(browser, base)
            page.goto("/play")
            page.locator("#play").click()
            keys = wait_for_level(page, 1)
            assert all(key.startswith("/api/images/") for key in keys), keys
            assert stub.authorizations == ["Client-ID test-key"] * 2
            expect(page.locator("#game-source")).to_contain_text("Unsplash · 48 of 50 calls left this hour")

            # The next level's pictures fail: the player is told, and the game stops cleanly.
            stub.mode = "fail"
            odd, _ = odd_and_other(keys)
            page.locator(".tile").nth(odd).click()
            alert = page.get_by_role("alert")
            expect(alert).to_contain_text("status 500")
            expect(page.locator("#game-title")).to_have_text("Find or Lose")
            expect(page.locator("#score")).to_have_text("Score: 0")
            expect(page.locator("#play")).to_have_text("Play")

            # The allowance runs out: a clear message, and no more calls spent on it — nor a Play
            # again button that could only repeat it.
            stub.mode = "limited"
            page.locator("#game-retry").click()
            expect(alert).to_contain_text("allowance of 50 calls an hour is used up")
            expect(alert).to_contain_text("Play again in about 60 minutes")
            expect(page.locator("#game-retry")).to_be_hidden()
            calls = stub.calls
            page.locator("#play").click()
            expect(alert).to_contain_text("used up")
            expect(page.locator("#game-source")).to_contain_text("0 of 50 calls left")
            assert stub.calls == calls
            context.close()
            assert not errors and not foreign
    finally:
        stub.close()


def test_a_double_click_on_the_odd_tile_moves_on_one_level_every_time(offline_page):
    """The next level's tiles arrive ~20 ms after the first click; the second click must not
    count against them (10 of 10 tries)."""
    page = offline_page
    page.goto("/play")
    page.locator("#play").click()
    for level in range(1, 11):
        odd, _ = odd_and_other(wait_for_level(page, level))
        page.locator(".tile").nth(odd).dblclick()
    wait_for_level(page, 11)
    expect(page.locator("#play")).to_have_text("Stop")


def test_a_game_closed_for_too_many_messages_says_so(offline_page):
    page = offline_page
    page.goto("/play")
    page.locator("#play").click()
    wait_for_level(page, 1)
    # 60 presses of Stop in one go: over the server's 30 messages a second, so it closes with 4429.
    page.evaluate("""() => { for (let i = 0; i < 60; i++) document.querySelector("#play").click(); }""")
    message = page.locator("#game-message")
    expect(message).to_contain_text("was stopped: this page sent too many messages")
    expect(page.locator("#game-title")).to_have_text("Find or Lose")
    page.locator("#play").click()
    wait_for_level(page, 1)
    expect(message).to_be_hidden()


def test_a_window_whose_session_ended_is_asked_to_sign_in_and_stops_connecting(offline_page):
    # The server closes the game with 4401 when nobody is signed in (a session that ended while
    # the page was open: the page itself is only served to people signed in). Played here by a
    # stand-in for the server's socket.
    page = offline_page
    connections = []

    def refuse(socket):
        connections.append(socket.url)
        socket.close(code=4401, reason="Sign in to play.")

    page.route_web_socket("**/api/game/live", refuse)
    page.goto("/play")
    link = page.get_by_role("link", name="Sign in to play")
    expect(link).to_be_visible()
    assert link.get_attribute("href") == "/signin?next=%2Fplay"
    expect(page.locator("#game-message")).to_be_hidden()
    expect(page.locator("#play")).to_be_disabled()
    # It doesn't knock again (it did every 250 ms, for as long as the page was open).
    page.wait_for_timeout(1500)
    assert len(connections) == 1
