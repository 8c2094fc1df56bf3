"""Low-hand evaluation: ace-to-five eight-or-better (the low half of Omaha and stud
hi-lo), razz (ace-to-five, pairs count against), deuce-to-seven and badugi.

Every function returns an int `strength`, HIGHER IS BETTER (as domain.rules.evaluation's), so
pots and rankings take the maximum whatever the game; equal means a tie. A low that does
not qualify (eight-or-better) is 0.

Tables, built once:
- eight-or-better: a hand's ace-low rank mask (bit 0 the ace, bit 7 the eight) picks its
  five lowest distinct ranks (`LOW8_BEST`). Two sets of five distinct ranks compare from
  their highest card down, which is exactly how their bit masks compare as integers, so
  the mask itself orders lows (a smaller mask is a better low);
- razz: the best ace-to-five low of 5..7 cards, pairs allowed but counted against, keyed
  by the hand's rank counts (3 bits per rank, as domain.rules.evaluation_tables' keys), built
  from the five-card multisets by adding one card at a time (built on first use);
- deuce-to-seven: the high-hand strength of the five cards (aces high, straights and
  flushes count), lowest best; A-2-3-4-5 is not a straight there, only ace-high;
- badugi: the largest set of cards of distinct ranks and distinct suits, then the lowest
  (aces low), compared from the highest card down: again a rank mask.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

from domain.rules.cards import Card
from domain.rules.evaluation import strength
from domain.rules.evaluation_tables import ACE, FLUSH, HIGH_CARD, STRAIGHT, STRAIGHT_FLUSH, pack

# Ace-low rank of a card: ace 0, deuce 1, ..., king 12.
ACE_LOW_RANK: tuple[int, ...] = tuple(((card >> 2) + 1) % 13 for card in range(52))
_LOW_BIT: tuple[int, ...] = tuple(1 << ACE_LOW_RANK[card] for card in range(52))
_EIGHT_OR_BETTER = 0xFF  # ace .. eight
_LOW_LIMIT = 1 << 13     # above every rank mask: LOW_LIMIT - mask > 0 for every low


def _five_lowest(mask: int) -> int:
    best, count = 0, 0
    for bit in range(8):
        if mask >> bit & 1:
            best |= 1 << bit
            count += 1
            if count == 5:
                return best
    return 0


# Five lowest distinct ranks of an ace-low mask of ranks ace..eight; 0 when fewer than five.
LOW8_BEST: tuple[int, ...] = tuple(_five_lowest(mask) for mask in range(256))


def low8_strength(cards: Sequence[Card]) -> int:
    """Best eight-or-better low of any five of the cards (stud hi-lo); 0: no low."""
    mask = 0
    for card in cards:
        mask |= _LOW_BIT[card]
    best = LOW8_BEST[mask & _EIGHT_OR_BETTER]
    return _LOW_LIMIT - best if best else 0


def omaha_low8_strength(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Omaha hi-lo's low: exactly two hole cards and three board cards, five distinct ranks
    eight or lower; 0: no low."""
    low_bit = _LOW_BIT
    holes = {low_bit[a] | low_bit[b] for a, b in combinations(hole, 2)
             if low_bit[a] != low_bit[b] and (low_bit[a] | low_bit[b]) <= _EIGHT_OR_BETTER}
    if not holes:
        return 0
    boards = {low_bit[a] | low_bit[b] | low_bit[c] for a, b, c in combinations(board, 3)}
    best = 0
    for three in boards:
        if three > _EIGHT_OR_BETTER or bin(three).count("1") != 3:
            continue
        for two in holes:
            if not two & three:
                five = two | three
                if not best or five < best:
                    best = five
    return _LOW_LIMIT - best if best else 0


def low_mask_ranks(strength_value: int) -> tuple[int, ...]:
    """The ranks (2..14, ace 14) of an eight-or-better or badugi strength, highest first
    (the ace last, as it plays low)."""
    mask = (_LOW_LIMIT - strength_value) & (_LOW_LIMIT - 1)
    low_ranks = [bit for bit in range(12, -1, -1) if mask >> bit & 1]
    return tuple(ACE if bit == 0 else bit + 1 for bit in low_ranks)


# ---------------------------------------------------------------- razz: pairs count against

_RAZZ_WEIGHT: tuple[int, ...] = tuple(1 << 3 * ACE_LOW_RANK[card] for card in range(52))
_RAZZ_CATEGORIES = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3,
                    (3, 2): 4, (4, 1): 5}


