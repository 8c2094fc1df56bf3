"""A turn: buy, discard, stay or fold (the bet is in test_palace_battles.py); the
five-soldier limit; the draw deck running out."""
from __future__ import annotations

import random

import pytest

from domain.games import palace as P
from domain.games import palace_decider
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation
from tests.unit.test_palace_scenarios import after, dealt, when

BANNERS = {"Ann": "Ah", "Bob": "Ks", "Cy": "Qd"}
PALACES = {"Ann": "2c3c4c", "Bob": "5d6d7d", "Cy": "8s9sTc"}


def table(draw: str = "2h3h4h5h6h7h8h", **kwargs) -> list[P.Event]:
    return dealt(BANNERS, PALACES, draw=draw, **kwargs)


def refused(events, command) -> Violation:
    with pytest.raises(Violation) as caught:
        when(events, command)
    return caught.value


def test_buying_puts_a_small_bet_in_the_pot_and_takes_the_top_card_as_a_soldier():
    given = table()
    events = when(given, P.Buy("Ann"))
    assert events == [P.SoldierBought("Ann", 10, "2h")]
    state = P.replay(given + events)
    assert state.seats[0].soldiers == ("2h",)
    assert state.seats[0].stack == 995 - 10
    assert state.pot == 15 + 10
    assert state.draw_deck[0] == "3h"
    assert state.phase == P.DISCARDING and state.to_act == 0  # Ann may now discard


def test_after_buying_the_buyer_may_discard_any_soldiers_including_the_new_one():
    history = after(table(), P.Buy("Ann"))
    events = when(history, P.Discard("Ann", ("2h",)))
    assert events == [P.SoldiersDiscarded("Ann", ("2h",))]
    state = P.replay(history + events)
    assert state.seats[0].soldiers == ()
    assert state.discard_pile == ("2h",)
    assert state.seats[state.to_act].player == "Bob"


def test_after_buying_the_buyer_may_keep_every_soldier():
    history = after(table(), P.Buy("Ann"), P.Discard("Ann", ()))
    state = P.replay(history)
    assert state.seats[0].soldiers == ("2h",)
    assert state.seats[state.to_act].player == "Bob"


def test_a_sixth_soldier_must_be_discarded_at_once():
    rounds = [c for _ in range(5) for c in (P.Buy("Ann"), P.Discard("Ann", ()), P.Stay("Bob"),
                                            P.Stay("Cy"))]
    history = after(table(draw="2h3h4h5h6h7h"), *rounds, P.Buy("Ann"))
    assert len(P.replay(history).seats[0].soldiers) == 6
    violation = refused(history, P.Discard("Ann", ()))
    assert violation.code == "invalid_discard"
    assert "discard 1 more" in violation.detail
    events = when(history, P.Discard("Ann", ("7h",)))
    assert P.replay(history + events).seats[0].soldiers == ("2h", "3h", "4h", "5h", "6h")


def test_the_discard_step_must_come_before_anything_else():
    history = after(table(), P.Buy("Ann"))
    assert refused(history, P.Stay("Ann")).code == "illegal_action"
    assert refused(history, P.Stay("Bob")).code == "not_your_turn"


def test_a_discard_turn_costs_nothing_and_discards_one_or_more_soldiers():
    history = after(table(), P.Buy("Ann"), P.Discard("Ann", ()), P.Buy("Bob"),
                    P.Discard("Bob", ()), P.Stay("Cy"))
    before = P.replay(history)
    events = when(history, P.Discard("Ann", ("2h",)))
    state = P.replay(history + events)
    assert state.seats[0].stack == before.seats[0].stack
    assert state.pot == before.pot
    assert state.seats[0].soldiers == ()
    assert state.seats[state.to_act].player == "Bob"


def test_a_discard_turn_must_discard_at_least_one_soldier():
    history = after(table(), P.Buy("Ann"), P.Discard("Ann", ()), P.Stay("Bob"), P.Stay("Cy"))
    assert refused(history, P.Discard("Ann", ())).code == "invalid_discard"


