"""Two servers on one PostgreSQL database (docs/DEPLOY.md): a window on one sees, live, edits
made through the other; edits driven through both at once are all kept once; one server killed
with SIGKILL mid-stream loses nothing it acknowledged, and every window converges."""

from __future__ import annotations

import threading
import time

import pytest
import requests
from playwright.sync_api import expect

from browser_server import POSTGRES, free_port, fresh_database, running_server, start_serve, window

pytestmark = pytest.mark.skipif(not POSTGRES, reason="needs $EMOJIART_TEST_POSTGRES (scripts/test starts one)")


def test_a_window_on_one_server_sees_edits_made_through_the_other(browser):
    database = fresh_database()
    with running_server(env={"EMOJIART_DATABASE_URL": database}) as a, \
            running_server(env={"EMOJIART_DATABASE_URL": database}) as b:
        doc = requests.post(a + "/api/documents", json={"title": "Shared"}, timeout=10).json()
        context, on_b = window(browser, b, doc["id"])
        edit = {"type": "addEmoji", "text": "🦊", "position": {"x": 0, "y": 0}, "size": 60}
        started = time.monotonic()
        reply = requests.post(f"{a}/api/documents/{doc['id']}/edits", json={"baseVersion": 0, "edit": edit}, timeout=10)
        assert reply.status_code == 200
        expect(on_b.locator("#canvas .emoji")).to_have_count(1, timeout=2_000)
        print(f"seen through the other server after {(time.monotonic() - started) * 1000:.0f} ms")
        # Undo through B acts on the edit made through A: one history.
        expect(on_b.locator("#undo")).to_have_text("Undo Add 🦊")
        on_b.locator("#undo").click()
        expect(on_b.locator("#canvas .emoji")).to_have_count(0)
        deadline = time.monotonic() + 5
        while (state := requests.get(f"{a}/api/documents/{doc['id']}", timeout=10).json())["version"] < 2:
            assert time.monotonic() < deadline, "server A never heard of the undo"
            time.sleep(0.02)
        assert state["redoActionName"] == "Add 🦊" and state["undoActionName"] is None
        context.close()


def test_edits_through_both_servers_survive_one_being_killed(browser, tmp_path):
    database = fresh_database()
    env = {"EMOJIART_DATABASE_URL": database}
    with running_server(env=env) as b:
        # A is started by hand, so it can be killed and started again on the same port.
        port = free_port()
        a = f"http://127.0.0.1:{port}"
        log = open(tmp_path / "a.log", "ab")

        def start_a():
            return start_serve(port, log, "--database", database)

        server_a = start_a()
        try:
            doc = requests.post(b + "/api/documents", json={"title": "Busy"}, timeout=10).json()
            windows = [window(browser, base, doc["id"]) for base in (a, b)]

            acknowledged, attempted = set(), set()
            lock, stop, errors = threading.Lock(), threading.Event(), []

            def writer(index: int, base: str) -> None:
                session = requests.Session()
                sequence = 0
                while not stop.is_set():
                    x = index * 100_000 + sequence  # unique per edit: identifies it afterwards
                    sequence += 1
                    with lock:
                        attempted.add(x)
                    edit = {"type": "addEmoji", "text": "🚚", "position": {"x": x, "y": index * 40}, "size": 20}
                    try:
                        reply = session.post(f"{base}/api/documents/{doc['id']}/edits",
                                             json={"baseVersion": 0, "edit": edit}, timeout=10)
                    except requests.RequestException:
                        time.sleep(0.05)  # A is down: unknown outcome
                        continue
                    if reply.status_code == 200:
                        with lock:
                            acknowledged.add(x)
                    else:
                        errors.append(f"{base}: {reply.status_code} {reply.text[:200]}")
                    time.sleep(0.01)

            threads = [threading.Thread(target=writer, args=(i, (a, b)[i % 2]), daemon=True) for i in range(4)]
            for thread in threads:
                thread.start()
            time.sleep(1.5)
            server_a.kill()  # SIGKILL mid-stream
            server_a.wait()
            time.sleep(1.0)
            server_a = start_a()
            time.sleep(1.5)
            stop.set()
            for thread in threads:
                thread.join(timeout=15)

            assert len(acknowledged) > 50, f"only {len(acknowledged)} edits acknowledged; the test proves little"
            assert not errors, errors[:5]
            # Each server may not yet have heard the other's last commits (their notices take a
            # moment): asked for the newest version either has, both read it from the store.
            newest = max(requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["version"]
                         for base in (a, b))
            states = [requests.get(f"{base}/api/documents/{doc['id']}?version={newest}", timeout=10).json()
                      for base in (a, b)]
            assert states[0]["version"] == states[1]["version"] == newest
            # And each hears the other's commits by itself: a plain read is the newest soon.
            deadline = time.monotonic() + 5
            while {requests.get(f"{base}/api/documents/{doc['id']}", timeout=10).json()["version"]
                   for base in (a, b)} != {newest}:
                assert time.monotonic() < deadline, "a server didn't hear the other's last changes"
                time.sleep(0.05)
            assert states[0]["emojis"] == states[1]["emojis"]
            present = {emoji["x"] for emoji in states[0]["emojis"]}
            assert not acknowledged - present, f"{len(acknowledged - present)} acknowledged edits lost"
            assert present <= attempted, "the document holds edits nobody sent"
            assert len(states[0]["emojis"]) == len(present), "an edit was applied twice"
            # Every window converges on the one state, the one on the killed server too (it
            # reconnects when its server is back).
            for context, page in windows:
                expect(page.locator("body")).to_have_attribute("data-version", str(states[0]["version"]), timeout=20_000)
                # Every option says how many emojis the document has (there are options only round the view).
                expect(page.locator("#canvas .emoji").first).to_have_attribute("aria-setsize", str(len(present)))
                context.close()
            print(f"{len(acknowledged)} acknowledged, {len(present)} present, version {states[0]['version']}")
        finally:
            if server_a.poll() is None:
                server_a.terminate()
                server_a.wait(timeout=10)
            log.close()


