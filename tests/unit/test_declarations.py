"""Chips pushed and words said (declarations.md), from the TDA 2024 rules and Addendum.

Where the published example text was found (the Addendum's rule 43 examples 3, 4-A and
4-B; rule 45 examples 1-A, 1-B, 2 and 3), the test quotes it. Where it was not found on
this machine, the case is written from the rule's own text and the docstring says so.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.betting import BettingStructure, apply_action, check_action, open_hand, start_round
from domain.rules.citations import CITATIONS
from domain.rules.declarations import Situation, interpret, situation, situation_from_betting
from domain.rules.spoken import declaration, spoken_amount
from domain.rules.violations import Violation


def nl(**numbers) -> Situation:
    return situation({"structure": "no-limit", **numbers})


def ruled(found, interpretation: str, to: int, returned: int = 0, must_add: int = 0, rule: str | None = None):
    assert (found.interpretation, found.to, found.returned, found.must_add) == (
        interpretation, to, returned, must_add), found
    if rule is not None:
        assert found.rule == rule


def postflop(stacks, actions, big_blind=100):
    """A no-limit round after the flop: `actions` are (seat, action, to)."""
    # The first two seats post the blinds before the flop: give them those chips back.
    stacks = [stacks[0] + big_blind // 2, stacks[1] + big_blind, *stacks[2:]]
    state = start_round(open_hand(BettingStructure(small_blind=big_blind // 2, big_blind=big_blind),
                                  tuple(f"P{i}" for i in range(len(stacks))), tuple(stacks),
                                  len(stacks) - 1), late=True)
    for seat, action, to in actions:
        assert state.to_act == seat
        state = apply_action(state, seat, action, check_action(state, seat, action, to))
    return state


# ---------------------------------------------------------------- the spec's own example


def test_declarations_api_example_every_chip_needed_is_a_call():
    found = interpret(situation({"structure": "no-limit", "facing_to": 1100, "committed": 0,
                                 "last_full_raise": 600, "pot": 2300, "stack": 5000,
                                 "big_blind": 200, "raise_open": True, "prior_chips": 0}),
                      [1000, 500], None, "chips_first")
    assert found.as_dict() == {"interpretation": "call", "to": 1100, "returned": 400, "must_add": 0,
                               "rule": "TDA 2024 45-A",
                               "detail": "every chip was needed to call 1,100: removing the 500 leaves 1,000"}


# ---------------------------------------------------------------- TDA 2024 43: raise amounts


def test_addendum_43_example_1_minimum_reraise_is_the_last_raise_again():
    """Written from rule 43 (example text not found): NLHE 50-100, pre-flop A raises to 250
    (a raise of 150); B's smallest re-raise is 150 more, to 400: four 100 chips make it."""
    ruled(interpret(nl(facing_to=250, last_full_raise=150, big_blind=100, stack=5000), [100] * 4),
          "raise", 400, rule="TDA 2024 45-B, 43-A")


def test_addendum_43_example_2_short_all_in_does_not_change_the_minimum():
    """From the Addendum's text "...raises the total by 50. Which is larger? The 100 is
    still the largest bet or raise of the current round, so if B wants to re-raise he must
    raise at least 100 for a total of 250" (the opening of the example not found): an
    all-in to 150 over the 100 blind; B says "raise, two hundred" and is made the minimum."""
    found = interpret(nl(facing_to=150, last_full_raise=100, big_blind=100, stack=5000), [], "raise, two hundred")
    ruled(found, "raise", 250, must_add=250, rule="TDA 2024 43-B")


def test_addendum_43_example_3_two_500_chips_over_300_are_a_700_raise():
    """"NLHE, Blinds 100-200. On the turn A bets 300. B pushes out two 500 chips making the
    total 1000 (a 700 raise). ... C's minimum raise would be 700 for a total of 1700."""
    ruled(interpret(nl(facing_to=300, last_full_raise=300, big_blind=200, stack=9000), [500, 500]),
          "raise", 1000)
    c = nl(facing_to=1000, last_full_raise=700, big_blind=200, stack=9000)
    assert c.min_to == 1700
    ruled(interpret(c, [1000, 500], "raise", "said_first"), "raise", 1700, must_add=200)


