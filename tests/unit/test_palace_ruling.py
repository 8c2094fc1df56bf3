"""The stateless battle ruling: two players' cards in, the winner and the reason out."""
from __future__ import annotations

import pytest

from domain.games.palace_battles import hand_value, palace_battle_ruling
from domain.rules.violations import Violation


def ruling(attacker: dict, defender: dict, **extra) -> dict:
    return palace_battle_ruling({"attacker": attacker, "defender": defender, **extra})


def test_the_better_hand_wins_and_the_winner_captures_the_losers_banner_and_soldiers():
    answer = ruling({"name": "Ann", "banner": "Ah", "palace": "KdKc2s", "soldiers": ["7h", "7d"]},
                    {"name": "Bob", "banner": "Qs", "palace": "QdQc3h", "soldiers": "9c"})
    # Bob's three queens beat Ann's kings and sevens; her 2s does not count against his
    # spade banner, nor his 3h against her heart banner.
    assert answer["outcome"] == "defender_won"
    assert (answer["winner"], answer["loser"], answer["out"]) == ("Bob", "Ann", ["Ann"])
    assert answer["reason"] == "better_hand" and answer["tie_break_applied"] is False
    assert answer["captured"] == "Ah7h7d"
    ann, bob = answer["hands"]["attacker"], answer["hands"]["defender"]
    assert (ann["category"], ann["ignored"], ann["ignored_suit"]) == ("two_pair", "2s", "s")
    assert sorted(ann["best"][i:i + 2] for i in range(0, 10, 2)) == ["7d", "7h", "Ah", "Kc", "Kd"]
    assert (bob["category"], bob["ignored"], bob["ignored_suit"]) == ("three_of_a_kind", "3h", "h")
    assert bob["counted"] == "QsQdQc9c"


def test_cards_of_the_opponents_banner_suit_are_ignored():
    answer = ruling({"banner": "Ah", "palace": "KsKd2c"}, {"banner": "Qs", "palace": "Qd5c3h"})
    assert answer["winner"] == "defender"  # unnamed sides are called by their role
    assert answer["hands"]["attacker"]["ignored"] == "Ks"
    assert answer["hands"]["attacker"]["category"] == "high_card"


def test_a_flush_in_the_opponents_suit_is_no_flush():
    answer = ruling({"banner": "As", "palace": "KhQh9h", "soldiers": "7h2h"},
                    {"banner": "3h", "palace": "3c4d8s"})
    assert answer["hands"]["attacker"]["counted"] == "As"
    assert answer["hands"]["attacker"]["category"] == "high_card"
    assert answer["winner"] == "defender"  # 8-4-3-3: a pair of threes beats a lone ace


def test_a_tie_goes_to_more_cards_of_the_own_banner_suit():
    answer = ruling({"banner": "Ah", "palace": "Kh9d4d"}, {"banner": "Ac", "palace": "Ks9c4c"})
    assert answer["reason"] == "more_banner_suit_cards"
    assert answer["tie_break_applied"] is True
    assert answer["winner"] == "defender"
    assert answer["hands"]["attacker"]["banner_suit_cards"] == 2
    assert answer["hands"]["defender"]["banner_suit_cards"] == 3


def test_a_tie_after_the_tie_break_knocks_both_out_unless_they_are_the_last_two():
    hands = ({"name": "Ann", "banner": "Ah", "palace": "Kh9d4d"},
             {"name": "Bob", "banner": "Ac", "palace": "Ks9s4c"})
    both_out = ruling(*hands)
    assert (both_out["outcome"], both_out["winner"], both_out["out"]) == (
        "double_knockout", None, ["Ann", "Bob"])
    assert both_out["reason"] == "tie"
    split = ruling(*hands, last_two=True)
    assert (split["outcome"], split["out"]) == ("split", [])


def test_banners_of_the_same_suit_cannot_battle():
    with pytest.raises(Violation) as refused:
        ruling({"banner": "Ah", "palace": "KdKc2s"}, {"banner": "2h", "palace": "QdQc3s"})
    assert refused.value.code == "same_banner_suit"


