"""Live-table actions through HTTP: 16 clients, each playing its own no-limit hold'em
table, the way a real client does: the answer to each POST (an action, or a hand start)
says who acts next, what they may do and the new version, so the next POST follows
directly with If-Match; GET legal-actions only after a 409. The client acts for whoever is
to act (a floor key): check when it may, else call or fold at random. Beside them, the
bare-Flask ceiling: the same gunicorn setup serving `{}` (bench.http's bare app),
hammered by the same 16 clients.

The issue's goal: actions/s at 30% or more of the bare requests/s, the action's p99 under
50 ms. This machine's speed drifts by a fifth within a minute, so the loads take turns
in ROUNDS short rounds, each table load right after a bare phase (each phase PHASE_S
seconds after SETTLE_S unmeasured, both servers up throughout), and `actions_vs_bare` is
the median of the rounds' ratios to that bare phase: a slow spell then moves one round,
not the figure.

Tables: six-handed (`tables.*`, the game the issue's end-to-end test plays) and heads-up
(`tables.heads_up_*`). With these clients a heads-up hand lasts about 4.5 actions, a
six-handed one about 16, and the action that ends a hand costs about twice another (it
settles the pots and, on auto-deal tables, deals the next hand in the same append).
Auto-deal tables (`tables.*`, `tables.heads_up_*`): the action that ends a hand deals the
next, as a client playing on would create them, one request per action. Manual deal
(`*manual_deal_*`): a POST /hands starts each hand. `requests_per_action` counts every
request. `server_cpu_ms_per_action` is the gunicorn processes' CPU time per action (bare:
per request) over the measured phases, and `cpu_per_action_vs_bare_request` their
quotient, the same comparison in CPU. The clients, the server and PostgreSQL share this
machine's cores, so the CPU of PostgreSQL's processes and of the clients (this process)
per action is printed too, and `machine_cpu_vs_bare`: all three per action over all three
per bare request, how many bare requests' worth of the machine an action takes.

`BENCH_TABLES_PRODUCTION_ONLY=1` runs the bare phases and the production load alone (and
its cold phase): a fifth of the time, for work on the production path."""
from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from bench import size
from bench.http import CLIENT_THREADS, NO_CPU, CpuWindow, MachineCpu, Served, _serve, latency_ms, run_clients
from service.adapters.migrate import upgrade
from service.application.api_keys import KEY_CACHE_TTL_S, new_secret
from service.config import DEFAULT_RATE_LIMIT_PER_ADDRESS, DEFAULT_RATE_LIMIT_PER_KEY

ROUNDS = size(8, smoke=1)
TABLE_LOADS = (  # figure prefix, seats per table, auto-deal
    ("tables.", 6, True),
    ("tables.manual_deal_", 6, False),
    ("tables.heads_up_", 2, True),
    ("tables.heads_up_manual_deal_", 2, False),
)
PRODUCTION_SEATS = 6
PRODUCTION_STACK = 10_000
PRODUCTION_ACTION_CLOCK_S = 30
COLD_TABLES = size(24, smoke=2)
PRODUCTION_ONLY = os.environ.get("BENCH_TABLES_PRODUCTION_ONLY") == "1"
PHASE_S = size(1.0, smoke=0.2)
SETTLE_S = size(0.2, smoke=0.05)
"""Each phase begins unmeasured: the switch from another load (threads starting, the
server's caches and the machine's turning over) is not what an action costs."""


class _Client:
    def __init__(self, port: int, admin_key: str) -> None:
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.admin_key = admin_key
        self._auth = {"Authorization": f"Bearer {admin_key}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict, str | None]:
        response = self.send(method, path, json.dumps(body) if body is not None else None,
                             {**self._auth, **(headers or {})})
        raw = response.read()
        return response.status, json.loads(raw) if raw else {}, response.getheader("ETag")

    def send(self, method: str, path: str, body: str | None, headers: dict[str, str]) -> http.client.HTTPResponse:
        """The request's response; once more on a new connection when the server had closed
        this one (idle past its keep-alive while other loads ran). A write is sent again
        only if nothing of it was answered, and the production load's carry their
        Idempotency-Key, so a retried one is answered once."""
        try:
            self._connection.request(method, path, body=body, headers=headers)
            return self._connection.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected,
                http.client.CannotSendRequest):
            self._connection.close()
            self._connection.request(method, path, body=body, headers=headers)
            return self._connection.getresponse()


