"""Hand ranking as five-card-draw.md states it: categories, the cards that make them,
kickers, the wheel, ties, the joker (wild and bug), hold'em and Omaha."""
from __future__ import annotations

from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules.cards import JOKER, format_cards, parse_cards
from domain.rules.evaluation import CATEGORIES, HandValue, category_of, evaluate_high, evaluate_holdem, evaluate_omaha, strength, strength7
from domain.rules.evaluation_tables import NONFLUSH_STRENGTH, rank_key, strength_without_flush
from domain.rules.violations import Violation


def high(cards: str, joker: str | None = None) -> HandValue:
    return evaluate_high(parse_cards(cards), joker)


def best(value: HandValue) -> str:
    return format_cards(value.best)


# The spec's ladder, strongest first, one example each (five of a kind needs the joker).
LADDER = [
    ("AsAhAdAcJk", "wild", "five_of_a_kind", "five of a kind, aces"),
    ("AhKhQhJhTh", None, "royal_flush", "royal flush"),
    ("9d8d7d6d5d", None, "straight_flush", "straight flush, nine high"),
    ("QsQhQdQc3h", None, "four_of_a_kind", "four of a kind, queens"),
    ("KsKhKd7c7s", None, "full_house", "full house, kings over sevens"),
    ("AcJc8c5c2c", None, "flush", "flush, ace high"),
    ("Ts9h8d7c6s", None, "straight", "straight, ten high"),
    ("6s6h6dKcTs", None, "three_of_a_kind", "three of a kind, sixes"),
    ("JsJhTdTc4s", None, "two_pair", "two pair, jacks and tens"),
    ("AsAhKd8c3s", None, "one_pair", "one pair, aces"),
    ("AsQh9d6c3s", None, "high_card", "high card, ace high"),
]


@pytest.mark.parametrize(("cards", "joker", "category", "words"), LADDER)
def test_each_category_is_recognised_and_described(cards, joker, category, words):
    value = high(cards, joker)
    assert value.category == category
    assert value.describe() == words
    assert category in CATEGORIES


def test_the_categories_rank_as_the_spec_lists_them_strongest_first():
    values = [high(cards, joker) for cards, joker, _, _ in LADDER]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)


def test_the_best_five_are_listed_in_the_order_they_are_compared():
    assert best(high("7s7dKhKcKs")) == "KsKhKc7s7d"
    assert best(high("2h9sAs9d4c")) == "9s9dAs4c2h"


def test_quads_compare_before_the_kicker():
    assert high("5s5h5d5cAs") < high("6s6h6d6c2s")
    assert high("6s6h6d6cKs") > high("6s6h6d6cQs")


def test_a_full_house_compares_the_trips_before_the_pair():
    assert high("8s8h8d2c2s") > high("7s7h7dAcAs")
    assert high("8s8h8dAcAs") > high("8s8h8dKcKs")


def test_flushes_compare_card_by_card_from_the_top():
    assert high("AhQh9h5h3h") > high("AsQs9s5s2s")
    assert high("AhKh3h2h4h") > high("AsQsJs9s8s")


def test_two_pair_compares_the_higher_pair_then_the_lower_then_the_kicker():
    assert high("KsKhTdTc2s") > high("QsQhJdJcAs")
    assert high("KsKhTdTc2s") > high("KdKc9s9hAs")
    assert high("KsKhTdTc3s") > high("KdKcThTs2h")


def test_one_pair_compares_the_kickers_high_to_low():
    assert high("9s9hAdQc2s") > high("9d9cAsJh8h")
    assert high("9s9hAdQc3s") > high("9d9cAsQh2h")


def test_high_card_compares_all_five_ranks():
    assert high("AsJh9d6c3s") > high("AhJs9c6d2h")


def test_the_wheel_is_the_lowest_straight_with_the_ace_as_one():
    wheel = high("As2d3h4c5s")
    assert wheel.category == "straight"
    assert wheel.describe() == "straight, five high"
    assert best(wheel) == "5s4c3h2dAs"
    assert wheel < high("2s3d4h5c6s")
    assert wheel > high("AsAhKdQcJs")


def test_the_ace_does_not_wrap_around_a_straight():
    assert high("QsKhAd2c3s").category == "high_card"


def test_the_steel_wheel_is_a_five_high_straight_flush():
    steel = high("Ah2h3h4h5h")
    assert steel.category == "straight_flush"
    assert steel.describe() == "straight flush, five high"
    assert steel < high("2c3c4c5c6c")
    assert steel > high("AsAhAdAcKs")


def test_the_same_five_ranks_in_other_suits_tie_and_split():
    assert high("AsKs9d7c2h") == high("AhKd9s7h2c")
    assert high("Ts9s8s7s6s") == high("Th9h8h7h6h")
    assert hash(high("AsKs9d7c2h")) == hash(high("AhKd9s7h2c"))


