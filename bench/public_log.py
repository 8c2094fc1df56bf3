"""The public log under load (issue 31; service.application.public_log), on a scratch
database of its own (the DATABASE_URL server's, else an embedded PostgreSQL):

- `public_log.leaves_per_s`: the integrator's batches over EVENTS events written before it
  started (hand closes, nine events an append), each batch's leaves and nodes committed
  and a checkpoint signed;
- a burst: BURST_S seconds of hand closes at RATE a second while the integrator follows
  (as the worker runs it: a batch, then what came for GATHER_S) and asks a witness of its
  own (in a process of its own, over HTTP, policy 1):
  `public_log.burst_events_per_s` written, `public_log.backlog_after_burst` events not yet
  integrated when it ends (0: no growing backlog), and
  `public_log.commit_to_cosigned_p50_s` / `_p99_s`: from an append's commit to the first
  checkpoint `GET /v1/log/checkpoint` would serve (cosigned) that covers it;
- `public_log.proof_read_p50_ms`: the read behind `GET /v1/log/proofs/{stream}/{version}`
  (leaf, newest cosigned checkpoint, inclusion path from the stored nodes, the path checked
  against the signed root), for random events;
- `public_log.append_cost_ratio`: hand-close appends a second with the integrator
  following against without it, in interleaved rounds (which goes first alternates; each
  phase with it after it caught up, as below), the median of the rounds' ratios
  (the store's append stands for the production action here: the integrator shares the
  database with it, never the request);
- `public_log.action_cost_ratio`: the production table action (bench.tables' production
  load: gunicorn with the production settings, CLIENT_THREADS clients each playing its own
  six-handed table with player keys and Idempotency-Keys) with the integrator following
  against without it, in interleaved rounds (which goes first alternates), the median of
  the rounds' ratios of actions/s. Before each phase with it, the integrator first takes in
  what the phase before wrote without it, unmeasured: each phase with it then integrates its
  own events, as in production, where the integrator never stops, not twice as many (and
  before each phase, with it or not, the load rests alike: `_switch`);
- `public_log.integrator_cpu_us_per_event`: the integrator's process CPU (its every thread:
  reading and checking the log, the leaves, the witness's client) over the events it
  integrated in the whole run, in microseconds: what the ratios above measure, without the
  noise of a shared machine.
Sizes: BENCH_LOG_EVENTS (20,000), BENCH_LOG_RATE (40 hand closes/s), BENCH_LOG_SECONDS (20).
BENCH_LOG_EVERY_S (public_log.CHECKPOINT_EVERY_S, the worker's): while events come, a batch
begins this long after the one before (shorter: more batches, each signed and cosigned, for
an earlier checkpoint).
"""
from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

from psycopg_pool import ConnectionPool

from bench import size, tables
from bench.http import CLIENT_THREADS, _serve, run_clients
from bench.store import HAND_CLOSE, _scratch_database, _server  # the store bench's scratch database
from domain.transparency import merkle
from service import witness
from service.adapters.log_keys import new_signer, parse_signer
from service.adapters.migrate import upgrade
from service.adapters.store import jsonb_reads
from service.adapters.store.base import NewEvent
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.adapters.store.public_log import PostgresPublicLog
from service.adapters.store.trackings import PostgresTracking
from service.adapters.witnesses import WitnessClient
from service.application import public_log
from service.application.api_keys import new_secret
from service.application.application import application
from service.public_log_verifier import ED25519, parse_leaf

EVENTS = int(os.environ.get("BENCH_LOG_EVENTS") or size(20_000, smoke=90))
RATE = float(os.environ.get("BENCH_LOG_RATE") or size(40, smoke=20))
BURST_S = float(os.environ.get("BENCH_LOG_SECONDS") or size(20, smoke=1))
COSIGN_WAIT_S = 30
"""How long after the burst its last events may take to be cosigned (about a second on a
quiet machine; a CI machine under other suites once took more than ten)."""
PROOFS = size(400, smoke=5)
ROUNDS = size(8, smoke=2)
APPEND_PHASE_S = size(2.0, smoke=0.1)
"""Each phase of appends spans two or more of the integrator's batches (a batch every
CHECKPOINT_EVERY_S): a shorter one with it could fall between two and miss its cost."""
ACTION_ROUNDS = size(16, smoke=2)
"""More rounds than the appends': a phase of actions is a second, and this machine's speed drifts."""
SWITCH_S = size(0.5, smoke=0.05)
EVERY_S = float(os.environ.get("BENCH_LOG_EVERY_S") or public_log.CHECKPOINT_EVERY_S)
ORIGIN = "bench.cardroom/log"
HAND = [NewEvent(type_, data) for type_, data in HAND_CLOSE]


