"""High-hand evaluation: the best five of 5..9 cards, hold'em, Omaha, and the joker.

Every hand gets an int `strength`, higher is better, equal means a tie (layout in
domain.rules.evaluation_tables: category, then the five ranks in comparison order; suits never
count). `strength7` is the allocation-free fast path for exactly seven real cards;
`evaluate_high` and friends return a `HandValue` with the category and the five cards used.

The joker (five-card-draw.md, setting "joker"):
- "wild" (the seeds' rule): it stands for whatever card makes the hand strongest. It
  stands for a card the hand does not already hold, except that with four of a rank it
  makes five of a kind, the top hand, above a royal flush. So As Ks Qs 7s + Jk is an
  ace-king-queen-jack-seven flush (the joker is the Js), never a "double-ace" flush.
- "bug" (classic cardroom joker): it counts as an ace, or as any card that completes a
  straight, flush or straight flush. With four aces it is the fifth ace: five aces is
  the top hand, as the setting's text says ("five aces top"); no other five of a kind
  exists. Jk K K 7 7 2 is therefore two pair, kings and sevens with an ace, not a full house.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import total_ordering
from itertools import combinations

from domain.rules.cards import JOKER, Card, format_card
from domain.rules.evaluation_tables import (
    ACE,
    CARD_WEIGHT,
    FIVE_OF_A_KIND,
    FLUSH_BITS,
    FLUSH_STRENGTH,
    NONFLUSH_STRENGTH,
    RANK_KEY_SHIFT,
    STRAIGHT,
    STRAIGHT_FLUSH,
    STRAIGHT_HIGH,
    SUIT_COUNTER_START,
    pack,
    straight_ranks,
    strength_without_flush,
)
from domain.rules.violations import Violation

CATEGORIES = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
    "five_of_a_kind",
)
JOKER_RULES = ("wild", "bug")

_CATEGORY_BY_INDEX = (
    "high_card", "one_pair", "two_pair", "three_of_a_kind", "straight", "flush",
    "full_house", "four_of_a_kind", "straight_flush", "five_of_a_kind",
)
_RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
               "jack", "queen", "king", "ace")


@total_ordering
@dataclass(frozen=True, eq=False)
class HandValue:
    """A hand's worth. Compares and hashes by `strength` alone, so two hands that tie
    (same category and five ranks, any suits) are equal and `max` picks a winner."""

    strength: int
    category: str
    best: tuple[Card, ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.strength == other.strength

    def __lt__(self, other: HandValue) -> bool:
        return self.strength < other.strength

    def __hash__(self) -> int:
        return hash(self.strength)

    def describe(self) -> str:
        """"full house, kings over sevens", "straight, five high", "royal flush" ..."""
        return describe_strength(self.strength)


def category_of(strength: int) -> str:
    """The category name (one of CATEGORIES) of a strength from `strength7` or a HandValue."""
    index = strength >> 20
    if index == STRAIGHT_FLUSH and _ranks_of(strength)[0] == ACE:
        return "royal_flush"
    return _CATEGORY_BY_INDEX[index]


def describe_strength(strength: int) -> str:
    """Words for a strength: "two pair, kings and sevens", "flush, ace high" ..."""
    category = category_of(strength)
    ranks = _ranks_of(strength)
    words = category.replace("_", " ")
    top, second = ranks[0], ranks[3]
    if category == "royal_flush":
        return words
    if category in ("high_card", "straight", "flush", "straight_flush"):
        return f"{words}, {_name(top)} high"
    if category == "two_pair":
        return f"{words}, {_plural(top)} and {_plural(ranks[2])}"
    if category == "full_house":
        return f"{words}, {_plural(top)} over {_plural(second)}"
    return f"{words}, {_plural(top)}"


def strength7(cards: Sequence[Card]) -> int:
    """Strength of the best five of exactly seven real cards (no joker), as evaluate_high's.

    The fast path for showdowns and the benchmark: no validation, no allocation beyond
    the tuple unpacking. Pass seven distinct ints 0..51.
    """
    a, b, c, d, e, f, g = cards
    key = (SUIT_COUNTER_START + CARD_WEIGHT[a] + CARD_WEIGHT[b] + CARD_WEIGHT[c]
           + CARD_WEIGHT[d] + CARD_WEIGHT[e] + CARD_WEIGHT[f] + CARD_WEIGHT[g])
    if key & FLUSH_BITS:
        # Seven cards with five of one suit cannot also hold a full house or quads.
        return FLUSH_STRENGTH[_suit_mask(cards, key)]
    return NONFLUSH_STRENGTH[key >> RANK_KEY_SHIFT]


def strength(cards: Sequence[Card]) -> int:
    """Strength of the best five of 5..9 real cards (no joker), without validation."""
    key = SUIT_COUNTER_START
    for card in cards:
        key += CARD_WEIGHT[card]
    flush_bits = key & FLUSH_BITS
    if len(cards) <= 7:
        if flush_bits:
            return FLUSH_STRENGTH[_suit_mask(cards, key)]
        return NONFLUSH_STRENGTH[key >> RANK_KEY_SHIFT]
    # Eight or nine cards: a flush may sit beside a full house or quads, so take the best.
    counts = [0] * 13
    for card in cards:
        counts[card >> 2] += 1
    best = strength_without_flush(counts)
    if flush_bits:
        best = max(best, FLUSH_STRENGTH[_suit_mask(cards, key)])
    return best


def omaha_strength(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Strength of Omaha's best hand (exactly two hole cards with exactly three of the
    board), without validation: the showdown's fast path, as `strength` is hold'em's."""
    return max(strength(two + three) for two in combinations(tuple(hole), 2)
               for three in combinations(tuple(board), 3))


