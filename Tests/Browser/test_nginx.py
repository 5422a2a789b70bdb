"""docs/nginx/emojiart.conf in front of two servers on one PostgreSQL database: the editor,
the API and live WebSockets all work through it, and an instance going down is routed around."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests
from playwright.sync_api import expect

from browser_server import POSTGRES, free_port, fresh_database, running_server, window

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "nginx" / "emojiart.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
pytestmark = pytest.mark.skipif(not POSTGRES, reason="needs $EMOJIART_TEST_POSTGRES (scripts/test starts one)")


def start_nginx(folder: Path, port: int, upstreams: list[str]) -> subprocess.Popen:
    """The example config, pointed at `upstreams` and listening on `port`, in nginx of its own."""
    site = EXAMPLE.read_text()
    site = site.replace("127.0.0.1:8081", upstreams[0]).replace("127.0.0.1:8082", upstreams[1])
    site = site.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    (folder / "emojiart.conf").write_text(site)
    temp = "".join(f"    {kind}_temp_path {folder}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user}daemon off;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log;\n"
        f"events {{ worker_connections 256; }}\n"
        f"http {{\n    access_log off;\n{temp}    include {folder}/emojiart.conf;\n}}\n")
    output = open(folder / "nginx.out", "wb")
    process = subprocess.Popen([NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")],
                               stdout=output, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        assert process.poll() is None, (folder / "nginx.out").read_text()
        time.sleep(0.05)
    raise AssertionError("nginx did not start")


def test_the_example_nginx_config_in_front_of_two_servers(browser, tmp_path):
    database = fresh_database()
    port = free_port()
    # Behind a proxy the servers are told the address people use (docs/DEPLOY.md): the proxy
    # passes the host without its port, and pages from that origin may change things.
    env = {"EMOJIART_DATABASE_URL": database, "EMOJIART_PUBLIC_URL": f"http://127.0.0.1:{port}"}
    with running_server(env=env) as a, running_server(env=env) as b:
        nginx = start_nginx(tmp_path, port, [a.removeprefix("http://"), b.removeprefix("http://")])
        front = f"http://127.0.0.1:{port}"
        try:
            assert requests.get(front + "/api/health", timeout=5).json()["store"] == "postgres"
            doc = requests.post(front + "/api/documents", json={"title": "Behind nginx"}, timeout=10).json()
            # The editor through nginx: its live WebSocket is proxied.
            context, page = window(browser, front, doc["id"])
            expect(page.locator("body")).to_have_attribute("data-version", "0")
            page.locator(".palette-emoji").first.click()
            expect(page.locator("body")).to_have_attribute("data-version", "1")
            # An edit made straight through either instance reaches the window behind nginx.
            for version, base in enumerate((a, b), start=2):
                edit = {"type": "addEmoji", "text": "🦊", "position": {"x": version * 50, "y": 0}, "size": 40}
                reply = requests.post(f"{base}/api/documents/{doc['id']}/edits",
                                      json={"baseVersion": version - 1, "edit": edit}, timeout=10)
                assert reply.status_code == 200, reply.text
                expect(page.locator("body")).to_have_attribute("data-version", str(version), timeout=3_000)
            expect(page.locator("#canvas .emoji")).to_have_count(3)
            context.close()
            # Big uploads pass nginx (the server's own limits still apply).
            big = requests.post(front + "/api/documents/import", data=b"x" * (20 * 1024 * 1024), timeout=30)
            assert big.status_code == 422, big.status_code  # not 413 from nginx: the server read it and refused
        finally:
            nginx.terminate()
            nginx.wait(timeout=10)
