"""Betting rules as the rule book states them: given a round, when a player acts, then
what is legal (betting-rules.md, seed 002, TDA 45-A/49-A, pot-limit, fixed-limit).

The TDA Illustration Addendum's examples for rules 43 (raise amounts) and 47 (re-opening
the bet) come from the 2024 edition: Poker TDA 2024 Rules Version 1.0 (Oct 9, 2024),
longform with the Illustration Addendum, https://www.pokertda.com/view-poker-tda-rules/.
Robert's Rules of Poker: Bob Ciaffone, section "Betting and Raising", rule 6
(http://www.texasholdem-poker.com/roberts_rules_of_poker/betting-and-raising)."""
from __future__ import annotations

import pytest

from domain.rules.betting import NOT_REOPENED, AmountRange, BettingStructure, CallOption, apply_action, check_action, legal_actions, open_hand, start_round
from domain.rules.violations import Violation

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)


def flop_round(stacks: dict[str, int], structure: BettingStructure = NL, late: bool = False):
    """A post-flop round, every round total 0, players acting in the order given
    (the button is the last of them, so the first acts first)."""
    names = tuple(stacks)
    hand = open_hand(structure, names, tuple(stacks.values()), button=len(names) - 1)
    # Everyone calls the big blind pre-flop, then the flop round opens.
    while hand.to_act is not None:
        seat = hand.to_act
        action = "call" if hand.highest > hand.bets[seat] else "check"
        hand = apply_action(hand, seat, action, check_action(hand, seat, action))
    return start_round(hand, late=late)


def act(state, player: str, action: str, to=None):
    seat = state.players.index(player)
    return apply_action(state, seat, action, check_action(state, seat, action, to))


def rejected(state, player: str, action: str, to=None) -> Violation:
    with pytest.raises(Violation) as caught:
        check_action(state, state.players.index(player), action, to)
    return caught.value


def who(state) -> str:
    return state.players[state.to_act]


BIG = 100_000


# ------------------------------------------------------------- seed 002 worked examples


def test_example_1_short_all_in_does_not_reopen_raising_for_the_player_who_bet():
    # A bets 100. B is all-in for a total of 150.
    state = flop_round({"A": BIG, "B": 250, "C": BIG})
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 150)
    # C (not yet acted) may fold, call 150, or raise to at least 250 (150 + 100).
    legal = legal_actions(state)
    assert who(state) == "C"
    assert legal.fold and not legal.check
    assert legal.call == CallOption(to=150, adds=150)
    assert legal.raise_.min_to == 250
    # C calls. Back to A: an increase of 50 over 100, less than the full bet of 100.
    state = act(state, "C", "call")
    legal = legal_actions(state)
    assert who(state) == "A"
    assert legal.call == CallOption(to=150, adds=50)
    assert legal.raise_ is None and legal.raise_closed_reason == NOT_REOPENED
    assert rejected(state, "A", "raise", 250).code == "raise_not_reopened"
    state = act(state, "A", "call")
    assert state.to_act is None  # the round closes by itself


def test_example_2_short_all_ins_add_up_and_reopen_raising():
    # A bets 100. B all-in to 150. C all-in to 200 (50 more).
    state = flop_round({"A": BIG, "B": 250, "C": 300, "D": BIG})
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 150)
    state = act(state, "C", "raise", 200)
    # D (not yet acted) may fold, call 200, or raise to at least 300 (200 + 100).
    legal = legal_actions(state)
    assert who(state) == "D"
    assert legal.call == CallOption(to=200, adds=200)
    assert legal.raise_.min_to == 300
    state = act(state, "D", "call")
    # Back to A: the increase since A's 100 is 100, a full bet, so raising reopens.
    legal = legal_actions(state)
    assert who(state) == "A"
    assert legal.call == CallOption(to=200, adds=100)
    assert legal.raise_.min_to == 300  # the last FULL bet (100), not the 50 of the all-in
    assert rejected(state, "A", "raise", 250).code == "raise_below_minimum"
    before = state.stacks[0]
    state = act(state, "A", "raise", 300)
    assert before - state.stacks[0] == 200  # raising to 300 adds 200 chips
    # D must act again; B and C are all-in and act no more.
    assert who(state) == "D"
    state = act(state, "D", "call")
    assert state.to_act is None


