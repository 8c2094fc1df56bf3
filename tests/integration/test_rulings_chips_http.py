"""`POST /v1/rulings/chips` over HTTP (declarations.md "API"): the spec's example verbatim,
a floor decision, and a problem with a stable code for every bad request."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.integration.conftest import ADMIN, assert_problem, key_for

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
