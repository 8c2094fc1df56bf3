"""Bet (battle): the attacker's minimum, the defender's fold, call or raise, the attacker's
answer to a raise, the comparison ignoring the opponent's banner suit, the tie-break by
banner-suit cards, the double knock-out, and the capture of banner and soldiers."""
from __future__ import annotations

import pytest

from domain.games import palace as P
from domain.games import palace_decider
from domain.rules.violations import Violation
from tests.unit.test_palace_scenarios import after, chips_on_table, dealt, when

BANNERS = {"Ann": "Ah", "Bob": "Ks", "Cy": "Qd", "Dee": "Jc"}
PALACES = {"Ann": "AdAc2s", "Bob": "KdKc3h", "Cy": "QhQc4s", "Dee": "JhJs5d"}
DRAW = "9h9s8c7d6h5h4h3c2c"


def table(banners=BANNERS, palaces=PALACES, **kwargs) -> list[P.Event]:
    return dealt(banners, palaces, draw=DRAW, **kwargs)


def buy(player: str) -> tuple[P.Command, P.Command]:
    return P.Buy(player), P.Discard(player, ())


def refused(events, command) -> Violation:
    with pytest.raises(Violation) as caught:
        when(events, command)
    return caught.value


def bob_with_two_soldiers(**kwargs) -> list[P.Event]:
    """Ann to act; Bob holds 9h and 8c... the first two cards he bought (9h, 7d)."""
    return after(table(**kwargs), P.Stay("Ann"), *buy("Bob"), P.Stay("Cy"), P.Stay("Dee"),
                 P.Stay("Ann"), *buy("Bob"), P.Stay("Cy"), P.Stay("Dee"))


# ---------------------------------------------------------------- the bet

def test_the_attacker_names_a_defender_and_bets_soldiers_plus_one_small_bets():
    assert when(table(), P.Attack("Ann", "Bob")) == [P.BattleDeclared("Ann", "Bob", 10, 10)]
    history = after(table(), *buy("Ann"), P.Stay("Bob"), P.Stay("Cy"), P.Stay("Dee"))
    assert when(history, P.Attack("Ann", "Bob")) == [P.BattleDeclared("Ann", "Bob", 20, 20)]


def test_battle_chips_go_into_the_one_main_pot():
    given = table()
    state = P.replay(given + when(given, P.Attack("Ann", "Bob")))
    assert state.pot == 20 + 10
    assert state.seats[0].stack == 995 - 10
    assert state.phase == P.DEFENDING and state.seats[state.to_act].player == "Bob"


def test_fixed_limit_bets_exactly_the_minimum():
    violation = refused(table(), P.Attack("Ann", "Bob", to=30))
    assert violation.code == "wrong_fixed_amount"
    assert "(0 soldiers + 1) x 10 = 10" in violation.detail


def test_no_limit_bets_at_least_the_minimum():
    given = table(structure="no-limit")
    assert refused(given, P.Attack("Ann", "Bob", to=5)).code == "bet_below_minimum"
    assert refused(given, P.Attack("Ann", "Bob", to=996)).code == "exceeds_stack"
    assert when(given, P.Attack("Ann", "Bob", to=60)) == [P.BattleDeclared("Ann", "Bob", 60, 10)]


def test_a_player_may_not_attack_a_banner_of_their_own_suit():
    five = dealt(BANNERS | {"Eve": "2h"}, PALACES | {"Eve": "3d4d5c"}, draw=DRAW)
    violation = refused(five, P.Attack("Ann", "Eve"))
    assert violation.code == "same_banner_suit"
    assert "Ann (Ah)" in violation.detail and "Eve (2h)" in violation.detail
    assert "Eve" not in palace_decider.legal_actions(P.replay(five))["legal"]["attack"]["targets"]


def test_only_another_player_still_in_the_hand_can_be_attacked():
    assert refused(table(), P.Attack("Ann", "Ann")).code == "illegal_action"
    history = after(table(), P.Fold("Ann"))
    assert refused(history, P.Attack("Bob", "Ann")).code == "illegal_action"


