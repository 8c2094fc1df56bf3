"""POST /v1/rulings/betting for the mixed games, as the domain answers it."""
from __future__ import annotations

import pytest

from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling

STUD = {"structure": "fixed-limit", "small_bet": 20, "big_bet": 40, "ante": 2, "bring_in": 5}
SEATS = [{"player": "Ann", "stack": 1000}, {"player": "Bob", "stack": 1000},
         {"player": "Cy", "stack": 1000}]


def test_stud_the_lowest_up_card_is_to_bring_it_in_or_complete() -> None:
    answer = betting_ruling({"game": "stud", "betting": STUD, "seats": SEATS, "cards": {"hole": {
        "Ann": "AhKh9c", "Bob": "QdJd2c", "Cy": "7s6s2d"}}})
    assert answer["round"] == "third_street" and answer["to_act"] == "Bob"
    assert answer["legal"]["bring_in"] == 5 and answer["legal"]["check"] is False
    assert answer["legal"]["bet"] == {"min_to": 20, "max_to": 20}


def test_stud_completing_after_the_bring_in_goes_to_the_small_bet() -> None:
    answer = betting_ruling({"game": "stud", "betting": STUD, "seats": SEATS,
                             "cards": {"hole": {"Ann": "AhKh9c", "Bob": "QdJd2c", "Cy": "7s6s2d"}},
                             "actions": [{"player": "Bob", "action": "bring_in"}],
                             "proposed": {"player": "Cy", "action": "raise", "to": 25}})
    assert answer["legal"]["raise"] == {"min_to": 20, "max_to": 20}
    assert answer["verdict"]["legal"] is False and answer["verdict"]["code"] == "wrong_fixed_amount"


def test_razz_fourth_street_is_opened_by_the_lowest_hand_showing() -> None:
    answer = betting_ruling({"game": "razz", "betting": STUD, "seats": SEATS,
                             "cards": {"hole": {"Ann": "AhKh3c4d", "Bob": "QdJdKc2s",
                                                "Cy": "7s6s2d8h"}},
                             "actions": [{"player": "Bob", "action": "bring_in"},
                                         {"player": "Cy", "action": "call"},
                                         {"player": "Ann", "action": "call"}]})
    assert answer["round"] == "fourth_street" and answer["to_act"] == "Ann"  # 4-3 showing


def test_triple_draw_draws_in_order_and_the_round_after_it_opens_left_of_the_button() -> None:
    betting = {"structure": "fixed-limit", "small_blind": 5, "big_blind": 10,
               "small_bet": 10, "big_bet": 20}
    answer = betting_ruling({"game": "deuce_seven_triple_draw", "betting": betting,
                             "seats": SEATS, "actions": [
                                 {"player": "Cy", "action": "call"},
                                 {"player": "Ann", "action": "call"},
                                 {"player": "Bob", "action": "check"},
                                 {"player": "Ann", "action": "draw", "discard": 2}]})
    assert answer["to_draw"] == "Bob" and answer["to_act"] is None
    with pytest.raises(Violation) as refused:
        betting_ruling({"game": "deuce_seven_triple_draw", "betting": betting, "seats": SEATS,
                        "actions": [{"player": "Cy", "action": "call"},
                                    {"player": "Ann", "action": "call"},
                                    {"player": "Bob", "action": "check"},
                                    {"player": "Bob", "action": "draw", "discard": 1}]})
    assert refused.value.code == "not_your_turn" and refused.value.numbers["index"] == 3


def test_omaha_hi_lo_showdown_splits_the_pot_when_every_card_is_known() -> None:
    betting = {"structure": "fixed-limit", "small_blind": 5, "big_blind": 10,
               "small_bet": 10, "big_bet": 20}
    seats = SEATS[:2]
    checks = [{"player": "Ann", "action": "check"}, {"player": "Bob", "action": "check"}]
    answer = betting_ruling({"game": "omaha_hi_lo", "betting": betting, "seats": seats,
                             "cards": {"hole": {"Ann": "As2dQcJd", "Bob": "KhKdKsQs"},
                                       "board": "3s4d5hJh8c"},
                             "actions": [{"player": "Bob", "action": "call"},
                                         {"player": "Ann", "action": "check"}] + checks * 3})
    assert answer["hand_over"] is True
    assert [pot["winners"] for pot in answer["pots"]] == [["Ann"], ["Ann"]]  # straight and wheel


