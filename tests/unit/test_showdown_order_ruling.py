"""POST /v1/rulings/showdown-order as the domain answers it: who shows first, by the
rules' own cases (the rule books are not on this machine: their substance, not a quote).

TDA 2024 16 (face up for all-ins): once a player is all in and every other player's
betting is over, every hand is tabled at once.
TDA 2024 17-A (non all-in showdowns, order of show): the last aggressive player on the
final betting round tables first; with no bet on it, the player who would act first on a
betting round: the first seat left of the button in flop games, the high hand showing in
stud, the low hand showing in razz.
"""
from __future__ import annotations

import pytest

from domain.rules.violations import Violation
from domain.rulings.who_shows_first import showdown_order_ruling

NO_LIMIT = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}
SEATS = [{"player": "Ann", "stack": 5000}, {"player": "Bob", "stack": 5000},
         {"player": "Cy", "stack": 5000}]
LIMPED = [{"player": "Cy", "action": "call"}, {"player": "Ann", "action": "call"},
          {"player": "Bob", "action": "check"}]
CHECKED = [{"player": name, "action": "check"} for name in ("Ann", "Bob", "Cy")]
STUD = {"structure": "fixed-limit", "small_bet": 20, "big_bet": 40, "ante": 2, "bring_in": 5}


def holdem(actions: list[dict]) -> dict:
    return showdown_order_ruling({"game": "holdem", "betting": NO_LIMIT, "seats": SEATS,
                                  "button": "Cy", "actions": actions})


def test_the_last_aggressive_player_on_the_final_street_must_table_first() -> None:
    river = [{"player": "Ann", "action": "check"}, {"player": "Bob", "action": "bet", "to": 300},
             {"player": "Cy", "action": "raise", "to": 900}, {"player": "Ann", "action": "fold"},
             {"player": "Bob", "action": "call"}]
    answer = holdem(LIMPED + CHECKED + CHECKED + river)
    assert answer == {
        "all_in": False, "order": ["Cy", "Bob"], "first": "Cy", "reason": "last_aggressor",
        "rule": "TDA 2024 17-A",
        "words": "Cy shows first (TDA 2024 17-A): Cy made the last bet or raise on the river. "
                 "Then, clockwise, Bob shows or mucks."}


def test_a_bet_on_an_earlier_street_does_not_decide_the_order() -> None:
    flop = [{"player": "Ann", "action": "check"}, {"player": "Bob", "action": "check"},
            {"player": "Cy", "action": "bet", "to": 200}, {"player": "Ann", "action": "call"},
            {"player": "Bob", "action": "call"}]
    answer = holdem(LIMPED + flop + CHECKED + CHECKED)
    assert (answer["first"], answer["reason"]) == ("Ann", "first_to_act")


def test_with_no_bet_on_the_final_street_the_first_seat_left_of_the_button_tables_first() -> None:
    answer = holdem(LIMPED + CHECKED + CHECKED + CHECKED)
    assert answer["order"] == ["Ann", "Bob", "Cy"] and answer["reason"] == "first_to_act"
    assert answer["words"] == ("Ann shows first (TDA 2024 17-A): nobody bet on the river, and Ann, "
                               "the first left of the button, acts first. Then, clockwise, Bob and Cy "
                               "show or muck.")


def test_the_first_seat_left_of_the_button_still_in_the_hand() -> None:
    flop = [{"player": "Ann", "action": "bet", "to": 100}, {"player": "Bob", "action": "call"},
            {"player": "Cy", "action": "call"}]
    turn = [{"player": "Ann", "action": "bet", "to": 200}, {"player": "Bob", "action": "call"},
            {"player": "Cy", "action": "fold"}]
    answer = holdem(LIMPED + flop + turn + [{"player": "Ann", "action": "check"},
                                            {"player": "Bob", "action": "check"}])
    assert answer["order"] == ["Ann", "Bob"] and answer["first"] == "Ann"


def test_all_cards_are_tabled_once_a_player_is_all_in_and_the_betting_is_complete() -> None:
    answer = holdem([{"player": "Cy", "action": "raise", "to": 5000},
                     {"player": "Ann", "action": "fold"}, {"player": "Bob", "action": "call"}])
    assert answer == {
        "all_in": True, "order": ["Bob", "Cy"], "first": None, "reason": "all_in_tabled",
        "rule": "TDA 2024 16",
        "words": "Every hand is tabled at once, face up (TDA 2024 16): Bob and Cy are all in and the "
                 "betting is over, so Bob and Cy table their cards and nobody may muck."}


def test_an_all_in_caller_on_the_river_tables_with_the_bettor() -> None:
    seats = [{"player": "Ann", "stack": 5000}, {"player": "Bob", "stack": 600},
             {"player": "Cy", "stack": 5000}]
    river = [{"player": "Ann", "action": "bet", "to": 500}, {"player": "Bob", "action": "call"},
             {"player": "Cy", "action": "fold"}]
    answer = showdown_order_ruling({"game": "holdem", "betting": NO_LIMIT, "seats": seats,
                                    "actions": LIMPED + CHECKED + CHECKED + river})
    assert answer["all_in"] is True and answer["reason"] == "all_in_tabled"