def test_addendum_43_example_4a_the_largest_raise_of_the_round_sets_the_minimum():
    """"NLHE, Blinds 25-50. A raises 75 to 125 total. ... B now raises the minimum (75) to 200
    total. C then re-raises 300 for total of 500. ... D would have to raise at least 300 to a
    total of 800." D's "raise, six hundred" is made the minimum."""
    ruled(interpret(nl(facing_to=125, last_full_raise=75, big_blind=50, stack=9000), [], "raise to 200"),
          "raise", 200, must_add=200)
    ruled(interpret(nl(facing_to=500, last_full_raise=300, big_blind=50, stack=9000), [], "raise, six hundred"),
          "raise", 800, must_add=800)


def test_addendum_43_example_4b_one_raise_of_450_sets_the_minimum():
    """"It's the same 500 to D, but there's just been one raise of 450 by A to a total of 500
    and B and C have both called. ... if D wants to re-raise he must raise at least 450 for a
    total of 950." """
    d = nl(facing_to=500, last_full_raise=450, big_blind=50, stack=9000)
    assert d.min_to == 950
    ruled(interpret(d, [], "raise by 450"), "raise", 950, must_add=950, rule="TDA 2024 43-B")


def test_43a_fifty_percent_standard_makes_a_full_raise_or_a_call():
    """Rule 43-A's own text: a raise of 50% or more of the last bet or raise but less than
    a full raise must be made a full raise; below 50% it is a call. Facing a 1,000 bet:
    1,600 (600 over) is made 2,000; 1,400 (400 over) is a call and 400 returns."""
    facing = nl(facing_to=1000, last_full_raise=1000, big_blind=100, stack=9000)
    ruled(interpret(facing, [1000, 500, 100]), "raise", 2000, must_add=400)
    ruled(interpret(facing, [1000, 100, 100, 100, 100]), "call", 1000, returned=400)


def test_43b_raise_eight_thousand_states_the_total():
    """declarations.md: "Raise, eight thousand" over a bet of 2,000 means a total of 8,000;
    "raise by" adds; an amount below the minimum is made the minimum."""
    facing = nl(facing_to=2000, last_full_raise=2000, big_blind=200, stack=20000)
    ruled(interpret(facing, [], "raise, eight thousand"), "raise", 8000, must_add=8000, rule="TDA 2024 43-B")
    ruled(interpret(facing, [], "raise by eight thousand"), "raise", 10000, must_add=10000)
    ruled(interpret(facing, [], "raise 3,000"), "raise", 4000, must_add=4000)


# ---------------------------------------------------------------- TDA 2024 44: one oversized chip


def test_44_one_oversized_chip_facing_a_bet_is_a_call():
    ruled(interpret(nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000), [5000]),
          "call", 400, returned=4600, rule="TDA 2024 44")


def test_44_raise_said_first_with_one_chip_is_the_largest_raise_the_chip_allows():
    ruled(interpret(nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000), [5000], "raise",
                    "said_first"), "raise", 5000, rule="TDA 2024 40-A, 44")


def test_44_one_chip_with_nothing_to_call_is_a_bet_of_the_chip():
    ruled(interpret(nl(big_blind=200, stack=9000), [1000]), "bet", 1000, rule="TDA 2024 44")


def test_44_one_chip_in_pot_limit_bets_at_most_the_pot():
    found = interpret(situation({"structure": "pot-limit", "big_blind": 200, "stack": 9000, "pot": 700}), [5000])
    ruled(found, "bet", 700, returned=4300, rule="TDA 2024 44")


# ---------------------------------------------------------------- TDA 2024 45: several chips


def test_addendum_45_example_1a_two_1000_chips_over_1200_are_a_call():
    """"On the flop A bets 1,200 and B silently pushes two 1,000 chips: removing either
    leaves less than 1,200, so it is a call." """
    ruled(interpret(nl(facing_to=1200, last_full_raise=1200, big_blind=200, stack=9000), [1000, 1000]),
          "call", 1200, returned=800, rule="TDA 2024 45-A")


