"""Live feeds under load (live.md): open SSE streams spread over auto-deal tables while
writes arrive at a fixed rate, through gunicorn with `make run`'s settings.

Runs on one fresh database (on the DATABASE_URL server, else an embedded PostgreSQL):
- `nostreams`: the writes alone (the reference for write throughput);
- `loop`: the same with STREAMS open streams, served from the BufferingWorker's event
  loop (what `make run` does);
- `threads`: gunicorn's own gthread worker, each stream holding a request thread (given
  as many threads as it has streams, plus the usual ones);
- `gevent`: gunicorn's gevent worker (a greenlet per stream), where gevent is installed
  (it is not a dependency).

Writes: WRITERS client threads post check/call actions (the admin key acting for the
player to act, as the answer's `to_act` says) at RATE actions/s in total, on TABLES
heads-up auto-deal hold'em tables. Streams: one selector thread in this process reads
every stream (`?view=public`) and timestamps each event's arrival.
Figures per run: actions/s done, write p50/p99 latency, delivery p50/p99 (an event's
arrival on a stream minus its write's answer), events delivered, server CPU ms per
delivered event; `resumed_missing`: events missing after every stream is dropped and
resumed with Last-Event-ID, and `resumed_twice` (both must be 0). The load generator
shares the machine's CPUs with the server: compare figures of one run.
Sizes from the environment: BENCH_STREAMS (1000), BENCH_TABLES (100), BENCH_RATE (200),
BENCH_SECONDS (10).
"""
from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import secrets
import selectors
import socket
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from bench import size
from bench.http import CpuWindow, Served, latency_ms, serve
from service.adapters.connection_strings import with_database
from service.adapters.embedded import free_port
from service.adapters.migrate import drop_roles, upgrade
from service.application.api_keys import new_secret
from service.devserver import GUNICORN_THREADS, gunicorn_command, gunicorn_workers

STREAMS = int(os.environ.get("BENCH_STREAMS") or size(1000, smoke=20))
TABLES = int(os.environ.get("BENCH_TABLES") or size(100, smoke=2))
RATE = float(os.environ.get("BENCH_RATE") or size(200, smoke=50))
SECONDS = float(os.environ.get("BENCH_SECONDS") or size(10, smoke=0.5))  # smoke: over 100 deliveries
WRITERS = 16
WRITE_TIMEOUT_S = 5.0
RUNS = [("nostreams", None, False), ("loop", None, True), ("threads", "gthread", True)]
"""(name, gunicorn worker class (None: make run's), streams open)."""
if importlib.util.find_spec("gevent") is not None:  # not a dependency: measured where installed
    RUNS.append(("gevent", "gevent", True))


