"""The operator's tools (issue #20): `/api/ready`, `emojiart backup` while the server writes,
`emojiart restore` into a fresh folder that then serves the same documents, `emojiart
export-all`, a PostgreSQL dump restored into a fresh database and served, and
`scripts/install` laying out a binary that finds its web editor."""

import json
import os
import subprocess
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
import requests

from emojiart_server import ROOT, Server, emojiart_binary, free_port

POSTGRES = os.environ.get("EMOJIART_TEST_POSTGRES")


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([emojiart_binary(), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "EMOJIART_DATA": "/nonexistent-on-purpose"})
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def make_document(base: str, title: str, emojis: int) -> str:
    doc = requests.post(base + "/api/documents", json={"title": title}, timeout=5).json()["id"]
    for x in range(emojis):
        reply = requests.post(f"{base}/api/documents/{doc}/edits", timeout=5, json={
            "baseVersion": 0, "edit": {"type": "addEmoji", "text": "🌵", "position": {"x": x * 10, "y": 0}, "size": 30}})
        assert reply.status_code == 200
    return doc


def export(base: str, doc: str, version=None) -> dict:
    query = f"?version={version}" if version is not None else ""
    reply = requests.get(f"{base}/api/documents/{doc}/export{query}", timeout=5)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_emojiart_sqlite_serves_from_its_file_and_refuses_a_database(tmp_path):
    """`emojiart-sqlite`, what scripts/serve runs: the same server on the SQLite file, without
    the PostgreSQL driver — a database URL is refused at once, saying what to run instead."""
    binary = str(Path(emojiart_binary()).with_name("emojiart-sqlite"))
    server = Server(tmp_path, free_port(), binary=binary)
    server.start()
    try:
        created = requests.post(server.base + "/api/documents", json={"title": "Lite"}, timeout=5)
        assert created.status_code == 201
        assert requests.get(server.base + "/api/health", timeout=5).json()["store"] == "sqlite"
        assert requests.get(server.base + "/", timeout=5).status_code == 200
    finally:
        assert server.stop() == 0
    assert (tmp_path / "emojiart.sqlite").exists()
    refused = subprocess.run(
        [binary, "serve", "--port", str(free_port()), "--database", "postgres://emojiart@127.0.0.1:1/emojiart"],
        capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0
    assert "cannot use --database" in refused.stderr and "swift run emojiart serve" in refused.stderr


def test_ready_says_the_store_answers(server):
    reply = requests.get(server.base + "/api/ready", timeout=5)
    assert reply.status_code == 200
    assert reply.json() == {"status": "ready", "store": "sqlite"}
    assert reply.headers["Cache-Control"] == "no-store"
    assert requests.get(server.base + "/api/health", timeout=5).json()["status"] == "ok"


def test_a_backup_taken_while_the_server_writes_restores_to_a_server_with_the_same_documents(server, tmp_path):
    base = server.base
    still = make_document(base, "Still life", 3)
    busy = make_document(base, "Busy", 1)
    acknowledged = []
    stop = threading.Event()

    def keep_moving():
        while not stop.is_set():
            reply = requests.post(f"{base}/api/documents/{busy}/edits", timeout=5, json={
                "baseVersion": 0, "edit": {"type": "moveEmojis", "ids": [1], "offset": {"x": 1, "y": 0}}})
            assert reply.status_code == 200
            acknowledged.append(reply.json()["version"])

    mover = threading.Thread(target=keep_moving)
    mover.start()
    try:
        time.sleep(0.5)
        before = acknowledged[-1]
        backup = tmp_path / "emojiart-backup.sqlite"
        done = cli("backup", "--data", str(server.data_dir), "--to", str(backup))
        after = acknowledged[-1]
        assert "Backed up 2 documents" in done.stdout
        time.sleep(0.3)
    finally:
        stop.set()
        mover.join()
    assert acknowledged[-1] > after, "the server went on writing"
    # A second backup to the same file is refused; nothing is overwritten.
    size = backup.stat().st_size
    again = cli("backup", "--data", str(server.data_dir), "--to", str(backup), check=False)
    assert again.returncode != 0 and "already exists" in again.stderr
    assert backup.stat().st_size == size

    restored_dir = tmp_path / "restored"
    done = cli("restore", str(backup), "--data", str(restored_dir))
    assert "Restored 2 documents" in done.stdout
    refused = cli("restore", str(backup), "--data", str(restored_dir), check=False)
    assert refused.returncode != 0 and "--replace" in refused.stderr
    cli("restore", str(backup), "--data", str(restored_dir), "--replace")

    copy = Server(restored_dir, free_port())
    copy.start()
    try:
        version = requests.get(f"{copy.base}/api/documents/{busy}", timeout=5).json()["version"]
        assert before <= version <= after, (before, version, after)
        # Exactly the version it was on the server: nothing half-written, nothing lost before it.
        assert export(copy.base, busy) == export(base, busy, version)
        assert export(copy.base, still) == export(base, still)
        history = requests.get(f"{copy.base}/api/documents/{busy}/history?limit=3", timeout=5).json()
        assert history["versions"][0]["version"] == version
    finally:
        copy.kill()

    # Files that are not EmojiArt databases are refused, and nothing is made.
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    empty_dir = tmp_path / "empty"
    bad = cli("restore", str(junk), "--data", str(empty_dir), check=False)
    assert bad.returncode != 0 and "not" in bad.stderr
    assert not (empty_dir / "emojiart.sqlite").exists()
    missing = cli("backup", "--data", str(tmp_path / "nowhere"), "--to", str(tmp_path / "x.sqlite"), check=False)
    assert missing.returncode != 0 and not (tmp_path / "x.sqlite").exists()


def test_export_all_writes_every_document_and_the_palettes(server, tmp_path):
    base = server.base
    docs = {make_document(base, title, 2): title for title in ("One", "Two/Three", "Ünïcode 🎨")}
    listed = [p["name"] for p in requests.get(base + "/api/palettes", timeout=5).json()["palettes"]]
    out = tmp_path / "export"
    done = cli("export-all", str(out), "--data", str(server.data_dir))
    assert "Wrote 3 documents" in done.stdout
    files = sorted(p.name for p in out.glob("*.emojiart"))
    assert len(files) == 3
    assert any(name.startswith("Two_Three (") for name in files)
    for doc, title in docs.items():
        [path] = [p for p in out.glob("*.emojiart") if p.name.endswith(f"({doc.lower()}).emojiart")]
        native = json.loads(path.read_text())
        assert native["title"] == title and len(native["emojis"]) == 2
        assert native == export(base, doc)
        assert cli("validate", str(path)).returncode == 0
    palettes = json.loads((out / "palettes.json").read_text())
    assert palettes and all({"name", "emojis", "id"} <= set(p) for p in palettes)
    assert [p["name"] for p in palettes] == listed


class PostgresServer(Server):
    """`emojiart serve --database URL` (no data folder: the folder only holds its log)."""

    def __init__(self, folder: Path, url: str):
        super().__init__(folder, free_port())
        self.url = url

    def start(self, timeout: float = 30) -> None:
        log = open(self.data_dir / "server.log", "ab")
        self.process = subprocess.Popen(
            [emojiart_binary(), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--database", self.url],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.data_dir / "server.log").read_text()
            try:
                if requests.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            except requests.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("server did not start in time")


@pytest.mark.skipif(not POSTGRES, reason="needs $EMOJIART_TEST_POSTGRES (scripts/test starts one)")
def test_a_postgresql_dump_restored_into_a_fresh_database_serves_the_same_documents(tmp_path):
    url = urllib.parse.urlsplit(POSTGRES)
    tools = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    connection = ["-h", url.hostname, "-p", str(url.port), "-U", url.username]

    def database(name: str) -> str:
        subprocess.run([str(tools / "createdb"), *connection, name], check=True)
        return urllib.parse.urlunsplit((url.scheme, url.netloc, "/" + name, url.query, ""))

    suffix = str(os.getpid()) + str(int(time.time() * 1000) % 100000)
    source_name, target_name = "dump_source_" + suffix, "dump_target_" + suffix
    source = PostgresServer(tmp_path, database(source_name))
    source.start()
    try:
        doc = make_document(source.base, "Dumped", 4)
        exported = export(source.base, doc)
    finally:
        source.kill()
    dump = tmp_path / "emojiart.dump"
    subprocess.run([str(tools / "pg_dump"), *connection, "-Fc", "-f", str(dump), source_name], check=True)
    target_url = database(target_name)
    subprocess.run([str(tools / "pg_restore"), *connection, "--no-owner", "-d", target_name, str(dump)], check=True)
    target = PostgresServer(tmp_path, target_url)
    target.start()
    try:
        assert export(target.base, doc) == exported
        moved = requests.post(f"{target.base}/api/documents/{doc}/edits", timeout=5, json={
            "baseVersion": 4, "edit": {"type": "moveEmojis", "ids": [1], "offset": {"x": 5, "y": 5}}})
        assert moved.status_code == 200 and moved.json()["version"] == 5
        assert requests.get(target.base + "/api/ready", timeout=5).json()["store"] == "postgres"
    finally:
        target.kill()


def test_scripts_install_lays_out_a_binary_that_finds_its_web_editor(tmp_path):
    prefix = tmp_path / "prefix"
    configuration = "release" if "/release/" in emojiart_binary() else "debug"
    done = subprocess.run([str(ROOT / "scripts" / "install"), "--prefix", str(prefix), "--configuration",
                           configuration, "--no-build"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lib = prefix / "lib" / "emojiart"
    assert (lib / "emojiart").is_file() and os.access(lib / "emojiart", os.X_OK)
    assert (lib / "EmojiArt_EmojiArtWeb.resources" / "Public" / "editor.html").is_file()
    assert os.readlink(prefix / "bin" / "emojiart") == "../lib/emojiart/emojiart"
    unit = (prefix / "share" / "emojiart" / "emojiart.service").read_text()
    assert f"ExecStart={prefix}/bin/emojiart serve" in unit
    for setting in ("DynamicUser=yes", "StateDirectory=emojiart", "ProtectSystem=strict", "NoNewPrivileges=yes"):
        assert setting in unit
    # The installed binary, run from elsewhere, serves the editor from its own copy of the files.
    port = free_port()
    data = tmp_path / "data"
    log = open(tmp_path / "installed.log", "w")
    process = subprocess.Popen([str(prefix / "bin" / "emojiart"), "serve", "--port", str(port), "--data", str(data)],
                               cwd="/", stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/api/ready", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "installed.log").read_text()
            time.sleep(0.1)
        page = requests.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert page.status_code == 200 and "<html" in page.text.lower()
        if configuration == "release":
            # (A debug build serves the page from the source folder, to show edits without a rebuild.)
            assert f"Serving files from {lib}/EmojiArt_EmojiArtWeb.resources/Public" in \
                (tmp_path / "installed.log").read_text()
    finally:
        process.terminate()
        process.wait(timeout=15)
