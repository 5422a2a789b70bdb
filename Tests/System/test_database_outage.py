"""Riding out the database (issue #20): when PostgreSQL goes away mid-test, requests that need
it fail fast with 503 (reads of open documents still answer), /api/ready says so, a live
window's edit is refused as `unavailable` and nothing half-happens; when it is back, the server
recovers by itself — ready again, edits apply, live windows reconnect and hear them."""

import os
import subprocess
import time
from pathlib import Path

import pytest
import requests

from emojiart_server import emojiart_binary, free_port
from live_socket import LiveSocket
from postgres_cluster import PostgresCluster


@pytest.fixture
def cluster():
    if not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        pytest.fail("PostgreSQL is not installed; scripts/test installs it")
    made = PostgresCluster()
    yield made
    made.remove()


def edit(base: str, doc: str, title: str, timeout: float = 10) -> requests.Response:
    return requests.post(f"{base}/api/documents/{doc}/edits", timeout=timeout, json={
        "baseVersion": 0, "edit": {"type": "retitle", "title": title}})


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def test_a_database_outage_fails_fast_and_the_server_recovers_by_itself(cluster, tmp_path):
    port = free_port()
    log = open(tmp_path / "server.log", "wb")
    process = subprocess.Popen(
        [emojiart_binary(), "serve", "--host", "127.0.0.1", "--port", str(port), "--database", cluster.url],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(base + "/api/ready", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "server.log").read_text()
            time.sleep(0.05)
        doc = requests.post(base + "/api/documents", json={"title": "Before"}, timeout=5).json()["id"]
        window = LiveSocket(port, f"/api/documents/{doc}/live")
        assert window.receive()["type"] == "snapshot"
        window.send({"type": "edit", "requestId": "w1", "baseVersion": 0,
                     "edit": {"type": "retitle", "title": "Acknowledged"}})
        assert window.until(lambda m: m.get("requestId") == "w1")["type"] == "ack"

        cluster.stop()
        # Everything that needs the database answers 503 at once, not after a timeout.
        ready, took = timed(lambda: requests.get(base + "/api/ready", timeout=10))
        assert ready.status_code == 503 and ready.json()["status"] == "unavailable" and took < 2.5, (ready.text, took)
        listing, took = timed(lambda: requests.get(base + "/api/documents", timeout=10))
        assert listing.status_code == 503 and took < 1, (listing.text, took)
        assert listing.json()["error"]["code"] == "unavailable" and listing.headers.get("Retry-After")
        refused, took = timed(lambda: edit(base, doc, "Lost"))
        assert refused.status_code == 503 and took < 1, (refused.text, took)
        assert requests.get(base + "/api/health", timeout=5).status_code == 200
        # The live window's edit is refused as unavailable (and its connection ends, to be made again).
        window.send({"type": "edit", "requestId": "w2", "baseVersion": 1,
                     "edit": {"type": "retitle", "title": "Also lost"}})
        try:
            answer = window.until(lambda m: m.get("requestId") == "w2")
            assert answer["type"] == "refused" and answer["code"] == "unavailable", answer
        except ConnectionError as closed:
            assert "4503" in str(closed)
        window.close()

        cluster.start()
        deadline = time.monotonic() + 15
        while requests.get(base + "/api/ready", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "the server did not recover by itself"
            time.sleep(0.1)
        state = requests.get(f"{base}/api/documents/{doc}", timeout=5).json()
        assert (state["title"], state["version"]) == ("Acknowledged", 1), "nothing lost, nothing half-applied"
        again = LiveSocket(port, f"/api/documents/{doc}/live?version=1")
        first = again.receive()
        assert first["type"] in ("synced", "snapshot"), first
        assert edit(base, doc, "After").status_code == 200
        change = again.until(lambda m: m.get("type") == "change")
        assert change["version"] == 2 and change["patch"]["title"] == "After"
        again.send({"type": "edit", "requestId": "w2", "baseVersion": 2,
                    "edit": {"type": "retitle", "title": "Resent"}})
        assert again.until(lambda m: m.get("requestId") == "w2")["type"] == "ack"
        again.close()
        history = requests.get(f"{base}/api/documents/{doc}/history", timeout=5).json()
        assert [v["version"] for v in history["versions"]] == [3, 2, 1, 0]
        assert requests.get(base + "/api/documents", timeout=5).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=20)
