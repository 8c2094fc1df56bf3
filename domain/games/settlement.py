"""The end of a hand of the board, stud and draw games (domain.games.holdem,
domain.games.mixed, domain.games.draw): the pots as they stand, and the settlement: every
pot awarded (`PotAwarded`), then the hand ended with the stacks it leaves. Pots are fixed
before any chip moves.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from domain.games.hand_events import PotAwarded
from domain.rules.betting import Amount, BettingState
from domain.rules.pots import Pot, PotAward, build_pots, split

Ended = TypeVar("Ended")


def open_pots(betting: BettingState) -> tuple[Pot, ...]:
    """Main pot then side pots, the bets of the current round included."""
    b = betting
    if 0 not in b.stacks:
        # Nobody is all in (the commonest case: every action's answer shows the pots): one
        # pot, every player still in eligible, as build_pots makes it.
        above = sum(c for c in b.committed if c > 0)
        return (Pot(above + b.dead if b.dead else above, b.contenders),)
    return build_pots(b.committed, b.folded, tuple(stack == 0 for stack in b.stacks), b.dead)


def settlement(betting: BettingState, odd_chip: str,
               showdown_awards: Callable[[tuple[Pot, ...]], tuple[PotAward, ...]],
               hand_ended: Callable[[tuple[Amount, ...], bool], Ended]) -> list[PotAwarded | Ended]:
    """Award every pot, then end the hand: at a showdown as `showdown_awards` ranks the
    hands; when everyone else folded, one pot, all of it, to the last player in.
    `hand_ended(stacks, at_showdown)` is the game's own HandEnded."""
    b = betting
    at_showdown = not b.hand_decided
    if at_showdown:
        awards = showdown_awards(open_pots(b))
    else:
        winner = b.folded.index(False)
        total = b.pot_total
        awards = (PotAward(total, (winner,), *split(total, (winner,), b.button, b.seat_count, odd_chip)),)
    events: list[PotAwarded | Ended] = [PotAwarded(a.amount, a.eligible, a.winners, a.shares) for a in awards]
    stacks = list(b.stacks)
    for award in awards:
        for seat, share in zip(award.winners, award.shares, strict=True):
            stacks[seat] += share
    events.append(hand_ended(tuple(stacks), at_showdown))
    return events
