"""End of the hand: the last player left, the forced battle of the last two, same-suit
survivors, the showdown after a quiet round, odd chips left of the button."""
from __future__ import annotations

import pytest

from domain.games import palace as P
from domain.games import palace_decider
from domain.rules.violations import Violation
from tests.unit.test_palace_scenarios import after, chips_on_table, dealt, when

BANNERS = {"Ann": "Ah", "Bob": "Ks", "Cy": "Qd"}
PALACES = {"Ann": "AdAc2s", "Bob": "KdKc3h", "Cy": "QhQc4s"}
DRAW = "9h9s8c7d6h5h"


def table(banners=BANNERS, palaces=PALACES, **kwargs) -> list[P.Event]:
    return dealt(banners, palaces, draw=DRAW, **kwargs)


def refused(events, command) -> Violation:
    with pytest.raises(Violation) as caught:
        when(events, command)
    return caught.value


def test_the_last_player_left_takes_the_pot():
    history = after(table(), P.Fold("Ann"))
    events = when(history, P.Fold("Bob"))
    assert events == [P.PlayerFolded("Bob"), P.HandEnded("last_player", ("Cy",), (15,),
                                                         (995, 995, 1010))]
    assert P.replay(history + events).phase == P.OVER


def test_a_defender_who_folds_as_one_of_the_last_two_leaves_the_pot_to_the_attacker():
    history = after(table(), P.Fold("Ann"), P.Attack("Bob", "Cy"))
    events = when(history, P.Fold("Cy"))
    assert events[-1] == P.HandEnded("last_player", ("Bob",), (25,), (995, 1010, 995))


def test_the_battle_of_the_last_two_ends_the_hand():
    history = after(table(), P.Fold("Ann"), P.Attack("Bob", "Cy"), P.Call("Cy"))
    # Bob's Kd is a diamond, Cy's banner suit: his kings are a pair against Cy's three queens.
    assert history[-2] == P.CardsCaptured("Cy", "Bob", ("Ks",))
    assert history[-1] == P.HandEnded("last_player", ("Cy",), (35,), (995, 985, 1020))


def test_nothing_more_happens_once_the_hand_is_over():
    history = after(table(), P.Fold("Ann"), P.Fold("Bob"))
    assert refused(history, P.Stay("Cy")).code == "hand_over"


def test_the_last_two_who_may_battle_must_battle():
    history = after(table(), P.Fold("Ann"))
    for command in (P.Stay("Bob"), P.Buy("Bob"), P.Discard("Bob", ("Ks",))):
        violation = refused(history, command)
        assert violation.code == "battle_required"
        assert "Bob must bet against Cy" in violation.detail
    legal = palace_decider.legal_actions(P.replay(history))["legal"]
    assert legal["stay"] is False and legal["buy"] is None and legal["discard"] is None
    assert legal["attack"] == {"targets": ["Cy"], "min_to": 10, "max_to": 10}
    assert when(history, P.Attack("Bob", "Cy")) == [P.BattleDeclared("Bob", "Cy", 10, 10)]


def test_the_forced_battle_may_be_conceded_by_folding():
    history = after(table(), P.Fold("Ann"))
    assert when(history, P.Fold("Bob"))[-1].winners == ("Cy",)


def test_a_hand_dealt_to_two_players_is_played_normally():
    two = dealt({"Ann": "Ah", "Bob": "Ks"}, {"Ann": "AdAc2s", "Bob": "KdKc3h"}, draw=DRAW)
    assert when(two, P.Stay("Ann")) == [P.Stayed("Ann")]
    assert when(two, P.Buy("Ann")) == [P.SoldierBought("Ann", 10, "9h")]


FIVE = {"Ann": "Ah", "Bob": "Ks", "Cy": "Qd", "Dee": "Jc", "Eve": "2h"}
FIVE_PALACES = PALACES | {"Dee": "JhJs5d", "Eve": "3d4d5c"}


def test_survivors_whose_banners_share_a_suit_cannot_battle_and_split_the_pot():
    history = after(dealt(FIVE, FIVE_PALACES, draw=DRAW), P.Stay("Ann"), P.Fold("Bob"),
                    P.Fold("Cy"))
    events = when(history, P.Fold("Dee"))
    # Pot of 25: the odd chip goes to Ann, the first winner left of the button (Eve deals).
    assert events == [P.PlayerFolded("Dee"),
                      P.HandEnded("same_banner_suit", ("Ann", "Eve"), (13, 12),
                                  (1008, 995, 995, 995, 1007))]


