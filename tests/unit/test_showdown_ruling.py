"""POST /v1/rulings/showdown as a pure function (api.md, five-card-draw.md "Hand ranking")."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules.cards import format_cards, new_deck
from domain.rules.evaluation import CATEGORIES
from domain.rules.violations import Violation
from domain.rulings.showdown import showdown_ruling


def violation_of(request: dict) -> Violation:
    with pytest.raises(Violation) as raised:
        showdown_ruling(request)
    return raised.value


# ---------------------------------------------------------------- the spec's example


def test_api_example_five_aces_with_the_wild_joker_beat_a_king_high_straight_flush():
    answer = showdown_ruling(
        {"game": "five-card-draw", "joker": "wild", "hands": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}})
    assert answer["winners"] == ["P1"]
    assert answer["ranking"] == [["P1"], ["P2"]]
    assert answer["hands"] == {
        "P1": {"category": "five_of_a_kind", "best": "AsAhAdAcJk", "description": "five of a kind, aces"},
        "P2": {"category": "straight_flush", "best": "KdQdJdTd9d",
               "description": "straight flush, king high"},
    }


# ---------------------------------------------------------------- five-card draw and the joker


def test_the_wild_joker_stands_for_the_card_the_hand_lacks_never_a_second_ace_of_spades():
    answer = showdown_ruling(
        {"game": "five-card-draw", "joker": "wild", "hands": {"P1": "AsKsQs7sJk", "P2": "AhAdAcKdKc"}})
    assert answer["hands"]["P1"]["category"] == "flush"
    assert answer["hands"]["P1"]["best"] == "AsKsQsJk7s"
    assert answer["winners"] == ["P2"]  # a full house beats the flush


def test_the_bug_is_only_an_ace_or_a_straight_or_flush_card_so_kings_and_sevens_stay_two_pair():
    answer = showdown_ruling(
        {"game": "five-card-draw", "joker": "bug", "hands": {"P1": "JkKsKh7d7c", "P2": "QsQhQd3c2c"}})
    assert answer["hands"]["P1"]["category"] == "two_pair"
    assert answer["winners"] == ["P2"]


def test_with_the_bug_five_aces_are_the_top_hand_over_a_straight_flush():
    answer = showdown_ruling(
        {"game": "five-card-draw", "joker": "bug", "hands": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}})
    assert answer["hands"]["P1"]["category"] == "five_of_a_kind"
    assert answer["winners"] == ["P1"]


def test_a_royal_flush_is_its_own_category():
    answer = showdown_ruling(
        {"game": "five-card-draw", "hands": {"P1": "TdJdQdKdAd", "P2": "9s9h9d9cKs"}})
    assert answer["hands"]["P1"]["category"] == "royal_flush"
    assert answer["winners"] == ["P1"]


def test_equal_hands_of_different_suits_tie_and_split():
    answer = showdown_ruling(
        {"game": "five-card-draw", "joker": "none",
         "hands": {"P1": "AsKsQd9c4h", "P2": "AhKhQs9d4c", "P3": "AdKdQc9s3h"}})
    assert answer["winners"] == ["P1", "P2"]
    assert answer["ranking"] == [["P1", "P2"], ["P3"]]


def test_a_joker_in_a_game_without_one_is_an_invalid_card():
    violation = violation_of({"game": "five-card-draw", "hands": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}})
    assert violation.code == "invalid_card"


def test_a_draw_hand_shows_exactly_five_cards():
    violation = violation_of({"game": "five-card-draw", "hands": {"P1": "AsAhAd", "P2": "9dTdJdQdKd"}})
    assert violation.code == "validation_error"
    assert "P1 shows 3 cards" in violation.detail


# ---------------------------------------------------------------- hold'em and Omaha


def test_holdem_when_the_board_plays_everyone_left_splits():
    answer = showdown_ruling(
        {"game": "holdem", "board": "AhKhQhJhTh", "hands": {"P1": "2c3c", "P2": "AsAd"}})
    assert answer["winners"] == ["P1", "P2"]
    assert answer["hands"]["P2"] == {"category": "royal_flush", "best": "AhKhQhJhTh",
                                     "description": "royal flush"}


def test_holdem_kicker_decides_between_two_pairs_of_aces():
    answer = showdown_ruling(
        {"game": "holdem", "board": "Ac8d5h3s2c", "hands": {"P1": "AsQd", "P2": "AdKh"}})
    assert answer["winners"] == ["P2"]
    assert answer["hands"]["P2"]["best"] == "AdAcKh8d5h"


def test_omaha_uses_exactly_two_hole_cards_so_one_heart_makes_no_flush():
    answer = showdown_ruling(
        {"game": "omaha", "board": "2h5h9hKh3c", "hands": {"P1": "AhAsAdAc", "P2": "7s8s6d4d"}})
    # Two aces from the hand and three board cards: a pair, never a flush, never four aces.
    assert answer["hands"]["P1"]["category"] == "one_pair"
    assert answer["hands"]["P2"]["category"] == "straight"
    assert answer["winners"] == ["P2"]


def test_a_board_of_three_or_four_cards_ranks_who_is_ahead():
    answer = showdown_ruling({"game": "holdem", "board": "7d5h9d", "hands": {"A": "AsKs", "B": "9s9c"}})
    assert answer["hands"]["B"]["category"] == "three_of_a_kind"
    assert answer["winners"] == ["B"]


def test_holdem_needs_a_board():
    assert violation_of({"game": "holdem", "hands": {"A": "AsKs", "B": "9s9c"}}).code == "validation_error"


def test_the_joker_setting_belongs_to_five_card_draw():
    violation = violation_of(
        {"game": "holdem", "joker": "wild", "board": "7d5h9d2c3c", "hands": {"A": "AsKs", "B": "9s9c"}})
    assert violation.code == "validation_error"


def test_a_card_in_two_places_is_a_duplicate_card():
    violation = violation_of(
        {"game": "holdem", "board": "7d5h9d2c3c", "hands": {"A": "AsKs", "B": "As9c"}})
    assert violation.code == "duplicate_card"
    assert violation.numbers == {"card": "As"}
    violation = violation_of(
        {"game": "holdem", "board": "7d5h9d2c3c", "hands": {"A": "7dKs", "B": "Qs9c"}})
    assert "the board" in violation.detail


@pytest.mark.parametrize("request_", [
    {"game": "pineapple", "hands": {"A": "AsKsQsJsTs", "B": "2c3c4c5c7d"}},
    {"game": "five-card-draw", "joker": "maybe", "hands": {"A": "AsKsQsJsTs", "B": "2c3c4c5c7d"}},
    {"game": "five-card-draw", "hands": {"A": "AsKsQsJsTs"}},
    {"game": "five-card-draw", "hands": ["AsKsQsJsTs", "2c3c4c5c7d"]},
    {"game": "five-card-draw", "hands": {"A": 5, "B": "2c3c4c5c7d"}},
    {"game": "five-card-draw", "board": "2h3h4h", "hands": {"A": "AsKsQsJsTs", "B": "2c3c4c5c7d"}},
    {"game": "holdem", "board": "2h3h", "hands": {"A": "AsKs", "B": "2c3c"}},
    {"game": "omaha", "board": "2h3h4h", "hands": {"A": "AsKs", "B": "2c3c5c6c"}},
])
def test_requests_of_the_wrong_shape_are_validation_errors(request_):
    assert violation_of(request_).code == "validation_error"


def test_text_that_is_not_a_card_is_an_invalid_card():
    assert violation_of({"game": "holdem", "board": "2h3h4h", "hands": {"A": "AsXx", "B": "2c3c"}}).code \
        == "invalid_card"


# ---------------------------------------------------------------- invariants


@st.composite
def deals(draw: st.DrawFn) -> dict:
    game = draw(st.sampled_from(["five-card-draw", "holdem", "omaha"]))
    size = {"five-card-draw": 5, "holdem": 2, "omaha": 4}[game]
    players = draw(st.integers(min_value=2, max_value=6))
    joker = draw(st.sampled_from(["none", "wild", "bug"])) if game == "five-card-draw" else "none"
    deck = draw(st.permutations(new_deck(with_joker=joker != "none")))
    request = {"game": game, "joker": joker,
               "hands": {f"P{i + 1}": format_cards(deck[i * size:(i + 1) * size]) for i in range(players)}}
    if game != "five-card-draw":
        board_size = draw(st.sampled_from([3, 4, 5]))
        request["board"] = format_cards(deck[players * size:players * size + board_size])
    return request


@settings(max_examples=150, deadline=None)
@given(deals())
def test_the_ranking_puts_every_player_once_best_first_with_the_winners_on_top(request):
    answer = showdown_ruling(request)
    ranking = answer["ranking"]
    assert sorted(p for group in ranking for p in group) == sorted(request["hands"])
    assert answer["winners"] == ranking[0]
    order = {name: CATEGORIES.index(hand["category"]) for name, hand in answer["hands"].items()}
    for better, worse in zip(ranking, ranking[1:]):
        assert order[better[0]] >= order[worse[0]]
    for group in ranking:
        assert len({answer["hands"][p]["category"] for p in group}) == 1
        assert group == [p for p in request["hands"] if p in group]  # ties keep the seat order


@settings(max_examples=75, deadline=None)
@given(deals(), st.randoms(use_true_random=False))
def test_the_ranking_does_not_depend_on_the_order_hands_are_listed(request, rng):
    names = list(request["hands"])
    rng.shuffle(names)
    shuffled = {**request, "hands": {name: request["hands"][name] for name in names}}
    assert [set(group) for group in showdown_ruling(shuffled)["ranking"]] == \
        [set(group) for group in showdown_ruling(request)["ranking"]]
