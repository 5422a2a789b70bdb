"""SIGTERM finishes within a bounded grace period whatever clients do, and new connections are
never left hanging: a live socket that ignores the close, or a request head never finished,
can't hold the server up."""

import socket
import time

import requests

from live_socket import LiveSocket


def test_sigterm_finishes_in_bounded_time_despite_stubborn_clients(server):
    created = requests.post(server.base + "/api/documents", json={"title": "Stubborn"}, timeout=5).json()
    stubborn = LiveSocket(server.port, f"/api/documents/{created['id']}/live")
    assert stubborn.receive()["type"] == "snapshot"  # then never reads again, never answers a close
    half_head = socket.create_connection(("127.0.0.1", server.port))
    half_head.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # ...and nothing more
    start = time.monotonic()
    server.process.terminate()
    code = server.process.wait(timeout=30)
    elapsed = time.monotonic() - start
    assert elapsed < 14, f"shutdown took {elapsed:.1f} s"
    assert code == 0
    stubborn.sock.close()
    half_head.close()


def test_an_unfinished_request_head_is_closed_after_the_head_timeout(tmp_path):
    from emojiart_server import Server, free_port
    server = Server(tmp_path, free_port(), "--request-head-timeout", "1")
    server.start()
    try:
        for first in (True, False):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if not first:  # a kept-alive connection's second request
                connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                # The whole answer, head and body (they may come in separate reads).
                answer = b""
                while b'"status":"ok"' not in answer:
                    chunk = connection.recv(4096)
                    assert chunk, answer
                    answer += chunk
                assert b"200 OK" in answer
            connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            start = time.monotonic()
            data = connection.recv(4096)  # the server closes: b""
            assert data == b"" or b"408" in data
            assert time.monotonic() - start < 5
            connection.close()
    finally:
        server.kill()
