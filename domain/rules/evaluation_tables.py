"""Lookup tables behind the evaluator, built once at import (about 0.2 s on an idle machine).

Strength layout (shared with domain.rules.evaluation): `category << 20` plus the five ranks of
the best hand, 2..14, one per 4-bit nibble in the order they are compared, e.g. a full
house kings over sevens is 0x6DDD77 and the wheel is 0x45432E (ranks 5,4,3,2,A).
So comparing two strengths as ints compares category first, then the ranks that make it,
then the kickers; suits never enter.

The fast path sums one precomputed weight per card (`CARD_WEIGHT`):
- bits 16 and up hold the rank counts as 3-bit digits (at most nine cards and four of
  a rank, so no digit ever carries): a key into `NONFLUSH_STRENGTH`, the best non-flush hand for that
  multiset of ranks;
- bits 0..15 hold one 4-bit counter per suit. Starting them at 3 (`SUIT_COUNTER_START`)
  makes bit 3 of a counter set exactly when the suit has five or more cards (3+5 = 8, and
  3+9 = 12 still fits), so `key & FLUSH_BITS` tests for a flush without a branch per suit.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH = 0, 1, 2, 3, 4, 5
FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_OF_A_KIND = 6, 7, 8, 9

SUIT_COUNTER_START = 0x3333
FLUSH_BITS = 0x8888
RANK_KEY_SHIFT = 16
ACE = 14


def pack(category: int, ranks: Sequence[int]) -> int:
    """The strength of a hand of `category` whose five ranks, in comparison order, are `ranks`."""
    value = category
    for rank in ranks:
        value = (value << 4) | rank
    return value


def _straight_high(rank_mask: int) -> int:
    """The top rank (5..14) of the best straight among the ranks in the 13-bit mask, else 0."""
    for low in range(8, -1, -1):  # windows 10-A down to 2-6
        window = 0b11111 << low
        if rank_mask & window == window:
            return low + 6
    wheel = 0b1000000001111  # A 2 3 4 5: the ace counts as 1, so it is the lowest straight
    return 5 if rank_mask & wheel == wheel else 0


def straight_ranks(high: int) -> tuple[int, ...]:
    """The five ranks of the straight to `high`, highest first; the wheel ends with the ace."""
    if high == 5:
        return (5, 4, 3, 2, ACE)
    return tuple(range(high, high - 5, -1))


def _ranks_in(rank_mask: int) -> list[int]:
    return [index + 2 for index in range(12, -1, -1) if rank_mask >> index & 1]


STRAIGHT_HIGH: tuple[int, ...] = tuple(_straight_high(mask) for mask in range(1 << 13))


def _flush_strength(rank_mask: int) -> int:
    if bin(rank_mask).count("1") < 5:
        return 0
    high = STRAIGHT_HIGH[rank_mask]
    if high:
        return pack(STRAIGHT_FLUSH, straight_ranks(high))
    return pack(FLUSH, _ranks_in(rank_mask)[:5])


# Best flush or straight flush among the ranks one suit holds; 0 when fewer than five.
FLUSH_STRENGTH: tuple[int, ...] = tuple(_flush_strength(mask) for mask in range(1 << 13))


def strength_without_flush(counts: Sequence[int]) -> int:
    """Best hand, flushes aside, from how many cards of each rank index (0..12) there are."""
    quads: list[int] = []
    trips: list[int] = []
    pairs: list[int] = []
    singles: list[int] = []
    present: list[int] = []
    rank_mask = 0
    for index in range(12, -1, -1):
        count = counts[index]
        if not count:
            continue
        rank = index + 2
        rank_mask |= 1 << index
        present.append(rank)
        if count >= 4:
            quads.append(rank)
        elif count == 3:
            trips.append(rank)
        elif count == 2:
            pairs.append(rank)
        else:
            singles.append(rank)
    if quads:
        quad = quads[0]
        kicker = next(rank for rank in present if rank != quad)
        return pack(FOUR_OF_A_KIND, (quad, quad, quad, quad, kicker))
    if trips and (len(trips) > 1 or pairs):
        # With eight or more cards a second set of trips can fill the house.
        filler = max(trips[1:] + pairs[:1])
        return pack(FULL_HOUSE, (trips[0],) * 3 + (filler,) * 2)
    high = STRAIGHT_HIGH[rank_mask]
    if high:
        return pack(STRAIGHT, straight_ranks(high))
    if trips:
        return pack(THREE_OF_A_KIND, (trips[0],) * 3 + tuple(singles[:2]))
    if len(pairs) >= 2:
        kicker = max(pairs[2:3] + singles[:1])
        return pack(TWO_PAIR, (pairs[0], pairs[0], pairs[1], pairs[1], kicker))
    if pairs:
        return pack(ONE_PAIR, (pairs[0], pairs[0]) + tuple(singles[:3]))
    return pack(HIGH_CARD, singles[:5])


def rank_key(counts: Sequence[int]) -> int:
    """The rank counts as 3-bit digits (rank index 0 lowest): what the card weights sum to."""
    return sum(count << 3 * index for index, count in enumerate(counts))


CARD_WEIGHT: tuple[int, ...] = tuple(
    (1 << 3 * (card >> 2) + RANK_KEY_SHIFT) | (1 << 4 * (card & 3)) for card in range(52)
)


def _five_card_table() -> dict[int, int]:
    table: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [0] * 13
        for index in ranks:
            counts[index] += 1
        if max(counts) <= 4:
            table[rank_key(counts)] = strength_without_flush(counts)
    return table


def _one_card_more(table: dict[int, int]) -> dict[int, int]:
    """Tables for n+1 cards from n: the best five of n+1 cards lie within some n of them,
    so each multiset takes the best over the multisets one card smaller. Far quicker at
    import than evaluating the 49,205 seven-card multisets one by one."""
    grown: dict[int, int] = {}
    known = grown.get
    for shift in range(0, 39, 3):
        one_more, digit, four = 1 << shift, 7 << shift, 4 << shift
        for key, strength in table.items():
            if key & digit != four:  # a fifth card of a rank does not exist
                bigger = key + one_more
                if known(bigger, -1) < strength:
                    grown[bigger] = strength
    return grown


def _nonflush_table() -> dict[int, int]:
    five = _five_card_table()
    six = _one_card_more(five)
    seven = _one_card_more(six)
    return five | six | seven


# Keyed by rank_key for every multiset of 5, 6 or 7 ranks (sizes never collide: the
# digit sums differ). Eight and nine cards take the direct route in domain.rules.evaluation.
NONFLUSH_STRENGTH: dict[int, int] = _nonflush_table()
