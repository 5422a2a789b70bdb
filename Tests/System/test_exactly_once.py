"""Exactly once across restarts: a request resent after the server was killed or stopped is
recognised from the log, and undo after a restart undoes what was done before it."""

import requests

from live_socket import LiveSocket


def add(request_id: str, x: int) -> dict:
    return {"type": "edit", "requestId": request_id, "baseVersion": 0,
            "edit": {"type": "addEmoji", "text": "🚚", "position": {"x": x, "y": 0}, "size": 20}}


def open_window(server, document: str) -> LiveSocket:
    window = LiveSocket(server.port, f"/api/documents/{document}/live")
    assert window.receive()["type"] == "snapshot"
    return window


def answer(window: LiveSocket, request_id: str) -> dict:
    return window.until(lambda m: m.get("requestId") == request_id and m["type"] in ("ack", "refused"))


def emojis(server, document: str) -> list:
    return requests.get(f"{server.base}/api/documents/{document}", timeout=5).json()["emojis"]


def new_document(server) -> str:
    created = requests.post(server.base + "/api/documents", json={"title": "Once"}, timeout=5)
    assert created.status_code == 201
    return created.json()["id"]


def test_a_request_resent_after_sigkill_is_not_applied_again_and_undo_reaches_back(server):
    document = new_document(server)
    window = open_window(server, document)
    window.send(add("w-1", 1))
    assert answer(window, "w-1")["type"] == "ack"
    window.send(add("w-2", 2))
    assert answer(window, "w-2")["type"] == "ack"

    server.kill()
    server.start()
    window = open_window(server, document)
    window.send(add("w-2", 2))  # the answer was lost with the connection: resent
    assert answer(window, "w-2")["type"] == "ack"
    assert sorted(e["x"] for e in emojis(server, document)) == [1, 2]

    window.send({"type": "undo", "requestId": "w-3"})
    assert answer(window, "w-3")["type"] == "ack"
    assert [e["x"] for e in emojis(server, document)] == [1], "undo after a restart undoes the add before it"
    window.close()


def test_a_request_committed_during_a_graceful_shutdown_is_recognised_when_resent(server):
    document = new_document(server)
    window = open_window(server, document)
    for index in range(20):
        window.send(add(f"w-{index}", index))
    server.stop()  # SIGTERM with the requests in flight: some are committed, none answered here
    server.start()
    window = open_window(server, document)
    for index in range(20):
        window.send(add(f"w-{index}", index))
        assert answer(window, f"w-{index}")["type"] == "ack"
    xs = sorted(e["x"] for e in emojis(server, document))
    assert xs == list(range(20)), "each request applied exactly once"
    window.close()


def test_the_live_channel_follows_rfc_6455_on_masks_and_utf8(server):
    document = new_document(server)
    unmasked = open_window(server, document)
    unmasked.send_frame(0x1, b'{"type":"undo","requestId":"u-1"}', masked=False)
    try:
        message = unmasked.receive()
        raise AssertionError(f"an unmasked frame was answered: {message}")
    except ConnectionError as closed:
        assert "1002" in str(closed)

    invalid = open_window(server, document)
    text = b'{"type":"edit","requestId":"x-1","baseVersion":0,"edit":{"type":"retitle","title":"\xff\xfe"}}'
    invalid.send_frame(0x1, text)
    try:
        message = invalid.receive()
        raise AssertionError(f"text that is not UTF-8 was answered: {message}")
    except ConnectionError as closed:
        assert "1007" in str(closed)
    state = requests.get(f"{server.base}/api/documents/{document}", timeout=5).json()
    assert state["version"] == 0 and state["title"] == "Once", "nothing was applied"

    # A well-behaved window on the same server still works, with payloads of every length form.
    window = open_window(server, document)
    window.send({"type": "edit", "requestId": "t-1", "baseVersion": 0,
                 "edit": {"type": "retitle", "title": "x" * 200}})
    assert answer(window, "t-1")["type"] == "ack"
    window.close()
