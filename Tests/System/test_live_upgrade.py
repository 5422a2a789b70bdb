"""The live document upgrade (LiveUpgrade): what a client sends with its request is read once
the connection is upgraded, malformed handshakes are refused before it, and a connection that
ends — cleanly or not — lets go of everything it held."""

import base64
import json
import os
import socket
import struct
import time

import requests

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


def live_connections(server) -> float:
    metrics = requests.get(server.base + "/metrics", timeout=5).text
    line = next(line for line in metrics.splitlines()
                if line.startswith("emojiart_live_connections{") and 'kind="document"' in line)
    return float(line.split()[-1])


def test_a_request_sent_with_the_upgrade_is_applied_once_upgraded(server):
    document = new_document(server)
    path = f"/api/documents/{document}/live"
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    edit = json.dumps(add("with-the-head", 1)).encode()
    # The head and a first request in one write, before the 101 is read.
    sock.sendall(handshake(server.port, path).encode() + masked_text(edit))
    window = LiveSocket.__new__(LiveSocket)
    window.sock, window.buffer = sock, b""
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