# ------------------------------------------------------------------ no-limit sizes


def test_minimum_raise_is_current_bet_plus_last_full_raise():
    # Big blind 100, A raises to 300 (increment 200): the next minimum raise is to 500.
    hand = open_hand(NL, ("SB", "BB", "A", "BTN"), (10_000,) * 4, button=3)
    hand = act(hand, "A", "raise", 300)
    assert legal_actions(hand).raise_ == AmountRange(500, 10_000)
    violation = rejected(hand, "BTN", "raise", 450)
    assert violation.code == "raise_below_minimum"
    assert violation.detail == ("raise to 450 is below the minimum raise to 500: "
                                "the last full raise was 200 over 100")


def test_the_big_blind_is_the_opening_full_bet_pre_flop():
    hand = open_hand(NL, ("SB", "BB", "A"), (10_000,) * 3, button=2)
    assert legal_actions(hand).raise_.min_to == 200
    violation = rejected(hand, "A", "raise", 150)
    assert violation.detail == ("raise to 150 is below the minimum raise to 200: "
                                "the last full bet was 100")


def test_first_bet_of_a_round_is_at_least_the_big_blind():
    state = flop_round({"A": BIG, "B": BIG})
    assert legal_actions(state).bet == AmountRange(100, BIG - 100)
    assert rejected(state, "A", "bet", 99).code == "bet_below_minimum"


def test_a_player_may_bet_no_more_than_the_stack():
    state = flop_round({"A": 1000, "B": BIG})
    violation = rejected(state, "A", "bet", 901)
    assert violation.code == "exceeds_stack"
    assert violation.numbers["all_in"] == 900


def test_a_stack_below_the_minimum_may_go_all_in_for_less():
    state = flop_round({"A": BIG, "B": 180})
    state = act(state, "A", "bet", 60 + 100)
    legal = legal_actions(state)
    # B has 80 behind after the 100 pre-flop call: call all-in for 80; no raise possible.
    assert legal.call == CallOption(to=80, adds=80)
    assert legal.raise_ is None


def test_a_stack_between_call_and_minimum_raise_raises_all_in_only():
    state = flop_round({"A": BIG, "B": 350, "C": BIG})
    state = act(state, "A", "bet", 200)
    legal = legal_actions(state)
    assert legal.raise_ == AmountRange(250, 250)  # min_to = max_to = the all-in total


@pytest.mark.parametrize("action, to, code", [
    ("check", None, "check_facing_bet"),
    ("bet", 400, "bet_facing_bet"),
    ("raise", 100_000_000, "exceeds_stack"),
])
def test_actions_that_ignore_the_bet_are_rejected(action, to, code):
    state = act(flop_round({"A": BIG, "B": BIG}), "A", "bet", 200)
    assert rejected(state, "B", action, to).code == code


def test_calling_with_nothing_to_call_is_rejected_not_read_as_a_check():
    state = flop_round({"A": BIG, "B": BIG})
    assert rejected(state, "A", "call").code == "call_nothing_to_call"


def test_raising_when_nobody_has_bet_is_rejected():
    state = flop_round({"A": BIG, "B": BIG})
    assert rejected(state, "A", "raise", 200).code == "raise_without_bet"


def test_acting_out_of_turn_is_rejected():
    state = flop_round({"A": BIG, "B": BIG, "C": BIG})
    violation = rejected(state, "C", "check")
    assert violation.code == "not_your_turn"
    assert "A's turn" in violation.detail


def test_the_big_blind_keeps_the_option_when_everyone_calls():
    hand = open_hand(NL, ("SB", "BB", "BTN"), (10_000,) * 3, button=2)
    hand = act(hand, "BTN", "call")
    hand = act(hand, "SB", "call")
    legal = legal_actions(hand)
    assert who(hand) == "BB" and legal.check and legal.raise_.min_to == 200