def _razz_five(counts: Sequence[int]) -> int:
    """Low value of five cards (lower better): pairing first, then ranks from the top."""
    groups = sorted(((count, rank) for rank, count in enumerate(counts) if count),
                    reverse=True)
    value = _RAZZ_CATEGORIES[tuple(count for count, _ in groups)]
    for count, rank in groups:
        for _ in range(count):
            value = value << 4 | rank + 1
    return value


def _razz_table() -> dict[int, int]:
    five: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [0] * 13
        for rank in ranks:
            counts[rank] += 1
        if max(counts) <= 4:
            five[sum(c << 3 * r for r, c in enumerate(counts))] = _razz_five(counts)
    table = dict(five)
    current = five
    for _ in range(2):  # six cards, then seven: the best low of one card fewer
        grown: dict[int, int] = {}
        for shift in range(0, 39, 3):
            one_more, digit, four = 1 << shift, 7 << shift, 4 << shift
            for key, value in current.items():
                if key & digit != four:
                    bigger = key + one_more
                    if grown.get(bigger, 1 << 40) > value:
                        grown[bigger] = value
        table.update(grown)
        current = grown
    return table


_RAZZ: dict[int, int] = {}


def razz_strength(cards: Sequence[Card]) -> int:
    """Best ace-to-five low of five of 5..7 cards, pairs counting against (razz)."""
    if not _RAZZ:
        _RAZZ.update(_razz_table())
    key = 0
    for card in cards:
        key += _RAZZ_WEIGHT[card]
    return (1 << 28) - _RAZZ[key]


def razz_ranks(strength_value: int) -> tuple[int, ...]:
    """The five ranks (2..14, the ace 14) of a razz strength in comparison order."""
    value = (1 << 28) - strength_value
    ranks = tuple((value >> shift) & 15 for shift in (16, 12, 8, 4, 0))
    return tuple(ACE if rank == 1 else rank for rank in ranks)


def razz_pairing(strength_value: int) -> int:
    """0 no pair, 1 one pair, 2 two pair, 3 trips, 4 full house, 5 quads."""
    return ((1 << 28) - strength_value) >> 20


# ---------------------------------------------------------------- deuce-to-seven

_WHEEL = pack(STRAIGHT, (5, 4, 3, 2, ACE))
_STEEL_WHEEL = pack(STRAIGHT_FLUSH, (5, 4, 3, 2, ACE))
_ACE_FIVE = (ACE, 5, 4, 3, 2)
_HIGH_LIMIT = 1 << 24


def deuce_seven_high(cards: Sequence[Card]) -> int:
    """The high-hand strength deuce-to-seven reads five cards by: as poker, except that
    A-2-3-4-5 is ace high (a flush when suited), since the ace only plays high."""
    value = strength(cards)
    if value == _WHEEL:
        return pack(HIGH_CARD, _ACE_FIVE)
    if value == _STEEL_WHEEL:
        return pack(FLUSH, _ACE_FIVE)
    return value


def deuce_seven_strength(cards: Sequence[Card]) -> int:
    """Deuce-to-seven low of exactly five cards: the weakest poker hand wins (7-5-4-3-2)."""
    return _HIGH_LIMIT - deuce_seven_high(cards)


# ---------------------------------------------------------------- badugi

_SUIT_BIT: tuple[int, ...] = tuple(1 << (card & 3) for card in range(52))
# Subsets of n card positions (n = 1..4), largest first.
_SUBSETS: dict[int, tuple[tuple[int, ...], ...]] = {n: tuple(
    subset for size in range(n, 0, -1) for subset in combinations(range(n), size))
    for n in range(1, 5)}


def badugi_strength(cards: Sequence[Card]) -> int:
    """Badugi value of four cards (or fewer): the most cards of distinct ranks and suits,
    then the lowest of them (aces low) compared from the top. Higher is better."""
    low_bit, suit_bit = _LOW_BIT, _SUIT_BIT
    ranks = [low_bit[c] for c in cards]
    suits = [suit_bit[c] for c in cards]
    best = 0
    for subset in _SUBSETS[len(cards)]:
        rank_mask = suit_mask = 0
        for index in subset:
            rank_mask |= ranks[index]
            suit_mask |= suits[index]
        size = len(subset)
        if bin(rank_mask).count("1") == size and bin(suit_mask).count("1") == size:
            value = size << 14 | (_LOW_LIMIT - rank_mask)
            if value > best:
                best = value
        elif best and size < best >> 14:
            break
    return best


def badugi_size(strength_value: int) -> int:
    """How many cards the badugi hand plays (4 is a badugi)."""
    return strength_value >> 14


def badugi_ranks(strength_value: int) -> tuple[int, ...]:
    return low_mask_ranks(strength_value & ((1 << 14) - 1))