@dataclass
class _Phase:
    """One load's measurements over all rounds: per-round rates, every latency."""
    rates: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    measured: int = 0
    requests: int = 0
    errors: int = 0
    cpu: MachineCpu = NO_CPU

    def absorb(self, other: _Phase) -> None:
        self.rates += other.rates
        self.latencies += other.latencies
        self.measured += other.measured
        self.requests += other.requests
        self.errors += other.errors
        self.cpu += other.cpu

    def record(self, per_client: list[list[float]], counts: list[list[int]], cpu: MachineCpu) -> None:
        done = sum(len(samples) for samples in per_client)
        self.rates.append(done / PHASE_S)
        self.latencies.extend(s for samples in per_client for s in samples)
        self.measured += done
        self.errors += sum(c[0] for c in counts)
        self.requests += sum(c[1] for c in counts)
        self.cpu += cpu

    def cpu_ms(self, who: str) -> float:
        """CPU milliseconds per measured action (bare: per request) of `who` (server,
        postgres, client or total)."""
        return getattr(self.cpu, who) * 1000 / max(1, self.measured)


class _Player:
    """A client's own table, played across phases on one keep-alive connection."""

    def __init__(self, port: int, admin_key: str, seats: int, auto_deal: bool, seed: int) -> None:
        self._client = _Client(port, admin_key)
        self._seats = seats
        self._auto_deal = auto_deal
        self._rng = random.Random(seed)
        self._table_id = self._new_table()
        self._next_up: dict | None = None
        self._etag: str | None = None

    def _new_table(self) -> str:
        players = [self._client.call("POST", "/v1/players", {"name": f"P{seat}"})[1]["id"]
                   for seat in range(self._seats)]
        _, created, _ = self._client.call("POST", "/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": 1_000_000} for p in players], "auto_deal": self._auto_deal})
        return created["id"]

    def play(self, window: tuple[float, float], latencies: list[float], counts: list[int]) -> None:
        """Actions until the window ends; what begins inside it is measured: latencies of the
        action POSTs, counts [errors, requests]."""
        client, table_id = self._client, self._table_id
        start_at, stop_at = window
        while (now := time.monotonic()) < stop_at:
            measured = now >= start_at
            if self._next_up is None:  # only after a refusal: read where the table is
                _, self._next_up, self._etag = client.call("GET", f"/v1/tables/{table_id}/legal-actions")
                counts[1] += measured
            if self._next_up["to_act"] is None:
                status, self._next_up, self._etag = client.call(
                    "POST", f"/v1/tables/{table_id}/hands", {}, {"If-Match": self._etag or ""})
                counts[1] += measured
                if status != 201:
                    self._table_id = table_id = self._new_table()
                    self._next_up = None
                continue
            options = self._next_up["legal"]
            action = {"action": "check"} if options["check"] else {"action": self._rng.choice(["call", "fold"])}
            began = time.monotonic()
            status, answer, etag = client.call("POST", f"/v1/tables/{table_id}/actions",
                                               {**action, "player_id": self._next_up["to_act"]},
                                               {"If-Match": self._etag or ""})
            if measured:
                latencies.append(time.monotonic() - began)
                counts[0] += status != 201
                counts[1] += 1
            self._next_up, self._etag = (answer, etag) if status == 201 else (None, None)


def production_choice(rng: random.Random, legal: dict) -> dict:
    """Mostly check or call, sometimes a bet or raise (sized towards the minimum), now and
    then all in, sometimes a fold."""
    aggression = legal.get("raise") or legal.get("bet")
    roll = rng.random()
    if aggression and roll < 0.04:
        return {"action": "raise" if legal.get("raise") else "bet", "to": aggression["max_to"]}
    if aggression and roll < 0.25:
        low, high = aggression["min_to"], aggression["max_to"]
        return {"action": "raise" if legal.get("raise") else "bet",
                "to": low + int((high - low) * rng.random() ** 3)}
    if legal.get("check"):
        return {"action": "check"}
    if legal.get("show"):
        return {"action": "show"}
    return {"action": "call"} if roll < 0.8 and legal.get("call") else {"action": "fold"}


