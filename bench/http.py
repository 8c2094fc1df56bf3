"""HTTP throughput and latency through gunicorn, with `make run`'s worker settings.

16 client threads on keep-alive connections hammer one endpoint for a few seconds:
- `bare_flask`: a Flask app returning `{}`, the ceiling for this server setup;
- `cardroom_ping`: Cardroom's `/livez` (the full app stack, no I/O);
- `cardroom_healthz`: `/healthz` (one database query and one broker connection).
The client runs in this process, so on a small machine it shares the CPUs with the
server: compare figures from the same run, not across machines.
`*_server_cpu_ms_per_request`: CPU time of gunicorn's processes over the measured window,
per request.
"""
from __future__ import annotations

import http.client
import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from flask import Flask

from bench import size
from service.adapters.embedded import free_port
from service.adapters.migrate import upgrade
from service.application.api_keys import new_secret
from service.devserver import gunicorn_command, spawn_tied, stop_process

CLIENT_THREADS = size(16, smoke=4)
MEASURE_S = size(4.0, smoke=0.2)
WARM_UP_S = size(0.5, smoke=0.1)

bare_app = Flask("bare")


@bare_app.get("/")
def bare_index() -> dict:
    return {}


@dataclass(frozen=True)
class Served:
    port: int
    pid: int
    """gunicorn's arbiter; its workers are its children."""

    def cpu_seconds(self) -> float:
        """CPU time used so far by the arbiter and its workers (Linux /proc)."""
        return MachineCpu.read(self).server


@dataclass(frozen=True)
class MachineCpu:
    """CPU seconds used so far, split by who used them: the server (gunicorn's arbiter and
    workers), PostgreSQL (every process named postgres on the machine: measure on a quiet
    one; or, given `databases`, only the backends serving those, whatever else the cluster
    serves) and the client (this process: the benchmark's load)."""
    server: float
    postgres: float
    client: float

    @classmethod
    def read(cls, served: Served, databases: frozenset[str] = frozenset()) -> MachineCpu:
        ticks = {"server": 0, "postgres": 0, "client": 0}
        me = os.getpid()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                name, after = (entry / "stat").read_text().rsplit(")", 1)
            except OSError:  # gone meanwhile
                continue
            # After "pid (comm)": state, ppid, ... utime and stime are the 12th and 13th.
            fields = after.split()
            used = int(fields[11]) + int(fields[12])
            pid = int(entry.name)
            if pid == served.pid or int(fields[1]) == served.pid:
                ticks["server"] += used
            elif pid == me:
                ticks["client"] += used
            elif name.endswith("(postgres") and (not databases or _backend_of(entry, databases)):
                ticks["postgres"] += used
        tick = os.sysconf("SC_CLK_TCK")
        return cls(**{who: used / tick for who, used in ticks.items()})

    def __sub__(self, earlier: MachineCpu) -> MachineCpu:
        return MachineCpu(self.server - earlier.server, self.postgres - earlier.postgres,
                          self.client - earlier.client)

    def __add__(self, other: MachineCpu) -> MachineCpu:
        return MachineCpu(self.server + other.server, self.postgres + other.postgres,
                          self.client + other.client)

    @property
    def total(self) -> float:
        return self.server + self.postgres + self.client


def _backend_of(process: Path, databases: frozenset[str]) -> bool:
    """Whether a postgres process serves one of `databases` (its title: "postgres: [cluster:]
    user database host(port) state")."""
    try:
        title = (process / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace").split()
    except OSError:
        return False
    return title[:1] == ["postgres:"] and not databases.isdisjoint(title[2:4])


NO_CPU = MachineCpu(0.0, 0.0, 0.0)


class CpuWindow:
    """The CPU seconds used between two moments, sampled by a thread at each."""

    def __init__(self, served: Served, start_at: float, stop_at: float,
                 databases: frozenset[str] = frozenset()) -> None:
        self._samples: list[MachineCpu] = []

        def sample() -> None:
            for moment in (start_at, stop_at):
                time.sleep(max(0.0, moment - time.monotonic()))
                self._samples.append(MachineCpu.read(served, databases))

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()

    def used(self) -> MachineCpu:
        self._thread.join()
        return self._samples[1] - self._samples[0]

    def seconds(self) -> float:
        """The server's share."""
        return self.used().server


def _serve(stack: ExitStack, wsgi_app: str, env: dict[str, str]) -> Served:
    port = free_port()
    return serve(stack, gunicorn_command(wsgi_app, port), port, env)


def serve(stack: ExitStack, command: list[str], port: int, env: dict[str, str]) -> Served:
    """gunicorn started by `command` on `port`, once it answers; stopped by `stack`."""
    server = spawn_tied(command, env, output=subprocess.DEVNULL)
    stack.callback(stop_process, server)
    deadline = time.monotonic() + 30
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/")
            connection.getresponse().read()
            return Served(port, server.pid)
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(command[:4])} did not start") from None
            time.sleep(0.1)


def _hammer(served: Served, path: str) -> dict[str, float]:
    port = served.port
    latencies: list[list[float]] = [[] for _ in range(CLIENT_THREADS)]
    errors = [0] * CLIENT_THREADS
    start_at = time.monotonic() + WARM_UP_S
    stop_at = start_at + MEASURE_S
    cpu = CpuWindow(served, start_at, stop_at)

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while (now := time.monotonic()) < stop_at:
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                ok = response.status == 200
            except OSError:
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                ok = False
            if now >= start_at:  # requests started during warm-up are not counted
                latencies[index].append(time.monotonic() - now)
                errors[index] += not ok
        connection.close()

    run_clients(client)
    samples = sorted(s for per_thread in latencies for s in per_thread)
    p50_ms, p99_ms = latency_ms(samples)
    return {"rps": len(samples) / MEASURE_S, "p50_ms": p50_ms, "p99_ms": p99_ms,
            "errors": float(sum(errors)),
            "server_cpu_ms_per_request": cpu.seconds() * 1000 / max(1, len(samples))}


def run_clients(client: Callable[[int], None]) -> None:
    """Run `client(index)` on CLIENT_THREADS threads at once and wait for them all."""
    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENT_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def latency_ms(sorted_seconds: list[float]) -> tuple[float, float]:
    """p50 and p99 of latencies given in seconds, in milliseconds."""
    percentiles = statistics.quantiles(sorted_seconds, n=100)
    return percentiles[49] * 1000, percentiles[98] * 1000


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-http-") as scratch:
        env = dict(os.environ)
        if not env.get("DATABASE_URL"):
            from service.adapters.embedded.postgres import EmbeddedPostgres

            postgres = EmbeddedPostgres(Path(scratch) / "postgres")
            env["DATABASE_URL"] = postgres.start()
            stack.callback(postgres.stop)
        if not env.get("CELERY_BROKER_URL"):
            from service.adapters.embedded.broker import EmbeddedBroker

            broker = EmbeddedBroker(Path(scratch) / "broker")
            env["CELERY_BROKER_URL"] = broker.start()
            stack.callback(broker.stop)
        upgrade(env["DATABASE_URL"])
        env["CARDROOM_ADMIN_KEY"] = new_secret()

        for name, wsgi_app, path in (
            ("bare_flask", "bench.http:bare_app", "/"),
            ("cardroom_ping", "service.wsgi:app", "/livez"),
            ("cardroom_healthz", "service.wsgi:app", "/healthz"),
        ):
            with ExitStack() as server:
                served = _serve(server, wsgi_app, env)
                for figure, value in _hammer(served, path).items():
                    figures[f"http.{name}_{figure}"] = round(value, 2)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<40} {value:>12,.2f}")