def test_the_order_is_refused_while_the_betting_is_going_on() -> None:
    with pytest.raises(Violation) as refused:
        holdem(LIMPED + CHECKED + CHECKED + [{"player": "Ann", "action": "bet", "to": 300}])
    assert refused.value.code == "showdown_not_reached" and refused.value.numbers == {"to_act": "Bob"}


def test_no_showdown_when_one_hand_is_left() -> None:
    with pytest.raises(Violation) as refused:
        holdem([{"player": "Cy", "action": "raise", "to": 300}, {"player": "Ann", "action": "fold"},
                {"player": "Bob", "action": "fold"}])
    assert refused.value.code == "no_showdown" and refused.value.rule == "TDA 2024 17-B"


def _stud(game: str, seventh: list[dict]) -> dict:
    # Third to sixth street checked (bring-in then calls); up cards: Ann K-Q-7-2, Bob 5-5-9-3,
    # Cy A-8-6-4 (the third card of each is the third-street up card).
    hole = {"Ann": "2c3dKhQs7h2s9c", "Bob": "4c4d5h5s9d3s8c", "Cy": "6c7dAh8s6h4sTc"}
    # Stud: Bob's open fives open every later street; razz: Cy's ace-eight low does, and Ann's
    # king (the highest up card) brings it in.
    razz = game == "razz"
    bring_in_by, after = ("Ann", ("Bob", "Cy")) if razz else ("Bob", ("Cy", "Ann"))
    third = [{"player": bring_in_by, "action": "bring_in"}]
    third += [{"player": name, "action": "call"} for name in after]
    opened_by = ("Cy", "Ann", "Bob") if razz else ("Bob", "Cy", "Ann")
    later = [{"player": name, "action": "check"} for _ in range(3) for name in opened_by]
    return showdown_order_ruling({"game": game, "betting": STUD, "seats": SEATS,
                                  "cards": {"hole": hole}, "actions": third + later + seventh})


def test_stud_with_no_bet_on_the_final_street_the_high_hand_showing_tables_first() -> None:
    # Bob's board 5-5-9-3 (a pair) is the high hand showing.
    answer = _stud("stud", [{"player": name, "action": "check"} for name in ("Bob", "Cy", "Ann")])
    assert answer["first"] == "Bob" and answer["reason"] == "high_board"
    assert answer["order"] == ["Bob", "Cy", "Ann"]


def test_razz_with_no_bet_on_the_final_street_the_low_hand_showing_tables_first() -> None:
    # Cy's board A-8-6-4 is the lowest showing.
    answer = _stud("razz", [{"player": name, "action": "check"} for name in ("Cy", "Ann", "Bob")])
    assert answer["first"] == "Cy" and answer["reason"] == "low_board"


def test_stud_the_last_aggressor_on_seventh_street_tables_first() -> None:
    answer = _stud("stud", [{"player": "Bob", "action": "check"},
                            {"player": "Cy", "action": "bet", "to": 40},
                            {"player": "Ann", "action": "call"}, {"player": "Bob", "action": "call"}])
    assert answer["first"] == "Cy" and answer["order"] == ["Cy", "Ann", "Bob"]


def _five_card_draw(after_the_draw: list[dict], opener: str = "A", **settings: str) -> dict:
    seats = [{"player": "A", "stack": 2000}, {"player": "B", "stack": 2000}, {"player": "D", "stack": 2000}]
    checks = [{"player": name, "action": "check"} for name in "ABD"[:"ABD".index(opener)]]
    callers = [name for name in "ABDAB"["ABD".index(opener) + 1:]][:2]
    first_round = [*checks, {"player": opener, "action": "bet", "to": 40},
                   *({"player": name, "action": "call"} for name in callers),
                   *({"player": name, "action": "draw", "discard": 2} for name in "ABD")]
    return showdown_order_ruling({"game": "five-card-draw", "betting": {"structure": "no-limit", "min_bet": 20},
                                  "seats": seats, "actions": first_round + after_the_draw,
                                  **({"settings": settings} if settings else {})})


def test_five_card_draw_the_last_bettor_after_the_draw_shows_first_else_left_of_the_dealer():
    bet = _five_card_draw([{"player": "A", "action": "check"}, {"player": "B", "action": "bet", "to": 60},
                           {"player": "D", "action": "call"}, {"player": "A", "action": "call"}])
    assert (bet["first"], bet["order"], bet["reason"]) == ("B", ["B", "D", "A"], "last_aggressor")
    assert "the round after the draw" in bet["words"]
    checked = _five_card_draw([{"player": name, "action": "check"} for name in ("A", "B", "D")])
    assert (checked["first"], checked["reason"]) == ("A", "first_to_act")


def test_five_card_draw_with_no_bet_after_the_draw_the_opener_who_acts_first_shows_first():
    checked = [{"player": name, "action": "check"} for name in ("B", "D", "A")]
    answer = _five_card_draw(checked, opener="B")
    assert (answer["first"], answer["order"], answer["reason"]) == ("B", ["B", "D", "A"], "first_to_act")
    left_of_dealer = _five_card_draw([{"player": name, "action": "check"} for name in ("A", "B", "D")],
                                     opener="B", second_round_start="left_of_dealer")
    assert left_of_dealer["first"] == "A"
