"""A mosaic is one edit every window receives live (issue #35): the largest a server makes
(60,000 emojis) reaches a second window as one change, and one undo takes it all away."""

import struct
import time
import zlib

import requests

from emojiart_server import emojiart_binary
from live_socket import LiveSocket


def png(width: int, height: int) -> bytes:
    """A gradient picture, written with the standard library."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes((255 * x // (width - 1), 255 * y // (height - 1), 120))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows)))
            + chunk(b"IEND", b""))


def test_the_largest_mosaic_reaches_another_window_live_and_one_undo_removes_it(server):
    created = requests.post(server.base + "/api/documents", json={"title": "Mosaic"}, timeout=5)
    document = created.json()["id"]
    put = requests.put(f"{server.base}/api/documents/{document}/background?baseVersion=0", data=png(300, 200),
                       timeout=10)
    assert put.status_code == 200
    window = LiveSocket(server.port, f"/api/documents/{document}/live", timeout=60)
    assert window.receive()["type"] == "snapshot"

    # 300 columns over 300 pixels: 1-point cells, 200 rows, 60,000 emojis, the most there may be.
    made = requests.post(f"{server.base}/api/documents/{document}/mosaic", json={"columns": 300}, timeout=60)
    assert made.status_code == 200, made.text
    assert len(made.json()["emojis"]) == 60_000
    started = time.monotonic()
    change = window.until(lambda m: m["type"] == "change" and m["version"] == 2)
    assert len(change["patch"]["inserted"]) == 60_000
    assert change["undoActionName"] == "Make Mosaic"
    print(f"60,000-emoji mosaic received live {time.monotonic() - started:.2f} s after its answer")

    undone = requests.post(f"{server.base}/api/documents/{document}/undo", timeout=30)
    assert undone.status_code == 200 and undone.json()["emojis"] == []
    removal = window.until(lambda m: m["type"] == "change" and m["version"] == 3)
    assert len(removal["patch"]["removed"]) == 60_000
    window.close()


def test_a_picture_too_large_for_a_mosaic_is_refused_before_any_work(server):
    created = requests.post(server.base + "/api/documents", json={"title": "Big"}, timeout=5)
    document = created.json()["id"]
    # 300 columns over 300 pixels: 1-point cells, and 201 rows of them: 60,300.
    requests.put(f"{server.base}/api/documents/{document}/background?baseVersion=0", data=png(300, 201), timeout=10)
    refused = requests.post(f"{server.base}/api/documents/{document}/mosaic", json={"columns": 300}, timeout=10)
    assert refused.status_code == 413 and refused.json()["error"]["code"] == "too_large"
    assert "60000" in refused.json()["error"]["message"].replace(",", "")
    state = requests.get(f"{server.base}/api/documents/{document}", timeout=5).json()
    assert state["version"] == 1 and state["emojis"] == []


def test_gifs_open_in_pillow_and_the_replay_loops(server):
    from io import BytesIO

    from PIL import Image

    created = requests.post(server.base + "/api/documents", json={"title": "Chat"}, timeout=5)
    document = created.json()["id"]
    for version in range(3):
        edit = {"type": "addEmoji", "text": "🎈", "position": {"x": 40 * version, "y": 0}, "size": 40}
        assert requests.post(f"{server.base}/api/documents/{document}/edits",
                             json={"baseVersion": version, "edit": edit}, timeout=5).status_code == 200
    replay = requests.get(f"{server.base}/api/documents/{document}/replay?format=gif&seconds=2", timeout=30)
    assert replay.headers["Content-Type"] == "image/gif"
    animation = Image.open(BytesIO(replay.content))
    assert animation.format == "GIF" and animation.n_frames == 4 and animation.info["loop"] == 0
    assert max(animation.size) <= 800
    durations = []
    for frame in range(animation.n_frames):
        animation.seek(frame)
        durations.append(animation.info["duration"])
    assert durations == [500, 500, 500, 2000], durations  # 2 s over 4 versions; the last shown 2 s more
    still = Image.open(BytesIO(requests.get(
        f"{server.base}/api/documents/{document}/picture?format=gif&scale=2", timeout=30).content))
    assert still.format == "GIF" and getattr(still, "n_frames", 1) == 1
    red, green, blue = still.convert("RGB").getpixel((5, 5))
    assert min(red, green, blue) >= 245  # the white margin


def grey_png(width: int, height: int) -> bytes:
    """A 1-bit grey picture of any size in a few kilobytes: what a decompression bomb looks like."""
    row = b"\x00" + bytes((width + 7) // 8)
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def test_bombs_and_huge_pictures_are_refused_with_a_reason(server, tmp_path):
    import subprocess

    created = requests.post(server.base + "/api/documents", json={"title": "Bomb"}, timeout=5)
    document = created.json()["id"]
    bomb = grey_png(20_000, 20_000)
    assert len(bomb) < 1_000_000
    refused = requests.put(f"{server.base}/api/documents/{document}/background?baseVersion=0", data=bomb, timeout=30)
    assert refused.status_code == 422 and "20000×20000" in refused.json()["error"]["message"]
    # A picture a background may be (42 megapixels) but a mosaic may not: refused before it is decoded.
    big = requests.put(f"{server.base}/api/documents/{document}/background?baseVersion=0",
                       data=grey_png(7_000, 6_000), timeout=60)
    assert big.status_code == 200, big.text
    mosaic = requests.post(f"{server.base}/api/documents/{document}/mosaic", json={"columns": 10}, timeout=30)
    assert mosaic.status_code == 413 and mosaic.json()["error"]["code"] == "too_large"
    assert requests.get(f"{server.base}/api/documents/{document}", timeout=5).json()["emojis"] == []

    # The command line refuses the bomb too, with the reason, and writes nothing.
    photo = tmp_path / "bomb.png"
    photo.write_bytes(bomb)
    out = tmp_path / "bomb.emojiart"
    result = subprocess.run([emojiart_binary(), "mosaic", str(photo), str(out), "--columns", "80"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "20000×20000" in result.stderr, result.stderr
    assert not out.exists()