class _Following:
    """The integrator in a process of its own, as the worker runs it (a batch, then what
    came until EVERY_S after it began), asking the witness after each batch; paused on
    request (`pause`: once its batch in hand is done)."""

    def __init__(self, url: str, log_key: str, witness: public_log.Witness) -> None:
        context = multiprocessing.get_context("spawn")
        self.running = context.Event()
        self._idle = context.Event()
        self._stopped = context.Event()
        self._cost = context.Array("d", 2)  # (CPU seconds, events integrated)
        ready = context.Event()
        self._process = context.Process(target=_follow, daemon=True, args=(
            url, log_key, f"{witness.url} {witness.key.vkey()}", self.running, self._idle, self._stopped,
            ready, self._cost))
        self._process.start()
        if not ready.wait(60):
            raise TimeoutError("the integrator's process never started")

    def resume(self) -> None:
        self._idle.clear()
        self.running.set()

    def pause(self) -> None:
        self.running.clear()
        if not self._idle.wait(60):
            raise TimeoutError("the integrator's batch never ended")

    def cpu_us_per_event(self) -> float:
        cpu_s, events = self._cost[:]
        return round(cpu_s / max(events, 1) * 1e6, 1)

    def stop(self) -> None:
        self._stopped.set()
        self._process.join(timeout=30)


def _follow(url: str, log_key: str, witnesses: str, running: Any, idle: Any, stopped: Any, ready: Any,
            cost: Any) -> None:
    jsonb_reads.read_as_utf8()  # as the worker's followers read
    pool = open_pool(url, min_size=1, max_size=3)
    tree = PostgresPublicLog(pool)
    asking = WitnessClient(public_log.parse_witnesses(witnesses), tree, lambda old, new: public_log.fetched(
        tree, partial(merkle.consistency_proof, old, new)))
    integrator = public_log.Integrator(application(PostgresEventStore(pool)), PostgresTracking(), tree,
                                       lambda _create: parse_signer(log_key), after_signing=asking.ask)
    started_cpu = time.process_time()
    ready.set()
    while not stopped.is_set():
        if not running.is_set():
            idle.set()
            running.wait(0.05)
            continue
        idle.clear()
        began = time.monotonic()
        batch = integrator.handle_batch()
        cost[:] = [time.process_time() - started_cpu, cost[1] + batch.events]
        if not batch.full:
            time.sleep(public_log.gathering_s(began, time.monotonic(), waited=not batch.events, every_s=EVERY_S))
    pool.close()


def run() -> dict[str, float]:
    with _server() as server_url, _scratch_database(server_url) as url, \
            tempfile.TemporaryDirectory(prefix="cardroom-bench-witness-") as witness_dir:
        upgrade(url)
        pool = open_pool(url, min_size=2, max_size=6)
        try:
            return _measured(url, pool, Path(witness_dir))
        finally:
            pool.close()