def test_addendum_45_example_1b_a_500_and_a_1000_over_1100_are_a_call():
    """"NLHE 250-500. Pre-flop UTG raises 600 to 1,100 total. The next player silently
    pushes a 500 and a 1,000: removing either leaves less than 1,100: a call." """
    ruled(interpret(nl(facing_to=1100, last_full_raise=600, big_blind=500, stack=9000), [500, 1000]),
          "call", 1100, returned=400, rule="TDA 2024 45-A")


def test_addendum_45_example_2_a_1000_and_five_100s_must_raise_to_1700():
    """"As 1-B, UTG+1 silently pushes a 1,000 and five 100s. ... 50% of 600 is 300; 1,500 is
    at least 1,100 + 300 = 1,400, so it is a full raise to 1,700. UTG+1 must raise." """
    ruled(interpret(nl(facing_to=1100, last_full_raise=600, big_blind=500, stack=9000), [1000] + [100] * 5),
          "raise", 1700, must_add=200, rule="TDA 2024 45-B, 43-A")


def test_addendum_45_example_3_a_1000_and_three_100s_are_a_call():
    """"As example 2, UTG+1 silently pushes one 1,000 and three 100s": 1,300 is below
    1,400 (the rest of the example text not found; the call follows 45-B-1 and 43-A)."""
    ruled(interpret(nl(facing_to=1100, last_full_raise=600, big_blind=500, stack=9000), [1000] + [100] * 3),
          "call", 1100, returned=200, rule="TDA 2024 45-B, 43-A")


def test_addendum_45_example_4a_last_chips_reaching_fifty_percent_are_an_all_in():
    """Written from 45-B-2 (example text not found): as example 2, but the 1,000 and five
    100s are UTG+1's last chips: an all-in for 1,500, nothing added."""
    ruled(interpret(nl(facing_to=1100, last_full_raise=600, big_blind=500, stack=1500), [1000] + [100] * 5),
          "all_in", 1500, rule="TDA 2024 45-B-2")


def test_addendum_45_example_4b_last_chips_below_fifty_percent_are_still_an_all_in():
    """Written from 45-B-2 (example text not found): as example 3, but the 1,000 and three
    100s are the last chips: an all-in for 1,300 although 200 is below half of 600."""
    found = interpret(nl(facing_to=1100, last_full_raise=600, big_blind=500, stack=1300), [1000] + [100] * 3)
    ruled(found, "all_in", 1300, rule="TDA 2024 45-B-2")
    assert "below half" in found.detail


def test_45_rule_example_two_1000_chips_over_a_raise_to_1200_are_a_call():
    """The rule's own example: pre-flop 200-400, A raises to 1,200 total (an 800 raise), B
    puts out two 1,000 chips without declaring raise: just a call."""
    ruled(interpret(nl(facing_to=1200, last_full_raise=800, big_blind=400, stack=9000), [1000, 1000]),
          "call", 1200, returned=800)


# ---------------------------------------------------------------- TDA 2024 46: chips already out


def test_46_situation_1_prior_bet_plus_one_chip_is_a_call():
    """Written from rule 46 (Addendum situations not found): A bet 300, B raised to 1,000;
    A, with the 300 still in front, adds one 1,000 chip: a call (44), 300 returns."""
    ruled(interpret(nl(facing_to=1000, committed=300, prior_chips=300, last_full_raise=700,
                       big_blind=100, stack=9000), [1000]),
          "call", 1000, returned=300, rule="TDA 2024 46")


def test_46_situation_2_prior_bet_plus_chips_all_needed_is_a_call():
    """Written from rule 46: A's 300 is out; facing 1,000 A adds a 500 and a 500: with the
    300 that makes 1,300, and removing a 500 leaves 800, less than 1,000: a call."""
    ruled(interpret(nl(facing_to=1000, committed=300, prior_chips=300, last_full_raise=700,
                       big_blind=100, stack=9000), [500, 500]),
          "call", 1000, returned=300, rule="TDA 2024 46")


