"""Local mode is closed to other sites: foreign Host (DNS rebinding), cross-site changes and
WebSockets are refused on the real server, and it won't listen beyond loopback without accounts."""

import base64
import json
import os
import socket
import subprocess
import time

import requests

from emojiart_server import emojiart_binary, free_port


def raw_request(port: int, head: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    """Sends `head` (request line and headers, without the blank line) and reads the answer
    until the server closes or 2 s pass; returns (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head.encode() + b"\r\n\r\n" + body)
        received = b""
        sock.settimeout(2)
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
                if b" 101 " in received.split(b"\r\n", 1)[0] and b"\r\n\r\n" in received:
                    break
        except socket.timeout:
            pass
    header_block, _, payload = received.partition(b"\r\n\r\n")
    lines = header_block.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, payload


def upgrade_head(path: str, host: str, origin: str | None) -> str:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin:
        lines.append(f"Origin: {origin}")
    return "\r\n".join(lines)


def test_websockets_from_other_sites_and_foreign_hosts_are_refused(server):
    doc = requests.post(server.base + "/api/documents", json={"title": "Mine"}, timeout=5).json()
    own = f"127.0.0.1:{server.port}"
    for path in [f"/api/documents/{doc['id']}/live", "/api/palettes/live", "/api/game/live"]:
        status, headers, body = raw_request(server.port, upgrade_head(path, own, "http://evil.example"))
        assert status == 403, path
        assert json.loads(body)["error"]["code"] == "cross_site"
        assert headers["content-type"].startswith("application/json")

        status, _, body = raw_request(server.port, upgrade_head(path, f"evil.example:{server.port}", None))
        assert status == 421, path
        assert json.loads(body)["error"]["code"] == "unknown_host"

        rebound = upgrade_head(path, f"evil.example:{server.port}", f"http://evil.example:{server.port}")
        assert raw_request(server.port, rebound)[0] == 421, path

        status, _, _ = raw_request(server.port, upgrade_head(path, own, f"http://{own}"))
        assert status == 101, path
        status, _, _ = raw_request(server.port, upgrade_head(path, f"localhost:{server.port}", None))
        assert status == 101, path


def test_dns_rebinding_is_refused_on_every_route(server):
    doc = requests.post(server.base + "/api/documents", json={"title": "Secret"}, timeout=5).json()
    rebound = {"Host": f"attacker.example:{server.port}"}
    for path in ["/", "/api/documents", f"/api/documents/{doc['id']}", f"/documents/{doc['id']}",
                 f"/api/documents/{doc['id']}/export", "/js/editor.js", "/api/palettes",
                 # the app shell (docs/OFFLINE.md): the worker, the manifest, a page's bundle
                 "/sw.js", "/manifest.webmanifest", "/bundles/editor.js", "/bundles/editor.js.map"]:
        reply = requests.get(server.base + path, headers=rebound, timeout=5)
        assert reply.status_code == 421, path
        assert reply.json()["error"]["code"] == "unknown_host"
        assert "Secret" not in reply.text
    deleted = requests.delete(f"{server.base}/api/documents/{doc['id']}", headers=rebound, timeout=5)
    assert deleted.status_code == 421
    assert requests.get(f"{server.base}/api/documents/{doc['id']}", timeout=5).json()["title"] == "Secret"
    # The server's own names still work, as do clients without an Origin (curl, scripts).
    for host in ["localhost", f"localhost:{server.port}", f"127.0.0.1:{server.port}"]:
        assert requests.get(server.base + "/api/documents", headers={"Host": host}, timeout=5).status_code == 200


def test_another_site_can_neither_read_nor_install_the_app_shell(server):
    """Issue #38: the service worker, the manifest and the bundles are open routes, but only to
    this site: another site's page gets no CORS grant to read them, can't embed them (CORP), and
    can't widen the worker's scope (no Service-Worker-Allowed), whatever it asks."""
    evil = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
    for path in ["/sw.js", "/manifest.webmanifest", "/bundles/editor.js"]:
        reply = requests.get(server.base + path, headers={**evil, "Service-Worker": "script"}, timeout=5)
        assert "Access-Control-Allow-Origin" not in reply.headers, path
        assert reply.headers.get("Cross-Origin-Resource-Policy") == "same-origin", path
        assert "Service-Worker-Allowed" not in reply.headers, path
    # A preflight for them is not granted either.
    preflight = requests.options(server.base + "/sw.js", headers={**evil, "Access-Control-Request-Method": "GET"}, timeout=5)
    assert "Access-Control-Allow-Origin" not in preflight.headers


def test_cross_site_text_plain_posts_and_deletes_change_nothing(server):
    doc = requests.post(server.base + "/api/documents", json={"title": "Mine"}, timeout=5).json()
    evil = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    imported = requests.post(server.base + "/api/documents/import", headers=evil,
                             data=json.dumps({"emojis": [], "uniqueEmojiId": 0}), timeout=5)
    assert imported.status_code == 403
    edit = {"baseVersion": 0, "edits": [{"type": "addEmoji", "text": "💣", "position": {"x": 0, "y": 0}, "size": 40}]}
    edited = requests.post(f"{server.base}/api/documents/{doc['id']}/edits", headers=evil,
                           data=json.dumps(edit), timeout=5)
    assert edited.status_code == 403
    deleted = requests.delete(f"{server.base}/api/documents/{doc['id']}",
                              headers={"Origin": "http://evil.example"}, timeout=5)
    assert deleted.status_code == 403
    # text/plain without an Origin (a script) is still not JSON.
    untyped = requests.post(f"{server.base}/api/documents/{doc['id']}/edits",
                            headers={"Content-Type": "text/plain"}, data=json.dumps(edit), timeout=5)
    assert untyped.status_code == 415
    documents = requests.get(server.base + "/api/documents", timeout=5).json()["documents"]
    assert [d["id"] for d in documents] == [doc["id"]]
    assert requests.get(f"{server.base}/api/documents/{doc['id']}", timeout=5).json()["version"] == 0


def test_listening_beyond_loopback_needs_accounts(tmp_path):
    for host in ["0.0.0.0", "::"]:
        started = time.monotonic()
        result = subprocess.run(
            [emojiart_binary(), "serve", "--host", host, "--port", str(free_port()), "--data", str(tmp_path)],
            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        assert result.returncode != 0
        assert time.monotonic() - started < 10
        assert "--access accounts" in result.stderr
        assert result.stderr.strip().count("\n") == 0, result.stderr
    env = {**os.environ, "EMOJIART_HOST": "0.0.0.0"}
    result = subprocess.run([emojiart_binary(), "serve", "--port", "0", "--data", str(tmp_path)],
                            capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert result.returncode != 0 and "--access accounts" in result.stderr


def test_settings_the_server_cant_start_with_are_said_plainly(tmp_path):
    # A bad environment variable is a usage error naming it; nothing starts.
    for variable, value in [("EMOJIART_PORT", "eighty"), ("EMOJIART_DURABILITY", "sometimes"),
                            ("EMOJIART_ACCESS", "everyone")]:
        env = {**os.environ, variable: value}
        result = subprocess.run([emojiart_binary(), "serve", "--data", str(tmp_path)],
                                capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
        assert result.returncode == 64, (variable, result.stderr)
        assert f"${variable}" in result.stderr
    # An option given wins over the environment.
    env = {**os.environ, "EMOJIART_PORT": "1"}
    result = subprocess.run([emojiart_binary(), "serve", "--port", "70000", "--data", str(tmp_path)],
                            capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert result.returncode == 64 and "--port" in result.stderr
    # A database that can't be reached stops the server before it listens, saying why.
    started = time.monotonic()
    result = subprocess.run(
        [emojiart_binary(), "serve", "--port", str(free_port()),
         "--database", "postgres://nobody@127.0.0.1:1/none?sslmode=disable"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode != 0
    assert time.monotonic() - started < 30
    assert "can't be used" in result.stderr, result.stderr
    assert "is running" not in result.stdout
