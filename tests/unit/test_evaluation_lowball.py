"""Low, badugi and short-deck evaluation: the rule book's examples, then random hands
ordered exactly as PokerKit orders them (its hand classes are the reference)."""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from pokerkit import BadugiHand, EightOrBetterLowHand, OmahaEightOrBetterLowHand, RegularLowHand, ShortDeckHoldemHand, StandardLowHand

from domain.rules.cards import RANKS, SUITS, parse_cards
from domain.rules.lowball import (
    badugi_ranks,
    badugi_size,
    badugi_strength,
    deuce_seven_strength,
    low8_strength,
    omaha_low8_strength,
    razz_pairing,
    razz_ranks,
    razz_strength,
)
from domain.rules.short_deck import short_deck_category, short_deck_strength


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text)


# ---------------------------------------------------------------- the rule book


def test_eight_or_better_needs_five_distinct_ranks_eight_or_lower() -> None:
    assert low8_strength(c("As2d3c4h8s9dKd")) > 0
    assert low8_strength(c("As2d3c4h9s9dKd")) == 0  # only four ranks eight or lower
    assert low8_strength(c("AsAd2c3h4s4d8d")) > 0   # pairs do not spoil it: A-2-3-4-8


def test_the_wheel_is_the_best_low_and_lows_compare_from_the_top_card() -> None:
    wheel = low8_strength(c("As2d3c4h5s"))
    six_four = low8_strength(c("As2d3c4h6s"))
    eight_seven = low8_strength(c("As2d3c7h8s"))
    eight_six = low8_strength(c("As2d5c6h8s"))
    assert wheel > six_four > eight_six > eight_seven


def test_omaha_low_uses_exactly_two_hole_cards_and_three_board_cards() -> None:
    # A board of four low cards and one low hole card: no low (two hole cards are needed).
    assert omaha_low8_strength(c("AsKdQcJh"), c("2s3d4c5hKs")) == 0
    # A-2 in the hand with 3-4-5 on the board: the wheel.
    assert omaha_low8_strength(c("As2dQcJh"), c("3s4d5hKsKc")) == low8_strength(c("As2d3s4d5h"))
    # Only two low board cards: no low whatever the hand holds.
    assert omaha_low8_strength(c("As2d3c4h"), c("5s6dKhKsQc")) == 0


def test_razz_counts_pairs_against_and_aces_low() -> None:
    best = razz_strength(c("As2d3c4h5sKdKc"))
    assert razz_ranks(best) == (5, 4, 3, 2, 14) and razz_pairing(best) == 0
    paired = razz_strength(c("AsAd2c2h3s3d4c"))  # four distinct ranks: one pair is needed
    assert razz_pairing(paired) == 1 and razz_ranks(paired) == (14, 14, 4, 3, 2)
    assert razz_strength(c("As2d3c4h6sKdKc")) < best


def test_deuce_to_seven_aces_are_high_and_straights_and_flushes_count() -> None:
    seven_five = deuce_seven_strength(c("7s5d4c3h2s"))
    assert seven_five > deuce_seven_strength(c("7s6d4c3h2s"))
    assert deuce_seven_strength(c("As5d4c3h2s")) < deuce_seven_strength(c("Ks5d4c3h2s"))  # ace high
    assert deuce_seven_strength(c("6s5d4c3h2s")) < deuce_seven_strength(c("Ks8d6c4h3s"))  # a straight
    assert deuce_seven_strength(c("7s5s4s3s2s")) < deuce_seven_strength(c("Ks8d6c4h3s"))  # a flush


def test_badugi_counts_cards_of_distinct_suits_and_ranks_first() -> None:
    badugi = badugi_strength(c("Ks Qh Jd Tc"))
    three = badugi_strength(c("As2h3d4d"))
    assert badugi_size(badugi) == 4 and badugi_size(three) == 3 and badugi > three
    assert badugi_ranks(three) == (3, 2, 14)
    # Wikipedia's example: 8-7-5-3 beats 9-6-4-2.
    assert badugi_strength(c("3s5d7c8h")) > badugi_strength(c("2s4c6d9h"))


def test_short_deck_flush_beats_full_house_and_a_6_7_8_9_is_the_lowest_straight() -> None:
    flush = short_deck_strength(c("As9s8s7sJsKdQh"))
    full_house = short_deck_strength(c("AsAdAh9s9dKdQh"))
    low_straight = short_deck_strength(c("Ah6d7c8s9hKdKc"))
    trips = short_deck_strength(c("KhKdKc8s9hTdAc"))
    assert flush > full_house
    assert short_deck_category(low_straight) == "straight" and low_straight > trips
    assert low_straight < short_deck_strength(c("6h7d8c9sThKdKc"))
    assert short_deck_category(short_deck_strength(c("Ah6h7h8h9hKdKc"))) == "straight_flush"


# ---------------------------------------------------------------- against PokerKit

PAIRS = 300


def _deck(short: bool = False) -> list[str]:
    ranks = RANKS[4:] if short else RANKS
    return [rank + suit for rank in ranks for suit in SUITS]


def _order(value: int) -> int:
    return (value > 0) - (value < 0)


def _pokerkit_value(cls: Any, *texts: str) -> Any:
    try:
        return cls.from_game(*texts)
    except ValueError:
        return None  # no qualifying hand


def _compare_pokerkit(a: Any, b: Any) -> int:
    if a is None or b is None:
        return (a is not None) - (b is not None)
    return (a > b) - (a < b)


CASES: dict[str, tuple[Any, Callable[..., int], int, int, bool]] = {
    # name: (PokerKit class, ours(hole, board), hole size, board size, short deck)
    "eight_or_better": (EightOrBetterLowHand, lambda h, b: low8_strength(h + b), 7, 0, False),
    "omaha_eight_or_better": (OmahaEightOrBetterLowHand, omaha_low8_strength, 4, 5, False),
    "razz": (RegularLowHand, lambda h, b: razz_strength(h + b), 7, 0, False),
    "deuce_to_seven": (StandardLowHand, lambda h, b: deuce_seven_strength(h), 5, 0, False),
    "badugi": (BadugiHand, lambda h, b: badugi_strength(h), 4, 0, False),
    "short_deck": (ShortDeckHoldemHand, lambda h, b: short_deck_strength(h + b), 2, 5, True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_random_hands_are_ordered_as_pokerkit_orders_them(name: str) -> None:
    cls, ours, hole_size, board_size, short = CASES[name]
    rng = random.Random(name)
    disagreements = []
    for _ in range(PAIRS):
        deck = _deck(short)
        rng.shuffle(deck)
        board = deck[:board_size]
        holes = [deck[board_size:board_size + hole_size],
                 deck[board_size + hole_size:board_size + 2 * hole_size]]
        mine = [ours(c("".join(h)), c("".join(board))) for h in holes]
        args = [("".join(h), "".join(board)) if board_size else ("".join(h),) for h in holes]
        theirs = [_pokerkit_value(cls, *a) for a in args]
        if name in ("eight_or_better", "omaha_eight_or_better"):
            assert [m > 0 for m in mine] == [t is not None for t in theirs], (holes, board)
        if _order(mine[0] - mine[1]) != _compare_pokerkit(*theirs):
            disagreements.append((holes, board))
    assert not disagreements, disagreements[:3]