def test_46_situation_3_prior_bet_counts_toward_a_raise():
    """Written from rule 46: A's 300 is out; facing 1,000 A adds a 1,000 and five 100s: with
    the 300 that makes 1,800, 800 over the call, more than half of 700: a raise to 1,800."""
    ruled(interpret(nl(facing_to=1000, committed=300, prior_chips=300, last_full_raise=700,
                       big_blind=100, stack=9000), [1000] + [100] * 5),
          "raise", 1800, rule="TDA 2024 46")


def test_46_situation_4_change_due_in_front_counts():
    """Written from rule 46 ("those chips and any change due"): A bet 300 with a 500 chip,
    change not yet given; facing 1,000 A adds a 500: the 1,000 in front calls exactly."""
    ruled(interpret(nl(facing_to=1000, committed=300, prior_chips=500, last_full_raise=700,
                       big_blind=100, stack=9000), [500]),
          "call", 1000, rule="TDA 2024 46")


def test_46_situation_5_prior_bet_with_too_little_added_is_below_fifty_percent():
    """Written from rule 46: A's 300 is out; facing 1,000 A adds a 1,000 and a 100: 1,400 is
    400 over the call, more than half of 700: a raise made the full 1,700 (A adds 300)."""
    ruled(interpret(nl(facing_to=1000, committed=300, prior_chips=300, last_full_raise=700,
                       big_blind=100, stack=9000), [1000, 100]),
          "raise", 1700, must_add=300, rule="TDA 2024 46")


def test_46c2_chips_out_that_cover_the_call_make_the_combined_push_a_raise_at_fifty_percent():
    """TDA 2024 46-C-2: "if prior chip(s) cover the call, the combined final chip bet is a
    raise if reaching the 50% standard". A bet 300 with a 1,000 chip (700 change due), B
    raised to 800 (a 500 raise); A silently adds one 100 chip: 1,100 is 300 over the call,
    at least half of 500, so a raise, made the full 1,300 (not a single-chip call)."""
    covered = nl(facing_to=800, committed=300, prior_chips=1000, last_full_raise=500, big_blind=100, stack=9000)
    ruled(interpret(covered, [100]), "raise", 1300, must_add=200, rule="TDA 2024 46")
    ruled(interpret(covered, [1000]), "raise", 2000, rule="TDA 2024 46")


def test_46c2_chips_out_that_cover_the_call_with_too_little_added_are_a_call():
    """TDA 2024 46-C-2, "if less it is a call": A's 1,000 chip is out for a 300 bet, B
    raised to 900 (a 600 raise); A adds one 100 chip: 1,100 is 200 over the call, less
    than half of 600: a call of 900, 200 returns."""
    covered = nl(facing_to=900, committed=300, prior_chips=1000, last_full_raise=600, big_blind=100, stack=9000)
    ruled(interpret(covered, [100]), "call", 900, returned=200, rule="TDA 2024 46")


# ---------------------------------------------------------------- TDA 2024 47: re-opening


def test_addendum_47_example_1_short_all_ins_adding_to_a_full_raise_reopen():
    """The Addendum's rule 47 example 1 (older edition's text): "NLHE, Blinds 50-100.
    Postflop, A opens betting for the 100 minimum. B goes all in for a total of 125. C
    calls the 125, D goes all in for 200 total and E calls 200. Action returns to A who is
    facing a total raise of 100. Since 100 is a full raise, the betting is re-opened for A"
    - so A's silent push of three 100s (with the 100 out) is a raise to 400."""
    state = postflop([5000, 125, 5000, 200, 5000, 5000],
                     [(0, "bet", 100), (1, "raise", 125), (2, "call", None), (3, "raise", 200),
                      (4, "call", None), (5, "fold", None)])
    a = situation_from_betting(state, 0)
    assert a.raise_open and (a.facing_to, a.committed) == (200, 100)
    # TDA 2024 47-A: "If multiple short all-ins re-open the betting, the minimum raise is
    # always the last full valid bet or raise of the round": A's 100, so at least 300.
    assert a.min_to == 300
    ruled(interpret(a, [100, 100, 100]), "raise", 400)