def test_the_odd_chip_goes_to_the_first_winner_left_of_the_button():
    given = dealt(FIVE, FIVE_PALACES, draw=DRAW, dealer=0)  # Ann deals, Bob acts first
    history = after(given, P.Fold("Bob"), P.Fold("Cy"))
    events = when(history, P.Fold("Dee"))
    assert events[-1] == P.HandEnded("same_banner_suit", ("Eve", "Ann"), (13, 12),
                                     (1007, 995, 995, 995, 1008))


def test_a_full_round_of_stays_goes_to_a_normal_showdown():
    history = after(table(), P.Stay("Ann"), P.Stay("Bob"))
    events = when(history, P.Stay("Cy"))
    assert events[0] == P.Stayed("Cy")
    shown = events[1:4]
    assert [(e.player, e.cards, e.category) for e in shown] == [
        ("Ann", ("Ad", "Ac", "2s"), "three_of_a_kind"),
        ("Bob", ("Kd", "Kc", "3h"), "three_of_a_kind"),
        ("Cy", ("Qh", "Qc", "4s"), "three_of_a_kind"),
    ]
    assert all(not hasattr(e, "visible_to") for e in shown)  # the showdown is public
    assert events[4] == P.HandEnded("showdown", ("Ann",), (15,), (1010, 995, 995))


def test_the_showdown_counts_every_card_a_player_holds():
    # In a battle Ann's spades would not count against Bob's spade banner (high card
    # against his queens); at the showdown her kings count and beat them.
    given = dealt({"Ann": "Ah", "Bob": "Qs", "Cy": "Jd"},
                  {"Ann": "KsKd2s", "Bob": "Qc5c3h", "Cy": "2c4c6c"}, draw=DRAW)
    events = when(after(given, P.Stay("Ann"), P.Stay("Bob")), P.Stay("Cy"))
    assert [e.category for e in events[1:4]] == ["one_pair", "one_pair", "high_card"]
    assert events[-1].winners == ("Ann",)


def test_a_showdown_tie_splits_the_pot():
    given = dealt({"Ann": "Ah", "Bob": "As", "Cy": "2d"},
                  {"Ann": "KhQc9d", "Bob": "KsQd9c", "Cy": "3c4c6h"}, draw=DRAW)
    events = when(after(given, P.Stay("Ann"), P.Stay("Bob")), P.Stay("Cy"))
    assert events[-1] == P.HandEnded("showdown", ("Ann", "Bob"), (8, 7), (1003, 1002, 995))


def test_discards_and_folds_are_quiet_turns_too():
    four = dealt(BANNERS | {"Dee": "Jc"}, PALACES | {"Dee": "JhJs5d"}, draw=DRAW)
    history = after(four, P.Buy("Ann"), P.Discard("Ann", ()), P.Stay("Bob"), P.Fold("Cy"),
                    P.Stay("Dee"))
    assert P.replay(history).phase == P.TURN
    events = when(history, P.Discard("Ann", ("9h",)))
    assert isinstance(events[-1], P.HandEnded) and events[-1].reason == "showdown"


def test_a_buy_or_a_battle_starts_the_quiet_round_again():
    history = after(table(), P.Stay("Ann"), P.Buy("Bob"), P.Discard("Bob", ()), P.Stay("Cy"),
                    P.Stay("Ann"))
    assert P.replay(history).phase == P.TURN
    assert when(history, P.Stay("Bob"))[-1].reason == "showdown"


def test_chips_are_conserved_to_the_end():
    history = after(table(), P.Buy("Ann"), P.Discard("Ann", ()), P.Attack("Bob", "Cy"),
                    P.Raise("Cy"), P.Call("Bob"))
    state = P.replay(history)
    assert chips_on_table(state) == 3000
    history = after(history, *([P.Discard(state.seats[state.to_act].player, ())]
                               if state.phase == P.DISCARDING else []))
    state = P.replay(history)
    while state.phase != P.OVER:
        history = after(history, P.Stay(state.seats[state.to_act].player)
                        if palace_decider.legal_actions(state)["legal"].get("stay") else
                        P.Attack(state.seats[state.to_act].player,
                                 palace_decider.legal_actions(state)["legal"]["attack"]["targets"][0]))
        state = P.replay(history)
        if state.phase == P.DEFENDING:
            history = after(history, P.Call(state.seats[state.to_act].player))
            state = P.replay(history)
        if state.phase == P.DISCARDING:
            history = after(history, P.Discard(state.seats[state.to_act].player, ()))
            state = P.replay(history)
    assert sum(seat.stack for seat in state.seats) == 3000 and state.pot == 0