def test_only_your_own_soldiers_can_be_discarded():
    history = after(table(), P.Buy("Ann"))
    assert refused(history, P.Discard("Ann", ("2c",))).code == "invalid_discard"  # a palace card
    assert refused(history, P.Discard("Ann", ("Xx",))).code == "invalid_card"


def test_stay_does_nothing_and_play_passes_left():
    given = table()
    events = when(given, P.Stay("Ann"))
    assert events == [P.Stayed("Ann")]
    state = P.replay(given + events)
    assert state.seats[state.to_act].player == "Bob"
    assert state.pot == 15


def test_folding_leaves_the_hand_and_sends_all_the_players_cards_to_the_discard_pile():
    four = dealt(BANNERS | {"Dee": "Jc"}, PALACES | {"Dee": "2d3d4d"}, draw="2h3h")
    history = after(four, P.Buy("Ann"), P.Discard("Ann", ()), P.Buy("Bob"), P.Discard("Bob", ()),
                    P.Stay("Cy"), P.Stay("Dee"))
    events = when(history, P.Fold("Ann"))
    assert events == [P.PlayerFolded("Ann")]
    state = P.replay(history + events)
    ann = state.seats[0]
    assert not ann.in_hand and ann.palace == () and ann.soldiers == () and ann.banner is None
    assert set(state.discard_pile) == {"Ah", "2c", "3c", "4c", "2h"}
    assert state.seats[state.to_act].player == "Bob"


def test_a_player_may_act_only_on_their_turn():
    violation = refused(table(), P.Stay("Bob"))
    assert violation.code == "not_your_turn"
    assert "Ann" in violation.detail


def test_an_unknown_player_is_refused():
    assert refused(table(), P.Stay("Zed")).code == "unknown_player"


def test_buying_needs_a_full_small_bet():
    given = table(stacks=(14, 1000, 1000))  # 9 left after the ante
    violation = refused(given, P.Buy("Ann"))
    assert violation.code == "exceeds_stack"
    assert violation.numbers == {"cost": 10, "stack": 9}


def test_when_the_draw_deck_runs_dry_the_discard_pile_is_shuffled_into_a_new_one():
    history = after(table(draw="2h3h"), P.Buy("Ann"), P.Discard("Ann", ("2h",)),
                    P.Buy("Bob"), P.Discard("Bob", ("3h",)))
    assert P.replay(history).draw_deck == ()
    order = tuple(format_card(c) for c in shuffled(new_deck(), random.Random(9)))
    events = when(history, P.Buy("Cy", reshuffle_order=order))
    reshuffle, bought = events
    assert isinstance(reshuffle, P.DrawDeckReshuffled)
    assert reshuffle.order == tuple(c for c in order if c in ("2h", "3h"))
    assert reshuffle.visible_to == ()  # the new deck order is nobody's to see
    assert bought == P.SoldierBought("Cy", 10, reshuffle.order[0])
    state = P.replay(history + events)
    assert state.discard_pile == ()
    assert state.draw_deck == reshuffle.order[1:]


def test_a_reshuffle_needs_an_order_from_the_caller():
    history = after(table(draw="2h"), P.Buy("Ann"), P.Discard("Ann", ("2h",)))
    assert refused(history, P.Buy("Bob")).code == "shuffle_order_required"


def test_when_draw_deck_and_discard_pile_are_both_empty_buying_is_no_longer_possible():
    history = after(table(draw="2h"), P.Buy("Ann"), P.Discard("Ann", ()))
    violation = refused(history, P.Buy("Bob"))
    assert violation.code == "no_cards_to_buy"
    assert palace_decider.legal_actions(P.replay(history))["legal"]["buy"] is None


def test_legal_actions_on_a_turn():
    legal = palace_decider.legal_actions(P.replay(table()))
    assert legal["to_act"] == "Ann"
    assert legal["legal"] == {
        "buy": {"cost": 10, "needs_reshuffle": False},
        "discard": None,
        "attack": {"targets": ["Bob", "Cy"], "min_to": 10, "max_to": 10},
        "stay": True,
        "fold": True,
    }
