"""Bad input found from outside (issue #20): each gets a clear error and changes nothing."""

import json
import socket
import time

import requests

from live_socket import LiveSocket


def new_document(base: str, title: str = "Bad input") -> dict:
    created = requests.post(base + "/api/documents", json={"title": title}, timeout=5)
    assert created.status_code == 201, created.text
    return created.json()


def post_edit(base: str, doc: str, body) -> requests.Response:
    data = body if isinstance(body, (bytes, str)) else None
    return requests.post(f"{base}/api/documents/{doc}/edits", timeout=5, json=None if data else body, data=data,
                         headers={"Content-Type": "application/json"})


def utf8(body) -> dict:
    """`body` as UTF-8 JSON (requests' json= escapes every non-ASCII character, 6 bytes each)."""
    return {"data": json.dumps(body, ensure_ascii=False).encode(), "headers": {"Content-Type": "application/json"}}


def version(base: str, doc: str) -> int:
    return requests.get(f"{base}/api/documents/{doc}", timeout=5).json()["version"]


def test_a_one_character_title_of_40_kb_is_refused_and_export_headers_stay_short(server):
    base = server.base
    doc = new_document(base)["id"]
    heavy = "a" + "\u0301" * 20_000  # one grapheme, 40 KB of UTF-8
    for attempt in (
        lambda: requests.patch(f"{base}/api/documents/{doc}", timeout=5, **utf8({"title": heavy})),
        lambda: requests.post(base + "/api/documents", timeout=5, **utf8({"title": heavy})),
        lambda: post_edit(base, doc, json.dumps(
            {"baseVersion": 0, "edit": {"type": "retitle", "title": heavy}}, ensure_ascii=False).encode()),
    ):
        reply = attempt()
        assert reply.status_code == 422, reply.text
        assert reply.json()["error"]["code"] == "invalid_text"
        assert "bytes" in reply.json()["error"]["message"]
    assert version(base, doc) == 0
    # Imported from a file named so, the title is cut to the limit instead.
    imported = requests.post(f"{base}/api/documents/import", params={"title": heavy}, timeout=10,
                             data=b'{"background":null,"emojis":[]}', headers={"Content-Type": "application/json"})
    if imported.status_code == 201:
        assert len(imported.json()["title"].encode()) <= 1024

    # The longest title allowed still makes a short Content-Disposition.
    longest = "👩‍👩‍👧‍👦" * 40  # 40 characters, 1,000 bytes
    assert requests.patch(f"{base}/api/documents/{doc}", json={"title": longest}, timeout=5).status_code == 200
    for path in ("export", "picture?format=svg", "replay?frames=2"):
        reply = requests.get(f"{base}/api/documents/{doc}/{path}", timeout=30)
        assert reply.status_code == 200, (path, reply.text)
        disposition = reply.headers["Content-Disposition"]
        assert len(disposition) < 1_200, (path, len(disposition))
        assert disposition.startswith("attachment; filename=")


def test_a_request_head_over_80_kb_gets_431_and_the_connection_closes(server):
    for head in (
        b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 90_000 + b"\r\n\r\n",
        b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(
            b"X-Many-%d: %s\r\n" % (i, b"y" * 100) for i in range(900)) + b"\r\n",
        b"NOT HTTP AT ALL\r\n\r\n",
    ):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            try:
                sock.sendall(head)
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer = b""
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break  # closed by the server
                answer += chunk
            else:
                raise AssertionError("the connection was never closed")
        status = answer.split(b"\r\n", 1)[0]
        expected = b"400" if head.startswith(b"NOT") else b"431"
        assert expected in status, answer[:200]
        assert b'"error"' in answer
    # A later request on a kept-alive connection that grows too large is answered too.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        try:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 90_000 + b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        sock.settimeout(5)
        rest = b""
        try:
            while chunk := sock.recv(65536):
                rest += chunk
        except ConnectionResetError:
            pass
        # The first answer's body may have come after the read above: the 431 follows it.
        answers = first + rest
        assert answers.count(b"HTTP/1.1 ") == 2, answers[:400]
        assert answers.split(b"HTTP/1.1 ")[2].startswith(b"431"), answers[:400]
    assert requests.get(server.base + "/api/health", timeout=5).status_code == 200