def test_raising_is_closed_when_every_other_player_is_all_in():
    state = flop_round({"A": 300, "B": BIG})
    state = act(state, "A", "bet", 200)
    legal = legal_actions(state)
    assert legal.call.to == 200 and legal.raise_ is None


# ------------------------------------- TDA 2024 Illustration Addendum, rules 43 and 47


def preflop(structure: BettingStructure, stacks: dict[str, int]):
    """A hand before the flop: the first two players post the blinds, the last has the button."""
    return open_hand(structure, tuple(stacks), tuple(stacks.values()), button=len(stacks) - 1)


def test_addendum_43_example_1_the_minimum_reraise_adds_the_last_raise_not_the_total():
    """TDA 2024 Addendum, rule 43, example 1: blinds 100-200; after the flop A bets 600, B
    raises 1,000 to 1,600 and C re-raises 2,000 to 3,600. D must re-raise at least C's
    2,000: to 5,600, not by C's total of 3,600."""
    state = flop_round(dict.fromkeys("ABCD", BIG), BettingStructure("no-limit", 100, 200))
    state = act(state, "A", "bet", 600)
    state = act(state, "B", "raise", 1600)
    state = act(state, "C", "raise", 3600)
    assert who(state) == "D" and legal_actions(state).raise_.min_to == 5600
    assert rejected(state, "D", "raise", 5599).numbers["last_full_raise"] == 2000


def test_addendum_43_example_2_a_short_all_in_leaves_the_big_blind_the_largest_raise():
    """TDA 2024 Addendum, rule 43, example 2: blinds 50-100; before the flop A, under the
    gun, is all-in for 150 (50 more than the blind). The 100 blind stays the largest bet of
    the round, so B's smallest re-raise is 100 more: to 250."""
    hand = preflop(NL, {"SB": BIG, "BB": BIG, "A": 150, "B": BIG})
    hand = act(hand, "A", "raise", 150)
    assert who(hand) == "B" and legal_actions(hand).raise_.min_to == 250
    assert rejected(hand, "B", "raise", 200).code == "raise_below_minimum"


def test_addendum_43_example_4a_the_largest_raise_of_the_round_sets_the_minimum():
    """TDA 2024 Addendum, rule 43, example 4-A: blinds 25-50; A raises 75 to 125, B makes
    the minimum raise to 200, C re-raises 300 to 500. The largest raise is now C's 300, so
    D must make it at least 800."""
    hand = preflop(BettingStructure("no-limit", 25, 50), dict.fromkeys(("SB", "BB", "A", "B", "C", "D"), BIG))
    hand = act(hand, "A", "raise", 125)
    hand = act(hand, "B", "raise", 200)
    hand = act(hand, "C", "raise", 500)
    assert who(hand) == "D" and legal_actions(hand).raise_.min_to == 800


def test_addendum_43_example_4b_one_raise_of_450_sets_the_minimum():
    """TDA 2024 Addendum, rule 43, example 4-B: the same 500 to D, but from a single raise
    of 450 (A to 500) that B and C called: D calls 500 or re-raises to at least 950."""
    hand = preflop(BettingStructure("no-limit", 25, 50), dict.fromkeys(("SB", "BB", "A", "B", "C", "D"), BIG))
    hand = act(hand, "A", "raise", 500)
    hand = act(hand, "B", "call")
    hand = act(hand, "C", "call")
    legal = legal_actions(hand)
    assert who(hand) == "D" and legal.call.to == 500 and legal.raise_.min_to == 950


def addendum_47_example_1():
    """TDA 2024 Addendum, rule 47, example 1: blinds 50-100; after the flop A bets the 100
    minimum, B is all-in for 125, C calls 125, D is all-in for 200 and E calls 200 (every
    player called the 100 blind before the flop)."""
    state = flop_round({"A": BIG, "B": 100 + 125, "C": BIG, "D": 100 + 200, "E": BIG})
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 125)
    state = act(state, "C", "call")
    state = act(state, "D", "raise", 200)
    return act(state, "E", "call")