def test_a_short_stack_attacks_all_in():
    history = after(table(stacks=(1000, 1000, 1000, 1000)), *buy("Ann"), P.Stay("Bob"),
                    P.Stay("Cy"), P.Stay("Dee"))
    short = table(stacks=(20, 1000, 1000, 1000))  # 15 after the ante
    assert when(short, P.Attack("Ann", "Bob")) == [P.BattleDeclared("Ann", "Bob", 10, 10)]
    short_with_soldier = after(short, *buy("Ann"), P.Stay("Bob"), P.Stay("Cy"), P.Stay("Dee"))
    assert when(short_with_soldier, P.Attack("Ann", "Bob")) == [
        P.BattleDeclared("Ann", "Bob", 5, 20)]
    assert when(history, P.Attack("Ann", "Bob")) == [P.BattleDeclared("Ann", "Bob", 20, 20)]


# ---------------------------------------------------------------- the defender

def test_a_defender_who_folds_is_out_and_the_attacker_takes_banner_and_soldiers():
    history = after(bob_with_two_soldiers(), P.Attack("Ann", "Bob"))
    events = when(history, P.Fold("Bob"))
    assert events == [P.DefenderFolded("Bob"), P.CardsCaptured("Ann", "Bob", ("Ks", "9h", "9s"))]
    state = P.replay(history + events)
    bob = state.seats[1]
    assert not bob.in_hand and bob.palace == () and bob.soldiers == ()
    assert {"Kd", "Kc", "3h"} <= set(state.discard_pile)  # the palace goes face down
    assert state.seats[0].soldiers == ("Ks", "9h", "9s")
    assert state.phase == P.DISCARDING and state.seats[state.to_act].player == "Ann"
    resumed = P.replay(history + events + when(history + events, P.Discard("Ann", ("9s",))))
    assert resumed.seats[resumed.to_act].player == "Cy"


def test_a_defender_who_calls_pays_by_their_own_soldiers():
    history = after(bob_with_two_soldiers(), P.Attack("Ann", "Bob"))
    assert when(history, P.Call("Bob"))[0] == P.DefenderCalled("Bob", 30)


def test_in_no_limit_the_defender_also_matches_what_the_attacker_bet_above_the_minimum():
    history = after(table(structure="no-limit"), P.Attack("Ann", "Bob", to=50))
    assert when(history, P.Call("Bob"))[0] == P.DefenderCalled("Bob", 10 + 40)


def test_a_called_battle_is_won_by_the_better_hand_and_the_loser_is_out():
    history = after(bob_with_two_soldiers(), P.Attack("Ann", "Bob"))
    events = when(history, P.Call("Bob"))
    shown, decided, captured = events[1:]
    # Ann: Ah Ad Ac (2s ignored: Bob's banner is a spade); Bob: Ks Kd Kc 9s (his 3h and
    # 9h are hearts, Ann's banner suit, and do not count).
    assert shown.attacker_hand.category == "three_of_a_kind"
    assert shown.attacker_hand.ignored == ("2s",)
    assert shown.defender_hand.ignored == ("3h", "9h")
    assert sorted(shown.defender_hand.best) == ["9s", "Kc", "Kd", "Ks"]
    assert decided == P.BattleDecided("Ann", "Bob", P.ATTACKER_WON, "Ann", "better_hand")
    assert captured == P.CardsCaptured("Ann", "Bob", ("Ks", "9h", "9s"))
    state = P.replay(history + events)
    assert [seat.player for seat in state.seats if seat.in_hand] == ["Ann", "Cy", "Dee"]
    assert state.pot == 20 + 20 + 10 + 30  # antes, Bob's two buys, bet, call
    history += events + when(history + events, P.Discard("Ann", ()))
    resumed = P.replay(history)
    assert resumed.seats[resumed.to_act].player == "Cy"  # play passes left of the attacker


def test_the_battle_showdown_is_seen_by_the_two_fighters_only():
    history = after(table(), P.Attack("Ann", "Bob"))
    shown = when(history, P.Call("Bob"))[1]
    assert isinstance(shown, P.BattleCardsShown)
    assert shown.visible_to == ("Ann", "Bob")
    assert not P.can_see(shown, "Cy")


