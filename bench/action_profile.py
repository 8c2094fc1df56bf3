"""Where a production table action's time goes, beside the anchor's (issue 37).

The production app (bench.tables's production settings) and the anchor (bench/_anchor.py)
run under the same gunicorn command, each wrapped by bench/_profiled.py, and are played
by bench.action_cost's clients (16 threads, keep-alive) in alternating phases: timed
phases (each action's thread CPU, unprofiled) and profiled ones (cProfile on the thread
CPU clock). Per action:

- `server_cpu_ms`: gunicorn's processes over the timed phases (as bench.action_cost), of
  which `in_app_cpu_ms` is the request threads' CPU from the WSGI call to the response's
  close; the rest, `outside_app_cpu_ms`, is gunicorn's loop (reading and writing the
  sockets, parsing HTTP), its threads' hand-offs and the app's background threads;
- the in-app CPU split by layer: each function's own time in the profile, by the module
  it is in (LAYERS; a standard-library function's or a builtin's own time goes to the
  layer of whoever called it, except JSON, hashing and logging, which are layers of
  their own), as a share of the profile's total, times `in_app_cpu_ms` (cProfile slows
  what it measures, most where calls are many and short: shares, not its milliseconds);
- PostgreSQL: pg_stat_statements' execution time and calls per action, by statement, and
  the backends' CPU (as bench.action_cost counts it). pg_stat_statements needs the
  server to preload it: the profile runs on its own embedded cluster (durable settings)
  with it, else on DATABASE_URL's server without the statements' table.

Figures: `action_profile.<who>_<layer>_ms` and the totals above; the table is printed.
With BENCH_PROFILE_KEEP set to a folder, each side's merged profile is kept there as
`<who>.prof` (pstats' format), to read function by function.
"""
from __future__ import annotations

import json
import os
import pstats
import re
import sysconfig
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict

from bench import _anchor, size
from bench.action_cost import _AnchorPlayer
from bench.http import CLIENT_THREADS, Served, _serve, run_clients
from bench.store import _scratch_database
from bench.tables import PRODUCTION_SEATS, _Phase, _production_env, _ProductionPlayer, _run_phase
from service.adapters.migrate import upgrade
from service.application.api_keys import new_secret

ROUNDS = size(4, smoke=1)
"""Timed and profiled phases each, alternating (bench.tables.PHASE_S each)."""
STATEMENTS_SHOWN = 12
UNNAMED_SHOWN = 6

# (layer, path fragments): the first layer one of whose fragments is in a function's file.
LAYERS = (
    ("decider (domain)", ("/domain/",)),
    ("auth (keys)", ("service/http/auth.py", "service/application/api_keys.py")),
    ("rate limits (Redis)", ("service/http/rate_limits.py", "/limits/", "/redis/")),
    ("logging", ("service/http/request_log.py", "service/adapters/logs.py", "service/log_lines.py", "/logging/")),
    ("metrics", ("service/http/metrics.py", "service/application/metrics.py", "store/metered.py",
                 "/prometheus_client/")),
    ("sealing", ("service/application/sealing.py", "store/cipher.py", "store/sealing_keys.py",
                 "/cryptography/")),
    ("JSON", ("/json/", "<_json", "'_json")),
    ("hashing (SHA-256, HMAC)", ("/hashlib.py", "/hmac.py", "_hashlib", "<built-in method _hmac")),
    ("records (events, MACs, chain)", ("store/base.py", "service/adapters/integrity.py",
                                       "service/adapters/row_macs.py", "store/upcasting.py")),
    ("idempotency (claim, record)", ("store/idempotency.py", "service/application/live_writes.py",
                                     "store/scope.py")),
    ("receipts (writes)", ("service/http/api/writes.py", "service/application/event_log.py")),
    ("round trips (store, psycopg, libpq)", ("service/adapters/store/", "/psycopg/", "/psycopg_pool/")),
    ("notifications", ("service/adapters/notifications.py", "service/application/live_feeds.py")),
    ("views and answer", ("service/application/views.py", "service/http/api/tables.py",
                          "service/application/screens.py")),
    ("application (load, handle)", ("service/application/", "service/bootstrap.py",
                                            "service/wiring.py")),
    ("parsing and validation (schemas)", ("service/http/api/schemas.py", "/marshmallow/", "/flask_smorest/",
                                          "/webargs/")),
    ("Cardroom HTTP (API, problems)", ("service/http/",)),
    ("anchor code (auth, checks, chain)", ("bench/_anchor.py",)),
    ("Flask and Werkzeug", ("/flask/", "/werkzeug/", "/itsdangerous/", "/markupsafe/", "/blinker/")),
    ("gunicorn inside the call (headers, body)", ("/gunicorn/",)),
    ("measuring wrapper", ("bench/_profiled.py",)),
)
OTHER = "other"
_STDLIB = sysconfig.get_paths()["stdlib"]


