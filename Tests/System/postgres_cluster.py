"""A PostgreSQL cluster of a test's own, on loopback, that the test may stop and start (the
shared one that scripts/test starts serves every other test at once, so it is never stopped)."""

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresCluster:
    def __init__(self):
        self.bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
        self.dir = Path(tempfile.mkdtemp(prefix="emojiart-outage-"))
        os.chmod(self.dir, 0o755)
        # initdb refuses to run as root: the cluster then belongs to Debian's postgres user.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.dir, "postgres")
        self.port = _free_port()
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "emojiart", "-A", "trust", "-E", "UTF8", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "emojiart", "emojiart")
        self.url = f"postgres://emojiart@127.0.0.1:{self.port}/emojiart?sslmode=disable"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([*self.as_user, str(self.bin / tool), *args], check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"), "-w", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