def test_addendum_47_example_2_a_short_all_in_does_not_reopen():
    """Written from 47-A (example text not found): A opens 100, B is all-in for 125, C
    calls; back to A, 25 is not a full raise, so A may only call: a silent 100 and 100 (300 with
    the 100 out) is a call of 125, and 175 returns."""
    state = postflop([5000, 125, 5000], [(0, "bet", 100), (1, "raise", 125), (2, "call", None)])
    a = situation_from_betting(state, 0)
    assert not a.raise_open
    ruled(interpret(a, [100, 100]), "call", 125, returned=175, rule="TDA 2024 47-A")


def test_addendum_47_example_3a_raise_said_is_only_a_call_when_not_reopened():
    """Written from 47-A: as example 2, A says "raise" first and pushes 500: raising is
    closed to A, so a call of 125."""
    state = postflop([5000, 125, 5000], [(0, "bet", 100), (1, "raise", 125), (2, "call", None)])
    ruled(interpret(situation_from_betting(state, 0), [500], "raise", "said_first"),
          "call", 125, returned=475, rule="TDA 2024 47-A")


def test_addendum_47_example_3b_a_player_yet_to_act_may_raise():
    """Written from 47-A: A opens 100, B is all-in for 125; C has not acted and may raise:
    the minimum is 125 + 100 = 225, and C's 100 and 100 and 100 (300) is a raise."""
    state = postflop([5000, 125, 5000], [(0, "bet", 100), (1, "raise", 125)])
    c = situation_from_betting(state, 2)
    assert c.raise_open and c.min_to == 225
    ruled(interpret(c, [100, 100, 100]), "raise", 300)


# ---------------------------------------------------------------- TDA 2024 40: words and chips


def test_40a_what_came_first_defines_the_bet():
    facing = nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000)
    ruled(interpret(facing, [1000, 1000], "call", "said_first"), "call", 400, returned=1600,
          rule="TDA 2024 40-A")
    ruled(interpret(facing, [1000, 1000], "call", "chips_first"), "raise", 2000)


def test_40a_simultaneous_a_clear_word_wins_an_unclear_one_lets_the_chips_play():
    facing = nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000)
    ruled(interpret(facing, [1000, 1000], "call", "simultaneous"), "call", 400, returned=1600)
    found = interpret(facing, [1000, 1000], "let's gamble", "simultaneous")
    ruled(found, "raise", 2000)
    assert "not a clear declaration" in found.detail


def test_addendum_40a_which_came_first_unknown_is_a_floor_decision():
    """Addendum 40-A: when it is unclear whether the words or the chips came first, the
    floor decides (Rule 1): nothing is ruled, nothing moves."""
    found = interpret(nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000), [1000, 1000], "raise")
    ruled(found, "floor_decision", 2000, rule="TDA 2024 1, 40-A")


def test_40c_a_bare_amount_is_the_same_as_pushing_it():
    facing = nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=9000)
    ruled(interpret(facing, [], "fourteen hundred"), "call", 1000, must_add=1000, rule="TDA 2024 40-C")
    ruled(interpret(facing, [], "sixteen hundred"), "raise", 2000, must_add=2000, rule="TDA 2024 40-C")


# ---------------------------------------------------------------- TDA 2024 57, 54-D, 61, 51-B


def test_57_bet_five_at_200_400_is_500_below_a_5000_pot_and_5000_from_it():
    """declarations.md, rule 57's example: "I bet five" at 200-400 is 500 with less than
    5,000 in the pot, 5,000 with 5,000 or more (bets in front included)."""
    ruled(interpret(nl(big_blind=400, stack=20000, pot=4900), [], "I bet five"), "bet", 500,
          must_add=500, rule="TDA 2024 57")
    ruled(interpret(nl(big_blind=400, stack=20000, pot=5000), [], "five"), "bet", 5000, must_add=5000)


