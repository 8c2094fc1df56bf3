"""The stateless rulings over HTTP (api.md "Rulings"): betting, showdown, dice, palace battle.

Given a situation / when a client asks / then the ruling, or a problem document: 400 for a
request of the wrong shape, 422 with the rule's code for a situation against the rules,
never a 500.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games.dice_scoring import LINES
from service.http.problems import PROBLEM_CONTENT_TYPE
from tests.integration.conftest import ADMIN, assert_problem, hand_request, key_for

pytestmark = pytest.mark.integration



@pytest.fixture(scope="module")
def spectator(client) -> dict[str, str]:
    return key_for(client, "spectator")


def ask(client, path: str, body, headers=None):
    return client.post(f"/v1/rulings/{path}", json=body, headers=headers or ADMIN)


def ruling(client, path: str, body) -> dict:
    response = ask(client, path, body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}
FOUR = [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
        {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 10000}]


# ---------------------------------------------------------------- betting


def test_betting_api_example_request_and_answer_verbatim(client):
    request = {"game": "holdem",
               "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
               "seats": [{"player": "SB", "stack": 10000}, {"player": "BB", "stack": 10000},
                         {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 10000}],
               "button": "BTN",
               "actions": [{"player": "A", "action": "raise", "to": 300}],
               "proposed": {"player": "BTN", "action": "raise", "to": 450},
               "cards": {"hole": {"A": "AsKs"}, "board": "7d5h9d"}}
    assert ruling(client, "betting", request) == json.loads("""
        {"round": "preflop", "to_act": "BTN", "hand_over": false,
         "legal": {"fold": true, "check": false,
                   "call": {"to": 300, "adds": 300},
                   "bet": null,
                   "raise": {"min_to": 500, "max_to": 10000}},
         "verdict": {"legal": false, "code": "raise_below_minimum",
                     "detail": "raise to 450 is below the minimum raise to 500: the last full raise was 200 over 100",
                     "rule": "TDA 2024 43",
                     "numbers": {"to": 450, "min_to": 500, "max_to": 10000, "last_full_raise": 200}},
         "pots": [{"amount": 450, "eligible": ["SB", "BB", "A", "BTN"]}],
         "stacks": {"SB": 9950, "BB": 9900, "A": 9700, "BTN": 10000}}""")


def test_rulings_need_a_key_and_any_role_may_ask(client, spectator):
    body = {"betting": NL, "seats": FOUR}
    assert_problem(client.post("/v1/rulings/betting", json=body), 401, "unauthorized")
    assert ask(client, "betting", body, spectator).status_code == 200


# Seed 002's flop examples: big blind 100, players act in alphabetical order (D has the
# button, so A and B posted the blinds and everyone limped to the flop).
def flop_after_limps(stacks: dict[str, int], flop_actions: list[tuple]) -> dict:
    return hand_request(NL, {p: stacks.get(p, 10000) for p in "ABCD"}, flop_actions, limped=True)


def test_seed_example_1_a_short_all_in_does_not_reopen_raising_for_a_who_already_acted(client):
    request = flop_after_limps({"B": 250}, [("A", "bet", 100), ("B", "raise", 150), ("C", "call")])
    request["actions"].append({"player": "D", "action": "call"})
    request["proposed"] = {"player": "A", "action": "raise", "to": 250}
    answer = ruling(client, "betting", request)
    assert answer["round"] == "flop" and answer["to_act"] == "A"
    legal = answer["legal"]
    assert legal["fold"] is True and legal["check"] is False
    assert legal["call"] == {"to": 150, "adds": 50}
    assert legal["raise"] is None and legal["raise_closed_reason"]
    assert answer["verdict"]["legal"] is False


def test_seed_example_1_c_who_has_not_acted_keeps_every_option(client):
    answer = ruling(client, "betting", flop_after_limps({"B": 250}, [("A", "bet", 100), ("B", "raise", 150)]))
    assert answer["to_act"] == "C"
    assert answer["legal"]["call"] == {"to": 150, "adds": 150}
    assert answer["legal"]["raise"]["min_to"] == 250


def test_seed_example_2_short_all_ins_add_up_to_a_full_bet_and_reopen_raising(client):
    request = flop_after_limps({"B": 250, "C": 300}, [
        ("A", "bet", 100), ("B", "raise", 150), ("C", "raise", 200), ("D", "call")])
    answer = ruling(client, "betting", request)
    assert answer["to_act"] == "A"
    assert answer["legal"]["call"] == {"to": 200, "adds": 100}
    assert answer["legal"]["raise"]["min_to"] == 300
    request["actions"].append({"player": "A", "action": "raise", "to": 300})
    assert ruling(client, "betting", request)["to_act"] == "D"  # B and C are all-in


# The TDA 2024 Illustration Addendum's rule 43 and 47 examples (Poker TDA 2024 Rules v1.0,
# longform; the facts in tests/unit/test_betting_rules.py's docstrings) and Robert's Rules'
# limit example, asked of the betting ruling: who acts, the call, the smallest raise (None:
# raising is closed), and a raise one chip short of it refused with the rule and numbers.
BIG = 50000


def blinds(small: int, big: int) -> dict:
    return {"structure": "no-limit", "small_blind": small, "big_blind": big}


SIX_25_50 = dict.fromkeys(("SB", "BB", "A", "B", "C", "D"), BIG)
ADDENDUM_47_1 = [("A", "bet", 100), ("B", "raise", 125), ("C", "call"), ("D", "raise", 200), ("E", "call")]
ADDENDUM_47_3 = [("A", "call"), ("B", "fold"), ("C", "raise", 7500), ("SB", "fold")]
ADDENDUM_47_3_SEATS = {"SB": BIG, "BB": BIG, "A": BIG, "B": BIG, "C": 7500}
ADDENDUM_47_1_SEATS = {"A": BIG, "B": 100 + 125, "C": BIG, "D": 100 + 200, "E": BIG}


@pytest.mark.parametrize("request_, to_act, call, min_to", [
    pytest.param(hand_request(blinds(100, 200), dict.fromkeys("ABCD", BIG),
                              [("A", "bet", 600), ("B", "raise", 1600), ("C", "raise", 3600)], limped=True),
                 "D", {"to": 3600, "adds": 3600}, 5600, id="addendum_43_example_1"),
    pytest.param(hand_request(blinds(50, 100), {"SB": BIG, "BB": BIG, "A": 150, "B": BIG}, [("A", "raise", 150)]),
                 "B", {"to": 150, "adds": 150}, 250, id="addendum_43_example_2"),
    pytest.param(hand_request(blinds(25, 50), SIX_25_50, [("A", "raise", 125), ("B", "raise", 200), ("C", "raise", 500)]),
                 "D", {"to": 500, "adds": 500}, 800, id="addendum_43_example_4a"),
    pytest.param(hand_request(blinds(25, 50), SIX_25_50, [("A", "raise", 500), ("B", "call"), ("C", "call")]),
                 "D", {"to": 500, "adds": 500}, 950, id="addendum_43_example_4b"),
    pytest.param(hand_request(NL, ADDENDUM_47_1_SEATS, ADDENDUM_47_1, limped=True),
                 "A", {"to": 200, "adds": 100}, 300, id="addendum_47_example_1"),
    pytest.param(hand_request(NL, ADDENDUM_47_1_SEATS, ADDENDUM_47_1 + [("A", "call")], limped=True),
                 "C", {"to": 200, "adds": 75}, None, id="addendum_47_example_1a"),
    pytest.param(hand_request(NL, ADDENDUM_47_1_SEATS, ADDENDUM_47_1 + [("A", "raise", 300)], limped=True),
                 "C", {"to": 300, "adds": 175}, 400, id="addendum_47_example_1b"),
    pytest.param(hand_request(NL, {"A": BIG, "B": 100 + 500, "C": 100 + 650, "D": 100 + 800, "E": BIG, "F": BIG},
                              [("A", "bet", 300), ("B", "raise", 500), ("C", "raise", 650), ("D", "raise", 800),
                               ("E", "call")], limped=True),
                 "F", {"to": 800, "adds": 800}, 1100, id="addendum_47_example_2"),
    pytest.param(hand_request(blinds(2000, 4000), ADDENDUM_47_3_SEATS, ADDENDUM_47_3),
                 "BB", {"to": 7500, "adds": 3500}, 11500, id="addendum_47_example_3a_big_blind"),
    pytest.param(hand_request(blinds(2000, 4000), ADDENDUM_47_3_SEATS, ADDENDUM_47_3 + [("BB", "call")]),
                 "A", {"to": 7500, "adds": 3500}, None, id="addendum_47_example_3a"),
    pytest.param(hand_request(blinds(2000, 4000), ADDENDUM_47_3_SEATS, ADDENDUM_47_3 + [("BB", "raise", 11500)]),
                 "A", {"to": 11500, "adds": 7500}, 15500, id="addendum_47_example_3b"),
])
def test_addendum_43_and_47_examples_rule_as_published(client, request_, to_act, call, min_to):
    short = (min_to or call["to"] * 2) - 1
    answer = ruling(client, "betting", {**request_, "proposed": {"player": to_act, "action": "raise", "to": short}})
    assert (answer["to_act"], answer["legal"]["call"]) == (to_act, call)
    verdict = answer["verdict"]
    if min_to is None:
        assert answer["legal"]["raise"] is None
        assert (verdict["legal"], verdict["code"], verdict["rule"]) == (False, "raise_not_reopened", "TDA 2024 47-A")
    else:
        assert answer["legal"]["raise"]["min_to"] == min_to
        assert (verdict["legal"], verdict["code"], verdict["rule"]) == (False, "raise_below_minimum", "TDA 2024 43")
        assert (verdict["numbers"]["to"], verdict["numbers"]["min_to"]) == (short, min_to)


def test_robert_s_rules_limit_example_a_15_all_in_on_a_20_round_is_raised_to_35(client):
    """Robert's Rules of Poker, Betting and Raising 6: on a $20 round, a $15 all-in bet is
    a full bet, raised to $35, not $40 (everyone called the $20 blind before the flop)."""
    limit_20 = {"structure": "fixed-limit", "small_blind": 10, "big_blind": 20, "small_bet": 20, "big_bet": 40}
    request = hand_request(limit_20, {"A": 20 + 15, "B": 1000, "C": 1000}, [("A", "bet", 15)], limped=True)
    answer = ruling(client, "betting", {**request, "proposed": {"player": "B", "action": "raise", "to": 40}})
    assert answer["to_act"] == "B" and answer["legal"]["raise"] == {"min_to": 35, "max_to": 35}
    verdict = answer["verdict"]
    assert (verdict["code"], verdict["rule"], verdict["numbers"]["min_to"]) == ("wrong_fixed_amount", "RRP limit 6", 35)


def test_an_illegal_sequence_is_a_422_naming_the_first_illegal_action(client):
    body = assert_problem(ask(client, "betting", {
        "betting": NL, "seats": FOUR,
        "actions": [{"player": "A", "action": "raise", "to": 300},
                    {"player": "BTN", "action": "raise", "to": 450},
                    {"player": "SB", "action": "fold"}]}), 422, "raise_below_minimum")
    assert body["index"] == 1
    assert body["numbers"]["index"] == 1
    assert "450" in body["detail"] and "500" in body["detail"]


def test_acting_out_of_turn_is_not_your_turn_with_its_index(client):
    body = assert_problem(ask(client, "betting", {
        "betting": NL, "seats": FOUR,
        "actions": [{"player": "A", "action": "call"}, {"player": "BB", "action": "check"}]}),
        422, "not_your_turn")
    assert body["index"] == 1


def test_when_all_fold_to_one_the_hand_is_over_with_winners_and_returned_chips(client):
    answer = ruling(client, "betting", {
        "betting": NL, "seats": FOUR,
        "actions": [{"player": "A", "action": "raise", "to": 300}, {"player": "BTN", "action": "fold"},
                    {"player": "SB", "action": "fold"}, {"player": "BB", "action": "fold"}]})
    assert answer["hand_over"] is True
    assert answer["to_act"] is None
    assert [pot["winners"] for pot in answer["pots"]] == [["A"]]
    assert sum(answer["stacks"].values()) == 40000


def test_a_betting_description_against_itself_is_a_422(client):
    assert_problem(ask(client, "betting", {
        "betting": {"structure": "no-limit", "small_blind": 200, "big_blind": 100}, "seats": FOUR}),
        422, "invalid_betting")


@pytest.mark.parametrize("body", [
    {"seats": FOUR},                                                        # no betting
    {"betting": NL, "seats": FOUR[:1]},                                     # one seat
    {"betting": NL, "seats": FOUR, "actions": [{"player": "A", "action": "shove"}]},
    {"betting": NL, "seats": FOUR, "actions": [{"player": "A", "action": "raise", "to": "300"}]},
    {"betting": NL, "seats": FOUR, "actions": [{"player": "A", "action": "raise", "to": 300.5}]},
    {"betting": {**NL, "big_blind_ante": "yes"}, "seats": FOUR},
    {"betting": {**NL, "colour": "red"}, "seats": FOUR},
    {"betting": NL, "seats": [{"player": "A", "stack": 0}, {"player": "B", "stack": 100}]},
    {"betting": NL, "seats": FOUR, "button": "A"},                          # button not the last seat
    {"betting": NL, "seats": FOUR, "actions": [{"player": "Nobody", "action": "fold"}]},
    {"betting": NL, "seats": FOUR + [FOUR[0]]},                             # the same player twice
    {"betting": NL, "seats": FOUR, "game": "stud"},
    {"betting": NL, "seats": FOUR, "surprise": True},
    {"betting": NL, "seats": [{"player": "A\u0000", "stack": 100}, {"player": "B", "stack": 100}]},
    [1, 2, 3],
    "betting",
    None,
])
def test_betting_requests_of_the_wrong_shape_are_400(client, body):
    assert_problem(ask(client, "betting", body), 400, "validation_error")


def test_a_body_that_is_not_json_is_refused_without_a_500(client):
    assert_problem(client.post("/v1/rulings/betting", data="{not json", content_type="application/json",
                        headers=ADMIN), 400, "validation_error")
    assert_problem(client.post("/v1/rulings/betting", data="a=1", content_type="text/plain", headers=ADMIN),
            415, "unsupported_media_type")


# ---------------------------------------------------------------- showdown


def test_showdown_api_example_five_aces_with_the_wild_joker_win(client):
    answer = ruling(client, "showdown", {"game": "five-card-draw", "joker": "wild",
                                         "hands": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}})
    assert answer["winners"] == ["P1"]
    assert answer["ranking"] == [["P1"], ["P2"]]
    assert answer["hands"]["P1"]["category"] == "five_of_a_kind"
    assert answer["hands"]["P1"]["best"] == "AsAhAdAcJk"
    assert answer["hands"]["P2"]["category"] == "straight_flush"


def test_betting_ruling_for_stud_names_the_bring_in(client):
    answer = ruling(client, "betting", {
        "game": "stud", "betting": {"structure": "fixed-limit", "small_bet": 20, "big_bet": 40,
                                    "ante": 2, "bring_in": 5},
        "seats": [{"player": "Ann", "stack": 1000}, {"player": "Bob", "stack": 1000}],
        "cards": {"hole": {"Ann": "AhKh9c", "Bob": "QdJd2c"}},
        "proposed": {"player": "Bob", "action": "bring_in"}})
    assert answer["to_act"] == "Bob" and answer["legal"]["bring_in"] == 5
    assert answer["verdict"] == {"legal": True, "numbers": {}}


def test_showdown_omaha_hi_lo_names_the_high_and_the_low_winners(client):
    answer = ruling(client, "showdown", {"game": "omaha_hi_lo", "board": "4s3hQh5s5d", "hands": {
        "Rast": "Ah7s6d2d", "Ashton": "KcQc3s2h", "Shakerchi": "AcKsQd2s"}})
    assert answer["winners"] == ["Rast"]  # 7-6 with 5-4-3: a seven-high straight
    assert answer["low"]["winners"] == ["Rast", "Shakerchi"]
    assert answer["low"]["hands"]["Ashton"] is None


def test_showdown_badugi_hand_of_three_cards_loses_to_a_badugi(client):
    answer = ruling(client, "showdown", {"game": "badugi", "hands": {
        "Ann": "As2h3d4d", "Bob": "KsQhJdTc"}})
    assert answer["winners"] == ["Bob"]
    assert answer["hands"]["Ann"]["category"] == "three_card_hand"


def test_showdown_holdem_with_a_board_ties_are_all_winners(client):
    answer = ruling(client, "showdown", {"game": "holdem", "board": "AhKhQhJhTh",
                                         "hands": {"A": "2c3c", "B": "AsAd", "C": "9h8h"}})
    assert answer["winners"] == ["A", "B", "C"]
    assert answer["ranking"] == [["A", "B", "C"]]


def test_showdown_omaha_plays_two_from_the_hand(client):
    answer = ruling(client, "showdown", {"game": "omaha", "board": "2h5h9hKh3c",
                                         "hands": {"P1": "AhAsAdAc", "P2": "7s8s6d4d"}})
    assert answer["winners"] == ["P2"]


def test_showdown_cards_no_deck_could_deal_are_422(client):
    assert_problem(ask(client, "showdown", {"game": "holdem", "board": "7d5h9d2c3c",
                                     "hands": {"A": "AsKs", "B": "As9c"}}), 422, "duplicate_card")
    assert_problem(ask(client, "showdown", {"game": "five-card-draw",
                                     "hands": {"P1": "AsAhAdAcJk", "P2": "9dTdJdQdKd"}}), 422, "invalid_card")


@pytest.mark.parametrize("body", [
    {"game": "five-card-draw", "hands": {"P1": "AsAhAdAcKd"}},
    {"game": "five-card-draw", "joker": "sometimes", "hands": {"P1": "AsAhAdAcKd", "P2": "9dTdJdQd8d"}},
    {"game": "holdem", "hands": {"A": "AsKs", "B": "9s9c"}},
    {"game": "holdem", "board": "7d5h9d", "hands": {"A": "AsKsQs", "B": "9s9c"}},
    {"game": "holdem", "board": "7d5h9d", "hands": {"A": 12, "B": "9s9c"}},
    {"hands": {"A": "AsKs", "B": "9s9c"}},
])
def test_showdown_requests_of_the_wrong_shape_are_400(client, body):
    assert_problem(ask(client, "showdown", body), 400, "validation_error")


# ---------------------------------------------------------------- dice


def test_dice_api_example_scores_every_line_and_the_legal_ones(client):
    answer = ruling(client, "dice", {"rules": {}, "scorecard": dict.fromkeys(LINES),
                                     "dice": [3, 3, 3, 5, 5], "poker_bonus_count": 0})
    assert answer["lines"]["full_house"] == {"score": 25, "legal": True, "bonus": 0, "total_after": 25}
    assert answer["lines"]["threes"]["score"] == 9
    assert answer["best_line"] == "full_house"
    assert answer["legal_lines"] == list(LINES)
    assert answer["totals"] == {"upper": 0, "upper_bonus": 0, "lower": 0, "poker_bonuses": 0,
                                "grand_total": 0}


def test_dice_without_dice_answers_the_totals_only(client):
    card = {**dict.fromkeys(LINES), "aces": 4, "twos": 8, "threes": 12, "fours": 16, "fives": 15,
            "sixes": 12, "poker": 50, "chance": 22}
    assert ruling(client, "dice", {"scorecard": card, "poker_bonus_count": 1}) == {"totals": {
        "upper": 67, "upper_bonus": 35, "lower": 72, "poker_bonuses": 100, "grand_total": 274}}


def test_dice_a_seven_is_no_die_and_a_score_no_roll_makes_is_no_scorecard(client):
    assert_problem(ask(client, "dice", {"dice": [7, 3, 3, 5, 5]}), 422, "invalid_dice")
    assert_problem(ask(client, "dice", {"scorecard": {"aces": 7}}), 422, "invalid_scorecard")
    assert_problem(ask(client, "dice", {"scorecard": {"yahtzee": 50}}), 400, "validation_error")
    assert_problem(ask(client, "dice", {"dice": "33355"}), 400, "validation_error")


# ---------------------------------------------------------------- palace battle


def test_palace_battle_two_pair_with_soldiers_beats_a_pair(client):
    answer = ruling(client, "palace-battle", {
        "attacker": {"name": "Ann", "banner": "Ah", "palace": "KdKc2s", "soldiers": "7h7d"},
        "defender": {"name": "Bob", "banner": "Qs", "palace": "QhQd3c"}})
    assert answer["outcome"] == "attacker_won"
    assert (answer["winner"], answer["loser"], answer["out"]) == ("Ann", "Bob", ["Bob"])
    assert answer["captured"] == "Qs"
    assert answer["hands"]["attacker"]["category"] == "two_pair"


def test_palace_battle_banners_of_one_suit_may_not_fight(client):
    assert_problem(ask(client, "palace-battle", {
        "attacker": {"banner": "Ah", "palace": "KdKc2s"},
        "defender": {"banner": "2h", "palace": "QsQd3c"}}), 422, "same_banner_suit")


def test_palace_battle_of_the_wrong_shape_is_400(client):
    assert_problem(ask(client, "palace-battle", {"attacker": {"banner": "Ah"}}), 400, "validation_error")
    assert_problem(ask(client, "palace-battle", {
        "attacker": {"banner": "Ah", "palace": "KdKc"}, "defender": {"banner": "2s", "palace": "QhQd3c"}}),
        400, "validation_error")


# ---------------------------------------------------------------- never a 500

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**20, max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
fields_of = {
    "betting": ["game", "betting", "seats", "button", "actions", "proposed", "cards"],
    "showdown": ["game", "joker", "board", "hands"],
    "dice": ["rules", "scorecard", "dice", "poker_bonus_count"],
    "palace-battle": ["attacker", "defender", "last_two"],
}


@st.composite
def garbage_requests(draw: st.DrawFn) -> tuple[str, object]:
    path = draw(st.sampled_from(sorted(fields_of)))
    names = st.sampled_from(fields_of[path]) | st.text(max_size=6)
    body = draw(st.dictionaries(names, json_values, max_size=5) | json_values)
    return path, body


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(garbage_requests())
def test_garbage_is_answered_with_a_4xx_problem_never_a_500(client, request):
    path, body = request
    response = ask(client, path, body)
    assert response.status_code in (200, 400, 422), response.get_data(as_text=True)
    if response.status_code != 200:
        assert response.mimetype == PROBLEM_CONTENT_TYPE


@st.composite
def betting_situations(draw: st.DrawFn) -> dict:
    """Well-formed betting requests with random (mostly illegal) action sequences."""
    players = ["P0", "P1", "P2", "P3"][: draw(st.integers(2, 4))]
    seats = [{"player": p, "stack": draw(st.integers(1, 2000))} for p in players]
    action = st.fixed_dictionaries(
        {"player": st.sampled_from(players), "action": st.sampled_from(["fold", "check", "call", "bet", "raise"])},
        optional={"to": st.integers(0, 2500)})
    structure = draw(st.sampled_from([NL, {**NL, "structure": "pot-limit"},
                                      {"structure": "fixed-limit", "small_blind": 50, "big_blind": 100,
                                       "small_bet": 100, "big_bet": 200}]))
    return {"betting": structure, "seats": seats, "actions": draw(st.lists(action, max_size=12)),
            "proposed": draw(action)}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(betting_situations())
def test_any_well_formed_betting_situation_is_a_ruling_or_a_422_with_an_index(client, request):
    response = ask(client, "betting", request)
    assert response.status_code in (200, 422), response.get_data(as_text=True)
    if response.status_code == 422:
        assert 0 <= response.get_json()["index"] < len(request["actions"])
    else:
        answer = response.get_json()
        # Chips are conserved: in the stacks, or in the pots while the hand runs.
        in_pots = 0 if answer["hand_over"] else sum(pot["amount"] for pot in answer["pots"])
        assert sum(answer["stacks"].values()) + in_pots == sum(seat["stack"] for seat in request["seats"])


def test_an_icm_chop_over_http_for_any_role(client, spectator):
    answer = client.post("/v1/rulings/icm", headers=spectator,
                         json={"stacks": {"P1": 5000, "P2": 3000, "P3": 2000}, "prizes": [500, 300, 200]})

    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == {"prizes_to_pay": 1000,
                                 "equities": {"P1": 383.93, "P2": 327.5, "P3": 288.57},
                                 "deal": {"P1": 384, "P2": 327, "P3": 289}}


def test_an_icm_chop_refuses_rising_prizes_and_a_lone_player(client):
    rising = client.post("/v1/rulings/icm", headers=ADMIN, json={"stacks": {"P1": 10, "P2": 20}, "prizes": [100, 200]})
    assert_problem(rising, 422, "invalid_prizes")
    assert "[100, 200]" in rising.get_json()["detail"]
    assert_problem(client.post("/v1/rulings/icm", headers=ADMIN, json={"stacks": {"P1": 10}, "prizes": [100]}),
                   400, "validation_error")
    assert_problem(client.post("/v1/rulings/icm", headers=ADMIN, json={"stacks": {"P1": 0, "P2": 5}, "prizes": [1]}),
                   400, "validation_error")


def test_dice_says_whether_another_roll_is_allowed_this_turn(client):
    roll = ruling(client, "dice", {"dice": [3, 3, 3, 5, 5], "rolls_taken": 2})["roll"]
    assert roll == {"another_roll": True, "rolls_taken": 2, "rolls_per_turn": 3, "rolls_left": 1,
                    "rule": "seed 003",
                    "detail": "2 of 3 rolls taken: another roll is allowed, re-rolling 1 to 5 dice (1 left)"}
    assert ruling(client, "dice", {"dice": [3, 3, 3, 5, 5], "rolls_taken": 3})["roll"]["another_roll"] is False
    assert_problem(ask(client, "dice", {"rolls_taken": 4}), 400, "validation_error")


def test_palace_battle_gives_the_minimum_bet_and_the_ante(client):
    answer = ruling(client, "palace-battle", {
        "attacker": {"name": "Ann", "banner": "Ah", "palace": "KdKc2s", "soldiers": "7h7d"},
        "defender": {"name": "Bob", "banner": "Qs", "palace": "QhQd3c"}, "small_bet": 10})
    stakes = answer["stakes"]
    assert (stakes["minimum_bet"], stakes["defender_call"], stakes["ante"]) == (30, 10, 5)
    assert stakes["rule"] == "seed 001"
    assert_problem(ask(client, "palace-battle", {
        "attacker": {"banner": "Ah", "palace": "KdKc2s"},
        "defender": {"banner": "Qs", "palace": "QhQd3c"}, "small_bet": 0}), 400, "validation_error")


# ---------------------------------------------------------------- who shows first


def test_showdown_order_the_river_bettor_shows_first(client):
    limped = [{"player": "A", "action": "call"}, {"player": "BTN", "action": "call"},
              {"player": "SB", "action": "call"}, {"player": "BB", "action": "check"}]
    checked = [{"player": name, "action": "check"} for name in ("SB", "BB", "A", "BTN")]
    river = [{"player": "SB", "action": "check"}, {"player": "BB", "action": "bet", "to": 400},
             {"player": "A", "action": "fold"}, {"player": "BTN", "action": "call"},
             {"player": "SB", "action": "call"}]
    answer = ruling(client, "showdown-order", {"game": "holdem", "betting": NL, "seats": FOUR,
                                               "button": "BTN", "actions": limped + checked + checked + river})
    assert answer == {"all_in": False, "order": ["BB", "BTN", "SB"], "first": "BB",
                      "reason": "last_aggressor", "rule": "TDA 2024 17-A",
                      "words": "BB shows first (TDA 2024 17-A): BB made the last bet or raise on the "
                               "river. Then, clockwise, BTN and SB show or muck."}
    checked_river = ruling(client, "showdown-order", {"betting": NL, "seats": FOUR,
                                                      "actions": limped + checked + checked + checked})
    assert (checked_river["first"], checked_river["reason"]) == ("SB", "first_to_act")


def test_showdown_order_all_in_tables_every_hand(client):
    answer = ruling(client, "showdown-order", {"betting": NL, "seats": FOUR, "actions": [
        {"player": "A", "action": "raise", "to": 10000}, {"player": "BTN", "action": "fold"},
        {"player": "SB", "action": "fold"}, {"player": "BB", "action": "call"}]})
    assert (answer["all_in"], answer["first"], answer["reason"], answer["rule"]) == (
        True, None, "all_in_tabled", "TDA 2024 16")
    assert answer["order"] == ["BB", "A"]


def test_showdown_order_before_the_showdown_is_a_422_naming_who_acts(client):
    body = assert_problem(ask(client, "showdown-order", {"betting": NL, "seats": FOUR, "actions": [
        {"player": "A", "action": "call"}]}), 422, "showdown_not_reached")
    assert body["numbers"] == {"to_act": "BTN"}
    assert_problem(ask(client, "showdown-order", {"game": "dice", "betting": NL,
                                                  "seats": FOUR}), 400, "validation_error")


def test_betting_reopened_by_short_all_ins_says_why(client):
    seats = [{"player": "SB", "stack": 600}, {"player": "BB", "stack": 10000},
             {"player": "A", "stack": 10000}, {"player": "BTN", "stack": 450}]
    answer = ruling(client, "betting", {"betting": NL, "seats": seats, "actions": [
        {"player": "A", "action": "raise", "to": 300}, {"player": "BTN", "action": "raise", "to": 450},
        {"player": "SB", "action": "raise", "to": 600}, {"player": "BB", "action": "call"}],
        "proposed": {"player": "A", "action": "raise", "to": 800}})
    assert answer["legal"]["raise_reopened"]["rule"] == "TDA 2024 47-A"
    assert answer["verdict"]["rule"] == "TDA 2024 47-A, 43"
    assert answer["verdict"]["detail"].startswith(
        "raising is reopened: since your action at 300 the all-ins raised the bet to 600, 300 more")
