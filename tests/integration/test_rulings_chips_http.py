"""`POST /v1/rulings/chips` over HTTP (declarations.md "API"): the spec's example verbatim,
a floor decision, and a problem with a stable code for every bad request."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.integration.conftest import ADMIN, assert_problem, hand_request, key_for

pytestmark = pytest.mark.integration

SITUATION = {"structure": "no-limit", "facing_to": 1100, "committed": 0, "last_full_raise": 600,
             "pot": 2300, "stack": 5000, "big_blind": 200, "raise_open": True, "prior_chips": 0}


def ask(client, body, headers=None):
    return client.post("/v1/rulings/chips", json=body, headers=headers or ADMIN)


def test_chips_api_example_request_and_answer_verbatim(client):
    response = ask(client, {"situation": SITUATION, "chips": [1000, 500], "said": None, "order": "chips_first"},
                   key_for(client, "spectator"))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json() == json.loads("""
        {"interpretation": "call", "to": 1100, "returned": 400, "must_add": 0,
         "rule": "TDA 2024 45-A", "detail": "every chip was needed to call 1,100: removing the 500 leaves 1,000"}""")


def test_omitted_fields_change_nothing_and_words_are_read(client):
    response = ask(client, {"situation": {"facing_to": 2000, "last_full_raise": 2000, "stack": 20000,
                                          "big_blind": 200},
                            "said": "raise, eight thousand"})
    assert response.status_code == 200
    assert response.get_json()["interpretation"] == "raise"
    assert (response.get_json()["to"], response.get_json()["rule"]) == (8000, "TDA 2024 43-B")


def test_words_and_chips_with_no_order_are_a_floor_decision(client):
    body = ask(client, {"situation": SITUATION, "chips": [1000, 1000], "said": "raise"}).get_json()
    assert (body["interpretation"], body["rule"]) == ("floor_decision", "TDA 2024 1, 40-A")


@pytest.mark.parametrize("body, field", [
    ({"situation": {**SITUATION, "stack": -1}, "chips": [100]}, "situation"),
    ({"situation": SITUATION, "chips": [0]}, "chips"),
    ({"situation": SITUATION, "chips": ["100"]}, "chips"),
    ({"situation": SITUATION, "chips": [100], "order": "later"}, "order"),
    ({"situation": {**SITUATION, "raise_open": "yes"}, "chips": [100]}, "situation"),
    ({"situation": {**SITUATION, "colour": "red"}, "chips": [100]}, "situation"),
    ({"situation": SITUATION, "chips": [100], "extra": 1}, "extra"),
])
def test_malformed_requests_are_400_validation_errors(client, body, field):
    problem = assert_problem(ask(client, body), 400, "validation_error")
    assert field in json.dumps(problem["errors"])


def test_chips_beyond_the_stack_are_422_with_the_numbers(client):
    problem = assert_problem(ask(client, {"situation": {**SITUATION, "stack": 500}, "chips": [1000]}),
                             422, "invalid_situation")
    assert problem["numbers"] == {"pushed": 1000, "stack": 500}


def test_pot_limit_without_the_pot_is_422(client):
    situation = {key: value for key, value in SITUATION.items() if key != "pot"}
    assert_problem(ask(client, {"situation": {**situation, "structure": "pot-limit"}, "chips": [1000]}),
                   422, "invalid_situation")


def test_nothing_pushed_nor_said_is_422(client):
    assert_problem(ask(client, {"situation": SITUATION}), 422, "invalid_situation")


def test_the_whole_hand_form_rules_for_the_player_to_act(client):
    """The betting ruling's own example hand: A raised to 300; BTN silently pushes a 500 and
    a 100: removing the 100 leaves 500, and 300 over the call is at least half the 200
    raise, so a raise to the 600 pushed. One 500 chip alone is a call, 200 back."""
    hand = {"game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
                      {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 10000}],
            "actions": [{"player": "A", "action": "raise", "to": 300}]}
    body = ask(client, {**hand, "chips": [500, 100]}).get_json()
    assert (body["interpretation"], body["to"], body["rule"]) == ("raise", 600, "TDA 2024 45-B, 43-A")
    body = ask(client, {**hand, "chips": [500]}).get_json()
    assert (body["interpretation"], body["to"], body["returned"]) == ("call", 300, 200)


# The TDA 2024 published examples (Poker TDA 2024 Rules v1.0, longform with the
# Illustration Addendum; facts and sources in tests/unit/test_declarations.py's
# docstrings), asked of the chips ruling as a situation or as the whole hand. Each answer
# is (interpretation, to, returned, must_add, rule).
OPENED_1000 = {"facing_to": 1000, "last_full_raise": 1000, "big_blind": 200, "stack": 9000}
OPENED_1400 = {"facing_to": 1400, "last_full_raise": 1400, "big_blind": 200, "stack": 9000}
LAST_2000 = {"facing_to": 1050, "last_full_raise": 1050, "big_blind": 50, "stack": 2000}
BB_FACING_600 = {"facing_to": 600, "last_full_raise": 550, "big_blind": 50, "stack": 9000}
TWO_25S_LEFT_OUT = {**BB_FACING_600, "committed": 50, "prior_chips": 50}
UTG_RAISED_TO_1100 = hand_request({"structure": "no-limit", "small_blind": 250, "big_blind": 500},
                                  {"SB": 9000, "BB": 9000, "UTG": 9000, "UTG+1": 9000}, [("UTG", "raise", 1100)])
TURN_BET_300 = hand_request({"structure": "no-limit", "small_blind": 100, "big_blind": 200},
                            {"A": 9000, "B": 9000, "C": 9000},
                            [("A", "check"), ("B", "check"), ("C", "check"), ("A", "bet", 300)], limped=True)
ADDENDUM_47_3A = hand_request({"structure": "no-limit", "small_blind": 2000, "big_blind": 4000},
                              {"SB": 50000, "BB": 50000, "A": 50000, "B": 50000, "C": 7500},
                              [("A", "call"), ("B", "fold"), ("C", "raise", 7500), ("SB", "fold"), ("BB", "call")])
ALL_NEEDED, FIFTY, FIFTY_LAST = "TDA 2024 45-A", "TDA 2024 45-B, 43-A", "TDA 2024 45-B-2"


def situation(numbers: dict, chips=(), said=None, order=None) -> dict:
    return {"situation": numbers, "chips": list(chips), "said": said, "order": order}


def hand(request: dict, chips=(), said=None, order=None) -> dict:
    return {**request, "chips": list(chips), "said": said, "order": order}


@pytest.mark.parametrize("body, answer", [
    pytest.param(situation(OPENED_1000, said="fourteen hundred"), ("call", 1000, 0, 1000, "TDA 2024 40-C"),
                 id="43a_example_said"),
    pytest.param(situation(OPENED_1000, [1000, 100, 100, 100, 100]), ("call", 1000, 400, 0, FIFTY),
                 id="43a_example_pushed"),
    pytest.param(situation(OPENED_1000, [1000, 100, 100, 100, 100], "raise", "said_first"),
                 ("raise", 2000, 0, 600, "TDA 2024 40-A, 43-A, 45-A"), id="43a_example_raise_said_first"),
    pytest.param(situation({**OPENED_1000, "facing_to": 2000, "last_full_raise": 2000, "stack": 20000},
                           said="raise, eight thousand"), ("raise", 8000, 0, 8000, "TDA 2024 43-B"), id="43b_example"),
    pytest.param(hand(TURN_BET_300, [500, 500]), ("raise", 1000, 0, 0, FIFTY), id="addendum_43_example_3"),
    pytest.param(situation({**OPENED_1000, "facing_to": 1100, "last_full_raise": 700}, [500, 1000]),
                 ("call", 1100, 400, 0, ALL_NEEDED), id="45a_example_1"),
    pytest.param(situation(LAST_2000, [1000, 1000]), ("call", 1050, 950, 0, ALL_NEEDED), id="45a_example_2"),
    pytest.param(situation(LAST_2000, [1000, 1000], "all in", "said_first"), ("all_in", 2000, 0, 0, "TDA 2024 40-A"),
                 id="45a_example_2_all_in_said_first"),
    pytest.param(situation({**OPENED_1000, "facing_to": 1200, "last_full_raise": 1200}, [1000, 1000]),
                 ("call", 1200, 800, 0, ALL_NEEDED), id="addendum_45_example_1a"),
    pytest.param(hand(UTG_RAISED_TO_1100, [500, 1000]), ("call", 1100, 400, 0, ALL_NEEDED), id="addendum_45_example_1b"),
    pytest.param(hand(UTG_RAISED_TO_1100, [1000] + [100] * 5), ("raise", 1700, 0, 200, FIFTY),
                 id="addendum_45_example_2"),
    pytest.param(hand(UTG_RAISED_TO_1100, [1000] + [100] * 3), ("call", 1100, 200, 0, FIFTY),
                 id="addendum_45_example_3"),
    pytest.param(situation(OPENED_1400, [1000, 500, 500, 500]), ("raise", 2800, 0, 300, FIFTY),
                 id="addendum_45_example_4a"),
    pytest.param(situation({**OPENED_1400, "stack": 2500}, [1000, 500, 500, 500]), ("all_in", 2500, 0, 0, FIFTY_LAST),
                 id="addendum_45_example_4a_last_chips"),
    pytest.param(situation(OPENED_1400, [1000, 500, 500]), ("call", 1400, 600, 0, FIFTY), id="addendum_45_example_4b"),
    pytest.param(situation({**OPENED_1400, "stack": 2000}, [1000, 500, 500]), ("all_in", 2000, 0, 0, FIFTY_LAST),
                 id="addendum_45_example_4b_last_chips"),
    pytest.param(situation(TWO_25S_LEFT_OUT, [1000]), ("call", 600, 450, 0, "TDA 2024 46"),
                 id="addendum_46_situation_1_overchip"),
    pytest.param(situation(TWO_25S_LEFT_OUT, [500, 500]), ("call", 600, 450, 0, "TDA 2024 46"),
                 id="addendum_46_situation_1_two_500s"),
    pytest.param(situation(TWO_25S_LEFT_OUT, [100, 500]), ("call", 600, 50, 0, "TDA 2024 46"),
                 id="addendum_46_situation_1_a_100_and_a_500"),
    pytest.param(situation(TWO_25S_LEFT_OUT, [1000, 500]), ("raise", 1550, 0, 0, "TDA 2024 46"),
                 id="addendum_46_situation_1_a_1000_and_a_500"),
    pytest.param(situation(BB_FACING_600, [1000]), ("call", 600, 400, 0, "TDA 2024 44"),
                 id="addendum_46_situation_2_overchip"),
    pytest.param(situation(BB_FACING_600, [1000, 500]), ("raise", 1500, 0, 0, FIFTY),
                 id="addendum_46_situation_2_several_chips"),
    pytest.param(situation(BB_FACING_600, [25, 1000]), ("raise", 1150, 0, 125, FIFTY), id="addendum_46_situation_3"),
    pytest.param(situation({"facing_to": 700, "committed": 100, "prior_chips": 1000, "last_full_raise": 600,
                            "big_blind": 100, "stack": 9000}, [100]), ("raise", 1300, 0, 200, "TDA 2024 46"),
                 id="addendum_46_situation_4"),
    pytest.param(situation(BB_FACING_600, [25, 25, 1000]), ("raise", 1150, 0, 100, FIFTY), id="addendum_46_situation_5"),
    pytest.param(hand(ADDENDUM_47_3A, [5000, 5000], "raise", "said_first"), ("call", 7500, 6500, 0, "TDA 2024 47-A"),
                 id="addendum_47_example_3a"),
    pytest.param(situation({"big_blind": 1000, "pot": 60000, "stack": 90000}, [5000], "forty-two thousand"),
                 ("floor_decision", 5000, 0, 0, "TDA 2024 1, 40-A"), id="addendum_40a_example_1"),
    pytest.param(situation({"big_blind": 400, "pot": 4900, "stack": 20000}, said="I bet five"),
                 ("bet", 500, 0, 500, "TDA 2024 57"), id="57_example_below_a_5000_pot"),
    pytest.param(situation({"big_blind": 400, "pot": 5000, "stack": 20000}, said="I bet five"),
                 ("bet", 5000, 0, 5000, "TDA 2024 57"), id="57_example_from_a_5000_pot"),
    pytest.param(situation({"facing_to": 325, "last_full_raise": 325, "big_blind": 100, "stack": 9000}, [500, 25]),
                 ("raise", 650, 0, 125, FIFTY), id="61_example"),
])
def test_published_examples_rule_as_published(client, body, answer):
    ruled = ask(client, body)
    assert ruled.status_code == 200, ruled.get_data(as_text=True)
    found = ruled.get_json()
    assert (found["interpretation"], found["to"], found["returned"], found["must_add"], found["rule"]) == answer
    assert found["detail"]


def test_addendum_45_example_2_says_the_arithmetic(client):
    """The answer in words: 1,500 pushed over UTG's raise to 1,100 (a 600 raise)."""
    assert ask(client, hand(UTG_RAISED_TO_1100, [1000] + [100] * 5)).get_json()["detail"] == (
        "1,500 reaches the call of 1,100 plus 400, at least half the last full raise of 600: a raise, made a full raise")