def evaluate_high(cards: Sequence[Card], joker: str | None = None) -> HandValue:
    """The best five of 5..9 cards. `joker` is None (no joker allowed), "wild" or "bug"
    (see the module docstring). Raises Violation: "invalid_hand" for the wrong number of
    cards or an unknown joker rule, "invalid_card", "duplicate_card"."""
    _check_cards(cards, 5, 9)
    if joker is not None and joker not in JOKER_RULES:
        raise Violation("invalid_hand", f"joker rule {joker!r} is not one of {', '.join(JOKER_RULES)}")
    real = tuple(sorted((card for card in cards if card != JOKER), key=_display_order))
    if len(real) == len(cards):
        return _value_of(real, strength(real), stand_in=None)
    if joker is None:
        raise Violation("invalid_card", "a joker is in the hand but this game plays without one "
                                        "(joker rule 'wild' or 'bug' needed)")
    return _evaluate_with_joker(real, joker)


def evaluate_holdem(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    """Hold'em: the best five of hole + board, any mix (the board may play)."""
    return evaluate_high(tuple(hole) + tuple(board))


def evaluate_omaha(hole: Sequence[Card], board: Sequence[Card]) -> HandValue:
    """Omaha: exactly two of the hole cards (four or more) with exactly three of the board (3..5)."""
    if len(hole) < 4:
        raise Violation("invalid_hand", f"Omaha needs at least 4 hole cards, got {len(hole)}")
    if not 3 <= len(board) <= 5:
        raise Violation("invalid_hand", f"Omaha needs a board of 3 to 5 cards, got {len(board)}")
    _check_cards(tuple(hole) + tuple(board), 7, 5 + len(hole))
    if JOKER in hole or JOKER in board:
        raise Violation("invalid_card", "Omaha plays without a joker")
    best_strength = -1
    best_five: tuple[Card, ...] = ()
    hole_sorted = sorted(hole, key=_display_order)
    board_sorted = sorted(board, key=_display_order)
    for two in combinations(hole_sorted, 2):
        for three in combinations(board_sorted, 3):
            five = two + three
            value = strength(five)
            if value > best_strength:
                best_strength, best_five = value, five
    return HandValue(best_strength, category_of(best_strength), _in_rank_order(best_five, best_strength, None))


def _evaluate_with_joker(real: tuple[Card, ...], rule: str) -> HandValue:
    counts = [0] * 13
    for card in real:
        counts[card >> 2] += 1
    quads = [index for index in range(12, -1, -1) if counts[index] == 4]
    if rule == "bug":
        quads = [index for index in quads if index + 2 == ACE]
    if quads:
        rank = quads[0] + 2
        four = tuple(card for card in real if card >> 2 == quads[0])
        return HandValue(pack(FIVE_OF_A_KIND, (rank,) * 5), "five_of_a_kind", four + (JOKER,))
    held = set(real)
    best_strength, best_stand_in = -1, -1
    for stand_in in range(52):
        if stand_in in held:
            continue
        value = strength(real + (stand_in,)) if rule == "wild" or stand_in >> 2 == ACE - 2 else _straight_or_flush_strength(real + (stand_in,), stand_in)
        if value > best_strength:
            best_strength, best_stand_in = value, stand_in
    with_stand_in = tuple(sorted(real + (best_stand_in,), key=_display_order))
    return _value_of(with_stand_in, best_strength, stand_in=best_stand_in)


def _straight_or_flush_strength(cards: Sequence[Card], stand_in: Card) -> int:
    """The bug as a non-ace: only the best straight, flush or straight flush it helps make.
    Hands that need no joker are found anyway by the bug-as-ace branch (an extra ace
    never spoils them)."""
    suit_mask = 0
    rank_mask = 0
    for card in cards:
        rank_mask |= 1 << (card >> 2)
        if card & 3 == stand_in & 3:
            suit_mask |= 1 << (card >> 2)
    high = STRAIGHT_HIGH[rank_mask]
    straight = pack(STRAIGHT, straight_ranks(high)) if high else 0
    return max(straight, FLUSH_STRENGTH[suit_mask])


def _value_of(cards: tuple[Card, ...], target: int, stand_in: Card | None) -> HandValue:
    """Find the five cards that make `target`: the first five in `_display_order`, so the
    answer does not depend on the order the cards came in. The joker's stand-in shows as JOKER."""
    for five in combinations(cards, 5):
        if strength(five) == target:
            return HandValue(target, category_of(target), _in_rank_order(five, target, stand_in))
    raise AssertionError(f"no five of {cards} make strength {target:#x}")


def _in_rank_order(five: Sequence[Card], target: int, stand_in: Card | None) -> tuple[Card, ...]:
    """The five cards in the order their ranks are compared (K K K 7 7; 5 4 3 2 A)."""
    remaining = list(five)
    ordered: list[Card] = []
    for rank in _ranks_of(target):
        card = next(card for card in remaining if (card >> 2) + 2 == rank)
        remaining.remove(card)
        ordered.append(JOKER if card == stand_in else card)
    return tuple(ordered)


def _display_order(card: Card) -> tuple[int, int]:
    """Rank high to low, then suits in the order s h d c."""
    return -(card >> 2), card & 3


def _suit_mask(cards: Iterable[Card], key: int) -> int:
    """The ranks held in the suit whose counter reached five (bit 3 of its nibble)."""
    suit = (key & FLUSH_BITS).bit_length() // 4 - 1
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return mask


def _check_cards(cards: Sequence[Card], fewest: int, most: int) -> None:
    if not fewest <= len(cards) <= most:
        raise Violation(
            "invalid_hand",
            f"a hand here has {fewest} to {most} cards, got {len(cards)}",
            numbers={"cards": len(cards)},
        )
    for card in cards:
        if not isinstance(card, int) or not 0 <= card <= JOKER:
            raise Violation("invalid_card", f"{card!r} is not a card number (0..51, or 52 for the joker)")
    if len(set(cards)) != len(cards):
        duplicate = next(card for card in cards if cards.count(card) > 1)
        raise Violation("duplicate_card", f"{format_card(duplicate)} appears twice: a deck holds each card once")


def _ranks_of(strength_value: int) -> tuple[int, ...]:
    return tuple((strength_value >> shift) & 15 for shift in (16, 12, 8, 4, 0))


def _name(rank: int) -> str:
    return _RANK_NAMES[rank - 2]


def _plural(rank: int) -> str:
    return _name(rank) + ("es" if rank == 6 else "s")
