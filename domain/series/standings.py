"""A series' standings: each player's league points summed over the series' finished
events, best first (ties share a rank and are listed by player id, so the order is stable)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from domain.series.points import Finish, PointsFormula, points


@dataclass(frozen=True)
class EventResults:
    """A finished event as the points need it."""
    tournament_id: str
    field_size: int  # the players who entered, each once
    buy_in: int
    finishes: tuple[Finish, ...]


@dataclass(frozen=True)
class Scored:
    tournament_id: str
    finish: Finish
    points: Decimal


@dataclass(frozen=True)
class Standing:
    rank: int
    player_id: str
    points: Decimal
    events: tuple[Scored, ...]  # in the series' order


def scored(formula: PointsFormula, event: EventResults) -> tuple[Scored, ...]:
    return tuple(Scored(event.tournament_id, f, points(formula, f, event.field_size, event.buy_in))
                 for f in event.finishes)


def standings(formula: PointsFormula, events: Iterable[EventResults]) -> tuple[Standing, ...]:
    by_player: dict[str, list[Scored]] = {}
    for event in events:
        for entry in scored(formula, event):
            by_player.setdefault(entry.finish.player_id, []).append(entry)
    totals = sorted(((sum((s.points for s in entries), Decimal("0.00")), player, tuple(entries))
                     for player, entries in by_player.items()), key=lambda t: (-t[0], t[1]))
    ranked: list[Standing] = []
    for position, (total, player, entries) in enumerate(totals, start=1):
        rank = ranked[-1].rank if ranked and ranked[-1].points == total else position
        ranked.append(Standing(rank, player, total, entries))
    return tuple(ranked)
