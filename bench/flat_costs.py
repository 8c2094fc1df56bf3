"""Costs that stay flat as a table ages (issue 18): one heads-up hold'em table after
HANDS hands (BENCH_FLAT_HANDS, 20,000 by default) beside a fresh table, in the same run,
on the same PostgreSQL store.

The old table's history is played by the domain itself (table.handle, auto-deal, a fixed
mix of hands: a fold before the flop, a check-down, a raise and call, a flop bet and a
fold) and written through the application's own tagging and sealing
(commands._new_events) and the deployment's store (service.adapters.integrity.open_store:
hash chain, MACs) in appends of about APPEND_EVENTS events, a snapshot
at every HandClosed as the application's handling path writes them. Then, through the Flask app (test
client: the whole request path without the network; an admin key, an Idempotency-Key and
If-Match on every action):

- `flat_costs.action_p50_ms_old_table` beside `..._fresh_table`: ACTIONS actions on each,
  one on each table in turn (so drift on a busy machine hits both alike), and
  `action_p50_old_vs_fresh` (goal: at most 1.10).
- `flat_costs.hand_get_p50_ms_first|middle|last` (hands 1, HANDS/2, HANDS of the old
  table) beside `..._fresh_table` (hand 1 of the fresh one): GET /v1/hands/{id}, median of
  HAND_READS reads each (goal: < 10 ms).
- `flat_costs.cold_load_p50_ms` (the table loaded by a process that has not cached it: the newest
  snapshot and the events after it; goal < 50 ms) beside `cold_load_full_replay_ms`, the
  first `cold_load_full_replay_events` (100,000) events of the same table replayed from
  version 0 (what a cold load of a 100,000-event table cost before snapshots), and
  `old_table_events`, the table's length.
- `flat_costs.read_check_us_per_event`: what verifying before acting adds to a read, per
  event (base.check_read: its hash recomputed from the stored hash before it, its MAC
  checked, and the predecessor's hash read beside it): the median of CHECKED_READS reads of
  the old table's last CHECKED_EVENTS events, checked, less the same reads unchecked. Every
  figure above is measured with the check on (the store checks every read).

Uses DATABASE_URL's server if set (in a scratch database, dropped afterwards), else an
embedded PostgreSQL.
"""
from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import size
from bench.store import _scratch_database, _server  # the store bench's scratch database
from domain.live import table, table_commands
from domain.rules.betting import BettingStructure
from service.adapters.migrate import upgrade
from service.adapters.store.base import NewEvent, Reveal
from service.application import commands, views
from service.application.handling import Decision, Loaded, Streams
from service.config import Config

HANDS = int(os.environ.get("BENCH_FLAT_HANDS") or size(20_000, smoke=4))
APPEND_EVENTS = size(2000, smoke=20)  # smoke: several appends, snapshots between them
ACTIONS = size(300, smoke=4)
REPLAYED_EVENTS = 100_000
HAND_READS = size(40, smoke=2)
COLD_LOADS = size(20, smoke=2)
CHECKED_EVENTS = size(2000, smoke=20)
CHECKED_READS = size(20, smoke=2)
NL = BettingStructure("no-limit", small_blind=5, big_blind=10)
STACK = 10**9  # nobody busts in any number of hands
PLAYERS = ("ann", "bob")
ADMIN_KEY = "bench-admin-" + uuid.uuid4().hex


