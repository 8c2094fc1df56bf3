"""POST /v1/rulings/betting as a pure function (api.md)."""
from __future__ import annotations

import pytest

from domain.games import holdem
from domain.live.games.holdem import HoldemGame
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling

FOUR = [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
        {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 10000}]
NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def test_api_example_answer_verbatim():
    request = {
        "game": "holdem",
        "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
                  {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 10000}],
        "button": "BTN",
        "actions": [{"player": "A", "action": "raise", "to": 300}],
        "proposed": {"player": "BTN", "action": "raise", "to": 450},
        "cards": {"hole": {"A": "AsKs"}, "board": "7d5h9d"}}
    assert betting_ruling(request) == {
        "round": "preflop", "to_act": "BTN", "hand_over": False,
        "legal": {"fold": True, "check": False,
                  "call": {"to": 300, "adds": 300},
                  "bet": None,
                  "raise": {"min_to": 500, "max_to": 10000}},
        "verdict": {"legal": False, "code": "raise_below_minimum",
                    "detail": "raise to 450 is below the minimum raise to 500: the last full raise was 200 over 100",
                    "rule": "TDA 2024 43",
                    "numbers": {"to": 450, "min_to": 500, "max_to": 10000, "last_full_raise": 200}},
        "pots": [{"amount": 450, "eligible": ["SB", "BB", "A", "BTN"]}],
        "stacks": {"SB": 9950, "BB": 9900, "A": 9700, "BTN": 10000}}


def test_rounds_close_by_themselves_and_a_legal_proposal_is_legal():
    answer = betting_ruling({
        "betting": NL, "seats": FOUR,
        "actions": [{"player": "A", "action": "call"}, {"player": "BTN", "action": "call"},
                    {"player": "SB", "action": "call"}, {"player": "BB", "action": "check"},
                    {"player": "SB", "action": "bet", "to": 200}],
        "proposed": {"player": "BB", "action": "raise", "to": 400}})
    assert answer["round"] == "flop" and answer["to_act"] == "BB"
    assert answer["verdict"] == {
        "legal": True, "detail": "the minimum raise is to 400: the last full bet was 200",
        "rule": "TDA 2024 43", "numbers": {"to": 400, "min_to": 400, "max_to": 9900, "last_full_raise": 200}}
    assert answer["legal"]["raise"] == {"min_to": 400, "max_to": 9900}


def test_the_seed_incomplete_all_in_closes_raising_with_a_reason():
    answer = betting_ruling({
        "betting": NL,
        "seats": [{"player": "A", "stack": 10000}, {"player": "B", "stack": 250},
                  {"player": "C", "stack": 10000}, {"player": "D", "stack": 10000}],
        "actions": [{"player": "C", "action": "call"}, {"player": "D", "action": "call"},
                    {"player": "A", "action": "call"}, {"player": "B", "action": "check"},
                    {"player": "A", "action": "bet", "to": 100},
                    {"player": "B", "action": "raise", "to": 150},
                    {"player": "C", "action": "call"}, {"player": "D", "action": "call"}],
        "proposed": {"player": "A", "action": "raise", "to": 250}})
    assert answer["to_act"] == "A"
    assert answer["legal"]["raise"] is None
    assert answer["legal"]["raise_closed_reason"] == "not_reopened"
    assert answer["verdict"]["code"] == "raise_not_reopened"


def test_when_all_fold_the_hand_is_over_with_winners_returned_and_stacks():
    answer = betting_ruling({
        "betting": NL, "seats": FOUR,
        "actions": [{"player": "A", "action": "raise", "to": 300},
                    {"player": "BTN", "action": "fold"}, {"player": "SB", "action": "fold"},
                    {"player": "BB", "action": "fold"}],
        "proposed": {"player": "BB", "action": "check"}})
    assert answer["hand_over"] is True and answer["legal"] is None
    assert answer["pots"] == [{"amount": 250, "eligible": ["A"], "winners": ["A"],
                               "shares": {"A": 250}}]
    assert answer["returned"] == {"A": 200}
    assert answer["stacks"] == {"SB": 9950, "BB": 9900, "A": 10150, "BTN": 10000}
    assert answer["verdict"]["code"] == "hand_over"


