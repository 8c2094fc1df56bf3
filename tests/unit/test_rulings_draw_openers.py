"""Openers disputes as verdicts of POST /v1/rulings/betting for five-card draw
(declarations.md "Five-card draw: openers"): the actions say what happened at the table,
an opening bet included even when the cards show it was false."""
from __future__ import annotations

import pytest

from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling

THREE = [{"player": "A", "stack": 2000}, {"player": "B", "stack": 2000}, {"player": "D", "stack": 2000}]
NL = {"structure": "no-limit", "min_bet": 20}
JACKS = {"opening": "jacks_or_better"}
# A holds nothing, B a pair of nines, D a pair of sevens (D is the button).
HOLE = {"A": "Tc8h6d4h2c", "B": "9c9d5s4c3d", "D": "7s7h8d9sTs"}


def ruling(actions, **more):
    return betting_ruling({"game": "five-card-draw", "seats": THREE, "betting": NL, "settings": JACKS,
                           "cards": {"hole": HOLE}, "actions": actions, **more})


def test_false_openers_found_before_anyone_acted_carry_the_pot_to_the_next_deal():
    answer = ruling([{"player": "A", "action": "bet", "to": 20}, {"player": "A", "action": "false_openers"}])
    assert answer["false_openers"]["outcome"] == "carried"
    assert answer["false_openers"]["rule"] == "RRP draw: false openers"
    assert answer["redeals"] == 1 and answer["round"] == "first_round"
    # The antes, the false opening bet, and the next deal's antes.
    assert answer["pots"][0]["amount"] == 30 + 20 + 30


def test_false_openers_after_two_calls_the_pot_plays_among_the_others():
    answer = ruling([{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
                     {"player": "D", "action": "call"}, {"player": "A", "action": "false_openers"}])
    assert answer["false_openers"]["outcome"] == "pot_plays"
    assert answer["pots"] == [{"amount": 90, "eligible": ["B", "D"]}]
    assert answer["draw"]["player"] == "B"


def test_false_openers_with_one_caller_the_caller_takes_the_pot():
    answer = ruling([{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
                     {"player": "D", "action": "fold"}, {"player": "A", "action": "false_openers"}])
    assert answer["hand_over"] is True
    assert answer["stacks"]["B"] == 2000 - 10 - 20 + 70


def test_an_opener_who_cannot_prove_the_openers_at_the_showdown_has_a_dead_hand():
    answer = ruling([{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
                     {"player": "D", "action": "call"},
                     {"player": "A", "action": "draw", "discard": 3}, {"player": "B", "action": "draw", "discard": 0},
                     {"player": "D", "action": "draw", "discard": 0},
                     {"player": "A", "action": "check"}, {"player": "B", "action": "check"},
                     {"player": "D", "action": "check"}],
                    cards={"hole": HOLE, "received": {"A": "AsAdAh"}})
    assert answer["false_openers"]["outcome"] == "pot_plays"
    assert answer["hand_over"] and answer["pots"][0]["winners"] == ["B"]


def test_splitting_openers_must_be_declared():
    hole = {**HOLE, "A": "JsJhQhKh2h"}
    opened = [{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
              {"player": "D", "action": "call"}]
    with pytest.raises(Violation) as refused:
        ruling([*opened, {"player": "A", "action": "draw", "discard": ["Js"]}], cards={"hole": hole})
    assert refused.value.code == "split_openers_undeclared" and refused.value.numbers["index"] == 3
    answer = ruling(opened, cards={"hole": hole},
                    proposed={"player": "A", "action": "split_openers", "discard": ["Js"]})
    assert answer["verdict"]["legal"] is True and answer["verdict"]["rule"] == "RRP draw: splitting openers"
    answer = ruling(opened, cards={"hole": hole}, proposed={"player": "A", "action": "draw", "discard": ["Js"]})
    assert answer["verdict"]["code"] == "split_openers_undeclared"


def test_an_opener_with_openers_is_proven():
    hole = {**HOLE, "A": "JsJhQhKh2h"}
    answer = ruling([{"player": "A", "action": "bet", "to": 20}], cards={"hole": hole},
                    proposed={"player": "A", "action": "false_openers"})
    assert answer["verdict"]["code"] == "openers_proven"


def test_false_openers_proposed_says_what_becomes_of_the_pot():
    opened = [{"player": "A", "action": "bet", "to": 20}]
    carried = ruling(opened, proposed={"player": "A", "action": "false_openers"})["verdict"]
    assert carried["legal"] is True and carried["rule"] == "RRP draw: false openers"
    assert "stay in the pot for the next deal" in carried["detail"]
    assert carried["numbers"] == {"opened": 20, "outcome": "carried"}
    called = [*opened, {"player": "B", "action": "call"}, {"player": "D", "action": "call"}]
    plays = ruling(called, proposed={"player": "A", "action": "false_openers"})["verdict"]
    assert "plays among the others" in plays["detail"] and plays["numbers"]["outcome"] == "pot_plays"


def test_splitting_openers_proposed_says_the_discards_are_kept_aside():
    hole = {**HOLE, "A": "JsJhQhKh2h"}
    opened = [{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
              {"player": "D", "action": "call"}]
    verdict = ruling(opened, cards={"hole": hole},
                     proposed={"player": "A", "action": "split_openers", "discard": ["Js"]})["verdict"]
    assert verdict["detail"] == ("A splits openers, drawing 1: the discards are kept aside, face down, "
                                 "to prove the openers")
    assert verdict["numbers"] == {"discard": 1}


def test_without_an_opening_requirement_there_are_no_openers_to_split():
    opened = [{"player": "A", "action": "bet", "to": 20}, {"player": "B", "action": "call"},
              {"player": "D", "action": "call"}]
    verdict = ruling(opened, settings={}, proposed={"player": "A", "action": "split_openers", "discard": 1})["verdict"]
    assert verdict["code"] == "illegal_action"
    assert verdict["detail"] == ("A has no openers to split: this table plays without an opening requirement "
                                 "(jacks or better)")
