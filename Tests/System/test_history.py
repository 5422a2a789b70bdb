"""Version history from outside (issue #19): listing, reading, exporting and drawing a past
version, restoring one as a change every window sees, who may do what, history across a
SIGKILL, `emojiart history`, and `--history-days` thinning old history."""

import json
import sqlite3
import subprocess
import time

import requests

from emojiart_server import Server, emojiart_binary, free_port
from live_socket import LiveSocket

PASSWORD = "correct horse battery"


def add(base: str, doc: str, x: int, http=requests) -> dict:
    reply = http.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
        "baseVersion": 0, "edit": {"type": "addEmoji", "text": "🐶", "position": {"x": x, "y": 0}, "size": 40}})
    assert reply.status_code == 200, reply.text
    return reply.json()


def move(base: str, doc: str, ids: list, http=requests) -> dict:
    reply = http.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
        "baseVersion": 0, "edit": {"type": "moveEmojis", "ids": ids, "offset": {"x": 7, "y": 3}}})
    assert reply.status_code == 200, reply.text
    return reply.json()


def new_document(base: str, http=requests, title: str = "Past") -> str:
    created = http.post(base + "/api/documents", json={"title": title}, timeout=5)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def native(base: str, doc: str, version=None, http=requests) -> dict:
    query = f"?version={version}" if version is not None else ""
    reply = http.get(f"{base}/api/documents/{doc}/export{query}", timeout=5)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_history_lists_reads_and_restores_a_version_every_window_sees(server):
    base = server.base
    doc = new_document(base)
    for x in range(3):
        add(base, doc, x)
    move(base, doc, [1, 2])
    requests.patch(f"{base}/api/documents/{doc}", json={"title": "Later"}, timeout=5).raise_for_status()
    assert requests.post(f"{base}/api/documents/{doc}/undo", timeout=5).json()["title"] == "Past"
    current = requests.get(f"{base}/api/documents/{doc}", timeout=5).json()
    assert current["version"] == 6

    history = requests.get(f"{base}/api/documents/{doc}/history", timeout=5).json()
    assert [v["version"] for v in history["versions"]] == [6, 5, 4, 3, 2, 1, 0]
    assert [v["actionName"] for v in history["versions"]] == [
        "Undo Rename", "Rename", "Move", "Add 🐶", "Add 🐶", "Add 🐶", "Created"]
    assert all("author" not in v for v in history["versions"]), "no authors in local mode"
    assert len(history["sessions"]) == 1
    session = history["sessions"][0]
    assert (session["firstVersion"], session["lastVersion"]) == (1, 6)
    assert session["summary"] == "3 emojis added, 2 moved, renamed, 1 undone"
    assert "next" not in history
    assert history["oldestVersion"] == 0

    page = requests.get(f"{base}/api/documents/{doc}/history?limit=2", timeout=5).json()
    assert [v["version"] for v in page["versions"]] == [6, 5] and page["next"] == 5
    rest = requests.get(f"{base}/api/documents/{doc}/history?limit=10&before=5", timeout=5).json()
    assert [v["version"] for v in rest["versions"]] == [4, 3, 2, 1, 0]

    at_two = requests.get(f"{base}/api/documents/{doc}?version=2", timeout=5).json()
    assert at_two["version"] == 2 and [e["x"] for e in at_two["emojis"]] == [0, 1]
    assert at_two["undoActionName"] is None
    picture = requests.get(f"{base}/api/documents/{doc}/picture?format=svg&version=2", timeout=5)
    assert picture.status_code == 200 and picture.text.count("🐶") == 2
    exported_two = native(base, doc, 2)
    for bad in ("7", "-1", "x", "99999999999999999999"):
        reply = requests.get(f"{base}/api/documents/{doc}?version={bad}", timeout=5)
        assert reply.status_code in (400, 404), (bad, reply.status_code)
        assert reply.json()["error"]["message"]
    # Reading the past changed nothing.
    assert requests.get(f"{base}/api/documents/{doc}", timeout=5).json() == current

    exported_six = native(base, doc)
    window = LiveSocket(server.port, f"/api/documents/{doc}/live")
    assert window.receive()["type"] == "snapshot"
    restored = requests.post(f"{base}/api/documents/{doc}/restore", json={"version": 2}, timeout=5)
    assert restored.status_code == 200, restored.text
    state = restored.json()
    assert state["version"] == 7
    assert state["undoActionName"].startswith("Restore Version of ")
    assert native(base, doc) == exported_two, "the restored document is exactly version 2's"
    change = window.until(lambda m: m.get("type") == "change")
    assert change["version"] == 7 and sorted(change["patch"]["removed"]) == [1, 2, 3]
    assert [i["emoji"]["id"] for i in change["patch"]["inserted"]] == [1, 2]
    window.close()

    # History is not rewritten: version 6 is still what it was, and the restore is on top.
    assert native(base, doc, 6) == exported_six
    newest = requests.get(f"{base}/api/documents/{doc}/history?limit=1", timeout=5).json()["versions"][0]
    assert newest["version"] == 7 and newest["actionName"] == state["undoActionName"]
    undone = requests.post(f"{base}/api/documents/{doc}/undo", timeout=5).json()
    assert len(undone["emojis"]) == 3 and undone["version"] == 8

    # Bad requests change nothing.
    for body in ({"version": 99}, {"version": -1}, {"version": "2"}, {}, {"version": 2, "timeZone": "Mars/Base"}):
        reply = requests.post(f"{base}/api/documents/{doc}/restore", json=body, timeout=5)
        assert reply.status_code in (400, 404), (body, reply.status_code)
    client_restore = requests.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
        "baseVersion": 8, "edit": {"type": "restoreVersion", "actionName": "x", "title": "t", "background": None,
                                   "emojis": [], "nextEmojiId": 1}})
    assert client_restore.status_code in (400, 422)
    assert requests.get(f"{base}/api/documents/{doc}", timeout=5).json()["version"] == 8

    # After SIGKILL, history, past versions and a restore still work.
    server.kill()
    server.start()
    assert native(base, doc, 2) == exported_two
    after = requests.get(f"{base}/api/documents/{doc}/history", timeout=5).json()
    assert [v["version"] for v in after["versions"]][:3] == [8, 7, 6]
    zone = requests.post(f"{base}/api/documents/{doc}/restore", json={"version": 0, "timeZone": "Asia/Tokyo"},
                         timeout=5).json()
    assert zone["emojis"] == [] and zone["title"] == "Past"

    listed = subprocess.run([emojiart_binary(), "history", doc, "--data", str(server.data_dir)],
                            capture_output=True, text=True, timeout=30)
    assert listed.returncode == 0, listed.stderr
    assert "Restore Version of" in listed.stdout and "Created" in listed.stdout
    lines = subprocess.run([emojiart_binary(), "history", doc, "--data", str(server.data_dir), "--json",
                            "--limit", "3"], capture_output=True, text=True, timeout=30).stdout.splitlines()
    assert [json.loads(line)["version"] for line in lines] == [9, 8, 7]


