"""What every betting ruling shares (domain.rulings.betting for hold'em, Omaha and
five-card draw, domain.rulings.betting_mixed for the mixed games): the seats read from a
request, the money in an answer, and a proposal's verdict."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.rules.betting import Amount, BettingState, legal_basis
from domain.rules.citations import rule_for
from domain.rules.pots import PotAward
from domain.rules.violations import Violation


def seated(request: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[Amount, ...], dict[str, int]]:
    """The request's players and stacks, clockwise from left of the button, and each
    player's seat; a `button` given must be the last of them."""
    seats = request.get("seats")
    if not isinstance(seats, list) or len(seats) < 2:
        raise Violation("validation_error", "seats must list at least two players")
    players, stacks = [], []
    for seat in seats:
        name, stack = seat.get("player"), seat.get("stack")
        if not isinstance(name, str) or isinstance(stack, bool) or not isinstance(stack, int) or stack <= 0:
            raise Violation("validation_error", f"each seat needs a player name and a stack above 0: {seat!r}")
        players.append(name)
        stacks.append(stack)
    if len(set(players)) != len(players):
        raise Violation("validation_error", "player names must be distinct")
    seat_of = {name: seat for seat, name in enumerate(players)}
    button = request.get("button")
    if button is not None and button != players[-1]:
        raise Violation("validation_error",
                        f"the button must be the last seat ({players[-1]}), not {button!r}")
    return tuple(players), tuple(stacks), seat_of


def seat_named(seat_of: Mapping[str, int], name: Any) -> int:
    if name not in seat_of:
        raise Violation("validation_error", f"{name!r} is not seated", numbers={"player": name})
    return seat_of[name]


def money(names: tuple[str, ...], over: bool, awards: tuple[PotAward, ...],
          returned: tuple[tuple[int, Amount], ...], pots: tuple[Any, ...],
          stacks: tuple[Amount, ...]) -> dict[str, Any]:
    """`pots` (with winners once the hand is over), `returned` uncalled chips, `stacks`."""
    answer: dict[str, Any] = {}
    if over:
        answer["pots"] = [{"amount": a.amount, "eligible": [names[s] for s in a.eligible],
                           "winners": [names[s] for s in a.winners],
                           "shares": {names[s]: share for s, share in zip(a.winners, a.shares)}}
                          for a in awards]
        by_name: dict[str, Amount] = {}
        for seat, amount in returned:
            by_name[names[seat]] = by_name.get(names[seat], 0) + amount
        answer["returned"] = by_name
    else:
        answer["pots"] = [{"amount": p.amount, "eligible": [names[s] for s in p.eligible]}
                          for p in pots]
    answer["stacks"] = {name: stack for name, stack in zip(names, stacks)}
    return answer


def refused(violation: Violation) -> dict[str, Any]:
    """An illegal proposal, read out as the same refusal at a live table would be: the
    code, the detail, the rule applied (only when one is) and the numbers."""
    return {"legal": False, "code": violation.code, "detail": violation.detail,
            **({"rule": violation.rule} if violation.rule else {}),
            "numbers": dict(violation.numbers)}


def allowed(betting: BettingState | None, seat: int, action: str, to: Any) -> dict[str, Any]:
    """A legal proposal with what makes it so: the detail and rule of the amount (when a
    rule decides it) and the numbers (`to`, the bounds; pot limit, the pot's arithmetic)."""
    if betting is None or betting.to_act != seat:
        rule = rule_for(action)  # a draw or an openers declaration: its own rule, if it has one
        return {"legal": True, **({"rule": rule} if rule else {}), "numbers": {}}
    detail, rule, numbers = legal_basis(betting, seat, action)
    if to is not None and action in ("bet", "raise"):
        numbers = {"to": to, **numbers}
    return {"legal": True, **({"detail": detail} if detail else {}),
            **({"rule": rule} if rule else {}), "numbers": numbers}