def test_suits_never_break_a_tie():
    spades, hearts = high("AsKsQsJs9s"), high("AhKhQhJh9h")
    assert not spades > hearts and not spades < hearts


def test_the_best_five_of_seven_ignore_the_rest():
    value = high("AsAhKdKc7s7h2d")
    assert value.describe() == "two pair, aces and kings"
    assert best(value) == "AsAhKdKc7s"


def test_a_flush_out_of_seven_keeps_the_five_highest_of_its_suit():
    value = high("2h4h6h8hThQhAs")
    assert best(value) == "QhTh8h6h4h"


def test_a_straight_in_seven_cards_takes_the_highest_one():
    assert high("4s5h6d7c8s9hTd").describe() == "straight, ten high"


def test_nine_cards_may_hold_a_flush_beside_a_better_full_house():
    value = high("AsKsQs9s2sAhAdKhKd")
    assert value.describe() == "full house, aces over kings"
    assert high("AsKsQsJsTsAhAdAcKh").category == "royal_flush"


def test_two_sets_of_trips_in_nine_cards_make_the_higher_full():
    assert high("9s9h9d5s5h5d2c3c4c").describe() == "full house, nines over fives"


# The joker, fully wild (the seeds' rule).

def test_wild_five_of_a_kind_tops_a_royal_flush():
    assert high("2s2h2d2cJk", "wild") > high("AhKhQhJhTh")
    assert high("AsAhAdAcJk", "wild") > high("KsKhKdKcJk", "wild")


def test_wild_joker_completes_a_straight_flush():
    value = high("9h8h6h5hJk", "wild")
    assert value.describe() == "straight flush, nine high"
    assert best(value) == "9h8hJk6h5h"


def test_wild_joker_makes_a_royal_flush_rather_than_quads():
    assert high("AhKhQhJhJk", "wild").category == "royal_flush"


def test_wild_joker_chooses_the_best_kicker():
    value = high("KsKhKd7c2sJk3h", "wild")
    assert value.describe() == "four of a kind, kings"
    assert best(value) == "KsKhKdJk7c"
    assert high("AsKdQh9c4sJk", "wild").describe() == "one pair, aces"
    assert best(high("AsKdQh9c4sJk", "wild")) == "AsJkKdQh9c"


def test_wild_joker_in_a_flush_is_the_highest_card_the_suit_lacks():
    value = high("AsKsQs7sJk", "wild")
    assert value.category == "flush"
    assert value == high("AhKhQhJh7h")


def test_wild_joker_fills_a_full_house_from_two_pair():
    assert high("KsKh7d7cJk", "wild").describe() == "full house, kings over sevens"


# The joker as a bug: an ace, or a card that completes a straight or flush.

def test_bug_with_two_pair_is_an_ace_kicker_not_a_full_house():
    value = high("JkKsKh7d7c", "bug")
    assert value.describe() == "two pair, kings and sevens"
    assert best(value) == "KsKh7d7cJk"
    assert value == high("KsKh7d7cAs")


def test_bug_with_four_aces_is_five_aces_the_top_hand():
    five_aces = high("AsAhAdAcJk", "bug")
    assert five_aces.category == "five_of_a_kind"
    assert five_aces > high("AhKhQhJhTh")


def test_bug_with_four_kings_is_four_kings_with_an_ace():
    value = high("KsKhKdKcJk", "bug")
    assert value.describe() == "four of a kind, kings"
    assert value == high("KsKhKdKcAs")


def test_bug_completes_a_straight_and_a_straight_flush():
    assert high("9s8h7d6cJk", "bug").describe() == "straight, ten high"
    assert high("9h8h6h5hJk", "bug").describe() == "straight flush, nine high"
    assert high("KsQsJsTsJk", "bug").category == "royal_flush"


def test_bug_completes_a_flush():
    assert high("Qs9s7s4sJk", "bug").describe() == "flush, ace high"
    assert high("AsQs9s4sJk", "bug") == high("AhKhQh9h4h")


def test_bug_with_a_pair_of_aces_makes_trips():
    assert high("AsAhKd8c3sJk", "bug").describe() == "three of a kind, aces"


def test_bug_with_three_of_a_kind_adds_an_ace_not_a_fourth():
    value = high("7s7h7dKc2sJk", "bug")
    assert value == high("7s7h7dAsKc")


def test_a_joker_in_a_game_without_one_is_an_invalid_card():
    with pytest.raises(Violation) as raised:
        high("AsKsQsJsJk")
    assert raised.value.code == "invalid_card"


def test_an_unknown_joker_rule_is_refused():
    with pytest.raises(Violation) as raised:
        high("AsKsQsJsJk", "deuces")
    assert raised.value.code == "invalid_hand"


@pytest.mark.parametrize("cards", ["AsKsQsJs", "AsKsQsJsTs9s8s7s6s5s"])
def test_a_hand_needs_five_to_nine_cards(cards):
    with pytest.raises(Violation) as raised:
        high(cards)
    assert raised.value.code == "invalid_hand"