def test_addendum_47_example_1_short_all_ins_adding_up_to_a_full_raise_reopen_for_a():
    """Rule 47, example 1 (above): back to A, who faces 100 more, a full raise made of B's
    25 and D's 75: A may fold, call or raise, and the minimum raise is still the last full
    bet, 100 (to 300)."""
    state = addendum_47_example_1()
    legal = legal_actions(state)
    assert who(state) == "A" and legal.fold
    assert legal.call == CallOption(to=200, adds=100) and legal.raise_.min_to == 300


def test_addendum_47_example_1a_c_facing_only_75_more_may_not_raise():
    """Rule 47, example 1-A: after example 1, A just calls 200. C, who called 125, faces
    only 75 more, not a full raise: C may call 75 or fold, not raise."""
    state = act(addendum_47_example_1(), "A", "call")
    legal = legal_actions(state)
    assert who(state) == "C" and legal.call == CallOption(to=200, adds=75)
    assert legal.raise_ is None and legal.raise_closed_reason == NOT_REOPENED
    assert rejected(state, "C", "raise", 300).code == "raise_not_reopened"


def test_addendum_47_example_1b_a_raise_by_a_reopens_the_betting_for_c():
    """Rule 47, example 1-B: after example 1, A raises the minimum, to 300. C faces 175
    more, more than a full raise: C may fold, call or re-raise."""
    state = act(addendum_47_example_1(), "A", "raise", 300)
    legal = legal_actions(state)
    assert who(state) == "C" and legal.call == CallOption(to=300, adds=175)
    assert legal.raise_.min_to == 400


def test_addendum_47_example_2_short_all_ins_never_raise_the_minimum():
    """TDA 2024 Addendum, rule 47, example 2: blinds 50-100; after the flop A opens for
    300, B is all-in for 500, C for 650, D for 800, and E calls 800. No all-in raised by a
    full 300, so F may call 800 or raise to at least 1,100."""
    state = flop_round({"A": BIG, "B": 100 + 500, "C": 100 + 650, "D": 100 + 800, "E": BIG, "F": BIG})
    state = act(state, "A", "bet", 300)
    for player, total in (("B", 500), ("C", 650), ("D", 800)):
        state = act(state, player, "raise", total)
    state = act(state, "E", "call")
    legal = legal_actions(state)
    assert who(state) == "F" and legal.call.to == 800 and legal.raise_.min_to == 1100


def addendum_47_example_3():
    """TDA 2024 Addendum, rule 47, example 3: blinds 2,000-4,000; before the flop A calls
    4,000, B folds, C is all-in for 7,500 (3,500 over the blind) and the small blind
    folds. The big blind has not yet acted."""
    hand = preflop(BettingStructure("no-limit", 2000, 4000),
                   {"SB": BIG, "BB": BIG, "A": BIG, "B": BIG, "C": 7500})
    hand = act(hand, "A", "call")
    hand = act(hand, "B", "fold")
    hand = act(hand, "C", "raise", 7500)
    return act(hand, "SB", "fold")


def test_addendum_47_example_3a_the_big_blind_may_raise_a_who_already_acted_may_not():
    """Rule 47, example 3-A: the big blind may fold, call 3,500 more or raise to at least
    11,500. The big blind calls; A, who acted, faces 3,500, not a full raise: fold or call."""
    hand = addendum_47_example_3()
    legal = legal_actions(hand)
    assert who(hand) == "BB" and legal.call == CallOption(to=7500, adds=3500)
    assert legal.raise_.min_to == 11500
    hand = act(hand, "BB", "call")
    legal = legal_actions(hand)
    assert who(hand) == "A" and legal.call == CallOption(to=7500, adds=3500)
    assert legal.raise_ is None and rejected(hand, "A", "raise", 11500).code == "raise_not_reopened"