def _serve(stack: ExitStack, env: dict[str, str], worker_class: str | None) -> Served:
    port = free_port()
    command = gunicorn_command("service.wsgi:app", port)
    if worker_class is not None:
        command[command.index("--worker-class") + 1] = worker_class
        # A thread (or greenlet) per stream, and the usual ones for the writes.
        command[command.index("--threads") + 1] = str(STREAMS // gunicorn_workers() + GUNICORN_THREADS)
        command += ["--worker-connections", str(STREAMS + 100)]
    return serve(stack, command, port, env)


def _call(connection: http.client.HTTPConnection, method: str, path: str, body: dict | None,
          headers: dict[str, str]) -> tuple[int, dict]:
    connection.request(method, path, body=json.dumps(body) if body is not None else None,
                       headers={"Content-Type": "application/json", **headers})
    response = connection.getresponse()
    return response.status, json.loads(response.read() or b"{}")


@dataclass
class Table:
    id: str
    version: int
    to_act: str
    legal: dict


def _open_tables(port: int, admin: dict[str, str]) -> list[Table]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    players = []
    for index in range(2):
        _, created = _call(connection, "POST", "/v1/players", {"name": f"Streamed {index}"}, admin)
        players.append(created["id"])
    tables = []
    for _ in range(TABLES):
        _, created = _call(connection, "POST", "/v1/tables", {
            "game": "holdem", "auto_deal": True,
            "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
            "seats": [{"player_id": p, "stack": 1_000_000} for p in players]}, admin)
        _, started = _call(connection, "POST", f"/v1/tables/{created['id']}/hands", {}, admin)
        tables.append(Table(created["id"], started["version"], started["to_act"], started["legal"]))
    connection.close()
    return tables


@dataclass
class Writes:
    answered: dict[tuple[str, int], float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: int = 0


def _write(port: int, admin: dict[str, str], tables: list[Table], start_at: float,
           stop_at: float) -> Writes:
    """RATE actions/s in all, each writer on its share of the tables, round robin."""
    writes = Writes()
    lock = threading.Lock()

    writers = min(WRITERS, len(tables))

    def writer(index: int) -> None:
        mine = tables[index::writers]
        interval = writers / RATE
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WRITE_TIMEOUT_S)
        due = start_at + index * interval / writers
        turn = 0
        while due < stop_at and mine:
            time.sleep(max(0.0, due - time.monotonic()))
            table = mine[turn % len(mine)]
            turn += 1
            action = {"action": "check"} if table.legal["check"] else {"action": "call"}
            began = time.monotonic()
            try:
                status, answer = _call(connection, "POST", f"/v1/tables/{table.id}/actions",
                                       {**action, "player_id": table.to_act},
                                       {**admin, "If-Match": f'"{table.version}"'})
            except OSError:  # a server that never answered (the thread worker, starved)
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WRITE_TIMEOUT_S)
                status, answer = 0, {}
            done = time.monotonic()
            with lock:
                if status != 201:
                    writes.errors += 1
                else:
                    writes.latencies.append(done - began)
                    for event in answer["events"]:
                        writes.answered[(table.id, event["version"])] = done
            if status == 201:
                table.version, table.to_act, table.legal = answer["version"], answer["to_act"], answer["legal"]
            due += interval
        connection.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return writes


_EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)")


class Readers:
    """Every stream on one selector thread: what each stream received, and when."""

    def __init__(self, port: int, tables: list[Table]) -> None:
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.table_of = [tables[index % len(tables)].id for index in range(STREAMS)]
        self.received: list[list[tuple[int, float]]] = [[] for _ in range(STREAMS)]
        self.sockets: dict[int, socket.socket] = {}
        self.buffers: dict[int, bytes] = {}
        self.stopped = False
        for index in range(STREAMS):
            self._open(index, tables[index % len(tables)].version)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _open(self, index: int, after: int) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(f"GET /v1/tables/{self.table_of[index]}/stream?view=public HTTP/1.1\r\n"
                     f"Host: x\r\nLast-Event-ID: {after}\r\n\r\n".encode())
        sock.setblocking(False)
        self.sockets[index] = sock
        self.buffers[index] = b""
        self.selector.register(sock, selectors.EVENT_READ, index)

    def _read(self) -> None:
        while not self.stopped:
            for key, _ in self.selector.select(0.2):
                index = key.data
                try:
                    chunk = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                now = time.monotonic()
                if not chunk:
                    self.selector.unregister(key.fileobj)
                    continue
                *blocks, self.buffers[index] = (self.buffers[index] + chunk).split(b"\n\n")
                for block in blocks:
                    # Searched, not at the start: a threaded stream's body is chunked, and
                    # each chunk (whole messages) begins with its size line.
                    found = _EVENT_ID.search(block)
                    if found:
                        self.received[index].append((int(found.group(1)), now))

    def arrivals(self) -> list[tuple[str, int, float]]:
        return [(self.table_of[index], version, at)
                for index, got in enumerate(self.received) for version, at in got]

    def resume_all(self) -> None:
        """Drop every stream and open it again from the last id it received."""
        self._stop()
        for index, sock in list(self.sockets.items()):
            self.selector.unregister(sock)
            sock.close()
            got = self.received[index]
            self._open(index, got[-1][0] if got else 0)
        self.stopped = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def faults(self, tables: list[Table]) -> tuple[int, int]:
        """(events missing, events received twice) over every stream, from the first
        version it received to its table's last."""
        last = {table.id: table.version for table in tables}
        missing = twice = 0
        for index, got in enumerate(self.received):
            versions = [version for version, _ in got]
            if versions:
                missing += len(set(range(versions[0], last[self.table_of[index]] + 1)) - set(versions))
                twice += len(versions) - len(set(versions))
        return missing, twice

    def _stop(self) -> None:
        self.stopped = True
        self.thread.join()

    def close(self) -> None:
        self._stop()
        for sock in self.sockets.values():
            sock.close()


