"""The betting command and events every betting game shares (hold'em, Omaha, five-card
draw), and the showdown's mucks and requests to see: one definition, so the store's record types ("ActionTaken", "PotAwarded", ...) mean
the same thing in every game. Each game module imports them and maps them in its own
`EVENT_TYPES`.
"""
from __future__ import annotations

from dataclasses import dataclass

from domain.frozen import made_at_once
from domain.rules.betting import Amount, BettingState, with_changes
from domain.rules.pots import PotAward


@made_at_once
@dataclass(frozen=True)
class PostAction:
    """fold | check | call | bet | raise; `to` is the round total for bet and raise."""
    position: int
    action: str
    to: Amount | None = None


@dataclass(frozen=True)
class ActionTaken:
    """`to`: the seat's round total after the action; `adds`: chips pushed in now."""
    position: int
    action: str
    to: Amount
    adds: Amount


@dataclass(frozen=True)
class UncalledReturned:
    position: int
    amount: Amount


@dataclass(frozen=True)
class PotAwarded:
    amount: Amount
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[Amount, ...]


@dataclass(frozen=True)
class CardsMucked:
    """`seat` threw the hand away at the showdown: its cards stay hidden from the players."""
    position: int


@dataclass(frozen=True)
class ShowAsked:
    """`seat` asked to see `target`'s hand (TDA 2024 18-B); the CardsShown of it follows."""
    position: int
    target: int


def credit_award(betting: BettingState, event: PotAwarded) -> tuple[BettingState, PotAward]:
    """The betting state with the pot's shares added to the winners' stacks, and the award
    as the state records it."""
    stacks = list(betting.stacks)
    for seat, share in zip(event.winners, event.shares):
        stacks[seat] += share
    award = PotAward(event.amount, event.eligible, event.winners, event.shares)
    return with_changes(betting, stacks=tuple(stacks)), award