def test_addendum_47_example_3b_a_full_raise_by_the_big_blind_reopens_for_a():
    """Rule 47, example 3-B: the big blind raises the minimum, to 11,500. A faces 7,500,
    more than a full raise: A may fold, call or re-raise (at least 4,000 more, to 15,500)."""
    hand = act(addendum_47_example_3(), "BB", "raise", 11500)
    legal = legal_actions(hand)
    assert who(hand) == "A" and legal.call == CallOption(to=11500, adds=7500)
    assert legal.raise_.min_to == 15500


# --------------------------------------------------------------------- pot-limit


PL = BettingStructure("pot-limit", small_blind=50, big_blind=100)


def test_pot_limit_first_to_act_may_raise_to_350_with_blinds_50_100():
    hand = open_hand(PL, ("SB", "BB", "A", "BTN"), (10_000,) * 4, button=3)
    assert legal_actions(hand).raise_ == AmountRange(200, 350)
    violation = rejected(hand, "A", "raise", 351)
    assert violation.code == "above_pot_limit"


def test_pot_limit_counts_the_pot_after_the_raiser_calls():
    hand = open_hand(PL, ("SB", "BB", "A", "BTN"), (10_000,) * 4, button=3)
    hand = act(hand, "A", "raise", 350)
    # pot 150 + 350 on the table, BTN calls 350 first: 100 + ... = 350 + 850
    assert legal_actions(hand).raise_.max_to == 350 + (150 + 350 + 350)


def test_pot_limit_bet_is_at_most_the_pot():
    state = flop_round({"A": BIG, "B": BIG}, PL)
    assert legal_actions(state).bet == AmountRange(100, 200)


def test_pot_limit_counts_a_dead_small_blind_as_full_pre_flop():
    dead = BettingStructure("pot-limit", small_blind=50, big_blind=100, dead_small_blind=True)
    hand = open_hand(dead, ("SB", "BB", "A", "BTN"), (10_000,) * 4, button=3)
    assert hand.stacks[0] == 10_000  # no small blind posted
    assert legal_actions(hand).raise_.max_to == 350  # sized as if the 50 were there


def test_pot_limit_counts_a_short_big_blind_as_full_pre_flop():
    hand = open_hand(PL, ("SB", "BB", "A", "BTN"), (10_000, 60, 10_000, 10_000), button=3)
    assert hand.stacks[1] == 0 and hand.bets[1] == 60
    legal = legal_actions(hand)
    assert legal.call.to == 100
    assert legal.raise_.max_to == 350


# ------------------------------------------------------------------- fixed-limit


FL = BettingStructure("fixed-limit", small_blind=50, big_blind=100, small_bet=100, big_bet=200)


def test_fixed_limit_bets_and_raises_are_exactly_one_unit():
    state = flop_round({"A": BIG, "B": BIG, "C": BIG}, FL)
    assert legal_actions(state).bet == AmountRange(100, 100)
    assert rejected(state, "A", "bet", 150).code == "wrong_fixed_amount"
    state = act(state, "A", "bet", 100)
    assert legal_actions(state).raise_ == AmountRange(200, 200)
    assert rejected(state, "B", "raise", 300).code == "wrong_fixed_amount"


def test_fixed_limit_late_rounds_use_the_big_bet():
    state = flop_round({"A": BIG, "B": BIG}, FL, late=True)
    assert legal_actions(state).bet == AmountRange(200, 200)


def test_fixed_limit_cap_is_one_bet_and_three_raises():
    state = flop_round({"A": BIG, "B": BIG, "C": BIG}, FL)
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 200)
    state = act(state, "C", "raise", 300)
    state = act(state, "A", "raise", 400)
    legal = legal_actions(state)
    assert legal.raise_ is None and legal.raise_closed_reason == "raise_cap_reached"
    assert rejected(state, "B", "raise", 500).code == "raise_cap_reached"