def _own_layer(function: tuple[str, int, str]) -> str | None:
    """The layer a function's own time goes to; None: to its callers'."""
    filename, _, name = function
    where = filename if filename != "~" else name
    for layer, fragments in LAYERS:
        if any(fragment in where for fragment in fragments):
            return layer
    if filename == "~" or (filename.startswith(_STDLIB) and "site-packages" not in filename):
        return None
    return OTHER


def layer_seconds(stats: pstats.Stats, unnamed: dict[str, float] | None = None) -> dict[str, float]:
    """The profile's seconds by layer (a caller-less standard-library function's: OTHER);
    OTHER's by function into `unnamed`, when given."""
    table = stats.stats  # type: ignore[attr-defined]
    shares: dict[tuple, dict[str, float]] = {}

    def layers_of(function: tuple, visiting: frozenset) -> dict[str, float]:
        """How a function's own time divides among layers (fractions summing to 1)."""
        if function in shares:
            return shares[function]
        own = _own_layer(function)
        callers = table.get(function, (0, 0, 0.0, 0.0, {}))[4]
        weights = {caller: edge[2] for caller, edge in callers.items() if caller not in visiting}
        if own is not None or not weights or sum(weights.values()) <= 0:
            result = {own or OTHER: 1.0}
        else:
            total = sum(weights.values())
            result = defaultdict(float)
            for caller, weight in weights.items():
                for layer, fraction in layers_of(caller, visiting | {function}).items():
                    result[layer] += fraction * weight / total
        shares[function] = dict(result)
        return shares[function]

    seconds: dict[str, float] = defaultdict(float)
    for function, (_, _, own_time, _, _) in table.items():
        for layer, fraction in layers_of(function, frozenset()).items():
            seconds[layer] += own_time * fraction
            if layer == OTHER and unnamed is not None:
                unnamed[pstats.func_std_string(function)] = own_time * fraction
    return dict(seconds)


@contextmanager
def _cluster() -> Iterator[tuple[str, bool]]:
    """A server for the profile, and whether it keeps pg_stat_statements."""
    from service.adapters.embedded.postgres import EmbeddedPostgres, EmbeddedPostgresUnavailable

    with tempfile.TemporaryDirectory(prefix="bench-profile-pg-") as scratch:
        try:
            with EmbeddedPostgres(Path(scratch) / "data", settings={
                    "shared_preload_libraries": "pg_stat_statements", "max_connections": "200"}) as url:
                yield url, True
                return
        except EmbeddedPostgresUnavailable:
            pass
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("action_profile: no embedded PostgreSQL here, and no DATABASE_URL")
    with psycopg.connect(url) as connection:
        loaded = "pg_stat_statements" in str(connection.execute("SHOW shared_preload_libraries").fetchone())
    yield url, loaded