def test_situation_and_whole_hand_together_or_neither_are_refused(client):
    hand = {"betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player": "SB", "stack": 1000}, {"player": "BB", "stack": 1000}]}
    assert_problem(ask(client, {**hand, "situation": SITUATION, "chips": [100]}), 400, "validation_error")
    assert_problem(ask(client, {"chips": [100]}), 400, "validation_error")
    assert_problem(ask(client, {**hand, "game": "five-card-draw", "chips": [100]}), 400, "validation_error")


NUMBERS = st.one_of(st.integers(-5, 30000), st.integers(-10**13, 10**13), st.none(), st.text(max_size=3),
                    st.booleans())
WORDS = st.one_of(st.none(), st.sampled_from(["raise", "call", "pot", "all in", "five", "check", "fold",
                                              "raise by 0", "bet zero", "raise, eight thousand", "change"]),
                  st.text(max_size=30))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(situation=st.dictionaries(st.sampled_from(sorted(SITUATION) + ["unit", "opponents"]), NUMBERS, max_size=12),
       chips=st.lists(st.integers(-1, 20000), max_size=6), said=WORDS,
       order=st.sampled_from([None, "said_first", "chips_first", "simultaneous"]))
def test_any_request_is_answered_or_refused_never_a_500(client, situation, chips, said, order):
    body = {"situation": {**SITUATION, **situation}, "chips": chips, "said": said, "order": order}
    response = ask(client, body)
    assert response.status_code in (200, 400, 422), response.get_data(as_text=True)
    if response.status_code == 200:
        answer = response.get_json()
        assert answer["to"] >= 0 and answer["returned"] >= 0 and answer["must_add"] >= 0
