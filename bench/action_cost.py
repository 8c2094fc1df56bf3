"""What one table action costs, against an honest anchor (issue 37).

Three servers under the same gunicorn command (service.devserver.gunicorn_command: its
workers, threads and worker class), driven by the same 16 client threads on keep-alive
connections, in ROUNDS interleaved rounds of one PHASE_S phase each (bench.tables's
phases: SETTLE_S unmeasured first), so drift on a busy machine hits all three alike:
- `bare`: bench.http's `{}` endpoint, the ceiling of this server setup;
- `anchor`: bench/_anchor.py, a hand-written Flask + psycopg_pool service doing an action's
  durable work (key by hash, body validated, idempotency claim and record, two chained
  events at the expected version, the clock's deadline row, NOTIFY: one statement, one
  round trip, synchronous commit), in a database of its own;
- production: Cardroom under bench.tables's production settings (player keys,
  Idempotency-Key, receipts, JSON logs, metrics, rate limits in Redis, a 30 s action
  clock), bench.tables's production clients playing real hands.
CPU per action: the server's (gunicorn's processes) and PostgreSQL's (only the backends
serving this run's databases, so other users of a shared cluster do not count; its WAL
writer and checkpointer are not counted either).

Then the open load: tables acting on a schedule, as a room plays (each table's next
decision THINK_S after its last, whoever's answer is still on the way), the latency
counted from the due time (a client late to send counts against the server). A ramp of
table counts, OPEN_GROWTH apart, each step OPEN_STEP_S measured, until two steps in a row
miss: `open_load_tables` is the largest step whose action p99 stayed under P99_GOAL_MS
without an error (one slow spell of a shared machine fails a step, not the ramp), and
`cpu_s_per_table_hour` the CPU-seconds (server + PostgreSQL) per table-hour there.
"""
from __future__ import annotations

import heapq
import json
import os
import random
import statistics
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack

from psycopg.conninfo import conninfo_to_dict

from bench import _anchor, size
from bench.http import CLIENT_THREADS, MachineCpu, Served, _serve, latency_ms, run_clients
from bench.store import _scratch_database, _server
from bench.tables import PRODUCTION_SEATS, _BareClient, _Client, _Phase, _production_env, _ProductionPlayer, _run_phase, production_settings
from service.adapters.migrate import upgrade
from service.application.api_keys import new_secret

ROUNDS = size(6, smoke=1)
THINK_S = (2.0, 6.0)
P99_GOAL_MS = 100.0
OPEN_FIRST_TABLES = size(60, smoke=4)
OPEN_GROWTH = 1.4
OPEN_MAX_STEPS = size(12, smoke=2)
OPEN_STEP_S = size(16.0, smoke=1.0)
OPEN_SETTLE_S = size(6.0, smoke=0.5)
"""A new step's tables first act within THINK_S[1]: their first actions are not measured."""
OPEN_THREADS = size(48, smoke=4)
"""Client threads of the open load, each with its own seats (keys) and connection, the
tables dealt among them; a thread busy with one table's answer delays another's due
action, which then counts against the server (latency from the due time)."""


class _AnchorPlayer:
    """A production client's requests, sent to the anchor: its six seats' keys in turn, a
    fresh Idempotency-Key, If-Match from the last answer's ETag, bodies in the production
    clients' mix (mostly check or call, a fifth bets and raises, a few all-ins and folds)."""

    def __init__(self, port: int, keys: list[str], seed: int) -> None:
        self._client = _Client(port, "")
        self._keys = keys
        self._rng = random.Random(seed)
        self._table = f"table-{uuid.uuid4()}"
        self._etag = '"0"'
        self._turn = 0

    def _body(self) -> dict:
        roll = self._rng.random()
        if roll < 0.04:
            return {"action": "raise", "to": 10_000}
        if roll < 0.25:
            return {"action": "raise", "to": 200 + self._rng.randrange(1000)}
        return {"action": "check" if roll < 0.6 else "call" if roll < 0.9 else "fold"}

    def play(self, window: tuple[float, float], latencies: list[float], counts: list[int]) -> None:
        start_at, stop_at = window
        while (now := time.monotonic()) < stop_at:
            self._turn += 1
            headers = {"Authorization": f"Bearer {self._keys[self._turn % len(self._keys)]}",
                       "Content-Type": "application/json", "If-Match": self._etag,
                       "Idempotency-Key": str(uuid.uuid4())}
            response = self._client.send("POST", f"/v1/tables/{self._table}/actions", json.dumps(self._body()),
                                         headers)
            answer = response.read()
            if now >= start_at:
                latencies.append(time.monotonic() - now)
                counts[0] += response.status != 201
                counts[1] += 1
            if response.status == 201:
                self._etag = response.getheader("ETag") or ""
            elif response.status == 409:  # as a production client reads where its table is
                self._etag = f'"{json.loads(answer)["version"]}"'