class _ProductionPlayer:
    """A client as production sees one: its table's players each act with their own player
    key (the server looks it up by hash), every write carries a fresh Idempotency-Key (so
    each is recorded with its answer), the table has a 30-second action clock (each action
    records the next deadline, which the workers' clock watch reads from the log) and
    100-big-blind stacks played for real: bets,
    raises and all-ins, so hands end in side pots and busts. A table with one player left
    is replaced by a new one (a write, counted in `requests_per_action`)."""

    def __init__(self, port: int, admin_key: str, seed: int, tables: int = 1) -> None:
        self._port = port
        self._admin = _Client(port, admin_key)
        self._rng = random.Random(seed)
        self._keys: dict[str, str] = {}
        for seat in range(PRODUCTION_SEATS):
            _, player, _ = self._admin.call("POST", "/v1/players", {"name": f"P{seat}"}, _fresh_key())
            _, issued, _ = self._admin.call("POST", "/v1/keys", {"role": "player", "player_id": player["id"]},
                                            _fresh_key())
            self._keys[player["id"]] = issued["key"]
        self._connect()
        self._tables = [self._new_table() for _ in range(tables)]

    def _connect(self) -> None:
        """One keep-alive connection for the players' requests, each signed with the acting
        player's key."""
        self._players = _Client(self._port, "")

    def moved_to(self, port: int) -> None:
        """The server restarted on `port`: reconnect (what the tables are at is unchanged)."""
        self._port = port
        self._admin = _Client(port, self._admin.admin_key)
        self._connect()

    def _new_table(self) -> list:
        """[table id, next-up view, ETag] of a new table at these players' seats."""
        status, created, _ = self._admin.call("POST", "/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": PRODUCTION_STACK} for p in self._keys],
            "auto_deal": True, "action_clock_s": PRODUCTION_ACTION_CLOCK_S}, _fresh_key())
        assert status == 201, created
        status, next_up, etag = self._admin.call("POST", f"/v1/tables/{created['id']}/hands", {},
                                                 {"If-Match": f'"{created["version"]}"', **_fresh_key()})
        assert status == 201, next_up
        return [created["id"], next_up, etag]

    def _choose(self, legal: dict) -> dict:
        return production_choice(self._rng, legal)

    def add_tables(self, count: int) -> None:
        self._tables += [self._new_table() for _ in range(count)]

    def act(self, index: int, measured: bool, latencies: list[float], counts: list[int],
            since: float | None = None) -> None:
        """One action on table `index` (or, when it has finished, a new table there); its
        latency counted from `since` (an open load's due time), else from its sending."""
        state = self._tables[index]
        table_id, next_up, etag = state
        if next_up["to_act"] is None:  # one player left: a new table
            self._tables[index] = self._new_table()
            counts[1] += 2 * measured
            return
        action = self._choose(next_up["legal"])
        headers = {"Authorization": f"Bearer {self._keys[next_up['to_act']]}",
                   "Content-Type": "application/json", "If-Match": etag or "",
                   "Idempotency-Key": str(uuid.uuid4())}
        began = time.monotonic()
        response = self._players.send("POST", f"/v1/tables/{table_id}/actions", json.dumps(action), headers)
        answer = json.loads(response.read())
        if measured:
            latencies.append(time.monotonic() - (began if since is None else since))
            counts[0] += response.status != 201
            counts[1] += 1
        if response.status == 201:
            state[1], state[2] = answer, response.getheader("ETag")
        else:  # read where the table is, as a client does after a refusal
            _, state[1], state[2] = self._admin.call("GET", f"/v1/tables/{table_id}/legal-actions")
            counts[1] += measured

    def play(self, window: tuple[float, float], latencies: list[float], counts: list[int]) -> None:
        start_at, stop_at = window
        while (now := time.monotonic()) < stop_at:
            self.act(0, now >= start_at, latencies, counts)

    def play_each_once(self, first: int, latencies: list[float], counts: list[int]) -> float:
        """One action on each of the tables from `first` on, every one measured; the seconds taken."""
        began = time.monotonic()
        for index in range(first, len(self._tables)):
            self.act(index, True, latencies, counts)
        return time.monotonic() - began


def _fresh_key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


class _BareClient:
    def __init__(self, port: int) -> None:
        self._client = _Client(port, "")

    def play(self, window: tuple[float, float], latencies: list[float], counts: list[int]) -> None:
        start_at, stop_at = window
        while (began := time.monotonic()) < stop_at:
            response = self._client.send("GET", "/", None, {})
            response.read()
            if began >= start_at:
                latencies.append(time.monotonic() - began)
                counts[0] += response.status != 200
                counts[1] += 1


