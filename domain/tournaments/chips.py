"""Chips of a tournament beyond the hands: the colour-up chip race.

TDA 2024 24 (chip race / colouring up): at a scheduled colour-up the chips of the
removed denominations are raced off, starting in seat 1, at most one chip of the new
smallest denomination to a player, and nobody is raced out: a player whose last chips
are raced gets one chip of the new denomination before the race awards any other
(24-A). What is left of the removed chips is removed without compensation (24-C).

Decided where the rule is silent:
- how many chips the race awards: the odd chips' total divided by the new smallest
  denomination, rounded half up (common house practice: 75 in odd chips of 25 race for
  one 100, 25 for none), and never fewer than the players it protects from being raced
  out (those chips are added);
- the cards: one per odd chip (its count in the old smallest denomination), dealt from
  seat 1 round the table, each player's cards at once; a fresh shuffled deck when one
  runs out. A player's best card (rank, then suit: spades, hearts, diamonds, clubs) races;
  equal best cards (from two decks) go to the earlier seat.
Stacks after the race are multiples of the new smallest denomination.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from domain.rules.cards import RANKS, deck_texts
from domain.rules.violations import Violation

SUIT_ORDER = "cdhs"  # clubs lowest, spades highest (the race's tie-break by suit)


@dataclass(frozen=True)
class RacedStack:
    player_id: str
    seat: int  # table seat, 0 = seat 1
    before: int
    after: int
    cards: tuple[str, ...]  # dealt for the player's odd chips
    protected: bool = False  # raced out otherwise: given one chip first (TDA 2024 24-A)


def chip_race(stacks: Sequence[tuple[int, str, int]], smallest: int, new_smallest: int,
              rng: random.Random) -> tuple[RacedStack, ...]:
    """Race off the chips below `new_smallest` at one table. `stacks`: (seat, player,
    chips), any order; `smallest`: the smallest denomination in play before."""
    if not 0 < smallest < new_smallest or new_smallest % smallest:
        raise Violation("invalid_colour_up",
                        f"colouring up from {smallest} to {new_smallest}: the new chip must be a larger "
                        "multiple of the old one", numbers={"smallest": smallest, "new_smallest": new_smallest})
    ordered = sorted(stacks)
    odd = {player: chips % new_smallest for _, player, chips in ordered}
    protected = {player for _, player, chips in ordered if 0 < chips < new_smallest}
    to_award = max((sum(odd.values()) * 2 + new_smallest) // (2 * new_smallest), len(protected))
    racing = max(0, to_award - len(protected))
    deck: list[str] = []
    cards: dict[str, tuple[str, ...]] = {}
    for _, player, _chips in ordered:
        if odd[player] == 0 or player in protected:
            continue
        dealt = []
        for _ in range(max(1, -(-odd[player] // smallest))):
            if not deck:
                deck = list(deck_texts())
                rng.shuffle(deck)
            dealt.append(deck.pop())
        cards[player] = tuple(dealt)
    seat_of = {player: seat for seat, player, _ in ordered}
    by_best = sorted(cards, key=lambda p: (-_strength(max(cards[p], key=_strength)), seat_of[p]))
    winners = set(by_best[:racing])
    raced = []
    for seat, player, chips in ordered:
        whole = chips - odd[player]
        won = player in winners or player in protected
        raced.append(RacedStack(player, seat, chips, whole + (new_smallest if won else 0),
                                cards.get(player, ()), player in protected))
    return tuple(raced)


def _strength(card: str) -> int:
    return RANKS.index(card[0]) * 4 + SUIT_ORDER.index(card[1])
