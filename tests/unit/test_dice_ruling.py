"""POST /v1/rulings/dice (api.md), answered by domain.games.dice.dice_ruling."""
import pytest

from domain.games.dice import dice_ruling
from domain.games.dice_scoring import LINES
from domain.rules.violations import Violation

EMPTY_CARD = dict.fromkeys(LINES)


def test_the_api_example_scores_every_line_and_names_the_legal_ones():
    answer = dice_ruling({"rules": {}, "scorecard": EMPTY_CARD, "dice": [3, 3, 3, 5, 5],
                          "poker_bonus_count": 0})
    assert {line: shown["score"] for line, shown in answer["lines"].items()} == {
        "aces": 0, "twos": 0, "threes": 9, "fours": 0, "fives": 10, "sixes": 0, "pair": 19,
        "two_pair": 19, "three_of_a_kind": 19, "four_of_a_kind": 0, "full_house": 25,
        "small_straight": 0, "large_straight": 0, "poker": 0, "chance": 19}
    assert answer["legal_lines"] == list(LINES)
    assert answer["best_line"] == "full_house"
    assert answer["joker"] is False and answer["poker_bonus"] == 0
    assert answer["lines"]["full_house"] == {"score": 25, "legal": True, "bonus": 0, "total_after": 25}
    assert answer["totals"] == {"upper": 0, "upper_bonus": 0, "lower": 0, "poker_bonuses": 0,
                                "grand_total": 0}


def test_without_dice_the_ruling_answers_the_totals_only():
    card = {**EMPTY_CARD, "aces": 4, "twos": 8, "threes": 12, "fours": 16, "fives": 15, "sixes": 12,
            "poker": 50, "chance": 22}
    assert dice_ruling({"scorecard": card, "poker_bonus_count": 1}) == {"totals": {
        "upper": 67, "upper_bonus": 35, "lower": 72, "poker_bonuses": 100, "grand_total": 274}}


def test_the_63_or_more_rule_is_a_setting_of_the_ruling():
    card = {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    assert dice_ruling({"scorecard": card})["totals"]["upper_bonus"] == 0
    assert dice_ruling({"rules": {"upper_bonus_rule": "63_or_more"},
                        "scorecard": card})["totals"]["upper_bonus"] == 35


def test_a_joker_is_forced_to_its_upper_line_and_earns_the_poker_bonus():
    answer = dice_ruling({"scorecard": {**EMPTY_CARD, "poker": 50}, "dice": [2, 2, 2, 2, 2],
                          "poker_bonus_count": 0})
    assert answer["joker"] is True and answer["poker_bonus"] == 100
    assert answer["legal_lines"] == ["twos"]
    assert answer["lines"]["twos"] == {"score": 10, "legal": True, "bonus": 100, "total_after": 160}
    assert answer["lines"]["chance"] == {"score": 10, "legal": False, "bonus": 0, "total_after": None,
                                         "reason": "joker_line_required"}
    assert answer["lines"]["poker"]["reason"] == "line_filled"


def test_filled_lines_are_not_legal_and_missing_lines_count_as_free():
    answer = dice_ruling({"scorecard": {"chance": 17}, "dice": [1, 2, 3, 4, 6]})
    assert answer["lines"]["chance"]["legal"] is False
    assert len(answer["legal_lines"]) == 14


@pytest.mark.parametrize("request_body, code", [
    ({"dice": [1, 2, 3]}, "invalid_dice"),
    ({"dice": "12345"}, "invalid_dice"),
    ({"rules": {"upper_bonus_rule": "64"}}, "invalid_settings"),
    ({"scorecard": {"aces": 7}}, "invalid_scorecard"),
    ({"scorecard": [0, 2]}, "validation_error"),
    ({"rules": "63_or_more"}, "validation_error"),
    ({"scorecard": {"poker": 0}, "poker_bonus_count": 1}, "invalid_scorecard"),
    ({"poker_bonus_count": -1}, "validation_error"),
    ({"dices": [1, 2, 3, 4, 5]}, "validation_error"),
    ({"scorecard": {line: 0 if line not in ("chance", "pair") else 5 for line in LINES},
      "dice": [1, 2, 3, 4, 5]}, "game_over"),
])
def test_bad_requests_are_refused_with_a_stable_code(request_body, code):
    with pytest.raises(Violation) as refused:
        dice_ruling(request_body)
    assert refused.value.code == code


# dice-poker.md "Turn": all five dice, then up to two re-rolls: at most 3 rolls.

@pytest.mark.parametrize("taken, another, left", [(0, True, 3), (1, True, 2), (2, True, 1), (3, False, 0)])
def test_another_roll_is_allowed_until_three_rolls_are_taken(taken, another, left):
    request = {"scorecard": EMPTY_CARD, "rolls_taken": taken}
    if taken:
        request["dice"] = [3, 3, 3, 5, 5]
    roll = dice_ruling(request)["roll"]
    assert (roll["another_roll"], roll["rolls_left"], roll["rolls_per_turn"]) == (another, left, 3)
    assert roll["rule"] == "seed 003"


def test_the_last_roll_must_be_written_and_the_detail_says_so():
    roll = dice_ruling({"rolls_taken": 3, "dice": [1, 2, 3, 4, 6]})["roll"]
    assert roll["detail"] == "3 of 3 rolls taken: no roll is left; write the roll on a free line"
    assert dice_ruling({"rolls_taken": 2})["roll"]["detail"] == (
        "2 of 3 rolls taken: another roll is allowed, re-rolling 1 to 5 dice (1 left)")


def test_a_rolls_per_turn_setting_moves_the_limit():
    roll = dice_ruling({"rules": {"rolls_per_turn": 4}, "rolls_taken": 3})["roll"]
    assert (roll["another_roll"], roll["rolls_left"]) == (True, 1)


def test_a_full_card_allows_no_roll():
    full = {**{line: 0 for line in LINES}, "chance": 5}  # chance always scores the dice
    assert dice_ruling({"scorecard": full, "rolls_taken": 0})["roll"]["another_roll"] is False


@pytest.mark.parametrize("request_", [{"rolls_taken": 4}, {"rolls_taken": -1}, {"rolls_taken": True},
                                      {"rolls_taken": 0, "dice": [1, 2, 3, 4, 5]}])
def test_rolls_taken_beyond_the_turn_or_against_the_dice_is_refused(request_):
    with pytest.raises(Violation) as refused:
        dice_ruling(request_)
    assert refused.value.code == "validation_error"