def test_cards_settle_a_showdown_with_side_pots():
    answer = betting_ruling({
        "betting": NL,
        "seats": [{"player": "SB", "stack": 500}, {"player": "BB", "stack": 2000},
                  {"player": "BTN", "stack": 2000}],
        "actions": [{"player": "BTN", "action": "raise", "to": 2000},
                    {"player": "SB", "action": "call"}, {"player": "BB", "action": "call"}],
        "cards": {"hole": {"SB": "AsAh", "BB": "KsKh", "BTN": "QsQh"}, "board": "2c3d9hJc4s"}})
    assert answer["hand_over"] is True
    assert [(p["amount"], p["winners"]) for p in answer["pots"]] == [(1500, ["SB"]), (3000, ["BB"])]
    assert answer["stacks"] == {"SB": 1500, "BB": 3000, "BTN": 0}


def test_a_showdown_without_every_hand_known_is_not_settled():
    answer = betting_ruling({
        "betting": NL, "seats": FOUR[:2],
        "actions": [{"player": "BB", "action": "raise", "to": 10000},
                    {"player": "SB", "action": "call"}],
        "cards": {"hole": {"SB": "AsAh"}, "board": "2c3d9hJc4s"}})
    assert answer["hand_over"] is False and answer["round"] == "showdown"


def test_an_illegal_sequence_names_its_first_illegal_action():
    with pytest.raises(Violation) as caught:
        betting_ruling({"betting": NL, "seats": FOUR,
                        "actions": [{"player": "A", "action": "raise", "to": 300},
                                    {"player": "BTN", "action": "raise", "to": 450},
                                    {"player": "SB", "action": "fold"}]})
    assert caught.value.code == "raise_below_minimum"
    assert caught.value.numbers["index"] == 1


def test_an_action_out_of_turn_is_an_illegal_sequence():
    with pytest.raises(Violation) as caught:
        betting_ruling({"betting": NL, "seats": FOUR,
                        "actions": [{"player": "BTN", "action": "call"}]})
    assert caught.value.code == "not_your_turn" and caught.value.numbers["index"] == 0


@pytest.mark.parametrize("request_, code", [
    ({"betting": NL, "seats": FOUR, "button": "A"}, "validation_error"),
    ({"betting": NL, "seats": FOUR[:1]}, "validation_error"),
    ({"betting": {"structure": "no-limit", "big_blind": -1}, "seats": FOUR}, "invalid_betting"),
    ({"game": "palace", "betting": NL, "seats": FOUR}, "validation_error"),
])
def test_malformed_requests_are_violations(request_, code):
    with pytest.raises(Violation) as caught:
        betting_ruling(request_)
    assert caught.value.code == code


# ------------------------------------------------ every verdict: the rule and its numbers

FIVE = [{"player": name, "stack": 10000} for name in ("SB", "BB", "A", "B", "BTN")]
LIMPED = [{"player": "A", "action": "call"}, {"player": "B", "action": "call"},
          {"player": "BTN", "action": "call"}, {"player": "SB", "action": "call"},
          {"player": "BB", "action": "check"}]


def test_the_pot_limit_maximum_shows_its_arithmetic():
    # Five players limp for 100 (pot 500); on the flop SB bets 200: pot 700, call 200.
    request = {"betting": {"structure": "pot-limit", "small_blind": 50, "big_blind": 100},
               "seats": FIVE, "actions": [*LIMPED, {"player": "SB", "action": "bet", "to": 200}]}
    over = betting_ruling({**request, "proposed": {"player": "BB", "action": "raise", "to": 1200}})
    assert over["verdict"] == {
        "legal": False, "code": "above_pot_limit", "rule": "TDA 2024 54",
        "detail": "raise to 1,200 is above the pot limit: pot 700 + call 200 = 900: raise to at most 1,100",
        "numbers": {"to": 1200, "min_to": 400, "max_to": 1100, "last_full_raise": 200,
                    "pot": 700, "call": 200, "pot_after_call": 900}}
    most = betting_ruling({**request, "proposed": {"player": "BB", "action": "raise", "to": 1100}})
    assert most["verdict"] == {
        "legal": True, "rule": "TDA 2024 54",
        "detail": "pot 700 + call 200 = 900: raise to at most 1,100",
        "numbers": {"to": 1100, "min_to": 400, "max_to": 1100, "pot": 700, "call": 200,
                    "pot_after_call": 900}}