def test_cards_of_the_opponents_banner_suit_do_not_count():
    # Counting everything Ann's kings beat Bob's queens; but Ann's spades do not count
    # against Bob's spade banner and Bob's heart does not count against Ann's heart banner.
    given = table(banners=BANNERS | {"Bob": "Qs"}, palaces=PALACES | {"Ann": "KsKd2c",
                                                                      "Bob": "Qd5c3h"})
    history = after(given, P.Attack("Ann", "Bob"))
    events = when(history, P.Call("Bob"))
    assert events[1].attacker_hand.category == "high_card"
    assert events[1].defender_hand.category == "one_pair"
    assert events[2] == P.BattleDecided("Ann", "Bob", P.DEFENDER_WON, "Bob", "better_hand")
    assert events[3] == P.CardsCaptured("Bob", "Ann", ("Ah",))


TIED = {"Ann": "Kh9d4d", "Bob": "Ks9c4c"}  # A K 9 4 each, nothing ignored


def test_a_tie_goes_to_the_player_with_more_cards_of_their_own_banner_suit():
    given = table(banners=BANNERS | {"Bob": "Ac"}, palaces=PALACES | TIED)
    events = when(after(given, P.Attack("Ann", "Bob")), P.Call("Bob"))
    assert events[1].attacker_hand.banner_suit_cards == 2  # Ah Kh
    assert events[1].defender_hand.banner_suit_cards == 3  # Ac 9c 4c
    assert events[2] == P.BattleDecided("Ann", "Bob", P.DEFENDER_WON, "Bob",
                                        "more_banner_suit_cards")


def test_a_tie_after_the_tie_break_knocks_both_out():
    given = table(banners=BANNERS | {"Bob": "Ac"}, palaces=PALACES | TIED | {"Bob": "Ks9s4c"})
    history = after(given, P.Attack("Ann", "Bob"))
    events = when(history, P.Call("Bob"))
    assert events[2] == P.BattleDecided("Ann", "Bob", P.DOUBLE_KNOCKOUT, None, "tie")
    assert len(events) == 3  # nobody captures
    state = P.replay(history + events)
    assert [seat.player for seat in state.seats if seat.in_hand] == ["Cy", "Dee"]
    assert {"Ah", "Kh", "9d", "4d", "Ac", "Ks", "9s", "4c"} <= set(state.discard_pile)
    assert state.seats[state.to_act].player == "Cy"
    assert state.pot == 20 + 10 + 10


def test_the_last_two_tied_after_the_tie_break_split_the_pot():
    given = dealt({"Ann": "Ah", "Bob": "Ac"}, {"Ann": "Kh9d4d", "Bob": "Ks9s4c"}, draw=DRAW)
    events = when(after(given, P.Attack("Ann", "Bob")), P.Call("Bob"))
    assert events[2] == P.BattleDecided("Ann", "Bob", P.SPLIT, None, "tie")
    assert events[3] == P.HandEnded("battle_split", ("Ann", "Bob"), (15, 15), (1000, 1000))


# ---------------------------------------------------------------- the raise

def test_fixed_limit_raise_is_one_big_bet():
    history = after(bob_with_two_soldiers(big_bet=30), P.Attack("Ann", "Bob"))
    assert refused(history, P.Raise("Bob", to=50)).code == "wrong_fixed_amount"
    assert when(history, P.Raise("Bob")) == [P.DefenderRaised("Bob", 30, 30)]  # to 60


def test_fixed_limit_raise_is_two_small_bets_for_a_defender_without_soldiers():
    history = after(table(big_bet=30), P.Attack("Ann", "Bob"))
    assert when(history, P.Raise("Bob", to=30)) == [P.DefenderRaised("Bob", 10, 20)]


def test_no_limit_raise_is_at_least_one_big_bet():
    history = after(table(structure="no-limit"), P.Attack("Ann", "Bob"))
    violation = refused(history, P.Raise("Bob", to=25))
    assert violation.code == "raise_below_minimum"
    assert violation.numbers == {"to": 25, "minimum": 30}
    assert refused(history, P.Raise("Bob", to=996)).code == "exceeds_stack"
    assert when(history, P.Raise("Bob", to=400)) == [P.DefenderRaised("Bob", 10, 390)]


def test_a_defender_whose_call_takes_the_whole_stack_cannot_raise():
    history = after(table(stacks=(1000, 15, 1000, 1000)), P.Attack("Ann", "Bob"))
    assert refused(history, P.Raise("Bob")).code == "exceeds_stack"
    assert palace_decider.legal_actions(P.replay(history))["legal"] == {"fold": True, "call": {"adds": 10},
                                                                        "raise": None}