class _SeededDraws:
    """Reproducible decks and salts for the written history (the app draws with secrets)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        order = list(cards)
        self._random.shuffle(order)
        return tuple(order)

    def salt(self) -> str:
        return self._random.randbytes(32).hex()

    def die(self) -> int:
        return self._random.randint(1, 6)


def _choice(legal: dict[str, Any], hand_number: int, acted: int) -> tuple[str, int | None]:
    """The mix of hands, by hand number and how many actions the hand has seen."""
    kind = hand_number % 4
    if kind == 0 and legal.get("fold"):
        return "fold", None
    if kind == 2 and acted == 0 and legal.get("raise"):
        return "raise", legal["raise"]["min_to"]
    if kind == 3 and acted == 2 and legal.get("bet"):
        return "bet", legal["bet"]["min_to"]
    if kind == 3 and acted == 3 and legal.get("fold"):
        return "fold", None
    return ("check", None) if legal.get("check") else ("call", None)


def _created(table_id: str) -> table_commands.CreateTable:
    return table_commands.CreateTable(table_id, "holdem", {}, NL, tuple(table_commands.TableSeat(p, STACK) for p in PLAYERS),
                                      auto_deal=True)


def _write_history(store: Any, table_id: str, hands: int) -> None:
    """`hands` hands played by the domain, written as the application writes them."""
    draws = _SeededDraws(18)
    stream = commands.table_stream(table_id)
    tables = Streams(store, commands.TABLES, cached=0)
    loaded: commands.LoadedTable = Loaded(stream, 0, None)
    written = 0
    pending: list[NewEvent] = []
    closes: list[tuple[commands.LoadedTable, Decision[Any], int]] = []
    acted = 0

    def flush() -> None:
        nonlocal written, pending, closes
        with store.transaction():  # the events and their snapshots, one commit
            store.append(stream, written, pending)
            for before, decided, first in closes:
                tables._snapshot_closed(before, decided, first, {}, {})
        written += len(pending)
        pending, closes = [], []

    command: Any = _created(table_id)
    now = commands.now_ms()
    while True:
        events, state, closed = table.decided(loaded.state, command, now, draws)
        new = commands._new_events(loaded.state, events)
        if closed is not None:  # the table right after the close, as the application snapshots it
            closes.append((loaded, Decision(new, state, events, closed=closed), loaded.version + 1))
            acted = 0
        else:
            acted += 1
        pending += new
        loaded = Loaded(stream, loaded.version + len(new), state)
        if len(pending) >= APPEND_EVENTS:
            flush()
        if state.hands_played > hands or (state.hands_played == hands and not state.hand_in_progress):
            break
        if not state.hand_in_progress:
            command = table.fresh_deal(state, draws)
            continue
        action, to = _choice(views.legal_actions_view(state)["legal"], state.hands_played, acted)
        command = table_commands.Act(state.to_act, action, to)
    if pending:
        flush()


class _Player:
    """Plays one table through the HTTP app, as a client that keeps the last answer."""

    def __init__(self, client: Any, table_id: str, version: int, shown: dict[str, Any]) -> None:
        self.client, self.table_id, self.version, self.shown = client, table_id, version, shown
        self.acted = 0

    def act(self) -> float:
        legal, player = self.shown["legal"], self.shown["to_act"]
        number = self.shown["hand"]["number"]
        action, to = _choice(legal, number, self.acted)
        body: dict[str, Any] = {"player_id": player, "action": action}
        if to is not None:
            body["to"] = to
        started = time.perf_counter()
        answer = self.client.post(f"/v1/tables/{self.table_id}/actions", json=body, headers={
            "Authorization": f"Bearer {ADMIN_KEY}", "If-Match": f'"{self.version}"',
            "Idempotency-Key": uuid.uuid4().hex})
        elapsed = time.perf_counter() - started
        assert answer.status_code == 201, answer.get_json()
        shown = answer.get_json()
        self.acted = 0 if shown["hand"]["number"] != number else self.acted + 1
        self.version, self.shown = shown["version"], shown
        return elapsed * 1000


def _player(client: Any, table_id: str) -> _Player:
    answer = client.get(f"/v1/tables/{table_id}/legal-actions", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    assert answer.status_code == 200, answer.get_json()
    shown = answer.get_json()
    summary = client.get(f"/v1/tables/{table_id}", headers={"Authorization": f"Bearer {ADMIN_KEY}"}).get_json()
    shown["hand"] = {"number": summary["hands_played"]}
    return _Player(client, table_id, int(answer.headers["ETag"].strip('"')), shown)


def _median_ms(read: Callable[[], Any], times: int) -> float:
    taken = []
    for _ in range(times):
        started = time.perf_counter()
        read()
        taken.append((time.perf_counter() - started) * 1000)
    return statistics.median(taken)


def _hand_reader(client: Any, hand_id: str) -> Callable[[], None]:
    def read() -> None:
        answer = client.get(f"/v1/hands/{hand_id}", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
        assert answer.status_code == 200, answer.get_json()
    return read


def _check_cost_us(store: Any, stream: str, events: int) -> float:
    """Microseconds per event a checked read costs beyond an unchecked one."""
    after = max(0, events - CHECKED_EVENTS)

    def reader(checked: bool) -> Callable[[], Any]:
        return lambda: store.read_stream(stream, after_version=after, reveal=Reveal.ALL, checked=checked)
    checked, unchecked = (_median_ms(reader(flag), CHECKED_READS) for flag in (True, False))
    return round((checked - unchecked) * 1000 / (events - after), 2)


def run() -> dict[str, float]:
    from service.bootstrap import create_app

    with _server() as server, _scratch_database(server) as url, \
            tempfile.TemporaryDirectory(prefix="cardroom-bench-flat-") as data_dir:
        upgrade(url)
        app = create_app(Config(database_url=url, admin_key=ADMIN_KEY, data_dir=Path(data_dir)))
        wired = app.extensions["cardroom"]
        store = wired.store
        try:
            old, fresh = f"old-{uuid.uuid4().hex[:8]}", f"fresh-{uuid.uuid4().hex[:8]}"
            started = time.perf_counter()
            _write_history(store, old, HANDS)
            _write_history(store, fresh, 1)
            written_s = time.perf_counter() - started
            with wired.pool.connection() as connection:
                connection.execute("ANALYZE events")
                connection.execute("ANALYZE snapshots")
            events = store.stream_version(commands.table_stream(old))
            client = app.test_client()
            players = {old: _player(client, old), fresh: _player(client, fresh)}
            for player in players.values():  # unmeasured: caches and prepared statements
                for _ in range(20):
                    player.act()
            timings: dict[str, list[float]] = {old: [], fresh: []}
            for turn in range(ACTIONS):  # one action each in turn, who goes first alternating
                for table_id in ((old, fresh) if turn % 2 == 0 else (fresh, old)):
                    timings[table_id].append(players[table_id].act())
            old_p50, fresh_p50 = statistics.median(timings[old]), statistics.median(timings[fresh])
            figures = {
                "flat_costs.old_table_hands": HANDS,
                "flat_costs.old_table_events": events,
                "flat_costs.history_written_s": round(written_s, 1),
                "flat_costs.action_p50_ms_old_table": round(old_p50, 3),
                "flat_costs.action_p50_ms_fresh_table": round(fresh_p50, 3),
                "flat_costs.action_p50_old_vs_fresh": round(old_p50 / fresh_p50, 3),
            }
            for name, number in (("first", 1), ("middle", HANDS // 2), ("last", HANDS)):
                figures[f"flat_costs.hand_get_p50_ms_{name}"] = round(
                    _median_ms(_hand_reader(client, f"{old}.{number}"), HAND_READS), 2)
            figures["flat_costs.hand_get_p50_ms_fresh_table"] = round(
                _median_ms(_hand_reader(client, f"{fresh}.1"), HAND_READS), 2)

            def cold_load() -> None:
                Streams(store, commands.TABLES, cached=0).load(commands.table_stream(old))
            figures["flat_costs.cold_load_p50_ms"] = round(_median_ms(cold_load, COLD_LOADS), 2)
            replayed = min(events, REPLAYED_EVENTS)
            figures["flat_costs.cold_load_full_replay_ms"] = round(_median_ms(
                lambda: Streams(store, replace(commands.TABLES, snapshots=None), cached=0).replay(
                    commands.table_stream(old), replayed), 1), 1)
            figures["flat_costs.cold_load_full_replay_events"] = replayed
            figures["flat_costs.read_check_us_per_event"] = _check_cost_us(store, commands.table_stream(old), events)
            return figures
        finally:
            wired.pool.close()