def test_viewers_read_history_editors_restore_and_others_see_nothing(tmp_path):
    for name in ("ada", "bob", "cy", "dee"):
        made = subprocess.run([emojiart_binary(), "users", "add", name, "--data", str(tmp_path)],
                              input=PASSWORD + "\n", capture_output=True, text=True, timeout=30)
        assert made.returncode == 0, made.stderr
    server = Server(tmp_path, free_port(), "--access", "accounts")
    server.start()
    try:
        base = server.base
        people = {}
        for name in ("ada", "bob", "cy", "dee"):
            people[name] = requests.Session()
            people[name].post(base + "/api/session", json={"name": name, "password": PASSWORD},
                              timeout=5).raise_for_status()
        ada, bob, cy, dee = (people[n] for n in ("ada", "bob", "cy", "dee"))
        doc = new_document(base, ada)
        ada.put(f"{base}/api/documents/{doc}/members/bob", json={"role": "editor"}, timeout=5).raise_for_status()
        ada.put(f"{base}/api/documents/{doc}/members/cy", json={"role": "viewer"}, timeout=5).raise_for_status()
        add(base, doc, 1, ada)
        add(base, doc, 2, bob)

        history = cy.get(f"{base}/api/documents/{doc}/history", timeout=5)
        assert history.status_code == 200
        versions = history.json()["versions"]
        assert [(v["version"], v.get("author")) for v in versions] == [(2, "bob"), (1, "ada"), (0, None)]
        assert [s["author"] for s in history.json()["sessions"]] == ["bob", "ada"], "one session per person"
        assert cy.get(f"{base}/api/documents/{doc}?version=1", timeout=5).status_code == 200
        assert cy.post(f"{base}/api/documents/{doc}/restore", json={"version": 1}, timeout=5).status_code == 403
        for path in ("/history", "?version=1", "/export?version=1"):
            assert dee.get(f"{base}/api/documents/{doc}{path}", timeout=5).status_code == 404
            assert requests.get(f"{base}/api/documents/{doc}{path}", timeout=5).status_code == 401
        assert dee.post(f"{base}/api/documents/{doc}/restore", json={"version": 1}, timeout=5).status_code == 404
        assert ada.get(f"{base}/api/documents/{doc}", timeout=5).json()["version"] == 2
        restored = bob.post(f"{base}/api/documents/{doc}/restore", json={"version": 1}, timeout=5)
        assert restored.status_code == 200 and len(restored.json()["emojis"]) == 1
        newest = ada.get(f"{base}/api/documents/{doc}/history?limit=1", timeout=5).json()["versions"][0]
        assert newest["author"] == "bob" and newest["actionName"].startswith("Restore Version of ")
    finally:
        server.kill()


