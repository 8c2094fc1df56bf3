"""POST /v1/rulings/showdown for the mixed games, as the domain answers it."""
from __future__ import annotations

import pytest

from domain.rules.violations import Violation
from domain.rulings.showdown import showdown_ruling


def test_stud_hi_lo_splits_between_the_high_and_the_eight_low() -> None:
    answer = showdown_ruling({"game": "stud_hi_lo", "hands": {
        "Ann": "KsKdKc7h2s9d4c", "Bob": "As2d3c6h8s9h9c"}})
    assert answer["winners"] == ["Ann"]
    assert answer["hands"]["Ann"]["category"] == "three_of_a_kind"
    assert answer["low"]["winners"] == ["Bob"]
    assert answer["low"]["hands"]["Bob"]["description"] == "8-6-3-2-A low"
    assert answer["low"]["hands"]["Ann"] is None


def test_omaha_hi_lo_without_a_qualifying_low_the_high_scoops() -> None:
    answer = showdown_ruling({"game": "omaha_hi_lo", "board": "KsQd9c7h2s", "hands": {
        "Ann": "AsAdJc3h", "Bob": "KdKhTc4c"}})
    assert answer["winners"] == ["Bob"]
    assert answer["low"] == {"winners": [], "ranking": [], "hands": {"Ann": None, "Bob": None}}


def test_omaha_hi_lo_quartered_low() -> None:
    answer = showdown_ruling({"game": "omaha_hi_lo", "board": "3s4d5hKsKc", "hands": {
        "Ann": "As2dQcJd", "Bob": "Ah2cTdTh", "Cy": "KhKd9s9c"}})
    assert answer["winners"] == ["Cy"]
    assert answer["low"]["winners"] == ["Ann", "Bob"]
    assert sorted(answer["low"]["hands"]["Ann"]["best"]) == sorted("As2d3s4d5h")


def test_razz_the_lowest_hand_wins_pairs_count_against() -> None:
    answer = showdown_ruling({"game": "razz", "hands": {
        "Ann": "As2d3c4h6sKdKc", "Bob": "AhAc2c2h3s3d4c"}})
    assert answer["winners"] == ["Ann"]
    assert answer["hands"]["Ann"]["description"] == "6-4-3-2-A low"
    assert answer["hands"]["Bob"]["category"] == "one_pair"


def test_deuce_to_seven_seven_five_beats_seven_six_and_the_wheel_is_ace_high() -> None:
    answer = showdown_ruling({"game": "deuce_seven", "hands": {
        "Yockey": "7h6c4c3d2c", "Arieh": "2h4d7c5c3c", "Wheel": "As5d4h3s2d"}})
    assert answer["ranking"] == [["Arieh"], ["Yockey"], ["Wheel"]]
    assert answer["hands"]["Arieh"]["description"] == "7-5-4-3-2 low"


def test_badugi_wikipedia_example() -> None:
    answer = showdown_ruling({"game": "badugi", "hands": {"Alice": "2s4c6d9h", "Carol": "3s5d7c8h"}})
    assert answer["winners"] == ["Carol"]
    assert answer["hands"]["Carol"]["description"] == "8-7-5-3 badugi"


def test_short_deck_a_flush_beats_a_full_house() -> None:
    answer = showdown_ruling({"game": "short_deck", "board": "AsJs9s9dAd", "hands": {
        "Ann": "7s6s", "Bob": "AhKc"}})
    assert answer["winners"] == ["Ann"]
    assert answer["hands"]["Ann"]["category"] == "flush"
    assert answer["hands"]["Bob"]["category"] == "full_house"


def test_short_deck_refuses_a_five() -> None:
    with pytest.raises(Violation) as refused:
        showdown_ruling({"game": "short_deck", "board": "AsJs9s", "hands": {
            "Ann": "5s6s", "Bob": "AhKc"}})
    assert refused.value.code == "invalid_card"


def test_a_stud_hand_of_eight_cards_is_a_validation_error() -> None:
    with pytest.raises(Violation) as refused:
        showdown_ruling({"game": "stud", "hands": {"Ann": "As2d3c4h6sKdKcQc", "Bob": "AhKh"}})
    assert refused.value.code == "validation_error"


SIZES = {"stud": (7, 0), "stud_hi_lo": (7, 0), "razz": (7, 0), "omaha_hi_lo": (4, 5),
         "short_deck": (2, 5), "deuce_seven": (5, 0), "badugi": (4, 0)}


@pytest.mark.parametrize("game", sorted(SIZES))
def test_random_showdowns_name_winners_among_the_players_and_their_best_cards(game: str) -> None:
    import random

    from domain.rules.cards import RANKS, SUITS

    rng = random.Random(game)
    ranks = RANKS[4:] if game == "short_deck" else RANKS
    hole, board_size = SIZES[game]
    for _ in range(100):
        deck = [r + s for r in ranks for s in SUITS]
        rng.shuffle(deck)
        board = "".join(deck[:board_size])
        hands = {f"P{k}": "".join(deck[board_size + k * hole:board_size + (k + 1) * hole])
                 for k in range(3)}
        answer = showdown_ruling({"game": game, "board": board or None, "hands": hands})
        assert set(answer["winners"]) <= set(hands)
        for shown in answer["hands"].values():
            assert set(shown["best"][i:i + 2] for i in range(0, len(shown["best"]), 2)) \
                <= set(deck[:board_size + 3 * hole])