def test_a_card_given_twice_is_refused():
    with pytest.raises(Violation) as raised:
        evaluate_high((48, 48, 44, 40, 36))
    assert raised.value.code == "duplicate_card"


# Hold'em and Omaha.

def test_holdem_may_play_the_board():
    value = evaluate_holdem(parse_cards("2c3d"), parse_cards("AsKsQsJsTs"))
    assert value.category == "royal_flush"
    assert best(value) == "AsKsQsJsTs"


def test_holdem_players_playing_the_board_split():
    board = parse_cards("AsKdQhJcTs")
    assert evaluate_holdem(parse_cards("2c3d"), board) == evaluate_holdem(parse_cards("4h5h"), board)


def test_omaha_uses_exactly_two_hole_cards_so_four_to_a_flush_on_board_is_no_flush():
    value = evaluate_omaha(parse_cards("AhKd7c2s"), parse_cards("QhJhTh3h9c"))
    assert value.category == "straight"
    assert best(value) == "AhKdQhJhTh"


def test_omaha_one_suited_hole_card_makes_no_flush_even_with_three_on_board():
    value = evaluate_omaha(parse_cards("AhKs7c2d"), parse_cards("QhJh3h8c9d"))
    assert value.category == "high_card"


def test_omaha_four_aces_in_the_hole_are_only_a_pair():
    assert evaluate_omaha(parse_cards("AsAhAdAc"), parse_cards("Kc8d5s3h2c")).describe() == "one pair, aces"


def test_omaha_a_board_full_house_plays_only_with_two_hole_cards():
    value = evaluate_omaha(parse_cards("2s3d4c6h"), parse_cards("KsKhKd9s9h"))
    assert value.category == "three_of_a_kind"


def test_omaha_five_card_variant_takes_any_two_of_five():
    value = evaluate_omaha(parse_cards("2s3d4cAhKh"), parse_cards("QhJhTh5c6d"))
    assert value.category == "royal_flush"


def test_omaha_needs_four_hole_cards_and_a_board_of_three_to_five():
    for hole, board in (("AsKs", "QsJsTs"), ("AsKsQsJs", "Ts9s")):
        with pytest.raises(Violation) as raised:
            evaluate_omaha(parse_cards(hole), parse_cards(board))
        assert raised.value.code == "invalid_hand"


# The tables and the fast path agree with the direct evaluation.

def test_the_seven_card_table_grown_from_five_matches_direct_evaluation():
    for ranks in combinations_with_replacement(range(13), 7):
        counts = [ranks.count(index) for index in range(13)]
        if max(counts) <= 4:
            assert NONFLUSH_STRENGTH[rank_key(counts)] == strength_without_flush(counts)


def test_category_of_names_the_strength7_result():
    assert category_of(strength7(parse_cards("AsKsQsJsTs2h3h"))) == "royal_flush"
    assert category_of(strength7(parse_cards("AsKsQsJs9h2h3h"))) == "high_card"


hands = st.lists(st.integers(0, 51), min_size=5, max_size=9, unique=True).map(tuple)
joker_hands = st.tuples(hands, st.sampled_from(["wild", "bug"])).map(
    lambda pair: (pair[0][:-1] + (JOKER,), pair[1])
)


@settings(max_examples=300, deadline=None)
@given(hands, st.randoms(use_true_random=False))
def test_the_order_of_the_cards_never_changes_the_result(cards, rng):
    reordered = list(cards)
    rng.shuffle(reordered)
    first, second = evaluate_high(cards), evaluate_high(reordered)
    assert (first.strength, first.category, first.best) == (second.strength, second.category, second.best)


@settings(max_examples=300, deadline=None)
@given(hands)
def test_the_best_five_are_five_of_the_cards_given_and_score_the_same(cards):
    value = evaluate_high(cards)
    assert len(value.best) == 5 and set(value.best) <= set(cards)
    assert strength(value.best) == value.strength
    assert category_of(value.strength) == value.category


@settings(max_examples=200, deadline=None)
@given(joker_hands, st.randoms(use_true_random=False))
def test_with_a_joker_the_best_five_come_from_the_hand_and_the_joker_only_helps(hand, rng):
    cards, rule = hand
    value = evaluate_high(cards, rule)
    reordered = list(cards)
    rng.shuffle(reordered)
    assert evaluate_high(reordered, rule).best == value.best
    assert len(value.best) == 5 and set(value.best) <= set(cards)
    without_joker = [card for card in cards if card != JOKER]
    if len(without_joker) >= 5:
        assert value.strength >= strength(without_joker)
    assert value <= evaluate_high(cards, "wild")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_strength7_is_evaluate_high_strength(cards):
    assert strength7(cards) == evaluate_high(cards).strength