def test_a_bring_in_in_a_blind_game_is_a_validation_error() -> None:
    with pytest.raises(Violation) as refused:
        betting_ruling({"game": "badugi", "seats": SEATS,
                        "betting": {"structure": "fixed-limit", "small_blind": 5, "big_blind": 10,
                                    "bring_in": 3}})
    assert refused.value.code == "validation_error"


def test_a_count_discard_from_known_cards_leaves_the_kept_cards_unknown() -> None:
    betting = {"structure": "no-limit", "small_blind": 5, "big_blind": 10, "min_bet": 10}
    seats = SEATS[:2]
    answer = betting_ruling({"game": "deuce_seven_single_draw", "betting": betting,
                             "seats": seats,
                             "cards": {"hole": {"Ann": "7h6c4c3d2c", "Bob": "AsQs6s5c3c"}},
                             "actions": [{"player": "Bob", "action": "call"},
                                         {"player": "Ann", "action": "check"},
                                         {"player": "Ann", "action": "draw", "discard": 0},
                                         {"player": "Bob", "action": "draw", "discard": 2},
                                         {"player": "Ann", "action": "check"},
                                         {"player": "Bob", "action": "check"}]})
    # Bob's hand is no longer known: the showdown cannot be settled from these cards.
    assert answer["round"] == "showdown" and answer["hand_over"] is False


def test_stud_an_open_pair_on_fourth_street_offers_the_big_bet_beside_the_small_one() -> None:
    # Robert's Rules of Poker, seven-card stud 4: an open pair on fourth street gives the
    # option of the small or the big bet.
    answer = betting_ruling({"game": "stud", "betting": STUD, "seats": SEATS,
                             "cards": {"hole": {"Ann": "AhKh9c9d", "Bob": "QdJd2c3c",
                                                "Cy": "7s6s8dTc"}},
                             "actions": [{"player": "Bob", "action": "bring_in"},
                                         {"player": "Cy", "action": "call"},
                                         {"player": "Ann", "action": "call"}],
                             "proposed": {"player": "Ann", "action": "bet", "to": 40}})
    assert answer["round"] == "fourth_street" and answer["to_act"] == "Ann"  # nines showing
    assert answer["legal"]["bet"] == {"min_to": 20, "max_to": 20, "open_pair_to": 40}
    assert answer["verdict"] == {"legal": True, "rule": "RRP seven-card stud 4",
                                 "detail": "an open pair on fourth street may bet the big bet of 40",
                                 "numbers": {"to": 40, "open_pair_to": 40}}


def test_stud_without_an_open_pair_fourth_street_is_the_small_bet_only() -> None:
    answer = betting_ruling({"game": "stud", "betting": STUD, "seats": SEATS,
                             "cards": {"hole": {"Ann": "AhKh9cTd", "Bob": "QdJd2c3c",
                                                "Cy": "7s6s8d4c"}},
                             "actions": [{"player": "Bob", "action": "bring_in"},
                                         {"player": "Cy", "action": "call"},
                                         {"player": "Ann", "action": "call"}]})
    assert answer["legal"]["bet"] == {"min_to": 20, "max_to": 20}


def test_stud_hi_lo_has_no_open_pair_big_bet_in_the_ruling() -> None:
    answer = betting_ruling({"game": "stud_hi_lo", "betting": STUD, "seats": SEATS,
                             "cards": {"hole": {"Ann": "AhKh9c9d", "Bob": "QdJd2c3c",
                                                "Cy": "7s6s8dTc"}},
                             "actions": [{"player": "Bob", "action": "bring_in"},
                                         {"player": "Cy", "action": "call"},
                                         {"player": "Ann", "action": "call"}]})
    assert answer["legal"]["bet"] == {"min_to": 20, "max_to": 20}
