"""Running the server for the browser tests, and a small client for its API (shared by
conftest.py and the tests that need a server of their own)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import expect

HERE = Path(__file__).resolve().parent
DEFAULT_BIN = str(HERE.parents[1] / ".build" / "debug" / "emojiart")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    """A small client for docs/API.md, for setting up and checking state."""

    def __init__(self, base: str):
        self.base = base

    def call(self, method: str, path: str, body=None, raw: bytes | None = None, expect=None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, payload, headers = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, payload, headers = error.code, error.read(), error.headers
        if expect is not None:
            assert status == expect, f"{method} {path} → {status} {payload[:300]!r}"
        elif status >= 400:
            raise AssertionError(f"{method} {path} → {status} {payload[:300]!r}")
        if not payload:
            return None
        if "json" in (headers.get("Content-Type") or ""):
            return json.loads(payload)
        return payload

    def create(self, title: str = "Test", emojis=(), background: str | None = None) -> dict:
        doc = self.call("POST", "/api/documents", {"title": title}, expect=201)
        edits = [
            {"type": "addEmoji", "text": text, "position": {"x": x, "y": y}, "size": size}
            for (text, x, y, size) in emojis
        ]
        if background:
            edits.append({"type": "setBackground", "background": background})
        for start in range(0, len(edits), 400):  # each request under the 64 KiB body limit
            doc = self.edit(doc, edits[start : start + 400])
        return doc

    def edit(self, doc: dict, edits: list, expect=None) -> dict:
        return self.call(
            "POST", f"/api/documents/{doc['id']}/edits", {"baseVersion": doc["version"], "edits": edits}, expect=expect
        )

    def get(self, doc_or_id) -> dict:
        doc_id = doc_or_id["id"] if isinstance(doc_or_id, dict) else doc_or_id
        return self.call("GET", f"/api/documents/{doc_id}")

    def documents(self) -> list:
        """Every document listed, page after page."""
        documents, cursor = [], None
        while True:
            page = self.call("GET", "/api/documents?limit=200" + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else ""))
            documents += page["documents"]
            cursor = page["next"]
            if cursor is None:
                return documents


@contextlib.contextmanager
def running_server(data: str | None = None, env: dict | None = None):
    """Starts `$EMOJIART_BIN serve` on a free port with a fresh data folder (or `data`); yields its base URL."""
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    if not Path(binary).exists():
        pytest.fail(f"no server binary at {binary}: build it (swift build) or set EMOJIART_BIN", pytrace=False)
    port = free_port()
    data = data or tempfile.mkdtemp(prefix="emojiart-browser-")
    Path(data).mkdir(parents=True, exist_ok=True)
    log = open(Path(data) / "server.log", "wb")
    # The background tests serve images from a stub server on 127.0.0.1, which the server's
    # fetch policy refuses unless allowed.
    env = {**os.environ, "EMOJIART_FETCH_ALLOW": os.environ.get("EMOJIART_FETCH_ALLOW", "127.0.0.1/32"),
           # Only the tests' own loopback stubs: nothing else is resolved or contacted.
           "EMOJIART_FETCH_PUBLIC": "0", **(env or {})}
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            log.flush()
            output = (Path(data) / "server.log").read_text(errors="replace")[-2000:]
            pytest.fail(f"the server exited with status {process.returncode}:\n{output}", pytrace=False)
        try:
            with urllib.request.urlopen(base + "/api/health", timeout=2) as response:
                if response.status == 200:
                    break
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the server did not answer GET /api/health within 60 s", pytrace=False)
        time.sleep(0.2)
    try:
        yield base
    finally:
        stop(process, log, data)


def start_serve(port: int, log, *store: str) -> subprocess.Popen:
    """`$EMOJIART_BIN serve` on `port` with its store (`--data DIR` or `--database URL`), started by
    hand so a test can stop or kill it and start it again on the same port; the process, once it
    answers `/api/health`."""
    binary = os.environ.get("EMOJIART_BIN", DEFAULT_BIN)
    process = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", str(port), *store],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as response:
                if response.status == 200:
                    return process
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.05)
    process.kill()
    raise AssertionError(f"the server on port {port} did not start")


def stop(process, log, data) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()
    shutil.rmtree(data, ignore_errors=True)


# The PostgreSQL server for the tests (scripts/test starts a throwaway cluster and sets this).
POSTGRES = os.environ.get("EMOJIART_TEST_POSTGRES")


def fresh_database() -> str:
    """A new, empty database on the test server; its postgres:// URL."""
    url = urllib.parse.urlsplit(POSTGRES)
    name = "instances_" + uuid.uuid4().hex[:12]
    createdb = sorted(Path("/usr/lib/postgresql").glob("*/bin/createdb"))[-1]
    subprocess.run([str(createdb), "-h", url.hostname, "-p", str(url.port), "-U", url.username, name], check=True)
    return urllib.parse.urlunsplit((url.scheme, url.netloc, "/" + name, url.query, ""))


def window(browser, base: str, doc_id: str):
    """The editor on `doc_id` in a window of its own on the server at `base`; (context, page)."""
    context = browser.new_context(base_url=base, viewport={"width": 900, "height": 700})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"/documents/{doc_id}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return context, page


