"""Measures comments (issue #37) against real servers:
- reading the threads of a document that has the most open ones it may — 500, each with 3
  replies, a third of them on emojis (written straight into the SQLite store, as a document
  gathers them over weeks; the API lets one author write 30 a minute);
- how long a change to a thread takes to reach a window: through one server to a window on the
  other (two servers on one PostgreSQL database) when $EMOJIART_TEST_POSTGRES is set, else on
  the same server.
`scripts/benchmark comments` runs it on a release build; the figures are in docs/PERFORMANCE.md."""

from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

import requests

from emojiart_server import Server, free_port
from live_socket import LiveSocket

POSTGRES = os.environ.get("EMOJIART_TEST_POSTGRES")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def fresh_database() -> str:
    url = urllib.parse.urlsplit(POSTGRES)
    name = "comments_" + uuid.uuid4().hex[:10]
    createdb = sorted(Path("/usr/lib/postgresql").glob("*/bin/createdb"))[-1]
    subprocess.run([str(createdb), "-h", url.hostname, "-p", str(url.port), "-U", url.username, name], check=True)
    return urllib.parse.urlunsplit((url.scheme, url.netloc, "/" + name, url.query, ""))


def new_document(base: str, emojis: int) -> str:
    doc = requests.post(base + "/api/documents", json={"title": "Comments"}, timeout=10).json()
    edits = [{"type": "addEmoji", "text": "🐶", "position": {"x": i * 10, "y": 0}, "size": 20} for i in range(emojis)]
    requests.post(f"{base}/api/documents/{doc['id']}/edits", json={"baseVersion": 0, "edits": edits},
                  timeout=10).raise_for_status()
    return doc["id"]


def reading(folder: Path) -> None:
    folder.mkdir(parents=True)
    server = Server(folder, free_port())
    server.start()
    doc = new_document(server.base, 200)
    server.kill()
    now = time.time()
    with sqlite3.connect(folder / "emojiart.sqlite") as db:
        for index in range(500):
            thread = str(uuid.uuid4()).upper()
            emoji = 1 + index % 200 if index % 3 == 0 else None
            db.execute(
                "INSERT INTO comment (id, document_id, thread_id, author_key, author_name, text, created_at, x, y,"
                " emoji_id, anchor_version, resolved, updated_at) VALUES (?, ?, NULL, 'user:x', 'ada', ?, ?, ?, 5, ?, 1, 0, ?)",
                (thread, doc, f"Thread {index}: could this part be brighter?", now + index, index, emoji, now + index))
            for reply in range(3):
                db.execute(
                    "INSERT INTO comment (id, document_id, thread_id, author_key, author_name, text, created_at,"
                    " resolved, updated_at) VALUES (?, ?, ?, 'user:y', 'bob', 'Yes, done.', ?, 0, ?)",
                    (str(uuid.uuid4()).upper(), doc, thread, now + index + reply, now + index + reply))
    server.start()
    try:
        path = f"{server.base}/api/documents/{doc}/comments"
        reads = []
        for _ in range(60):
            begun = time.perf_counter()
            answer = requests.get(path, timeout=10)
            reads.append((time.perf_counter() - begun) * 1000)
            assert len(answer.json()["comments"]) == 500, answer.text[:200]
        print(f"GET comments, 500 threads × 4 comments ({len(answer.content) // 1024} KiB): "
              f"p50 {statistics.median(reads[10:]):.1f} ms, p99 {percentile(reads[10:], 0.99):.1f} ms "
              f"(first read, pins brought up to date: {reads[0]:.1f} ms)")
    finally:
        server.kill()


def delivery(folder: Path) -> None:
    database = fresh_database() if POSTGRES else None
    for name in ("a", "b"):
        (folder / name).mkdir(parents=True)
    a = Server(folder / "a", free_port(), database=database)
    b = Server(folder / "b", free_port(), database=database) if database else a
    servers = [a, b] if database else [a]
    for server in servers:
        server.start()
    try:
        doc = new_document(a.base, 10)
        path = f"{a.base}/api/documents/{doc}/comments"
        threads = [requests.post(path, json={"text": f"Note {i}", "emojiId": 1 + i}, timeout=10).json()["id"]
                   for i in range(10)]
        window = LiveSocket(int(urllib.parse.urlsplit(b.base).port), f"/api/documents/{doc}/live")
        window.until(lambda message: message.get("type") in ("snapshot", "synced"))
        delays = []
        for round_ in range(200):
            begun = time.perf_counter()
            requests.patch(f"{path}/{threads[round_ % 10]}", json={"resolved": round_ % 20 < 10},
                           timeout=10).raise_for_status()
            window.until(lambda message: message.get("type") == "comments")
            delays.append((time.perf_counter() - begun) * 1000)
        where = "through one server to a window on the other" if database else "to a window on the same server"
        print(f"resolve or reopen → {{\"type\": \"comments\"}} {where}: p50 {statistics.median(delays):.1f} ms, "
              f"p99 {percentile(delays, 0.99):.1f} ms (200 changes, the request's own time included)")
        window.close()
    finally:
        for server in servers:
            server.kill()


if __name__ == "__main__":
    root = Path(tempfile.mkdtemp(prefix="emojiart-comments-bench-"))
    reading(root / "reading")
    delivery(root / "delivery")