def test_invalid_edits_are_422_whatever_the_base_and_conflicts_stay_409(server):
    base = server.base
    doc = new_document(base)["id"]
    for x in (0, 50):
        assert post_edit(base, doc, {"baseVersion": 0, "edit": {
            "type": "addEmoji", "text": "🐶", "position": {"x": x, "y": 0}, "size": 40}}).status_code == 200
    assert post_edit(base, doc, {"baseVersion": 2, "edit": {"type": "deleteEmojis", "ids": [1]}}).status_code == 200
    now = version(base, doc)
    invalid = [
        ({"type": "moveEmojis", "ids": [99], "offset": {"x": 1, "y": 1}}, 0),  # never existed
        # Off the canvas, from a base after emoji 2 was added (before it, the client couldn't
        # have known emoji 2: a change it hadn't seen may be why).
        ({"type": "moveEmojis", "ids": [2], "offset": {"x": 5_000_000, "y": 0}}, 2),
        ({"type": "addEmoji", "text": "not an emoji", "position": {"x": 0, "y": 0}, "size": 40}, 0),
        ({"type": "retitle", "title": ""}, 0),
    ]
    for edit, oldest in invalid:
        for base_version in sorted({oldest, oldest + 1, now}):
            reply = post_edit(base, doc, {"baseVersion": base_version, "edit": edit})
            assert reply.status_code == 422, (edit, base_version, reply.status_code, reply.text)
    # Moving the emoji deleted by a change the client hadn't seen is a conflict.
    reply = post_edit(base, doc, {"baseVersion": 2, "edit": {"type": "moveEmojis", "ids": [1], "offset": {"x": 1, "y": 1}}})
    assert reply.status_code == 409 and reply.json()["error"]["code"] == "conflict"
    assert version(base, doc) == now


def test_numbers_out_of_range_and_negative_versions_are_refused(server):
    base = server.base
    doc = new_document(base)["id"]
    bodies = [
        b'{"baseVersion": 0, "edit": {"type": "resizeEmojis", "ids": [], "scale": 1e-400}}',
        b'{"baseVersion": 1e-400, "edit": {"type": "retitle", "title": "x"}}',
        b'{"baseVersion": 0, "edit": {"type": "addEmoji", "text": "\\ud83d\\udc36", "position": {"x": 1e-400, "y": 0}, "size": 40}}',
        b'{"baseVersion": 0, "edit": {"type": "addEmoji", "text": "\\ud83d\\udc36", "position": {"x": 1e400, "y": 0}, "size": 40}}',
        b'{"baseVersion": -1, "edit": {"type": "retitle", "title": "x"}}',
        b'{"baseVersion": -0.0e1, "edit": {"type": "retitle", "title": "zero is fine"}}',
    ]
    for body in bodies[:-1]:
        reply = post_edit(base, doc, body)
        # 400 where the JSON itself can't be read (1e-400), 422 where a value is wrong.
        assert reply.status_code in (400, 422), (body, reply.status_code, reply.text)
        assert reply.json()["error"]["message"]
    assert version(base, doc) == 0
    assert post_edit(base, doc, bodies[-1]).status_code == 200
    put = requests.put(f"{base}/api/documents/{doc}/background?baseVersion=-1", data=b"\x89PNG", timeout=5,
                       headers={"Content-Type": "image/png"})
    assert put.status_code == 400
    # Over the live connection a message that isn't a request closes it (4400), as any does.
    window = LiveSocket(server.port, f"/api/documents/{doc}/live")
    assert window.receive()["type"] == "snapshot"
    window.send({"type": "edit", "requestId": "neg", "baseVersion": -3, "edit": {"type": "retitle", "title": "y"}})
    try:
        window.until(lambda m: m.get("requestId") == "neg")
        raise AssertionError("a negative baseVersion was answered as a request")
    except ConnectionError as closed:
        assert "4400" in str(closed)
    assert version(base, doc) == 1


def test_undo_and_redo_with_nothing_to_do_are_refused(server):
    base = server.base
    doc = new_document(base)["id"]
    for step, code in (("undo", "nothing_to_undo"), ("redo", "nothing_to_redo")):
        reply = requests.post(f"{base}/api/documents/{doc}/{step}", timeout=5)
        assert reply.status_code == 409, reply.text
        assert reply.json()["error"]["code"] == code
    assert version(base, doc) == 0
    window = LiveSocket(server.port, f"/api/documents/{doc}/live")
    assert window.receive()["type"] == "snapshot"
    window.send({"type": "undo", "requestId": "u1"})
    refused = window.until(lambda m: m.get("requestId") == "u1")
    assert refused["type"] == "refused" and refused["code"] == "nothing_to_undo", refused
    # Once there is something to undo, it is undone (and a resend of u1 is still refused).
    assert post_edit(base, doc, {"baseVersion": 0, "edit": {"type": "retitle", "title": "Then"}}).status_code == 200
    window.send({"type": "undo", "requestId": "u1"})
    again = window.until(lambda m: m.get("requestId") == "u1")
    assert again["type"] == "refused", again
    window.send({"type": "undo", "requestId": "u2"})
    done = window.until(lambda m: m.get("requestId") == "u2")
    assert done["type"] == "ack", done
    window.close()
    assert requests.get(f"{base}/api/documents/{doc}", timeout=5).json()["title"] == "Bad input"