def test_fixed_limit_big_blind_counts_as_the_first_bet_of_the_cap():
    hand = open_hand(FL, ("SB", "BB", "BTN"), (BIG,) * 3, button=2)
    hand = act(hand, "BTN", "raise", 200)
    hand = act(hand, "SB", "raise", 300)
    hand = act(hand, "BB", "raise", 400)
    assert legal_actions(hand).raise_closed_reason == "raise_cap_reached"


def test_fixed_limit_heads_up_is_uncapped_when_the_setting_is_on():
    uncapped = BettingStructure("fixed-limit", 50, 100, small_bet=100, big_bet=200,
                                heads_up_uncapped=True)
    state = flop_round({"A": BIG, "B": BIG}, uncapped)
    for k, player in enumerate(["A", "B", "A", "B", "A", "B"]):
        state = act(state, player, "bet" if k == 0 else "raise", 100 * (k + 1))
    assert legal_actions(state).raise_ == AmountRange(700, 700)


def test_fixed_limit_round_capped_before_heads_up_stays_capped():
    uncapped = BettingStructure("fixed-limit", 50, 100, small_bet=100, big_bet=200,
                                heads_up_uncapped=True)
    state = flop_round({"A": BIG, "B": BIG, "C": BIG}, uncapped)
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 200)
    state = act(state, "C", "raise", 300)
    state = act(state, "A", "raise", 400)
    state = act(state, "B", "fold")  # now heads-up, but the cap was reached three-way
    assert legal_actions(state).raise_closed_reason == "raise_cap_reached"


def test_fixed_limit_all_in_of_half_a_unit_reopens_as_a_full_raise():
    # unit 100: A bets 100, B all-in to 160 (60, at least half): a raise, and the next
    # raise is one unit on top of the all-in amount: 260 (betting-rules.md, 2026-12-01).
    state = flop_round({"A": BIG, "B": 260, "C": BIG}, FL)
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 160)
    assert legal_actions(state).raise_ == AmountRange(260, 260)
    state = act(state, "C", "call")
    legal = legal_actions(state)
    assert who(state) == "A" and legal.raise_ == AmountRange(260, 260)
    assert state.raises == 2  # counts toward the cap
    assert rejected(state, "A", "raise", 300).code == "wrong_fixed_amount"


def test_robert_s_rules_a_15_all_in_bet_on_a_20_round_is_raised_to_35():
    """Robert's Rules of Poker, Betting and Raising, rule 6: an all-in of half a bet or more
    counts as a full bet, and the example of a full raise on a $20 round is raising a $15
    all-in bet to $35 (one unit on top of the all-in, not $40)."""
    limit_20 = BettingStructure("fixed-limit", 10, 20, small_bet=20, big_bet=40)
    state = flop_round({"A": 20 + 15, "B": BIG, "C": BIG}, limit_20)  # 20 called pre-flop
    state = act(state, "A", "bet", 15)
    assert legal_actions(state).raise_ == AmountRange(35, 35)
    assert rejected(state, "B", "raise", 40).code == "wrong_fixed_amount"


def test_robert_s_rules_a_20_bet_raised_all_in_to_30_is_raised_to_50():
    limit_20 = BettingStructure("fixed-limit", 10, 20, small_bet=20, big_bet=40)
    state = flop_round({"A": BIG, "B": 20 + 30, "C": BIG}, limit_20)
    state = act(state, "A", "bet", 20)
    state = act(state, "B", "raise", 30)
    assert legal_actions(state).raise_ == AmountRange(50, 50)
    assert rejected(state, "C", "raise", 60).code == "wrong_fixed_amount"


def test_fixed_limit_all_in_under_half_a_unit_does_not_reopen():
    state = flop_round({"A": BIG, "B": 240, "C": BIG}, FL)
    state = act(state, "A", "bet", 100)
    state = act(state, "B", "raise", 140)
    # C has not acted: may raise, to the last full level plus a unit.
    assert legal_actions(state).raise_ == AmountRange(200, 200)
    state = act(state, "C", "call")
    legal = legal_actions(state)
    assert who(state) == "A" and legal.raise_ is None
    assert legal.raise_closed_reason == NOT_REOPENED


