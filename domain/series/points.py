"""League points (running-events.md, "Series and leagues"): a formula the organiser sets,
from the place, the field size, the buy-in and the bounties won, pure functions of them.

The formulas (docs/series.md states them with worked examples), with n the field size (the
players who entered, each once), p the place for points and `scale` the organiser's:
- `field_root`: scale × √(n / p), the winner of a larger field earning more;
- `linear`: scale × (n − p + 1), last place 1 × scale;
- `buy_in_weighted`: `field_root` × buy-in / reference_buy_in;
- `table`: points by place from the organiser's table (places past it earn none).
Every formula adds `participation` points for playing and, when `bounty_cash_per_point` is
set, one point per that much bounty cash won. Points are exact decimals rounded half up to
hundredths, so standings add up by hand.

A deal is respected: a player in a deal earns the points of the place agreed in it, by
default the place they finished in (`points_place`).

A custom formula is a table plus named parameters, not an expression language: nothing an
organiser types is evaluated, and a table is checked (never negative, never increasing
down the places) so a better place never earns fewer points.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from domain.rules.violations import Violation

FIELD_ROOT, LINEAR, BUY_IN_WEIGHTED, TABLE = "field_root", "linear", "buy_in_weighted", "table"
FORMULAS = (FIELD_ROOT, LINEAR, BUY_IN_WEIGHTED, TABLE)
HUNDREDTH = Decimal("0.01")
MAX_TABLE_PLACES = 1000


@dataclass(frozen=True)
class PointsFormula:
    kind: str = FIELD_ROOT
    scale: int = 10  # field_root, linear, buy_in_weighted
    reference_buy_in: int = 100  # buy_in_weighted: the buy-in that earns field_root's points
    table: tuple[int, ...] = ()  # table: points by place, first place first
    participation: int = 0  # to every player who played
    bounty_cash_per_point: int = 0  # one point per this much bounty cash won; 0: bounties earn none


@dataclass(frozen=True)
class Finish:
    """One player's result in a finished event, as the points need it."""
    player_id: str
    place: int  # where they finished
    prize: int
    bounty_cash: int
    agreed_place: int = 0  # a deal's place agreed; 0: none


def points_place(finish: Finish) -> int:
    """The place the points are for: the deal's agreed place, else the place finished."""
    return finish.agreed_place or finish.place


def check_formula(formula: PointsFormula) -> None:
    """422 `invalid_formula` for a formula that could give negative points or more points to
    a worse place."""
    def refuse(detail: str, **numbers: object) -> Violation:
        return Violation("invalid_formula", detail, numbers={"kind": formula.kind, **numbers})

    if formula.kind not in FORMULAS:
        raise refuse(f"the formulas are {', '.join(FORMULAS)}")
    if min(formula.scale, formula.participation, formula.bounty_cash_per_point) < 0:
        raise refuse("scale, participation and bounty_cash_per_point are not negative",
                     scale=formula.scale, participation=formula.participation,
                     bounty_cash_per_point=formula.bounty_cash_per_point)
    if formula.kind == BUY_IN_WEIGHTED and formula.reference_buy_in <= 0:
        raise refuse("buy_in_weighted needs a reference_buy_in above 0", reference_buy_in=formula.reference_buy_in)
    if formula.kind == TABLE:
        if not 0 < len(formula.table) <= MAX_TABLE_PLACES:
            raise refuse(f"a table gives points for 1 to {MAX_TABLE_PLACES} places", places=len(formula.table))
        if min(formula.table) < 0 or any(a < b for a, b in zip(formula.table, formula.table[1:])):
            raise refuse("a table's points are not negative and never increase down the places",
                         table=list(formula.table))
    elif formula.table:
        raise refuse("only the table formula takes a table")


def place_points(formula: PointsFormula, place: int, field_size: int, buy_in: int) -> Decimal:
    """The points for `place` in a field of `field_size` (before participation and bounties)."""
    if formula.kind == TABLE:
        return Decimal(formula.table[place - 1]) if place <= len(formula.table) else Decimal(0)
    if formula.kind == LINEAR:
        return Decimal(formula.scale * max(field_size - place + 1, 0))
    root = formula.scale * (Decimal(field_size) / Decimal(place)).sqrt()
    if formula.kind == BUY_IN_WEIGHTED:
        return root * Decimal(buy_in) / Decimal(formula.reference_buy_in)
    return root


def points(formula: PointsFormula, finish: Finish, field_size: int, buy_in: int) -> Decimal:
    """A player's points for one event, in hundredths (half up)."""
    earned = place_points(formula, points_place(finish), field_size, buy_in) + formula.participation
    if formula.bounty_cash_per_point:
        earned += Decimal(finish.bounty_cash) / Decimal(formula.bounty_cash_per_point)
    return earned.quantize(HUNDREDTH, rounding=ROUND_HALF_UP)
