"""POST /v1/rulings/betting for five-card draw: an ante game, `min_bet` the unit, `draw`
actions with `discard` (cards or a count); rounds close by themselves."""
from __future__ import annotations

import pytest

from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling

THREE = [{"player": "A", "stack": 2000}, {"player": "B", "stack": 2000},
         {"player": "D", "stack": 2000}]
NL = {"structure": "no-limit", "min_bet": 20}
FL = {"structure": "fixed-limit", "min_bet": 20}


def ruling(**request):
    return betting_ruling({"game": "five-card-draw", "seats": THREE, **request})


def test_everyone_antes_and_the_first_bet_is_at_least_one_unit():
    answer = ruling(betting=NL, proposed={"player": "A", "action": "bet", "to": 15})
    assert answer["round"] == "first_round" and answer["to_act"] == "A"
    assert answer["pots"] == [{"amount": 30, "eligible": ["A", "B", "D"]}]
    assert answer["stacks"] == {"A": 1990, "B": 1990, "D": 1990}
    assert answer["legal"]["bet"] == {"min_to": 20, "max_to": 1990}
    assert answer["verdict"]["legal"] is False and answer["verdict"]["code"] == "bet_below_minimum"


def test_after_the_first_round_the_draw_goes_from_left_of_the_dealer_and_counts_are_public():
    answer = ruling(betting=NL, actions=[
        {"player": "A", "action": "bet", "to": 40}, {"player": "B", "action": "call"},
        {"player": "D", "action": "fold"}, {"player": "A", "action": "draw", "discard": 3}],
        proposed={"player": "B", "action": "draw", "discard": 2})
    assert answer["round"] == "draw" and answer["to_act"] == "B" and answer["legal"] is None
    assert answer["drawn"] == {"A": 3}
    assert answer["draw"]["player"] == "B"
    assert answer["verdict"] == {"legal": True, "rule": "seed 000", "detail": "B draws 2: at most 4 keeping an ace or the joker, else 3",
                                 "numbers": {"discard": 2, "most": 4, "most_keeping_no_ace": 3}}


def test_four_cards_only_keeping_an_ace():
    cards = {"hole": {"A": "KsKh9d7c2s", "B": "AsQh8d6c3s"}}
    answer = ruling(betting=NL, cards=cards, actions=[
        {"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
        {"player": "D", "action": "fold"}],
        proposed={"player": "A", "action": "draw", "discard": ["Kh", "9d", "7c", "2s"]})
    assert answer["draw"] == {"player": "A", "most": 3, "most_keeping_no_ace": 3}
    assert answer["verdict"]["code"] == "draw_limit_exceeded"


def test_an_all_check_first_round_is_dealt_again_with_the_pot_kept():
    answer = ruling(betting=NL, actions=[{"player": p, "action": "check"} for p in "ABD"])
    assert answer["redeals"] == 1 and answer["round"] == "first_round"
    assert answer["pots"] == [{"amount": 60, "eligible": ["A", "B", "D"]}]


def test_fixed_limit_bets_one_unit_before_the_draw_and_two_after_and_cards_settle_it():
    answer = ruling(betting=FL, cards={"hole": {"A": "AsAhKd7c2s", "B": "QsQhJd9c3s"},
                                       "received": {"A": "AdTc4h", "B": "Qd5s6s"}},
                    actions=[{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
                             {"player": "D", "action": "fold"},
                             {"player": "A", "action": "draw", "discard": ["Kd", "7c", "2s"]},
                             {"player": "B", "action": "draw", "discard": "Jd9c3s"},
                             {"player": "A", "action": "check"}, {"player": "B", "action": "bet", "to": 40},
                             {"player": "A", "action": "call"}])
    assert answer["hand_over"] is True and answer["round"] == "showdown"
    assert answer["pots"] == [{"amount": 150, "eligible": ["A", "B"], "winners": ["A"],
                               "shares": {"A": 150}}]
    assert answer["stacks"] == {"A": 2080, "B": 1930, "D": 1990}


def test_without_the_cards_the_ruling_stops_at_the_showdown():
    answer = ruling(betting=FL, actions=[
        {"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
        {"player": "D", "action": "fold"}, {"player": "A", "action": "draw", "discard": 2},
        {"player": "B", "action": "draw", "discard": 0}, {"player": "A", "action": "check"},
        {"player": "B", "action": "check"}])
    assert answer["round"] == "showdown" and answer["hand_over"] is False
    assert answer["pots"] == [{"amount": 70, "eligible": ["A", "B"]}]


def test_a_fixed_limit_bet_of_the_wrong_size_is_the_first_illegal_action():
    with pytest.raises(Violation) as refused:
        ruling(betting=FL, actions=[{"player": "A", "action": "bet", "to": 40}])
    assert refused.value.code == "wrong_fixed_amount" and refused.value.numbers["index"] == 0


def test_blinds_are_not_part_of_an_ante_game():
    with pytest.raises(Violation) as refused:
        ruling(betting={"structure": "no-limit", "small_blind": 10, "big_blind": 20})
    assert refused.value.code == "validation_error"


def test_a_unit_that_is_not_twice_a_whole_ante_is_malformed():
    with pytest.raises(Violation) as refused:
        ruling(betting={"structure": "no-limit", "min_bet": 20, "ante": 15})
    assert refused.value.code == "validation_error"


def test_jacks_or_better_refuses_an_opening_without_openers():
    answer = ruling(betting=NL, settings={"opening": "jacks_or_better"},
                    cards={"hole": {"A": "Ts9h7d4c2s"}},
                    proposed={"player": "A", "action": "bet", "to": 20})
    assert answer["legal"]["bet"] is None
    assert answer["verdict"]["code"] == "no_openers"


def test_a_legal_draw_reads_out_how_many_and_the_limit():
    cards = {"hole": {"A": "KsKh9d7c2s", "B": "AsQh8d6c3s"}}
    answer = ruling(betting=NL, cards=cards, actions=[
        {"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
        {"player": "D", "action": "fold"}, {"player": "A", "action": "draw", "discard": 3}],
        proposed={"player": "B", "action": "draw", "discard": ["Qh", "8d", "6c", "3s"]})
    assert answer["verdict"] == {
        "legal": True, "rule": "seed 000",
        "detail": "B draws 4: at most 4 keeping an ace or the joker, else 3",
        "numbers": {"discard": 4, "most": 4, "most_keeping_no_ace": 3}}


def test_a_draw_naming_its_discards_from_a_hand_nobody_named_is_ruled_on_them():
    # Without `cards.hole` the hand is unknown: the cards the draw names came from it.
    opened = [{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
              {"player": "D", "action": "fold"}]
    answer = ruling(betting=NL, actions=[*opened, {"player": "A", "action": "draw", "discard": ["7c", "2d"]}],
                    proposed={"player": "B", "action": "draw", "discard": "9s8s4h"})
    assert answer["drawn"] == {"A": 2}
    assert answer["verdict"]["legal"] is True and answer["verdict"]["numbers"]["discard"] == 3
