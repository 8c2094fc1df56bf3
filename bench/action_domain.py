"""The domain work on the write path of a production hold'em table action, item by item
(issue 37): what bench.action_profile's "decider (domain)" layer is made of, in CPU time
without a profiler's distortion.

A seeded trace is played through the table's decider as bench.tables' production clients
play (6 seats of 10,000 chips, no-limit 50/100, auto_deal, a 30-second action clock, the
same choice of action; a finished table replaced by a new one). Each round then times,
over every action of the trace, each item the write path runs (service.application.commands
.execute and service.http.api.tables.written): the table's decider (decide and evolve,
each hand's deal and Merkle root included, made once as when dealt; at a hand's close, the
table right after its HandClosed too, which the snapshot keeps), the records and their
metadata (`_new_events`: event to record, table seats, secrecy, sealing), the snapshot's
encoding at a hand's close, and the answer's
views (who acts and what they may do, the hand's summary, the events redacted). The figures
are the thread's CPU milliseconds per action, medians over the rounds: compare runs of
two commits interleaved (A, B, A, B ...), since up to 8 helpers share the machine.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench import size
from domain.live import table, table_events
from domain.live.table_commands import Act, CreateTable, TableSeat
from domain.live.table_state import TableState
from domain.records import to_record
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure
from service.application import commands, snapshots, views

ACTIONS = size(3000, smoke=200)
ROUNDS = size(7, smoke=1)
PLAYERS = tuple(f"player-{seat}" for seat in range(6))
VIEWER = views.Viewer("player", PLAYERS[0])
KEYS_IN_A_SNAPSHOT = 40
"""Idempotency keys a snapshot carries (one per write since the table began)."""


class _Draws:
    """Seeded randomness, each value drawn kept, so a step is replayed with the same deal."""

    def __init__(self, rng: random.Random, taken: tuple[Any, ...] = ()) -> None:
        self._rng = rng
        self._replayed = list(taken)
        self.taken: list[Any] = []

    def _draw(self, draw: Callable[[], Any]) -> Any:
        value = self._replayed.pop(0) if self._replayed else draw()
        self.taken.append(value)
        return value

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        return self._draw(lambda: tuple(self._rng.sample(cards, len(cards))))  # type: ignore[no-any-return]

    def salt(self) -> str:
        return self._draw(lambda: self._rng.randbytes(32).hex())  # type: ignore[no-any-return]

    def die(self) -> int:
        return self._draw(lambda: self._rng.randint(1, 6))  # type: ignore[no-any-return]


def _choose(rng: random.Random, legal: dict[str, Any]) -> tuple[str, int | None]:
    """bench.tables' production choice: mostly check or call, some bets and raises sized
    towards the minimum, now and then all in, some folds."""
    aggression = legal.get("raise") or legal.get("bet")
    roll = rng.random()
    if aggression and roll < 0.04:
        return ("raise" if legal.get("raise") else "bet"), aggression["max_to"]
    if aggression and roll < 0.25:
        low, high = aggression["min_to"], aggression["max_to"]
        return ("raise" if legal.get("raise") else "bet"), low + int((high - low) * rng.random() ** 3)
    if legal.get("check"):
        return "check", None
    return ("call", None) if roll < 0.8 and legal.get("call") else ("fold", None)


def _new_table(number: int, rng: random.Random) -> TableState:
    betting = BettingStructure.from_dict({"structure": "no-limit", "small_blind": 50, "big_blind": 100})
    create = CreateTable(f"t{number}", "holdem", {}, betting, tuple(TableSeat(p, 10_000) for p in PLAYERS),
                         auto_deal=True, action_clock_s=30)
    _, state = table.handle(None, create, 0)
    draws = _Draws(rng)
    _, state = table.handle(state, table.fresh_deal(state, draws), 0, draws)
    return state


Step = tuple[TableState, Act, int, tuple[Any, ...], list[Any], TableState]


def trace(actions: int) -> list[Step]:
    """(state before, command, now, the draws taken, events, state after) of each action."""
    rng = random.Random(37)
    steps: list[Step] = []
    tables = 0
    state = _new_table(tables, rng)
    now = 1_800_000_000_000
    while len(steps) < actions:
        shown = views.legal_actions_view(state, VIEWER)
        if shown["to_act"] is None:
            tables += 1
            state = _new_table(tables, rng)
            continue
        action, to = _choose(rng, shown["legal"])
        command = Act(shown["to_act"], action, to)
        draws = _Draws(rng)
        now += 1000
        events, after = table.handle(state, command, now, draws)
        steps.append((state, command, now, tuple(draws.taken), events, after))
        state = after
    return steps


def items(steps: list[Step]) -> dict[str, Callable[[], None]]:
    """Figure name -> one pass of that item over every step."""
    records = [commands._new_events(before, events) for before, _, _, _, events, _ in steps]
    recorded = [tuple({"version": version, "type": r.type, "data": r.data, "metadata": dict(r.metadata)}
                      for version, r in enumerate(written, 1)) for written in records]
    at_close = [table.decided(before, command, now, _Draws(random.Random(), taken)).closed
                for before, command, now, taken, events, _ in steps
                if any(type(e) is table_events.HandClosed for e in events)]
    keys = {f"key-{i}": (i, i) for i in range(KEYS_IN_A_SNAPSHOT)}

    def decide() -> None:
        deal_commitment._levels.cache_clear()  # each hand's root made once, as when dealt
        for before, command, now, taken, _, _ in steps:
            table.decided(before, command, now, _Draws(random.Random(), taken))

    def new_events() -> None:
        for before, _, _, _, events, _ in steps:
            commands._new_events(before, events)

    def to_records() -> None:
        for _, _, _, _, events, _ in steps:
            for event in events:
                to_record(event)

    def snapshot_encode() -> None:
        for closed in at_close:
            snapshots.encode(closed[1] if closed else None, keys, {})

    def legal() -> None:
        for *_, after in steps:
            views.legal_actions_view(after, VIEWER)

    def summary() -> None:
        for *_, after in steps:
            views.hand_summary(after)

    def redact() -> None:
        for shown in recorded:
            views.redact_events(shown, VIEWER)

    return {"decider": decide, "records": new_events, "records_to_record": to_records,
            "snapshot_encode": snapshot_encode,
            "legal_actions_view": legal, "hand_summary": summary, "redact_events": redact}


def run() -> dict[str, float]:
    steps = trace(ACTIONS)
    timed = items(steps)
    rounds: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(ROUNDS):
        for name, one_pass in timed.items():
            began = time.thread_time()
            one_pass()
            rounds[name].append((time.thread_time() - began) * 1000 / len(steps))
    figures = {f"action_domain.{name}_ms": statistics.median(ms) for name, ms in rounds.items()}
    # to_record is part of the records' item: not counted twice.
    figures["action_domain.total_ms"] = sum(ms for key, ms in figures.items() if "to_record" not in key)
    return {key: round(ms, 4) for key, ms in figures.items()}