def test_presence_and_following_cross_servers(browser):
    """Windows on two servers of one database see each other's pointers, selections and names,
    follow each other's view and are brought to each other's, as windows on one server do."""
    database = fresh_database()
    with running_server(env={"EMOJIART_DATABASE_URL": database}) as a, \
            running_server(env={"EMOJIART_DATABASE_URL": database}) as b:
        doc = requests.post(a + "/api/documents", json={"title": "Across"}, timeout=10).json()
        edit = {"type": "addEmoji", "text": "🦊", "position": {"x": 100, "y": 50}, "size": 60}
        assert requests.post(f"{a}/api/documents/{doc['id']}/edits", json={"baseVersion": 0, "edit": edit},
                             timeout=10).status_code == 200
        context_a, on_a = window(browser, a, doc["id"])
        context_b, on_b = window(browser, b, doc["id"])
        # Each sees the other in the row of people, with different colours.
        other_on_b = on_b.locator("#people").get_by_role("button", name="Follow Guest 1")
        expect(other_on_b).to_be_visible()
        other_on_a = on_a.locator("#people").get_by_role("button", name="Follow Guest 2")
        expect(other_on_a).to_be_visible()
        colour = lambda locator: locator.evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour(other_on_b) != colour(other_on_a)

        # A's pointer and selection show on B.
        box = on_a.locator("#canvas").bounding_box()
        started = time.monotonic()
        on_a.mouse.move(box["x"] + 200, box["y"] + 150)
        on_a.mouse.move(box["x"] + 220, box["y"] + 160, steps=2)
        expect(on_b.locator(".peer-pointer:not([hidden])")).to_have_count(1, timeout=3_000)
        print(f"pointer seen through the other server after {(time.monotonic() - started) * 1000:.0f} ms")
        on_a.keyboard.press("Control+a")
        expect(on_b.locator(".peer-selection:not([hidden])")).to_have_count(1)

        # B follows A; A zooms and B follows; Escape stops it.
        other_on_b.click()
        expect(on_b.locator("#follow-frame .follow-label")).to_have_text("Following Guest 1")
        on_a.locator("#canvas").hover()
        on_a.keyboard.press("+")
        on_a.keyboard.press("+")
        expect(on_b.locator("#zoom-level")).to_have_text("156%")
        on_b.keyboard.press("Escape")
        expect(on_b.locator("#follow-frame")).to_be_hidden()

        # "Bring everyone here" from B reaches A on the other server.
        on_b.get_by_role("button", name="Bring everyone here").click()
        expect(on_a.locator("#follow-frame .follow-label")).to_have_text("Following Guest 2")

        # B's window closes: it leaves A's room at once.
        context_b.close()
        expect(on_a.locator("#people")).to_be_hidden()
        expect(on_a.locator("#follow-frame")).to_be_hidden()
        context_a.close()