def test_54d_pot_in_each_structure():
    pl = situation({"structure": "pot-limit", "facing_to": 200, "last_full_raise": 200, "big_blind": 200,
                    "pot": 700, "stack": 9000})
    found = interpret(pl, [], "pot")
    ruled(found, "raise", 1100, must_add=1100, rule="TDA 2024 3, 54")
    assert "pot 700 + call 200 = 900: raise to at most 1,100" in found.detail
    ruled(interpret(nl(facing_to=200, last_full_raise=200, big_blind=200, pot=700, stack=9000), [], "pot"),
          "raise", 400, must_add=400, rule="TDA 2024 54-D")
    fl = situation({"structure": "fixed-limit", "facing_to": 200, "last_full_raise": 200, "big_blind": 200,
                    "unit": 200, "stack": 9000})
    ruled(interpret(fl, [], "pot"), "raise", 400, must_add=400)


def test_61_over_betting_expecting_change_follows_the_chip_rules():
    """Written from rule 61 (example text not found): facing 700, B pushes a 1,000 and a 500
    asking for change: removing the 500 leaves 1,000, 800 over the call is more than half
    of 700, so a raise to 1,500, not a call with change."""
    found = interpret(nl(facing_to=700, last_full_raise=700, big_blind=200, stack=9000), [1000, 500],
                      "change please", "chips_first")
    ruled(found, "raise", 1500)
    found = interpret(nl(facing_to=700, last_full_raise=700, big_blind=200, stack=9000), [1000, 500],
                      "change please", "simultaneous")
    ruled(found, "raise", 1500, rule="TDA 2024 61")


def test_51b_undercall_heads_up_or_facing_the_opening_bet_is_a_full_call():
    heads_up = nl(facing_to=1000, last_full_raise=600, big_blind=200, stack=9000, opponents=1)
    ruled(interpret(heads_up, [500]), "call", 1000, must_add=500, rule="TDA 2024 51-B")
    opening = nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=9000, opponents=3)
    ruled(interpret(opening, [500]), "call", 1000, must_add=500)
    multiway_raise = nl(facing_to=1000, last_full_raise=600, big_blind=200, stack=9000, opponents=3)
    ruled(interpret(multiway_raise, [500]), "floor_decision", 500, rule="TDA 2024 1, 51-B")
    last_chips = nl(facing_to=1000, last_full_raise=600, big_blind=200, stack=500, opponents=3)
    ruled(interpret(last_chips, [500]), "all_in", 500)


def test_spoken_amounts():
    assert spoken_amount("eight thousand") == 8000
    assert spoken_amount("fourteen hundred") == 1400
    assert spoken_amount("two thousand five hundred") == 2500
    assert spoken_amount("8,000") == 8000
    assert spoken_amount("2.5k") == 2500
    assert spoken_amount("lots") is None
    assert spoken_amount("12345678901234567890") == 12345678901234567890
    assert declaration("Raise by 500.").by and declaration("raise to 500").amount == 500
    assert declaration("raise 2.5k!").amount == 2500
    assert declaration("I bet the pot").action == "pot" and declaration("let's gamble") is None


def test_impossible_situations_are_refused():
    with pytest.raises(Violation) as refused:
        interpret(nl(big_blind=200, stack=500), [1000])
    assert refused.value.code == "invalid_situation"
    with pytest.raises(Violation):
        situation({"structure": "pot-limit", "big_blind": 200, "stack": 500})
    with pytest.raises(Violation):
        situation({"facing_to": 100, "committed": 200, "big_blind": 200, "stack": 500})


# ---------------------------------------------------------------- properties


DENOMINATIONS = st.sampled_from([25, 100, 500, 1000, 5000])


