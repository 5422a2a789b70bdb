"""Every acknowledged edit survives the server being killed with SIGKILL at random moments."""

import json
import os
import random
import subprocess
import threading
import time

import requests

from emojiart_server import emojiart_binary

SEED = int(os.environ.get("EMOJIART_CRASH_SEED", "20261122"))
KILLS = int(os.environ.get("EMOJIART_CRASH_KILLS", "24"))
WRITERS = 4


def test_acknowledged_edits_survive_sigkill(server):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    created = requests.post(server.base + "/api/documents", json={"title": "Crash test"}, timeout=5)
    assert created.status_code == 201
    document = created.json()["id"]

    acknowledged = set()  # x coordinates of adds the server acknowledged
    attempted = set()
    lock = threading.Lock()
    stop = threading.Event()
    errors = []

    def writer(index: int) -> None:
        session = requests.Session()
        sequence = 0
        while not stop.is_set():
            x = index * 100_000 + sequence  # unique per edit: identifies it afterwards
            sequence += 1
            with lock:
                attempted.add(x)
            edit = {"type": "addEmoji", "text": "🚚", "position": {"x": x, "y": index}, "size": 20}
            try:
                reply = session.post(f"{server.base}/api/documents/{document}/edits",
                                     json={"baseVersion": 0, "edit": edit}, timeout=5)
            except requests.RequestException:
                time.sleep(0.02)  # the server is down: unknown outcome, try the next edit
                continue
            if reply.status_code == 200:
                with lock:
                    acknowledged.add(x)
            elif reply.status_code >= 500:
                errors.append(f"{reply.status_code}: {reply.text}")

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    kills = 0
    try:
        while kills < KILLS:
            time.sleep(rng.uniform(0.05, 0.4))
            server.kill()
            kills += 1
            time.sleep(rng.uniform(0.0, 0.1))
            server.start()
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)

    assert kills >= 20
    assert len(acknowledged) > 100, f"only {len(acknowledged)} edits were acknowledged; the test proves little"
    assert not errors, errors[:5]

    # One more hard kill right after the last acknowledged edits, then reopen.
    server.kill()
    server.start()
    state = requests.get(f"{server.base}/api/documents/{document}", timeout=10).json()
    present = {emoji["x"] for emoji in state["emojis"]}
    missing = acknowledged - present
    assert not missing, f"seed {SEED}: {len(missing)} acknowledged edits lost, e.g. {sorted(missing)[:10]}"
    assert present <= attempted, "the document holds edits nobody sent"
    assert len(state["emojis"]) == len(present), "an edit was applied twice"
    assert state["version"] >= len(acknowledged)

    # The stored document is valid: export it and let the CLI check it.
    exported = requests.get(f"{server.base}/api/documents/{document}/export", timeout=10)
    path = server.data_dir / "exported.emojiart"
    path.write_bytes(exported.content)
    subprocess.run([emojiart_binary(), "validate", str(path)], check=True)
    print(f"{kills} kills, {len(acknowledged)} acknowledged edits, {len(present)} present")


def test_graceful_shutdown_keeps_the_log_tail_and_the_history(server):
    created = requests.post(server.base + "/api/documents", json={"title": "Graceful"}, timeout=5).json()
    for x in range(20):
        reply = requests.post(f"{server.base}/api/documents/{created['id']}/edits",
                              json={"baseVersion": x, "edit": {"type": "addEmoji", "text": "🎈",
                                                               "position": {"x": x, "y": 0}, "size": 30}}, timeout=5)
        assert reply.status_code == 200
    assert server.stop() == 0
    import sqlite3
    database = sqlite3.connect(server.data_dir / "emojiart.sqlite")
    log_length = database.execute("SELECT COUNT(*) FROM edit_log").fetchone()[0]
    database.close()
    assert log_length == 20, "the newest entries stay in the log after a snapshot: they are the undo history"
    server.start()
    state = requests.get(f"{server.base}/api/documents/{created['id']}", timeout=5).json()
    assert len(state["emojis"]) == 20
    assert state["undoActionName"] == "Add 🎈"
    undone = requests.post(f"{server.base}/api/documents/{created['id']}/undo", timeout=5).json()
    assert sorted(e["x"] for e in undone["emojis"]) == list(range(19))