def test_the_cap_reads_as_a_person_says_it():
    # Fixed limit: the big blind is the bet; A, B and BTN raise: a bet and three raises.
    answer = betting_ruling({
        "betting": {"structure": "fixed-limit", "small_blind": 50, "big_blind": 100,
                    "small_bet": 100, "big_bet": 200},
        "seats": FIVE,
        "actions": [{"player": "A", "action": "raise", "to": 200},
                    {"player": "B", "action": "raise", "to": 300},
                    {"player": "BTN", "action": "raise", "to": 400}],
        "proposed": {"player": "SB", "action": "raise", "to": 500}})
    assert answer["legal"]["raise_closed_reason"] == "raise_cap_reached"
    assert answer["verdict"] == {
        "legal": False, "code": "raise_cap_reached", "rule": "TDA 2024 48",
        "detail": "the betting is capped: a bet and three raises have been made",
        "numbers": {"to": 500, "highest": 400, "raises": 4, "raise_cap": 4}}


def test_an_incomplete_all_in_cites_47_a_in_no_limit_and_47_b_in_fixed_limit():
    # Flop, A bets, B is all-in short, C calls, back to A (seed 002 example 1).
    def back_to_a(betting, short_stack, bet, all_in, proposed_to):
        seats = [{"player": "A", "stack": 10000}, {"player": "B", "stack": short_stack},
                 {"player": "C", "stack": 10000}, {"player": "D", "stack": 10000}]
        preflop = [{"player": "C", "action": "call"}, {"player": "D", "action": "call"},
                   {"player": "A", "action": "call"}, {"player": "B", "action": "check"}]
        return betting_ruling({
            "betting": betting, "seats": seats,
            "actions": [*preflop, {"player": "A", "action": "bet", "to": bet},
                        {"player": "B", "action": "raise", "to": all_in},
                        {"player": "C", "action": "call"}, {"player": "D", "action": "call"}],
            "proposed": {"player": "A", "action": "raise", "to": proposed_to}})["verdict"]
    no_limit = back_to_a(NL, 250, 100, 150, 250)
    assert (no_limit["code"], no_limit["rule"]) == ("raise_not_reopened", "TDA 2024 47-A")
    assert no_limit["numbers"] == {"to": 250, "highest": 150, "increase": 50, "last_full_raise": 100}
    fixed = back_to_a({"structure": "fixed-limit", "small_blind": 50, "big_blind": 100,
                       "small_bet": 100, "big_bet": 200}, 240, 100, 140, 240)
    assert (fixed["code"], fixed["rule"]) == ("raise_not_reopened", "TDA 2024 47-B")
    assert fixed["detail"] == ("raising is not reopened: the bet rose by 40 since your action at 100, "
                               "less than half the bet of 100; call or fold")


def test_a_refusal_without_a_rule_has_no_rule_key_but_its_numbers():
    answer = betting_ruling({"betting": NL, "seats": FOUR,
                             "proposed": {"player": "BB", "action": "check"}})
    assert answer["verdict"] == {
        "legal": False, "code": "not_your_turn", "detail": "it is A's turn, not BB's",
        "numbers": {"seat": 1, "to_act": 2}}


def test_a_legal_call_says_what_it_adds():
    answer = betting_ruling({"betting": NL, "seats": FOUR,
                             "proposed": {"player": "A", "action": "call"}})
    assert answer["verdict"] == {"legal": True, "detail": "a call to 100 adds 100",
                                 "numbers": {"to": 100, "adds": 100}}


