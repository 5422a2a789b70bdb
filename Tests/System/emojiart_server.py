"""The real `emojiart serve` as a child process, for system tests."""

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]


def emojiart_binary() -> str:
    """The binary under test: $EMOJIART_BIN, else the debug build."""
    return os.environ.get("EMOJIART_BIN", str(ROOT / ".build" / "debug" / "emojiart"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`emojiart serve` on a loopback port with its own data folder; restartable."""

    def __init__(self, data_dir: Path, port: int, *extra: str, database: str | None = None,
                 binary: str | None = None):
        """`database`: a PostgreSQL URL to serve from instead of the folder (which then holds
        only the log). `binary`: another program than `emojiart_binary()` (`emojiart-sqlite`)."""
        self.binary = binary
        self.data_dir = data_dir
        self.port = port
        self.extra = extra
        self.store = ["--database", database] if database else ["--data", str(data_dir)]
        self.process = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self, timeout: float = 30) -> None:
        log = open(self.data_dir / "server.log", "ab")
        self.process = subprocess.Popen(
            [self.binary or emojiart_binary(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
             *self.store, *self.extra],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            # Never fetch background images from anywhere: nothing leaves the machine.
            env={**os.environ, "EMOJIART_FETCH_PUBLIC": "0"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see {self.data_dir / 'server.log'}")
            try:
                with urllib.request.urlopen(self.base + "/api/health", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start in time")

    def kill(self) -> None:
        """SIGKILL: no chance to flush or shut down."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> int:
        """SIGTERM and wait: a graceful shutdown."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            return self.process.wait(timeout=30)
        return self.process.returncode if self.process else 0