def _closed_loop(bare: Served, anchor: Served, production: Served, clients: dict[str, list],
                 databases: frozenset[str]) -> dict[str, _Phase]:
    """The three loads in ROUNDS interleaved rounds (after one unmeasured), each its own _Phase."""
    servers = {"bare": bare, "anchor": anchor, "production": production}
    phases = {name: _Phase() for name in servers}
    for round_ in range(-1, ROUNDS):
        order = list(servers) if round_ % 2 else list(reversed(servers))  # who goes first alternates
        for name in order:
            _run_phase(servers[name], clients[name], phases[name] if round_ >= 0 else None, databases)
    return phases


def _open_step(production: Served, players: list[_ProductionPlayer], tables_each: list[int],
               databases: frozenset[str]) -> dict[str, float]:
    """Every table acting on its schedule for OPEN_SETTLE_S + OPEN_STEP_S: the measured
    window's p99, errors, actions and CPU."""
    began = time.monotonic()
    start_at, stop_at = began + OPEN_SETTLE_S, began + OPEN_SETTLE_S + OPEN_STEP_S
    latencies: list[list[float]] = [[] for _ in players]
    counts = [[0, 0] for _ in players]
    cpu: list[MachineCpu] = []

    def table_player(i: int) -> None:
        rng = random.Random(i)
        due = [(began + rng.uniform(0, THINK_S[1]), table) for table in range(tables_each[i])]
        heapq.heapify(due)
        while due and due[0][0] < stop_at:
            at, table = heapq.heappop(due)
            time.sleep(max(0.0, at - time.monotonic()))
            players[i].act(table, start_at <= at, latencies[i], counts[i], since=at)
            heapq.heappush(due, (at + rng.uniform(*THINK_S), table))

    def sample() -> None:
        for moment in (start_at, stop_at):
            time.sleep(max(0.0, moment - time.monotonic()))
            cpu.append(MachineCpu.read(production, databases))

    sampler = threading.Thread(target=sample)
    threads = [threading.Thread(target=table_player, args=(i,)) for i in range(len(players))] + [sampler]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    used = cpu[1] - cpu[0]
    measured = sorted(s for per_thread in latencies for s in per_thread)
    return {"tables": float(sum(tables_each)), "actions_per_s": len(measured) / OPEN_STEP_S,
            "p99_ms": latency_ms(measured)[1] if len(measured) > 1 else 0.0,
            "errors": float(sum(c[0] for c in counts)),
            "cpu_s_per_table_hour": (used.server + used.postgres) * 3600 / OPEN_STEP_S / sum(tables_each)}