@pytest.mark.parametrize("board", ["", "2c3c4h", "2c3c4h9dTs"])
def test_all_in_with_the_betting_over_waits_at_the_showdown_not_on_a_river_nobody_dealt(board):
    heads_up = [{"player": "BB", "stack": 1000}, {"player": "BTN", "stack": 1000}]
    answer = betting_ruling({"game": "holdem", "betting": NL, "seats": heads_up,
                             "actions": [{"player": "BTN", "action": "raise", "to": 1000},
                                         {"player": "BB", "action": "call"}],
                             "cards": {"hole": {"BB": "AsAd"}, "board": board}})
    assert (answer["round"], answer["to_act"], answer["hand_over"]) == ("showdown", None, False)


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting_and_the_answer_says_why():
    # TDA 2024 47-A: an all-in of less than a full raise does not reopen the betting to a
    # player who has acted unless, when the action returns, they face at least a full raise
    # in all; two short all-ins facing A add up: 300 -> 450 -> 600 is 300 more, a full raise of 200.
    seats = [{"player": "SB", "stack": 600}, {"player": "BB", "stack": 10000},
             {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 450}]
    answer = betting_ruling({
        "betting": NL, "seats": seats, "button": "BTN",
        "actions": [{"player": "A", "action": "raise", "to": 300},
                    {"player": "BTN", "action": "raise", "to": 450},
                    {"player": "SB", "action": "raise", "to": 600},
                    {"player": "BB", "action": "call"}],
        "proposed": {"player": "A", "action": "raise", "to": 800}})
    reopened = ("raising is reopened: since your action at 300 the all-ins raised the bet to 600, "
                "300 more, which adds up to at least the last full bet or raise of 200")
    assert answer["to_act"] == "A" and answer["legal"]["raise"] == {"min_to": 800, "max_to": 10000}
    assert answer["legal"]["raise_reopened"] == {"detail": reopened, "rule": "TDA 2024 47-A"}
    assert answer["verdict"] == {
        "legal": True, "rule": "TDA 2024 47-A, 43",
        "detail": f"{reopened}; the minimum raise is to 800: the last full raise was 200 over 100",
        "numbers": {"to": 800, "min_to": 800, "max_to": 10000, "acted_at": 300, "increase": 300,
                    "last_full_raise": 200}}


def test_a_live_table_shows_the_reopening_beside_legal_as_the_ruling_words_it():
    # The same hand at a live hold'em table: `legal` keeps the actions alone, and
    # `raise_reopened` stands beside it (legal_notes), worded as the ruling words it.
    _, hand = holdem.handle(None, holdem.StartHand(("SB", "BB", "A", "BTN"), (600, 10000, 10000, 450), 3,
                                                   BettingStructure.from_dict(NL)))
    for seat, action, to in ((2, "raise", 300), (3, "raise", 450), (0, "raise", 600), (1, "call", None)):
        hand = holdem.handle(hand, holdem.PostAction(seat, action, to))[1]
    legal = HoldemGame.legal_view(hand, "A", None)
    assert legal["raise"] == {"min_to": 800, "max_to": 10000} and "raise_reopened" not in legal
    assert HoldemGame.legal_notes(hand) == {"raise_reopened": {
        "detail": "raising is reopened: since your action at 300 the all-ins raised the bet to 600, "
                  "300 more, which adds up to at least the last full bet or raise of 200",
        "rule": "TDA 2024 47-A"}}


def test_one_short_all_in_leaves_no_reopening_to_explain():
    seats = [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
             {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 450}]
    answer = betting_ruling({
        "betting": NL, "seats": seats,
        "actions": [{"player": "A", "action": "raise", "to": 300},
                    {"player": "BTN", "action": "raise", "to": 450},
                    {"player": "SB", "action": "fold"}, {"player": "BB", "action": "call"}]})
    assert answer["legal"]["raise_closed_reason"] == "not_reopened"
    assert "raise_reopened" not in answer["legal"]