def test_after_a_raise_an_attacker_who_folds_is_out_and_the_defender_takes_their_cards():
    history = after(table(), *buy("Ann"), P.Stay("Bob"), P.Stay("Cy"), P.Stay("Dee"),
                    P.Attack("Ann", "Bob"), P.Raise("Bob"))
    events = when(history, P.Fold("Ann"))
    assert events == [P.AttackerFolded("Ann"), P.CardsCaptured("Bob", "Ann", ("Ah", "9h"))]
    state = P.replay(history + events)
    assert not state.seats[0].in_hand
    assert state.seats[1].soldiers == ("Ah", "9h")
    state = P.replay(history + events + when(history + events, P.Discard("Bob", ())))
    assert state.seats[state.to_act].player == "Bob"  # play passes left of Ann


def test_after_a_raise_an_attacker_who_calls_adds_the_raise_and_the_battle_is_decided():
    history = after(table(), P.Attack("Ann", "Bob"), P.Raise("Bob"))
    assert palace_decider.legal_actions(P.replay(history))["legal"] == {"fold": True, "call": {"adds": 20}}
    events = when(history, P.Call("Ann"))
    assert events[0] == P.AttackerCalled("Ann", 20)
    assert events[2] == P.BattleDecided("Ann", "Bob", P.ATTACKER_WON, "Ann", "better_hand")
    assert P.replay(history + events).pot == 20 + 10 + 30 + 20


def test_the_attacker_may_only_call_or_fold_a_raise():
    history = after(table(), P.Attack("Ann", "Bob"), P.Raise("Bob"))
    assert refused(history, P.Raise("Ann")).code == "illegal_action"
    assert refused(history, P.Stay("Ann")).code == "illegal_action"


def test_the_defender_may_only_fold_call_or_raise():
    history = after(table(), P.Attack("Ann", "Bob"))
    assert refused(history, P.Stay("Bob")).code == "illegal_action"
    assert refused(history, P.Buy("Bob")).code == "illegal_action"
    assert refused(history, P.Call("Ann")).code == "not_your_turn"


def test_there_is_nothing_to_call_or_raise_outside_a_battle():
    assert refused(table(), P.Call("Ann")).code == "illegal_action"
    assert refused(table(), P.Raise("Ann")).code == "illegal_action"


# ---------------------------------------------------------------- captures

def test_a_winner_keeps_at_most_five_soldiers_after_a_capture():
    history = after(table(), *buy("Ann"), *buy("Bob"), P.Stay("Cy"), P.Stay("Dee"),
                    *buy("Ann"), *buy("Bob"), P.Stay("Cy"), P.Stay("Dee"),
                    *buy("Ann"), *buy("Bob"), P.Stay("Cy"), P.Stay("Dee"),
                    P.Attack("Ann", "Bob"), P.Call("Bob"))
    state = P.replay(history)
    assert len(state.seats[0].soldiers) == 3 + 4  # her three and Bob's banner and three soldiers
    violation = refused(history, P.Discard("Ann", ("Ks",)))
    assert violation.code == "invalid_discard"
    events = when(history, P.Discard("Ann", ("Ks", "9s")))
    assert len(P.replay(history + events).seats[0].soldiers) == 5


def test_chips_stay_on_the_table_through_a_battle():
    history = after(bob_with_two_soldiers(structure="no-limit"), P.Attack("Ann", "Bob", to=70),
                    P.Raise("Bob", to=200), P.Call("Ann"))
    assert all(chips_on_table(P.replay(history[:n])) == 4000 for n in range(1, len(history) + 1))


def test_others_see_who_fought_but_not_the_fighters_cards():
    history = after(table(), P.Attack("Ann", "Bob"))
    shown = when(history, P.Call("Bob"))[1]
    assert P.redacted_for(shown, "Ann") == shown
    for outsider in ("Cy", None):
        seen = P.redacted_for(shown, outsider)
        assert (seen.attacker, seen.defender) == ("Ann", "Bob")
        assert seen.attacker_palace == seen.defender_palace == ("??", "??", "??")
        assert seen.attacker_hand is None and seen.defender_hand is None