@pytest.mark.parametrize("attacker, code", [
    ({"banner": "Ah", "palace": "KdKc"}, "validation_error"),
    ({"banner": "AhKh", "palace": "KdKc2s"}, "validation_error"),
    ({"banner": "Ah", "palace": "KdKc2s", "soldiers": "2c3c4c5c6c7c"}, "validation_error"),
    ({"banner": "Ah", "palace": "KdKcZz"}, "invalid_card"),
    ({"banner": "Ah", "palace": "KdKcJk"}, "invalid_card"),
    ({"banner": "Ah", "palace": "QdKc2s"}, "duplicate_card"),
])
def test_malformed_holdings_are_refused(attacker, code):
    with pytest.raises(Violation) as refused:
        ruling(attacker, {"banner": "Qs", "palace": "QdQc3s"})
    assert refused.value.code == code


def test_a_missing_side_is_refused():
    with pytest.raises(Violation) as refused:
        palace_battle_ruling({"attacker": {"banner": "Ah", "palace": "KdKc2s"}})
    assert refused.value.code == "validation_error"


def test_a_hand_of_fewer_than_five_cards_ranks_by_what_it_makes_missing_cards_lowest():
    assert hand_value(("Kh", "Kd", "7c", "4s")).category == "one_pair"
    assert hand_value(("Kh", "Kd", "Ks", "Kc")).category == "four_of_a_kind"
    assert hand_value(("Kh", "Kd", "7c", "7s")).category == "two_pair"
    assert hand_value(("Kh", "Qh", "Jh", "Th")).category == "high_card"  # no four-card flush
    short = hand_value(("Kh", "Kd", "7c", "4s"))
    full = hand_value(("Kh", "Kd", "7c", "4s", "2d"))
    assert short.strength < full.strength
    assert hand_value(("Ah", "Kd", "Qc", "Js")).strength > hand_value(("Kh", "Qd", "Jc", "9s", "8s")).strength
    assert hand_value(("2h", "2d")).strength > hand_value(("Ah", "Kd", "Qc", "Js", "9s")).strength


def test_the_battle_stakes_are_soldiers_plus_banner_times_the_small_bet_and_half_a_small_bet_ante():
    # palace-poker.md: "the attacker puts in at least (attacker's soldiers + 1) x S", the
    # defender calls "(defender's soldiers + 1) x S", and "S = 10 -> ante 5".
    answer = ruling({"name": "Ann", "banner": "Ah", "palace": "KdKc2s", "soldiers": ["7h", "7d"]},
                    {"name": "Bob", "banner": "Qs", "palace": "QdQc3h", "soldiers": "9c"}, small_bet=10)
    assert answer["stakes"] == {
        "small_bet": 10, "minimum_bet": 30, "defender_call": 20, "ante": 5, "rule": "seed 001",
        "detail": "Ann bets at least (2 soldiers + banner) x 10 = 30; Bob calls (1 soldier + banner) "
                  "x 10 = 20; the ante is half the small bet: 5"}


def test_an_odd_small_bet_antes_half_rounded_down_and_no_soldiers_bet_the_banner_alone():
    answer = ruling({"banner": "Ah", "palace": "KdKc2s"}, {"banner": "Qs", "palace": "QdQc3h"},
                    small_bet=25)
    assert (answer["stakes"]["minimum_bet"], answer["stakes"]["ante"]) == (25, 12)
    assert "stakes" not in ruling({"banner": "Ah", "palace": "KdKc2s"}, {"banner": "Qs", "palace": "QdQc3h"})


@pytest.mark.parametrize("small_bet", [0, -5, 2.5, True, "10"])
def test_a_small_bet_that_is_no_whole_number_of_chips_is_refused(small_bet):
    with pytest.raises(Violation) as refused:
        ruling({"banner": "Ah", "palace": "KdKc2s"}, {"banner": "Qs", "palace": "QdQc3h"}, small_bet=small_bet)
    assert refused.value.code == "validation_error"