def _statements(url: str, database: str, actions: int) -> list[tuple[str, float, float]]:
    """(statement, calls per action, execution ms per action), the costliest first."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT regexp_replace(s.query, '\\s+', ' ', 'g'), s.calls, s.total_exec_time"
            "  FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
            " WHERE d.datname = %s ORDER BY s.total_exec_time DESC", (database,)).fetchall()
    return [(query, calls / actions, ms / actions) for query, calls, ms in rows]


def _collected(directory: Path) -> tuple[dict[str, list[float]], pstats.Stats | None]:
    totals = {"timed": [0.0, 0.0], "profiled": [0.0, 0.0]}
    for written in directory.glob("*.json"):
        for mode, (count, seconds) in json.loads(written.read_text()).items():
            totals[mode][0] += count
            totals[mode][1] += seconds
    profiles = [str(p) for p in directory.glob("*.prof")]
    return totals, pstats.Stats(*profiles) if profiles else None


def _measure(served: Served, clients: list, flag: Path, databases: frozenset[str],
             statements_from: str | None) -> _Phase:
    """ROUNDS timed phases (returned) and as many profiled ones, alternating, after one to
    warm up; pg_stat_statements counts from then on (on the database at `statements_from`)."""
    _run_phase(served, clients, None, databases)  # warming up: neither timed nor profiled
    if statements_from:
        with psycopg.connect(statements_from, autocommit=True) as connection:
            connection.execute("SELECT pg_stat_statements_reset()")
    timed = _Phase()
    for _ in range(ROUNDS):
        flag.write_text("timed")
        _run_phase(served, clients, timed, databases)
        flag.write_text("profiled")
        _run_phase(served, clients, _Phase(), databases)
    flag.unlink()
    return timed


def _production_clients(port: int, admin_key: str) -> list[_ProductionPlayer]:
    clients: list[_ProductionPlayer] = [None] * CLIENT_THREADS  # type: ignore[list-item]

    def set_up(i: int) -> None:
        clients[i] = _ProductionPlayer(port, admin_key, 3000 + i)

    run_clients(set_up)
    return clients


def run() -> dict[str, float]:
    figures: dict[str, float] = {}
    tables: dict[str, dict[str, float]] = {}
    others: dict[str, list[tuple[float, str]]] = {}
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-action-profile-") as scratch:
        server_url, statements_kept = stack.enter_context(_cluster())
        production_url = stack.enter_context(_scratch_database(server_url, "_production"))
        anchor_url = stack.enter_context(_scratch_database(server_url, "_anchor"))
        names = {who: str(conninfo_to_dict(url)["dbname"]) for who, url in
                 (("production", production_url), ("anchor", anchor_url))}
        databases = frozenset(names.values())
        upgrade(production_url)
        if statements_kept:
            for url in (production_url, anchor_url):
                with psycopg.connect(url, autocommit=True) as connection:
                    connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        flag = Path(scratch) / "profiling"
        env = {**os.environ, "DATABASE_URL": production_url, "ANCHOR_DATABASE_URL": anchor_url,
               "BENCH_PROFILE_FLAG": str(flag)}
        admin_key = env["CARDROOM_ADMIN_KEY"] = new_secret()
        anchor_keys = _anchor.install(anchor_url, PRODUCTION_SEATS * CLIENT_THREADS)
        env = _production_env(env, stack, scratch)
        statements: dict[str, list[tuple[str, float, float]]] = {}
        for who in ("production", "anchor"):
            out = Path(scratch) / who
            out.mkdir()
            with ExitStack() as serving:
                served = _serve(serving, f"bench._profiled:{who}", {**env, "BENCH_PROFILE_DIR": str(out)})
                clients = (_production_clients(served.port, admin_key) if who == "production" else
                           [_AnchorPlayer(served.port, anchor_keys[i * PRODUCTION_SEATS:(i + 1) * PRODUCTION_SEATS],
                                          i) for i in range(CLIENT_THREADS)])
                timed = _measure(served, clients, flag, databases, production_url if statements_kept else None)
            totals, stats = _collected(out)  # written as the workers left
            if stats and os.environ.get("BENCH_PROFILE_KEEP"):
                stats.dump_stats(Path(os.environ["BENCH_PROFILE_KEEP"]) / f"{who}.prof")
            actions = int(totals["timed"][0] + totals["profiled"][0])
            if statements_kept:
                statements[who] = _statements(production_url, names[who], actions)
            in_app_ms = totals["timed"][1] * 1000 / max(1, totals["timed"][0])
            server_ms = timed.cpu_ms("server")
            unnamed: dict[str, float] = {}
            layers = layer_seconds(stats, unnamed) if stats else {}
            profiled = sum(layers.values()) or 1.0
            tables[who] = {layer: seconds / profiled * in_app_ms for layer, seconds in layers.items()}
            others[who] = sorted(((seconds / profiled * in_app_ms, name) for name, seconds in unnamed.items()),
                                 reverse=True)[:UNNAMED_SHOWN]
            figures.update({
                f"action_profile.{who}_server_cpu_ms": server_ms,
                f"action_profile.{who}_in_app_cpu_ms": in_app_ms,
                f"action_profile.{who}_outside_app_cpu_ms": server_ms - in_app_ms,
                f"action_profile.{who}_postgres_cpu_ms": timed.cpu_ms("postgres"),
                f"action_profile.{who}_statement_ms": sum(ms for _, _, ms in statements.get(who, [])),
                f"action_profile.{who}_statements": sum(calls for _, calls, _ in statements.get(who, [])),
            })
            for layer, ms in tables[who].items():
                figures[f"action_profile.{who}_{_key(layer)}_ms"] = ms
    _print(tables, figures, statements, others)
    return {key: round(value, 3 if abs(value) < 10 else 1) for key, value in figures.items()}


def _key(layer: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", layer.lower().split(" (")[0]).strip("_")


def _print(tables: dict[str, dict[str, float]], figures: dict[str, float],
           statements: dict[str, list[tuple[str, float, float]]], others: dict[str, list[tuple[float, str]]]) -> None:
    production, anchor = tables["production"], tables["anchor"]
    rows = sorted(set(production) | set(anchor), key=lambda layer: -production.get(layer, 0.0))
    print(f"   {'server CPU per action, ms':<42} {'production':>10} {'anchor':>8} {'above':>8}")
    for layer in rows:
        p, a = production.get(layer, 0.0), anchor.get(layer, 0.0)
        print(f"   {layer:<42} {p:>10.3f} {a:>8.3f} {p - a:>8.3f}")
    for total in ("in_app_cpu_ms", "outside_app_cpu_ms", "server_cpu_ms", "postgres_cpu_ms", "statement_ms",
                  "statements"):
        p, a = figures[f"action_profile.production_{total}"], figures[f"action_profile.anchor_{total}"]
        print(f"   {total:<42} {p:>10.3f} {a:>8.3f} {p - a:>8.3f}")
    for who, unnamed in others.items():
        print(f"   {OTHER}, {who}: " + "; ".join(f"{name} {ms:.3f}" for ms, name in unnamed))
    for who, shown in statements.items():
        print(f"   PostgreSQL, {who}: per action, calls and execution ms, by statement")
        for query, calls, ms in shown[:STATEMENTS_SHOWN]:
            print(f"     {calls:6.2f} {ms:7.3f}  {query[:110]}")