def _measure(env: dict[str, str], worker_class: str | None, streams: bool) -> dict[str, float]:
    with ExitStack() as stack:
        served = _serve(stack, env, worker_class)
        admin = {"Authorization": f"Bearer {env['CARDROOM_ADMIN_KEY']}"}
        tables = _open_tables(served.port, admin)
        readers = Readers(served.port, tables) if streams else None
        if readers is not None:
            stack.callback(readers.close)
            time.sleep(2.0)  # every stream open (the thread worker may never get there)
        start_at = time.monotonic() + 0.5
        stop_at = start_at + SECONDS
        cpu = CpuWindow(served, start_at, stop_at)
        writes = _write(served.port, admin, tables, start_at, stop_at)
        cpu_s = cpu.seconds()
        figures = {"actions_per_s": len(writes.latencies) / SECONDS, "write_errors": float(writes.errors)}
        if writes.latencies:
            figures["write_p50_ms"], figures["write_p99_ms"] = latency_ms(sorted(writes.latencies))
        if readers is None:
            return figures
        time.sleep(1.0)  # the last deliveries
        delays = sorted(at - writes.answered[(table_id, version)]
                        for table_id, version, at in readers.arrivals()
                        if (table_id, version) in writes.answered)
        expected = len(writes.answered) * STREAMS // len(tables)
        figures["events_delivered"] = float(len(delays))
        figures["events_expected"] = float(expected)
        if len(delays) > 100:
            figures["delivery_p50_ms"], figures["delivery_p99_ms"] = latency_ms(delays)
            figures["server_cpu_ms_per_delivered_event"] = cpu_s * 1000 / len(delays)
        if worker_class is None:
            missing, twice = _resume(served, admin, tables, readers)
            figures["resumed_missing"], figures["resumed_twice"] = float(missing), float(twice)
        return figures


def _resume(served: Served, admin: dict[str, str], tables: list[Table], readers: Readers) -> tuple[int, int]:
    """Writes for a second, drops and resumes every stream, writes for another: (events
    missed, events received twice) on all the streams (both must be 0)."""
    for resume in (False, True):
        if resume:
            readers.resume_all()
        start_at = time.monotonic()
        _write(served.port, admin, tables, start_at, start_at + 1.0)
    time.sleep(2.0)
    readers.close()
    return readers.faults(tables)


def run() -> dict[str, float]:
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-streams-") as scratch:
        server_url = os.environ.get("DATABASE_URL")
        if not server_url:
            from service.adapters.embedded.postgres import EmbeddedPostgres

            postgres = EmbeddedPostgres(Path(scratch) / "postgres")
            server_url = postgres.start()
            stack.callback(postgres.stop)
        return _run_on(server_url)


def _run_on(server_url: str) -> dict[str, float]:
    """The runs on a fresh database of the server, dropped afterwards."""
    figures: dict[str, float] = {}
    name = f"cardroom_bench_streams_{secrets.token_hex(4)}"
    with psycopg.connect(server_url, autocommit=True) as admin_connection:
        admin_connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    database_url = with_database(server_url, name)
    try:
        upgrade(database_url)
        env = {**os.environ, "DATABASE_URL": database_url, "CARDROOM_ADMIN_KEY": new_secret()}
        env.pop("CELERY_BROKER_URL", None)
        for run_name, worker_class, streams in RUNS:
            for figure, value in _measure(env, worker_class, streams).items():
                figures[f"streams.{run_name}_{figure}"] = round(value, 2)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin_connection:
            admin_connection.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        drop_roles(database_url)  # the database's own (service.adapters.migrate.roles_for)
    base = figures.get("streams.nostreams_actions_per_s")
    if base:
        figures["streams.loop_write_throughput_ratio"] = round(figures["streams.loop_actions_per_s"] / base, 3)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<55} {value:>12,.2f}")