def _run_phase(served: Served, clients: list, phase: _Phase | None, databases: frozenset[str] = frozenset()) -> None:
    """Every client plays for SETTLE_S, then PHASE_S measured into `phase` (None: warm-up);
    PostgreSQL's CPU counted as MachineCpu.read counts it with `databases`."""
    per_client: list[list[float]] = [[] for _ in clients]
    counts = [[0, 0] for _ in clients]
    start_at = time.monotonic() + SETTLE_S
    window = (start_at, start_at + PHASE_S)
    cpu = CpuWindow(served, *window, databases)
    run_clients(lambda i: clients[i].play(window, per_client[i], counts[i]))
    if phase is not None:
        phase.record(per_client, counts, cpu.used())


def _figures(prefix: str, phase: _Phase, bare_before: _Phase, bare: _Phase) -> dict[str, float]:
    """`bare_before`: the bare phases run just before this load's, round by round.

    Beside the server's CPU per action, PostgreSQL's and the client's: the three share
    this machine's cores."""
    p50_ms, p99_ms = latency_ms(sorted(phase.latencies))
    return {
        f"{prefix}server_cpu_ms_per_action": phase.cpu_ms("server"),
        f"{prefix}postgres_cpu_ms_per_action": phase.cpu_ms("postgres"),
        f"{prefix}client_cpu_ms_per_action": phase.cpu_ms("client"),
        f"{prefix}actions_per_s": statistics.median(phase.rates),
        f"{prefix}action_p50_ms": p50_ms,
        f"{prefix}action_p99_ms": p99_ms,
        f"{prefix}action_errors": float(phase.errors),
        f"{prefix}requests_per_action": phase.requests / max(1, phase.measured),
        f"{prefix}actions_vs_bare": statistics.median(a / b for a, b in zip(phase.rates, bare_before.rates)),
        f"{prefix}cpu_per_action_vs_bare_request": phase.cpu_ms("server") / bare.cpu_ms("server"),
        f"{prefix}machine_cpu_vs_bare": phase.cpu_ms("total") / bare.cpu_ms("total"),
    }


def _production_env(env: dict[str, str], stack: ExitStack, scratch: str) -> dict[str, str]:
    """`env` with what a production run switches on: a Redis broker (the rate limits
    count there), JSON request logs at INFO, the default rate limits, and the metrics kept
    for every process as `make run` keeps them (prometheus-client's multiprocess files).
    The broker is this run's own, never CELERY_BROKER_URL's, so no other run's counts meet
    this one's."""
    from service.adapters.embedded.broker import EmbeddedBroker
    from service.devserver import fresh_metrics_dir

    production = dict(env)
    broker = EmbeddedBroker(Path(scratch) / "broker")
    production["CELERY_BROKER_URL"] = broker.start()
    stack.callback(broker.stop)
    for name in ("CARDROOM_RATE_LIMIT_PER_KEY", "CARDROOM_RATE_LIMIT_PER_ADDRESS",
                 "CARDROOM_RATE_LIMIT_STORAGE_URL"):
        production.pop(name, None)
    production.update(CARDROOM_LOG_FORMAT="json", CARDROOM_LOG_LEVEL="INFO",
                      PROMETHEUS_MULTIPROC_DIR=str(fresh_metrics_dir(Path(scratch))))
    return production


def production_settings() -> str:
    """What the production load runs with, printed beside its figures."""
    return (f"production load: player keys (sha256 lookup, cached {KEY_CACHE_TTL_S:g} s), an Idempotency-Key "
            f"on every write (recorded with its answer), a receipt per write, JSON request logs at INFO, "
            f"metrics in multiprocess files (as make run keeps them), rate limits {DEFAULT_RATE_LIMIT_PER_KEY} per key and {DEFAULT_RATE_LIMIT_PER_ADDRESS} "
            f"per address counted in Redis, a {PRODUCTION_ACTION_CLOCK_S} s action clock (each action "
            f"records the next deadline in the log; nothing sent to the broker), {PRODUCTION_SEATS}-handed no-limit with "
            f"{PRODUCTION_STACK // 100} big blinds behind; cold: {COLD_TABLES} tables per client, "
            f"first touched after a restart")


