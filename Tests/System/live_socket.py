"""A minimal WebSocket client (RFC 6455) for the live channel: enough to speak to the server
exactly as a window does — and to send what a careless or hostile client would."""

import base64
import json
import os
import socket
import struct


class LiveSocket:
    def __init__(self, port: int, path: str, timeout: float = 10, headers: dict | None = None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        head = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n")
        self.sock.sendall(head.encode())
        self.buffer = b""
        self.roles: list[str] = []  # what each `access` message said
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            self.buffer += chunk
        status, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise ConnectionError(status.decode(errors="replace"))

    def send_frame(self, opcode: int, payload: bytes, masked: bool = True) -> None:
        header = bytes([0x80 | opcode])
        mask_bit = 0x80 if masked else 0
        if len(payload) < 126:
            header += bytes([mask_bit | len(payload)])
        elif len(payload) < 65536:
            header += bytes([mask_bit | 126]) + struct.pack("!H", len(payload))
        else:
            header += bytes([mask_bit | 127]) + struct.pack("!Q", len(payload))
        if masked:
            mask = os.urandom(4)
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            header += mask
        self.sock.sendall(header + payload)

    def send(self, message: dict) -> None:
        self.send_frame(0x1, json.dumps(message).encode())

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def frame(self) -> tuple[int, bytes]:
        first, second = self._read(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._read(8))[0]
        self.last_fin = bool(first & 0x80)
        return first & 0x0F, self._read(length)

    def receive(self) -> dict:
        """The next text message (pings are answered; a close frame raises with its code).
        Other windows' presence messages are skipped, and the window's role (`access`) is kept
        in `roles`: these tests follow the document."""
        while True:
            opcode, payload = self.frame()
            if opcode == 0x1:
                # A large message comes in pieces: continuation frames up to the one marked final.
                while not self.last_fin:
                    more_opcode, more = self.frame()
                    if more_opcode == 0x9:
                        self.send_frame(0xA, more)
                        continue
                    payload += more
                message = json.loads(payload)
                if message.get("type") == "presence":
                    continue
                if message.get("type") == "access":
                    self.roles.append(message.get("role"))
                    continue
                return message
            if opcode == 0x9:
                self.send_frame(0xA, payload)
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise ConnectionError(f"closed with {code}")

    def until(self, predicate) -> dict:
        while True:
            message = self.receive()
            if predicate(message):
                return message

    def close(self) -> None:
        try:
            self.send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()