@st.composite
def pushes(draw):
    big_blind = draw(st.sampled_from([100, 200, 400]))
    facing_to = draw(st.sampled_from([0, big_blind]) | st.integers(big_blind, 20000))
    committed = draw(st.integers(0, facing_to))
    chips = draw(st.lists(DENOMINATIONS, min_size=1, max_size=8))
    stack = sum(chips) + draw(st.integers(0, 20000))
    structure = draw(st.sampled_from(["no-limit", "pot-limit", "fixed-limit"]))
    found = situation({"structure": structure, "facing_to": facing_to, "committed": committed,
                       "last_full_raise": draw(st.integers(0, max(facing_to, 1))), "big_blind": big_blind,
                       "pot": facing_to + committed + draw(st.integers(0, 50000)), "stack": stack,
                       "raise_open": draw(st.booleans()),
                       "prior_chips": draw(st.sampled_from([0, committed, committed + 100])),
                       "opponents": draw(st.none() | st.integers(1, 8)),
                       "rules": draw(st.sampled_from(["tda", "robert"]))})
    words = draw(st.none() | st.sampled_from(["raise", "call", "pot", "all in", "five", "raise, eight thousand",
                                              "fourteen hundred", "change", "hmm"]))
    order = draw(st.sampled_from(ORDERS_OR_NONE))
    return found, chips, words, order


ORDERS_OR_NONE = [None, "said_first", "chips_first", "simultaneous"]


@given(pushes())
def test_every_interpretation_conserves_chips(case):
    found, chips, words, order = case
    answer = interpret(found, chips, words, order)
    reach = found.in_front + sum(chips)
    assert answer.to == reach - answer.returned + answer.must_add
    assert answer.returned >= 0 and answer.must_add >= 0
    assert answer.to <= found.all_in_to
    assert answer.must_add <= found.stack - sum(chips) or answer.interpretation == "floor_decision"
    assert answer.rule in CITATIONS.values()


@given(pushes())
def test_a_silent_push_is_never_read_as_more_than_the_chips_allow(case):
    """Beyond the chips pushed, a silent push is only ever made up to the call (an
    undercall) or to exactly the minimum bet or raise (TDA 43-A), never more."""
    found, chips, _, _ = case
    answer = interpret(found, chips)
    reach = found.in_front + sum(chips)
    if answer.to > reach:
        assert answer.to in (found.facing_to, found.min_to)
    assert answer.to <= max(reach, found.min_to, found.facing_to)


def test_the_recorded_ruling_replays_from_its_store_record():
    from domain.rules.declarations import ChipsRuled
    from domain.records import from_record, to_record
    from domain.live.table import TABLE_EVENT_TYPES

    ruling = interpret(nl(facing_to=400, last_full_raise=400, big_blind=200, stack=9000), [5000])
    event = ChipsRuled("t.1", 2, "ann", (5000,), None, None, ruling)
    type_name, data = to_record(event)
    assert data["ruling"]["rule"] == "TDA 2024 44"
    assert from_record(TABLE_EVENT_TYPES, type_name, data) == event


def test_all_in_said_is_at_most_what_the_structure_allows():
    pl = situation({"structure": "pot-limit", "facing_to": 200, "last_full_raise": 200, "big_blind": 200,
                    "pot": 700, "stack": 9000})
    ruled(interpret(pl, [], "all in"), "raise", 1100, must_add=1100)
    short = nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=600)
    ruled(interpret(short, [], "all in"), "all_in", 600, must_add=600)
    ruled(interpret(nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=5000), [], "all-in"),
          "all_in", 5000, must_add=5000)


def test_cash_game_setting_a_spoken_amount_wins_over_the_chips():
    """declarations.md: "Cash-game setting (Robert's Rules): a spoken amount wins over the
    chips" - whichever came first; under the TDA the chips pushed first would play."""
    numbers = {"facing_to": 1000, "last_full_raise": 1000, "big_blind": 200, "stack": 9000}
    cash = situation({**numbers, "rules": "robert"})
    ruled(interpret(cash, [1000, 1000, 1000], "raise, two thousand", "chips_first"), "raise", 2000,
          returned=1000, rule="RRP verbal declarations")
    ruled(interpret(nl(**numbers), [1000, 1000, 1000], "raise, two thousand", "chips_first"), "raise", 3000)