def _cold_figures(server: Served, players: list[_ProductionPlayer]) -> dict[str, float]:
    """One action on each cold table (last played before the server restarted), every
    client at once: each action loads its table from the store."""
    per_client: list[list[float]] = [[] for _ in players]
    counts = [[0, 0] for _ in players]
    took = [0.0] * len(players)
    began_cpu = server.cpu_seconds()

    def client(i: int) -> None:
        took[i] = players[i].play_each_once(1, per_client[i], counts[i])

    run_clients(client)
    cpu_seconds = server.cpu_seconds() - began_cpu
    latencies = sorted(s for samples in per_client for s in samples)
    p50_ms, p99_ms = latency_ms(latencies)
    return {
        "tables.production_cold_actions_per_s": len(latencies) / max(took),
        "tables.production_cold_action_p50_ms": p50_ms,
        "tables.production_cold_action_p99_ms": p99_ms,
        "tables.production_cold_action_errors": float(sum(c[0] for c in counts)),
        "tables.production_cold_server_cpu_ms_per_action": cpu_seconds * 1000 / max(1, len(latencies)),
    }


def run() -> dict[str, float]:
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-tables-") as scratch:
        env = dict(os.environ)
        if not env.get("DATABASE_URL"):
            from service.adapters.embedded.postgres import EmbeddedPostgres

            postgres = EmbeddedPostgres(Path(scratch) / "postgres")
            env["DATABASE_URL"] = postgres.start()
            stack.callback(postgres.stop)
        upgrade(env["DATABASE_URL"])
        admin_key = env["CARDROOM_ADMIN_KEY"] = new_secret()
        production_env = _production_env(env, stack, scratch)
        print(f"   {production_settings()}", flush=True)
        bare_server = _serve(stack, "bench.http:bare_app", env)
        app_server = _serve(stack, "service.wsgi:app", env)
        production_stack = stack.enter_context(ExitStack())
        production_server = _serve(production_stack, "service.wsgi:app", production_env)
        bare_clients = [_BareClient(bare_server.port) for _ in range(CLIENT_THREADS)]
        bare = _Phase()
        loads = []
        for prefix, seats, auto_deal in () if PRODUCTION_ONLY else TABLE_LOADS:
            players = [_Player(app_server.port, admin_key, seats, auto_deal, i) for i in range(CLIENT_THREADS)]
            loads.append((prefix, app_server, players, _Phase(), _Phase()))
        producers: list[_ProductionPlayer] = [None] * CLIENT_THREADS  # type: ignore[list-item]

        def set_up(i: int) -> None:
            producers[i] = _ProductionPlayer(production_server.port, admin_key, 1000 + i, 1 + COLD_TABLES)

        run_clients(set_up)
        loads.append(("tables.production_", production_server, producers, _Phase(), _Phase()))
        _run_phase(bare_server, bare_clients, None)  # warm-up: connections, caches, code paths
        for _, server, players, _, _ in loads:
            _run_phase(server, players, None)
        for _ in range(ROUNDS):
            for _, server, players, phase, bare_before in loads:
                # Each table phase right after a bare phase: its ratio spans 2.4 s, not a round.
                _run_phase(bare_server, bare_clients, bare_before)
                _run_phase(server, players, phase)
        for _, _, _, _, bare_before in loads:
            bare.absorb(bare_before)
        bare_p50_ms, bare_p99_ms = latency_ms(sorted(bare.latencies))
        figures = {
            "tables.bare_flask_rps": statistics.median(bare.rates),
            "tables.bare_flask_p50_ms": bare_p50_ms,
            "tables.bare_flask_p99_ms": bare_p99_ms,
            "tables.bare_flask_errors": float(bare.errors),
            "tables.bare_flask_server_cpu_ms_per_request": bare.cpu_ms("server"),
            "tables.bare_flask_client_cpu_ms_per_request": bare.cpu_ms("client"),
        }
        for prefix, _, _, phase, bare_before in loads:
            figures.update(_figures(prefix, phase, bare_before, bare))
        # The cold phase: the cold tables played a little (they have a past), the server
        # restarted (every table cache empty), its code paths and connections warmed on
        # the clients' first tables, then each cold table touched once.
        run_clients(lambda i: producers[i].play_each_once(1, [], [0, 0]))
        production_stack.close()
        production_server = _serve(production_stack, "service.wsgi:app", production_env)
        for player in producers:
            player.moved_to(production_server.port)
        _run_phase(production_server, producers, None)
        figures.update(_cold_figures(production_server, producers))
    return {key: round(value, 3 if abs(value) < 10 else 1) for key, value in figures.items()}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<48} {value:>12,.3f}")
