"""A draw hand's deck as the decider deals it, shared by five-card draw's decider
(domain.games.draw) and the draw family's (domain.games.mixed, a hand with a deck): the
deck checked whole, the cards dealt one at a time round the table, and the stub that each
draw takes from, topped up when it runs out with the discards and folded hands (never the
drawing player's own discards or split openers) in the order the caller fixed.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from domain.rules.cards import format_card, new_deck, parse_cards
from domain.rules.violations import Violation

Card = TypeVar("Card")


@dataclass(frozen=True)
class DrawStub:
    """The cards of a draw hand dealt from its deck that no player holds: `cards` the stub,
    top first; `muck` the discards and folded hands a reshuffle takes, in the order thrown;
    `pending` the discards of the seat whose replacements are due (they join the muck once
    it is dealt: never its own reshuffle); `reshuffle_order` the caller's order for the
    discards (None: the order thrown)."""
    cards: tuple[str, ...]
    reshuffle_order: tuple[str, ...] | None
    muck: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()


def check_full_deck(order: Any, name: str, joker: bool) -> tuple[str, ...]:
    """A full deck (with the joker when the hand plays one) in the caller's order."""
    expected = set(new_deck(with_joker=joker))
    if isinstance(order, str) or not isinstance(order, (tuple, list)) or not all(isinstance(c, str) for c in order):
        raise Violation("invalid_card", f"{name} must be a list of card strings like 'As'")
    cards = parse_cards(tuple(order))
    if set(cards) != expected:  # parse_cards refuses a card twice
        raise Violation("invalid_card", f"{name} must hold each of the {len(expected)} cards of "
                        f"this table's deck exactly once, not {len(cards)} cards",
                        numbers={"cards": len(cards), "expected": len(expected)})
    return tuple(format_card(c) for c in cards)


def dealt_round(deck: Sequence[str], seats: Sequence[int], size: int) -> list[tuple[int, str]]:
    """`size` cards each to `seats`, one card at a time round the table from the first."""
    k = len(seats)
    return [(seat, "".join(deck[j + k * r] for r in range(size))) for j, seat in enumerate(seats)]


def in_reshuffle_order(pile: Iterable[Card], order: Sequence[Card] | None) -> tuple[Card, ...]:
    """The discards reshuffled: in the caller's order (`order`, a whole deck's), else in
    the order they were thrown."""
    if order is None:
        return tuple(pile)
    position = {card: k for k, card in enumerate(order)}
    return tuple(sorted(pile, key=position.__getitem__))


def texts(cards: str) -> tuple[str, ...]:
    """An event's run of cards ("AsKd") as card texts."""
    return tuple(cards[i:i + 2] for i in range(0, len(cards), 2))