def test_history_days_thins_old_history_to_one_version_a_day(tmp_path):
    server = Server(tmp_path, free_port())
    server.start()
    doc = new_document(server.base)
    for x in range(30):
        add(server.base, doc, x)
    expected_now = native(server.base, doc)
    assert server.stop() == 0
    # Versions 1–20 were made long ago: 1–10 twelve days ago, 11–20 eleven days ago.
    with sqlite3.connect(tmp_path / "emojiart.sqlite") as database:
        now = time.time()
        database.execute("UPDATE edit_log SET date = ? - 12 * 86400 + version WHERE version <= 10", (now,))
        database.execute("UPDATE edit_log SET date = ? - 11 * 86400 + version WHERE version BETWEEN 11 AND 20", (now,))
    server = Server(tmp_path, free_port(), "--history-days", "7")
    server.start()
    try:
        base = server.base
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            versions = [v["version"] for v in
                        requests.get(f"{base}/api/documents/{doc}/history?limit=100", timeout=5).json()["versions"]]
            if 5 not in versions:
                break
            time.sleep(0.5)
        assert versions == list(range(30, 20, -1)) + [20, 10], versions
        thinned = requests.get(f"{base}/api/documents/{doc}/history", timeout=5).json()
        assert thinned["oldestVersion"] == 10
        # The replay starts where history now starts.
        replay = requests.get(f"{base}/api/documents/{doc}/replay?frames=5", timeout=30)
        assert replay.status_code == 200 and replay.headers["Content-Type"] == "image/apng"
        assert replay.content.count(b"fcTL") == 5
        assert requests.get(f"{base}/api/documents/{doc}/replay?from=5", timeout=30).status_code == 404
        changes = requests.get(f"{base}/api/documents/{doc}/history/changes?after=10", timeout=5).json()["changes"]
        assert [c["version"] for c in changes] == list(range(20, 31))
        assert changes[0]["follows"] == 10 and sorted(changes[0]["patch"]["removed"]) == list(range(1, 11))
        assert len(changes[0]["patch"]["inserted"]) == 20 and "follows" not in changes[1]
        assert requests.get(f"{base}/api/documents/{doc}?version=5", timeout=5).status_code == 404
        assert len(requests.get(f"{base}/api/documents/{doc}?version=10", timeout=5).json()["emojis"]) == 10
        assert len(requests.get(f"{base}/api/documents/{doc}?version=25", timeout=5).json()["emojis"]) == 25
        assert native(base, doc) == expected_now
        restored = requests.post(f"{base}/api/documents/{doc}/restore", json={"version": 10}, timeout=5)
        assert restored.status_code == 200 and len(restored.json()["emojis"]) == 10
    finally:
        server.kill()


def noise_png(side: int) -> bytes:
    """A PNG of random pixels: `side`² × 3 bytes that don't compress."""
    import os
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + os.urandom(side * 3) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0)) + \
        chunk(b"IEND", b"")


def test_pages_of_changes_end_early_where_restores_carry_big_backgrounds(server):
    """Restores carry whole documents, an embedded background included: a page of changes
    stops after about 4 MB, and asking on from its last version reaches now, in order."""
    base = server.base
    # Pages of megabytes from a debug build beside the other suites on two cores: the timeouts
    # catch a hang, not slowness (one such page took over 10 s under the CI's load).
    SLOW = 60
    doc = new_document(base, title="Heavy")
    image = noise_png(700)  # ~1.5 MB
    put = requests.put(f"{base}/api/documents/{doc}/background?baseVersion=0", data=image, timeout=SLOW,
                       headers={"Content-Type": "image/png"})
    assert put.status_code == 200, put.text
    cleared = requests.post(f"{base}/api/documents/{doc}/edits", timeout=SLOW, json={
        "baseVersion": 1, "edit": {"type": "setBackground", "background": None}})
    assert cleared.status_code == 200, cleared.text
    for version in (1, 2, 1, 2, 1, 2, 1):
        reply = requests.post(f"{base}/api/documents/{doc}/restore", json={"version": version}, timeout=SLOW)
        assert reply.status_code == 200, reply.text
    now = requests.get(f"{base}/api/documents/{doc}", timeout=SLOW).json()["version"]
    assert now == 9

    first = requests.get(f"{base}/api/documents/{doc}/history/changes?after=0&limit=1000", timeout=SLOW)
    assert first.status_code == 200
    assert len(first.content) < 8_000_000, "a page stops soon after its budget"
    page = first.json()
    assert 0 < len(page["changes"]) < now, "the page ended early"
    seen = [c["version"] for c in page["changes"]]
    while seen[-1] < page["version"]:
        page = requests.get(f"{base}/api/documents/{doc}/history/changes?after={seen[-1]}&limit=1000",
                            timeout=SLOW).json()
        assert page["changes"], "asking on always gives at least one change"
        seen += [c["version"] for c in page["changes"]]
    assert seen == list(range(1, now + 1))
