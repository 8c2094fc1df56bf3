"""Short-deck (six-plus) hold'em evaluation: 36 cards, sixes to aces.

Two rules differ from the full deck: a flush beats a full house (fewer flushes can be made
from nine ranks), and A-6-7-8-9 is a straight, the lowest one (the ace plays below the six,
as it plays below the deuce in the full deck's wheel). Trips still lose to a straight.

Strengths keep domain.rules.evaluation's layout (category << 20, then five rank nibbles) with
the categories renumbered: full house 5, flush 6. The tables are domain.rules.evaluation's,
filtered to the short deck's ranks and corrected once (built on first use).
"""
from __future__ import annotations

from collections.abc import Sequence

from domain.rules.cards import Card
from domain.rules.evaluation_tables import (
    ACE,
    CARD_WEIGHT,
    FLUSH,
    FLUSH_BITS,
    FLUSH_STRENGTH,
    FULL_HOUSE,
    NONFLUSH_STRENGTH,
    RANK_KEY_SHIFT,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_COUNTER_START,
    pack,
)

CATEGORIES = ("high_card", "one_pair", "two_pair", "three_of_a_kind", "straight",
              "full_house", "flush", "four_of_a_kind", "straight_flush")
SHORT_DECK_RANKS = "6789TJQKA"
# Rank indexes (0 = deuce) of A, 6, 7, 8, 9: the short deck's lowest straight.
_LOW_STRAIGHT_MASK = (1 << 12) | 0b1111 << 4
_LOW_STRAIGHT = (9, 8, 7, 6, ACE)
_CATEGORY_SWAP = {FLUSH: FULL_HOUSE, FULL_HOUSE: FLUSH}


def is_short_deck_card(card: Card) -> bool:
    return 0 <= card < 52 and card >> 2 >= 4


def _renumbered(value: int) -> int:
    category = value >> 20
    if category in _CATEGORY_SWAP:
        return _CATEGORY_SWAP[category] << 20 | value & 0xFFFFF
    return value


def _rank_mask_of_key(key: int) -> int:
    return sum(1 << index for index in range(13) if key >> 3 * index & 7)


def _nonflush_table() -> dict[int, int]:
    short_ranks = 0x7 * sum(1 << 3 * index for index in range(4))  # deuce..five digits
    table = {}
    for key, value in NONFLUSH_STRENGTH.items():
        if key & short_ranks:
            continue
        if value >> 20 < STRAIGHT and \
                _rank_mask_of_key(key) & _LOW_STRAIGHT_MASK == _LOW_STRAIGHT_MASK:
            value = pack(STRAIGHT, _LOW_STRAIGHT)
        table[key] = _renumbered(value)
    return table


def _flush_table() -> tuple[int, ...]:
    values = []
    for mask in range(1 << 13):
        value = FLUSH_STRENGTH[mask]
        if value >> 20 == FLUSH and mask & _LOW_STRAIGHT_MASK == _LOW_STRAIGHT_MASK:
            value = pack(STRAIGHT_FLUSH, _LOW_STRAIGHT)
        values.append(_renumbered(value) if value else 0)
    return tuple(values)


_NONFLUSH: dict[int, int] = {}
_FLUSH: list[tuple[int, ...]] = []


def short_deck_strength(cards: Sequence[Card]) -> int:
    """Strength of the best five of 5..7 short-deck cards (higher is better)."""
    if not _NONFLUSH:
        _FLUSH.append(_flush_table())
        _NONFLUSH.update(_nonflush_table())
    key = SUIT_COUNTER_START
    for card in cards:
        key += CARD_WEIGHT[card]
    if key & FLUSH_BITS:
        # Seven cards with five of one suit hold no full house or quads beside it.
        suit = (key & FLUSH_BITS).bit_length() // 4 - 1
        mask = 0
        for card in cards:
            if card & 3 == suit:
                mask |= 1 << (card >> 2)
        return _FLUSH[0][mask]
    return _NONFLUSH[key >> RANK_KEY_SHIFT]


def short_deck_category(value: int) -> str:
    category = CATEGORIES[value >> 20]
    if category == "straight_flush" and value >> 16 & 15 == ACE:
        return "royal_flush"
    return category