def _open_load(production: Served, admin_key: str, databases: frozenset[str]) -> tuple[dict[str, float], list]:
    """The ramp: the largest step served (its figures; the first step's when none was) and
    every step's figures."""
    players: list[_ProductionPlayer] = [None] * OPEN_THREADS  # type: ignore[list-item]
    tables_each = [0] * OPEN_THREADS

    def grow(total: int) -> None:
        def seat(i: int) -> None:
            wanted = total // OPEN_THREADS + (i < total % OPEN_THREADS)
            if players[i] is None:
                players[i] = _ProductionPlayer(production.port, admin_key, 2000 + i, wanted)
            else:
                players[i].add_tables(wanted - tables_each[i])
            tables_each[i] = wanted
        threads = [threading.Thread(target=seat, args=(i,)) for i in range(OPEN_THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    steps: list[dict[str, float]] = []
    served: dict[str, float] | None = None
    total = OPEN_FIRST_TABLES
    for _ in range(OPEN_MAX_STEPS):
        grow(total)
        step = _open_step(production, players, tables_each, databases)
        steps.append(step)
        print(f"   open load: {step['tables']:.0f} tables, {step['actions_per_s']:.1f} actions/s, "
              f"p99 {step['p99_ms']:.1f} ms, {step['errors']:.0f} errors, "
              f"{step['cpu_s_per_table_hour']:.1f} CPU-s per table-hour", flush=True)
        if step["p99_ms"] < P99_GOAL_MS and not step["errors"]:
            served = step
        elif len(steps) > 1 and steps[-2] is not served:
            break
        total = round(total * OPEN_GROWTH)
    return served or {**steps[0], "tables": 0.0}, steps


def run() -> dict[str, float]:
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-action-cost-") as scratch:
        server_url = stack.enter_context(_server())
        production_url = stack.enter_context(_scratch_database(server_url, "_production"))
        anchor_url = stack.enter_context(_scratch_database(server_url, "_anchor"))
        databases = frozenset(str(conninfo_to_dict(url)["dbname"]) for url in (production_url, anchor_url))
        upgrade(production_url)
        env = {**os.environ, "DATABASE_URL": production_url, "ANCHOR_DATABASE_URL": anchor_url}
        admin_key = env["CARDROOM_ADMIN_KEY"] = new_secret()
        anchor_keys = _anchor.install(anchor_url, PRODUCTION_SEATS * CLIENT_THREADS)
        production_env = _production_env(env, stack, scratch)
        print(f"   {production_settings().split('; cold:')[0]}", flush=True)
        bare = _serve(stack, "bench.http:bare_app", env)
        anchor = _serve(stack, "bench._anchor:app", env)
        production = _serve(stack, "service.wsgi:app", production_env)
        producers: list[_ProductionPlayer] = [None] * CLIENT_THREADS  # type: ignore[list-item]

        def set_up(i: int) -> None:
            producers[i] = _ProductionPlayer(production.port, admin_key, 1000 + i)

        run_clients(set_up)
        clients = {
            "bare": [_BareClient(bare.port) for _ in range(CLIENT_THREADS)],
            "anchor": [_AnchorPlayer(anchor.port, anchor_keys[i * PRODUCTION_SEATS:(i + 1) * PRODUCTION_SEATS], i)
                       for i in range(CLIENT_THREADS)],
            "production": producers,
        }
        phases = _closed_loop(bare, anchor, production, clients, databases)
        open_load, _ = _open_load(production, admin_key, databases)
    figures = _figures(phases)
    figures.update({
        "action_cost.open_load_tables": open_load["tables"],
        "action_cost.open_load_p99_ms": open_load["p99_ms"],
        "action_cost.open_load_actions_per_s": open_load["actions_per_s"],
        "action_cost.cpu_s_per_table_hour": open_load["cpu_s_per_table_hour"],
    })
    return {key: round(value, 3 if abs(value) < 10 else 1) for key, value in figures.items()}


def _figures(phases: dict[str, _Phase]) -> dict[str, float]:
    production, anchor, bare = phases["production"], phases["anchor"], phases["bare"]
    figures = {}
    for name, phase, rate in (("", production, "actions_per_s"), ("anchor_", anchor, "anchor_per_s"),
                              ("bare_", bare, "bare_per_s")):
        figures[f"action_cost.{rate}"] = statistics.median(phase.rates)
        figures[f"action_cost.{name}p99_ms"] = latency_ms(sorted(phase.latencies))[1]
        figures[f"action_cost.{name}server_cpu_ms"] = phase.cpu_ms("server")
        figures[f"action_cost.{name}postgres_cpu_ms"] = phase.cpu_ms("postgres")
        figures[f"action_cost.{name}errors"] = float(phase.errors)
    figures["action_cost.server_cpu_vs_bare"] = production.cpu_ms("server") / bare.cpu_ms("server")
    figures["action_cost.server_cpu_vs_anchor"] = production.cpu_ms("server") / anchor.cpu_ms("server")
    figures["action_cost.anchor_server_cpu_vs_bare"] = anchor.cpu_ms("server") / bare.cpu_ms("server")
    figures["action_cost.actions_vs_anchor"] = statistics.median(
        p / a for p, a in zip(production.rates, anchor.rates))
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<48} {value:>12,.3f}")
