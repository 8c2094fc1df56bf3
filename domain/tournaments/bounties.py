"""Bounties: what a bust pays, and to whom (running-events.md, Money).

Each entry (and re-entry) carries a bounty on the player's head. Fixed: whoever busts the
player wins all of it. Progressive (PKO): the eliminator wins a share in cash (house
setting, default half) and the rest is added to the eliminator's own bounty. A rebuy buys
no bounty: a player busted in the rebuy period keeps their head until they are out.

A split pot: the winners of the pot that busted the player share the bounty in equal
parts (when the player's chips went to several pots with different winners, the floor or
the table names the winners of the highest-numbered pot the player was in). The odd units
go one each to the winners in TDA 2024 20's order: the first winner left of the button
first. The winner of the tournament collects their own bounty at the end.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

BOUNTY_FIXED, BOUNTY_PROGRESSIVE = "fixed", "progressive"
BOUNTY_KINDS = (BOUNTY_FIXED, BOUNTY_PROGRESSIVE)


@dataclass(frozen=True)
class BountyAward:
    winner: str
    busted: str  # whose bounty it was (the winner's own, collected at the end)
    cash: int  # paid to the winner
    head: int = 0  # progressive: added to the winner's own bounty


def tda20_order(winners: Sequence[str], seats: Mapping[str, int], button: int, table_size: int) -> tuple[str, ...]:
    """The winners from the first seat left of the button round the table (TDA 2024 20):
    the order odd units are handed out in."""
    return tuple(sorted(winners, key=lambda w: (seats[w] - button - 1) % table_size))


def _split(amount: int, winners: Sequence[str]) -> list[int]:
    share, odd = divmod(amount, len(winners))
    return [share + (1 if rank < odd else 0) for rank in range(len(winners))]


def bust_awards(kind: str, head: int, busted: str, winners: Sequence[str],
                percent_to_eliminator: int) -> tuple[BountyAward, ...]:
    """The bounty of `busted` (worth `head`) shared by `winners`, given in TDA 2024 20's order."""
    if not winners or head <= 0:
        return ()
    cash = head if kind == BOUNTY_FIXED else head * percent_to_eliminator // 100
    return tuple(BountyAward(winner, busted, paid, added) for winner, paid, added
                 in zip(winners, _split(cash, winners), _split(head - cash, winners)))