# ------------------------------------------------------- blinds, antes, straddles


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_pre_flop():
    hand = open_hand(NL, ("BB", "BTN"), (1000, 1000), button=1)
    assert hand.bets == (100, 50)
    assert who(hand) == "BTN"
    hand = act(hand, "BTN", "call")
    hand = act(hand, "BB", "check")
    assert who(start_round(hand, late=False)) == "BB"  # last after the flop: BTN


def test_every_player_antes_and_a_short_stack_is_all_in_for_what_it_has():
    antes = BettingStructure("no-limit", 50, 100, ante=25)
    hand = open_hand(antes, ("SB", "BB", "A"), (1000, 1000, 10), button=2)
    assert hand.committed == (75, 125, 10)
    assert hand.bets == (50, 100, 0)  # antes are not part of the bet total
    assert hand.stacks[2] == 0 and who(hand) == "SB"


def test_big_blind_ante_is_paid_by_the_big_blind_for_the_table():
    bba = BettingStructure("no-limit", 50, 100, ante=100, big_blind_ante=True)
    hand = open_hand(bba, ("SB", "BB", "A", "BTN"), (10_000,) * 4, button=3)
    assert hand.stacks == (9950, 9800, 10_000, 10_000)
    assert hand.dead == 100 and hand.pot_total == 250


def test_big_blind_posts_the_blind_before_the_big_blind_ante_when_short():
    bba = BettingStructure("no-limit", 50, 100, ante=100, big_blind_ante=True)
    hand = open_hand(bba, ("SB", "BB", "A"), (10_000, 150, 10_000), button=2)
    assert hand.bets[1] == 100 and hand.dead == 50


def test_a_blind_larger_than_the_stack_puts_the_player_all_in():
    hand = open_hand(NL, ("SB", "BB", "A"), (30, 10_000, 10_000), button=2)
    assert hand.bets == (30, 100, 0) and hand.stacks[0] == 0


def test_a_straddle_acts_last_pre_flop_and_sets_the_raise_size():
    straddled = BettingStructure("no-limit", 50, 100, straddles=(200,))
    hand = open_hand(straddled, ("SB", "BB", "UTG", "BTN"), (10_000,) * 4, button=3)
    assert who(hand) == "BTN"
    assert legal_actions(hand).call.to == 200
    assert legal_actions(hand).raise_.min_to == 400


def test_dead_small_blind_posts_no_small_blind():
    dead = BettingStructure("no-limit", 50, 100, dead_small_blind=True)
    hand = open_hand(dead, ("SB", "BB", "A"), (1000,) * 3, button=2)
    assert hand.bets == (0, 100, 0) and who(hand) == "A"


# ---------------------------------------------------------------- description


def test_betting_description_parses_the_api_shape():
    structure = BettingStructure.from_dict({
        "structure": "fixed-limit", "small_blind": 50, "big_blind": 100, "ante": 0,
        "big_blind_ante": False, "small_bet": 100, "big_bet": 200, "raise_cap": 4,
        "heads_up_uncapped": True, "dead_small_blind": False})
    assert structure.kind == "fixed-limit" and structure.unit(late=True) == 200
    assert BettingStructure.from_dict({"big_blind": 100}).opening_minimum == 100


@pytest.mark.parametrize("description", [
    {"structure": "spread-limit", "big_blind": 100},
    {"small_blind": -50, "big_blind": 100},
    {"small_blind": 200, "big_blind": 100},
    {"big_blind": 100, "raise_cap": 0},
    {"structure": "fixed-limit", "small_bet": 200, "big_bet": 100},
    {"big_blind": 100, "straddles": [50]},
    {"big_blind": "lots"},
    {"big_blind": 100, "blinds": 3},
    {"structure": "no-limit"},
])
def test_nonsense_betting_descriptions_are_violations(description):
    with pytest.raises(Violation) as caught:
        BettingStructure.from_dict(description)
    assert caught.value.code == "invalid_betting"
