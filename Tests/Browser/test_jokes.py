"""The Jokes page and `emojiart joke`, against a local stub of the joke API."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from browser_server import DEFAULT_BIN, running_server

JOKE = "Chuck Norris can <b>unit test</b> an entire application with a single assert."


class Stub:
    """A joke API on 127.0.0.1 whose behaviour the test switches: ok, fail, bad, slow."""

    def __init__(self):
        self.mode = "ok"
        self.hits = 0
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                stub.hits += 1
                mode = stub.mode
                if mode == "slow":
                    time.sleep(1.0)
                if mode == "fail":
                    self.send_response(500)
                    self.end_headers()
                    return
                body = b"not json" if mode == "bad" else json.dumps({"value": f"{JOKE} #{stub.hits}"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except BrokenPipeError:
                    pass  # the server gave up waiting (the timeout tests)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/jokes/random?category=dev"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.close()


@pytest.fixture
def jokes_page(browser, stub):
    with running_server(env={"EMOJIART_JOKES_URL": stub.url}) as base:
        context = browser.new_context(base_url=base)
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def test_a_joke_appears_with_the_page_and_another_on_refresh(jokes_page, stub):
    page = jokes_page
    page.goto("/")
    page.get_by_role("link", name="Jokes").click()
    page.wait_for_url("**/jokes")
    joke = page.locator("#joke")
    expect(joke).to_have_text(f"{JOKE} #1")  # as text: the <b> is not markup
    assert page.locator("#joke b").count() == 0

    stub.mode = "slow"
    button = page.locator("#fetch-joke")
    button.click()
    # While fetching, a progress indicator instead of the label, and no second fetch.
    expect(button).to_have_attribute("data-fetching", "true")
    expect(button.locator(".spinner")).to_be_visible()
    expect(button.locator(".fetch-joke-label")).to_be_hidden()
    page.keyboard.press("r")
    expect(joke).to_have_text(f"{JOKE} #2")
    expect(button.locator(".fetch-joke-label")).to_be_visible()
    assert stub.hits == 2

    stub.mode = "ok"
    page.keyboard.press("r")  # the keyboard refreshes too
    expect(joke).to_have_text(f"{JOKE} #3")


def test_errors_are_shown_in_place_of_the_joke_with_one_button_to_try_again(jokes_page, stub):
    page = jokes_page
    page.goto("/jokes")
    joke, button = page.locator("#joke"), page.locator("#fetch-joke")
    expect(joke).to_contain_text(JOKE)
    stub.mode = "fail"
    button.click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("status 500")
    expect(joke).to_be_hidden()  # the old joke doesn't stay above the error
    expect(button).to_be_enabled()  # isFetching was reset
    expect(button).to_have_text("Try again")  # one button, saying what it does now
    expect(page.get_by_role("button")).to_have_count(1)

    stub.mode = "bad"
    button.click()
    expect(alert).to_contain_text("isn't a joke")
    assert "(" not in alert.inner_text() and ".)" not in alert.inner_text()  # one sentence, no brackets

    stub.mode = "ok"
    button.click()
    expect(joke).to_contain_text(JOKE)
    expect(alert).to_be_hidden()
    expect(button).to_have_text("Fetch a joke")


def test_a_service_that_refuses_connections_is_one_clear_sentence_everywhere(browser):
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    sentence = "Couldn't reach the joke service: the connection was refused."
    cli = subprocess.run([binary, "joke", "--endpoint", "http://127.0.0.1:9/"], capture_output=True, text=True)
    assert cli.returncode == 1 and sentence in cli.stderr, cli.stderr
    with running_server(env={"EMOJIART_JOKES_URL": "http://127.0.0.1:9/"}) as base:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/jokes/random", timeout=10)
        assert json.loads(refused.value.read())["error"]["message"] == sentence
        context = browser.new_context(base_url=base)
        page = context.new_page()
        page.goto("/jokes")
        expect(page.get_by_role("alert")).to_have_text(sentence)
        context.close()


def test_the_cli_prints_a_joke_or_the_error(stub):
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    ok = subprocess.run([binary, "joke", "--endpoint", stub.url], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith(JOKE)
    stub.mode = "fail"
    failed = subprocess.run([binary, "joke", "--endpoint", stub.url], capture_output=True, text=True)
    assert failed.returncode == 1 and "status 500" in failed.stderr and failed.stdout == ""
    stub.mode = "slow"
    late = subprocess.run([binary, "joke", "--endpoint", stub.url, "--timeout", "0.3"], capture_output=True, text=True)
    assert late.returncode == 1 and "didn't answer within 0.3 s" in late.stderr
