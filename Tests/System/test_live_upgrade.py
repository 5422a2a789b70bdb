"""The live upgrade (LiveUpgrade): what a client sends with its request is read once the
connection is upgraded, malformed handshakes are refused before it, and a connection that
ends — cleanly or not — lets go of everything it held. The live router chooses: documents,
palettes and the game are upgraded, any other WebSocket request is a plain one for the HTTP
router."""

import base64
import json
import os
import socket
import struct
import time

import requests

from emojiart_server import Server, free_port
from live_socket import LiveSocket
from test_exactly_once import add, answer, new_document


def handshake(port: int, path: str, extra: str = "", version: str = "13") -> str:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: {version}\r\n{extra}\r\n")


def masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    assert len(payload) < 65536
    length = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return bytes([0x81]) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def response_head(sock: socket.socket) -> str:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.partition(b"\r\n\r\n")[0].decode()


def live_connections(server, kind: str = "document") -> float:
    metrics = requests.get(server.base + "/metrics", timeout=5).text
    line = next(line for line in metrics.splitlines()
                if line.startswith("emojiart_live_connections{") and f'kind="{kind}"' in line)
    return float(line.split()[-1])


def wait_for_connections(server, kind: str, count: int) -> None:
    deadline = time.monotonic() + 10
    while live_connections(server, kind) != count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_connections(server, kind) == count, kind


def close_frame(window: LiveSocket) -> tuple[int | None, str]:
    """The server's close frame, skipping anything before it: (code, reason)."""
    while True:
        opcode, payload = window.frame()
        if opcode == 0x8:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            return code, payload[2:].decode()


def test_a_request_sent_with_the_upgrade_is_applied_once_upgraded(server):
    document = new_document(server)
    path = f"/api/documents/{document}/live"
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    edit = json.dumps(add("with-the-head", 1)).encode()
    # The head and a first request in one write, before the 101 is read.
    sock.sendall(handshake(server.port, path).encode() + masked_text(edit))
    window = LiveSocket.__new__(LiveSocket)
    window.sock, window.buffer, window.roles = sock, b"", []
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0]
    assert window.receive()["type"] == "snapshot"
    assert answer(window, "with-the-head")["type"] == "ack"
    window.close()


def test_malformed_live_handshakes_are_refused_before_the_upgrade(server):
    document = new_document(server)
    path = f"/api/documents/{document}/live"
    cases = [
        (handshake(server.port, path, version="12"), "426", "Sec-WebSocket-Version: 13"),
        (handshake(server.port, path, extra="Content-Length: 5\r\n"), "400", None),
        (handshake(server.port, path).replace("Sec-WebSocket-Key", "X-Key"), "400", None),
        (handshake(server.port, "/api/documents/not-an-id/live"), "400", None),
        (handshake(server.port, path + "?version=x"), "400", None),
    ]
    for request, status, header in cases:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(request.encode())
            head = response_head(sock)
            assert head.split("\r\n")[0].split(" ")[1] == status, (request, head)
            if header:
                assert header in head
            # The connection closes after the refusal.
            assert sock.recv(1) == b""


def test_connections_that_end_cleanly_or_not_let_go_of_everything(server):
    document = new_document(server)
    path = f"/api/documents/{document}/live"
    windows = [LiveSocket(server.port, path) for _ in range(20)]
    for window in windows:
        assert window.receive()["type"] == "snapshot"
    assert live_connections(server) == 20
    for index, window in enumerate(windows):
        if index % 2:
            window.close()  # a close frame
        else:
            window.sock.close()  # the socket just goes
    deadline = time.monotonic() + 10
    while live_connections(server) != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_connections(server) == 0
    # And the document is still served to the next window.
    window = LiveSocket(server.port, path)
    assert window.receive()["type"] == "snapshot"
    window.close()


def test_palettes_and_the_game_are_live_connections_like_documents(server):
    palettes = LiveSocket(server.port, "/api/palettes/live")
    first = palettes.receive()
    assert first["type"] == "palettes" and len(first["palettes"]) == 9
    game = LiveSocket(server.port, "/api/game/live")
    assert game.receive()["type"] == "state"
    assert live_connections(server, "palettes") == 1 and live_connections(server, "game") == 1

    # A change through the HTTP API reaches the palette window; what the window sends is dropped.
    palettes.send({"type": "anything"})
    created = requests.post(server.base + "/api/palettes", json={"name": "Mine", "emojis": "🦊"}, timeout=5)
    assert created.status_code == 201
    changed = palettes.receive()
    assert changed["version"] > first["version"] and changed["palettes"][-1]["name"] == "Mine"

    # The game plays by intents; one that isn't is closed with 4400.
    game.send({"type": "play"})
    assert game.until(lambda m: m["phase"] != "stopped")["type"] == "state"
    game.send({"type": "tap"})
    assert close_frame(game)[0] == 4400

    # Over the size limit (4096 bytes) a palette window is closed with 1009.
    palettes.send_frame(0x1, b"x" * 5000)
    assert close_frame(palettes)[0] == 1009
    for window in (palettes, game):
        window.sock.close()
    wait_for_connections(server, "palettes", 0)
    wait_for_connections(server, "game", 0)


def test_without_an_account_palettes_and_the_game_are_closed_with_4401(tmp_path):
    server = Server(tmp_path, free_port(), "--access", "accounts")
    server.start()
    try:
        for path, reason in [("/api/palettes/live", "Sign in."), ("/api/game/live", "Sign in to play.")]:
            window = LiveSocket(server.port, path)
            assert close_frame(window) == (4401, reason), path
            window.close()
    finally:
        server.kill()


def test_a_websocket_request_no_live_route_takes_is_a_plain_request_for_the_http_router(server):
    for path, status in [("/api/nothing/live", "404"), ("/api/documents", "200"), ("/api/health", "200")]:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(handshake(server.port, path).encode())
            received = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break  # the connection closes after the answer
                received += chunk
            head, _, body = received.partition(b"\r\n\r\n")
            assert head.split(b"\r\n")[0].split(b" ")[1].decode() == status, (path, head)
            assert b"application/json" in head.lower(), head
            if status == "404":
                assert json.loads(body)["error"]["code"] == "not_found"


def test_a_later_websocket_request_on_a_kept_alive_connection_is_sent_to_a_new_one(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        answer_bytes = b""
        while b'"status":"ok"' not in answer_bytes:
            chunk = sock.recv(4096)
            assert chunk, answer_bytes
            answer_bytes += chunk
        sock.sendall(handshake(server.port, "/api/palettes/live?x=1").encode())
        head = response_head(sock)
        assert head.split("\r\n")[0].split(" ")[1] == "307", head
        assert "location: /api/palettes/live?x=1" in head.lower()
        while sock.recv(4096):
            pass


def test_sigterm_closes_palette_and_game_windows_with_1000(server):
    windows = [LiveSocket(server.port, path) for path in ("/api/palettes/live", "/api/game/live")]
    for window in windows:
        window.receive()
    server.process.terminate()
    for window in windows:
        assert close_frame(window) == (1000, "The server is restarting.")
        window.close()
    assert server.process.wait(timeout=30) == 0