def _measured(url: str, pool: ConnectionPool, witness_dir: Path) -> dict[str, float]:
    store = PostgresEventStore(pool)
    tree = PostgresPublicLog(pool)
    log_key = new_signer(ORIGIN, ED25519)
    local = witness.build(witness_dir, "bench-witness", [log_key.verifier.vkey()])  # its key, for the policy
    server = _WitnessProcess(witness_dir, log_key.verifier.vkey())
    cosigner = public_log.Witness(f"http://127.0.0.1:{server.port}", local.signer.verifier)
    reader = public_log.PublicLog(tree, log_key.verifier, [cosigner], 1)
    closes = _closer(store)
    figures: dict[str, float] = {}
    following = _Following(url, log_key.text(), cosigner)
    try:
        for n in range(EVENTS // len(HAND)):
            closes(n)
        started = time.perf_counter()
        following.running.set()
        _wait_for(lambda: tree.size() >= EVENTS // len(HAND) * len(HAND))
        figures["public_log.leaves_per_s"] = round(tree.size() / (time.perf_counter() - started), 1)
        figures.update(_burst(closes, EVENTS // len(HAND), tree, reader))
        figures["public_log.proof_read_p50_ms"] = _proof_read_ms(tree, reader)
        figures["public_log.append_cost_ratio"] = _cost_ratio(closes, following, tree)
        figures["public_log.action_cost_ratio"] = _action_cost_ratio(url, following, tree)
        figures["public_log.integrator_cpu_us_per_event"] = following.cpu_us_per_event()
    finally:
        following.stop()
        server.stop()
    return figures


class _WitnessProcess:
    """The witness in a process of its own, as it runs elsewhere in production: its work
    never takes the bench's clients' interpreter (their GIL) from them."""

    def __init__(self, state_dir: Path, log_vkey: str) -> None:
        context = multiprocessing.get_context("spawn")
        ports = context.Queue()
        self._process = context.Process(target=_witness, args=(state_dir, log_vkey, ports), daemon=True)
        self._process.start()
        self.port: int = ports.get(timeout=60)

    def stop(self) -> None:
        self._process.terminate()
        self._process.join(timeout=10)


def _witness(state_dir: Path, log_vkey: str, ports: Any) -> None:
    server = witness.serve(witness.build(state_dir, "bench-witness", [log_vkey]), "127.0.0.1", 0)
    ports.put(server.server_address[1])
    server.serve_forever()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the integrator never caught up")
        time.sleep(0.01)


def _closer(store: PostgresEventStore) -> Callable[[int], tuple[str, int]]:
    def close(n: int) -> tuple[str, int]:
        stream = f"log-bench-{n // 5}"
        version = n % 5 * len(HAND)
        store.append(stream, version, HAND)
        return stream, version + len(HAND)
    return close


def _burst(closes: Callable[[int], tuple[str, int]], first: int, tree: PostgresPublicLog,
           reader: public_log.PublicLog) -> dict[str, float]:
    written: list[tuple[str, int, float]] = []
    cosigned: list[tuple[int, float]] = []  # (size, when first served cosigned)
    done = threading.Event()

    def watch() -> None:
        seen = 0
        while not done.is_set() or seen < n * len(HAND):
            try:
                size_now = reader.checkpoint().size
            except public_log.Refused:
                size_now = 0
            if size_now > seen:
                cosigned.append((size_now, time.perf_counter()))
                seen = size_now
            time.sleep(0.01)
            if done.is_set() and time.perf_counter() - ended > COSIGN_WAIT_S:
                return

    ended = float("inf")
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started = time.perf_counter()
    n = first
    while time.perf_counter() - started < BURST_S:
        due = started + (n - first) / RATE
        time.sleep(max(0.0, due - time.perf_counter()))
        stream, version = closes(n)
        written.append((stream, version, time.perf_counter()))
        n += 1
    ended = time.perf_counter()
    backlog_at_end = n * len(HAND) - tree.size()
    done.set()
    watcher.join()
    latencies = []
    for stream, version, at in written:
        found = tree.leaf_of(stream, version)
        served = next((when for size_, when in cosigned if found is not None and size_ > found[0]), None)
        if served is not None:
            latencies.append(served - at)
    latencies.sort()
    return {"public_log.burst_events_per_s": round((n - first) * len(HAND) / (ended - started), 1),
            "public_log.backlog_after_burst": max(0, backlog_at_end),
            "public_log.commit_to_cosigned_p50_s": round(statistics.median(latencies), 3),
            "public_log.commit_to_cosigned_p99_s": round(latencies[min(len(latencies) - 1,
                                                                   int(len(latencies) * 0.99))], 3),
            "public_log.cosigned_of_written": round(len(latencies) / len(written), 3)}


def _proof_read_ms(tree: PostgresPublicLog, reader: public_log.PublicLog) -> float:
    size_ = reader.checkpoint().size
    timings = []
    for _ in range(PROOFS):
        index = random.randrange(size_)
        stored = tree.leaf(index)
        assert stored is not None
        leaf = parse_leaf(stored)
        started = time.perf_counter()
        reader.proof(leaf.stream_id, leaf.version, lambda: True)
        timings.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(timings), 3)


def _switch(following: _Following, tree: PostgresPublicLog, with_log: bool) -> None:
    """The integrator paused (its batch in hand done), or running and caught up with what
    was written while it was paused: a phase with it integrates that phase's events alone.
    Either way the load rests SWITCH_S (or the catch-up, if longer) before its next phase,
    so a phase with the integrator is not also the one after a rest."""
    began = time.monotonic()
    if with_log:
        following.resume()
        _wait_for(lambda: tree.backlog(public_log.INTEGRATOR) == 0)
    else:
        following.pause()
    time.sleep(max(0.0, began + SWITCH_S - time.monotonic()))


def _cost_ratio(closes: Callable[[int], tuple[str, int]], following: _Following,
                tree: PostgresPublicLog) -> float:
    n = 10**7  # streams of their own, past the ones written before
    ratios = []
    for round_ in range(ROUNDS):
        rates = {}
        for with_log in (False, True) if round_ % 2 == 0 else (True, False):
            _switch(following, tree, with_log)
            started, done = time.perf_counter(), 0
            while (elapsed := time.perf_counter() - started) < APPEND_PHASE_S:
                closes(n)
                n, done = n + 1, done + 1
            rates[with_log] = done / elapsed
        ratios.append(rates[True] / rates[False])
    following.running.set()
    return round(statistics.median(ratios), 3)


def _action_cost_ratio(url: str, following: _Following, tree: PostgresPublicLog) -> float:
    """The production action's rate with the integrator following against without it."""
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="cardroom-bench-log-action-") as scratch:
        env = dict(os.environ, DATABASE_URL=url, CARDROOM_DATA_DIR=str(Path(scratch) / "data"))
        admin_key = env["CARDROOM_ADMIN_KEY"] = new_secret()
        server = _serve(stack, "service.wsgi:app", tables._production_env(env, stack, scratch))
        players: list[tables._ProductionPlayer] = [None] * CLIENT_THREADS  # type: ignore[list-item]

        def set_up(i: int) -> None:
            players[i] = tables._ProductionPlayer(server.port, admin_key, 2000 + i)

        run_clients(set_up)
        following.running.set()
        tables._run_phase(server, players, None)  # warm-up: connections, caches, code paths
        ratios = []
        for round_ in range(ACTION_ROUNDS):
            phases = {False: tables._Phase(), True: tables._Phase()}
            for with_log in (False, True) if round_ % 2 == 0 else (True, False):
                _switch(following, tree, with_log)
                tables._run_phase(server, players, phases[with_log])
            ratios.append(phases[True].rates[0] / phases[False].rates[0])
        following.running.set()
        return round(statistics.median(ratios), 3)
