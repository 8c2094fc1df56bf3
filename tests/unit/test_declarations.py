"""Chips pushed and words said (declarations.md), from the TDA 2024 rules and Addendum.

Every example named after a rule comes from Poker TDA 2024 Rules Version 1.0 (Oct 9,
2024), longform with the Illustration Addendum (https://www.pokertda.com/view-poker-tda-rules/):
the examples inside rules 43-A, 43-B, 45-A, 57 and 61, and the Addendum's examples for
rules 40-A, 43, 45 and 46. Facts are paraphrased in each docstring; where the example
leaves a number out (the blinds, a stack), the docstring says which was chosen and that
it does not change the answer. The Addendum's rule 43 and 47 examples that are about
raise sizes alone, not chips, are in test_betting_rules.py.
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


def played(state, actions):
    """`actions` are (seat, action, to), each in turn."""
    for seat, action, to in actions:
        assert state.to_act == seat
        state = apply_action(state, seat, action, check_action(state, seat, action, to))
    return state


def preflop(stacks, small_blind, big_blind, actions):
    """A no-limit hand before the flop: seats 0 and 1 post the blinds, the last seat has
    the button."""
    structure = BettingStructure(small_blind=small_blind, big_blind=big_blind)
    return played(open_hand(structure, tuple(f"P{i}" for i in range(len(stacks))), tuple(stacks),
                            len(stacks) - 1), actions)


def postflop(stacks, actions, big_blind=100):
    """A no-limit betting round after the flop (a late round: the turn)."""
    # The first two seats post the blinds before the flop: give them those chips back.
    stacks = [stacks[0] + big_blind // 2, stacks[1] + big_blind, *stacks[2:]]
    return played(start_round(preflop(stacks, big_blind // 2, big_blind, []), late=True), actions)


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


def test_43a_example_fourteen_hundred_said_or_pushed_over_1000_is_a_call():
    """TDA 2024 rule 43-A's example: no-limit, the opening bet is 1,000; saying "fourteen
    hundred" or silently pushing 1,400 are both calls (400 over is less than half the 1,000
    bet), unless "raise" is said first, which makes it the minimum raise, to 2,000. Blinds
    not given: 200 here (any big blind up to 1,000 rules the same)."""
    facing = nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=9000)
    ruled(interpret(facing, [], "fourteen hundred"), "call", 1000, must_add=1000, rule="TDA 2024 40-C")
    ruled(interpret(facing, [1000, 100, 100, 100, 100]), "call", 1000, returned=400, rule="TDA 2024 45-B, 43-A")
    ruled(interpret(facing, [1000, 100, 100, 100, 100], "raise", "said_first"), "raise", 2000, must_add=600,
          rule="TDA 2024 40-A, 43-A, 45-A")


def test_43b_example_raise_eight_thousand_over_2000_is_a_total_of_8000():
    """TDA 2024 rule 43-B's example: A opens for 2,000, B says "raise, eight thousand": the
    total bet is 8,000, not 10,000. Blinds not given: 200 here."""
    facing = nl(facing_to=2000, last_full_raise=2000, big_blind=200, stack=20000)
    ruled(interpret(facing, [], "raise, eight thousand"), "raise", 8000, must_add=8000, rule="TDA 2024 43-B")


def test_43b_raise_by_adds_and_an_amount_below_the_minimum_is_made_the_minimum():
    """declarations.md's reading of 43-B (not a published example): "raise by" adds to the
    bet faced; a stated total below the minimum raise is made the minimum."""
    facing = nl(facing_to=2000, last_full_raise=2000, big_blind=200, stack=20000)
    ruled(interpret(facing, [], "raise by eight thousand"), "raise", 10000, must_add=10000)
    ruled(interpret(facing, [], "raise 3,000"), "raise", 4000, must_add=4000)


def test_addendum_43_example_3_two_500_chips_over_a_300_bet_are_a_raise_to_1000():
    """TDA 2024 Addendum, rule 43, example 3: blinds 100-200; on the turn A bets 300 and B
    pushes two 500 chips: a raise to 1,000 (700 more). C then calls 1,000 or raises at
    least B's 700, to 1,700 (not B's total of 1,000)."""
    state = postflop([9000, 9000, 9000], [(0, "bet", 300)], big_blind=200)
    ruled(interpret(situation_from_betting(state, 1), [500, 500]), "raise", 1000, rule="TDA 2024 45-B, 43-A")
    state = apply_action(state, 1, "raise", check_action(state, 1, "raise", 1000))
    c = situation_from_betting(state, 2)
    assert (c.facing_to, c.min_to) == (1000, 1700)


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


def test_45a_example_1_a_500_and_a_1000_over_a_raise_to_1100_are_a_call():
    """TDA 2024 rule 45-A, Ex-1: A opens for 400, B raises to 1,100 (700 more), C silently
    puts out a 500 and a 1,000: removing the 500 leaves less than 1,100, so a call. Blinds
    not given: 200 here."""
    ruled(interpret(nl(facing_to=1100, last_full_raise=700, big_blind=200, stack=9000), [500, 1000]),
          "call", 1100, returned=400, rule="TDA 2024 45-A")


def test_45a_example_2_last_chips_all_needed_to_call_are_a_call():
    """TDA 2024 rule 45-A, Ex-2: blinds 25-50; after the flop A opens for 1,050 and B puts
    out his last chips, two 1,000s: a call (removing one leaves 1,000), unless "raise" or
    "all-in" was said first, which makes it an all-in for 2,000."""
    b = nl(facing_to=1050, last_full_raise=1050, big_blind=50, stack=2000)
    ruled(interpret(b, [1000, 1000]), "call", 1050, returned=950, rule="TDA 2024 45-A")
    ruled(interpret(b, [1000, 1000], "all in", "said_first"), "all_in", 2000)
    ruled(interpret(b, [1000, 1000], "raise", "said_first"), "all_in", 2000, rule="TDA 2024 40-A, 43-A, 45-A")


def utg_raised_to_1100() -> Situation:
    """TDA 2024 Addendum, rule 45, example 1-B's hand: blinds 250-500, before the flop UTG
    raises 600 to 1,100; UTG+1 is to act."""
    return situation_from_betting(preflop([9000] * 4, 250, 500, [(2, "raise", 1100)]), 3)


def test_addendum_45_example_1a_two_1000_chips_over_1200_are_a_call():
    """TDA 2024 Addendum, rule 45, example 1-A: A opens for 1,200 after the flop and B
    silently puts out two 1,000s: neither can go and leave 1,200, so a call. Blinds not
    given: 200 here."""
    ruled(interpret(nl(facing_to=1200, last_full_raise=1200, big_blind=200, stack=9000), [1000, 1000]),
          "call", 1200, returned=800, rule="TDA 2024 45-A")


def test_addendum_45_example_1b_a_500_and_a_1000_over_1100_are_a_call():
    """Rule 45, example 1-B: UTG+1 silently puts out a 500 and a 1,000: without either
    there is less than 1,100, so a call."""
    ruled(interpret(utg_raised_to_1100(), [500, 1000]), "call", 1100, returned=400, rule="TDA 2024 45-A")


def test_addendum_45_example_2_a_1000_and_five_100s_must_raise_to_1700():
    """Rule 45, example 2: as 1-B, UTG+1 silently puts out a 1,000 and five 100s. Four 100s
    could go and still leave 1,100, so the 50% standard decides: half of the 600 raise is
    300, and 1,500 reaches 1,400, so UTG+1 must make the full raise, to 1,700."""
    ruled(interpret(utg_raised_to_1100(), [1000] + [100] * 5), "raise", 1700, must_add=200,
          rule="TDA 2024 45-B, 43-A")


def test_addendum_45_example_3_a_1000_and_three_100s_are_a_call_200_back():
    """Rule 45, example 3: as 2, with a 1,000 and three 100s: two 100s could go, but 1,300
    is short of 1,400, so a call and 200 goes back."""
    ruled(interpret(utg_raised_to_1100(), [1000] + [100] * 3), "call", 1100, returned=200,
          rule="TDA 2024 45-B, 43-A")


def test_addendum_45_example_4a_a_1000_and_three_500s_over_1400_are_a_raise_to_2800():
    """Rule 45, example 4-A: A opens for 1,400; B, with chips behind, silently pushes a
    1,000 and three 500s (2,500): past the 50% threshold of 2,100, so a mandatory minimum
    raise to 2,800. Were they B's last chips, an all-in for 2,500 (example 4 and its note).
    Blinds not given: 200 here."""
    ruled(interpret(nl(facing_to=1400, last_full_raise=1400, big_blind=200, stack=9000), [1000, 500, 500, 500]),
          "raise", 2800, must_add=300, rule="TDA 2024 45-B, 43-A")
    ruled(interpret(nl(facing_to=1400, last_full_raise=1400, big_blind=200, stack=2500), [1000, 500, 500, 500]),
          "all_in", 2500, rule="TDA 2024 45-B-2")


def test_addendum_45_example_4b_a_1000_and_two_500s_over_1400_are_a_call():
    """Rule 45, example 4-B: the same 1,400 opener; B, with chips behind, puts out a 1,000
    and two 500s (2,000): short of 2,100, so a call and 600 goes back. Were they B's last
    chips, an all-in for 2,000 although short of 50% (the example's note)."""
    ruled(interpret(nl(facing_to=1400, last_full_raise=1400, big_blind=200, stack=9000), [1000, 500, 500]),
          "call", 1400, returned=600, rule="TDA 2024 45-B, 43-A")
    found = interpret(nl(facing_to=1400, last_full_raise=1400, big_blind=200, stack=2000), [1000, 500, 500])
    ruled(found, "all_in", 2000, rule="TDA 2024 45-B-2")
    assert "below half the last full raise of 1,400" in found.detail


# ---------------------------------------------------------------- TDA 2024 46: chips already out


def big_blind_facing_600(**out) -> Situation:
    """TDA 2024 Addendum, rule 46, situations 1 to 3: blinds 25-50, the big blind posted
    two 25s and the button raised to 600 (550 more to the big blind). `out` says what is
    left in front of the big blind; with nothing (the 25s pulled back), what is pushed now
    is the whole bet."""
    return nl(facing_to=600, last_full_raise=550, big_blind=50, stack=9000, **out)


def test_addendum_46_situation_1_prior_chips_left_alone_new_chips_decide():
    """Rule 46, situation 1: the two 25s are left where they are. 1) a 1,000 chip dropped
    on them is a call; 2) a) two 500s or b) a 100 and a 500 are calls, every new chip being
    needed; 3) a 1,000 and a 500 (1,550 with the 25s) keep the call without the 500, so the
    50% standard makes it a raise of 1,550."""
    left_alone = big_blind_facing_600(committed=50, prior_chips=50)
    ruled(interpret(left_alone, [1000]), "call", 600, returned=450, rule="TDA 2024 46")
    ruled(interpret(left_alone, [500, 500]), "call", 600, returned=450, rule="TDA 2024 46")
    ruled(interpret(left_alone, [100, 500]), "call", 600, returned=50, rule="TDA 2024 46")
    ruled(interpret(left_alone, [1000, 500]), "raise", 1550, rule="TDA 2024 46")


def test_addendum_46_situation_2_prior_chips_pulled_back_the_new_chips_are_the_bet():
    """Rule 46, situation 2: the big blind pulls both 25s back (nothing is left in front).
    1) a 1,000 chip is a call; 2) several new chips are a rule 45 push: a 1,000 and a 500
    keep the call without the 500, so a raise to 1,500."""
    pulled_back = big_blind_facing_600()
    ruled(interpret(pulled_back, [1000]), "call", 600, returned=400, rule="TDA 2024 44")
    ruled(interpret(pulled_back, [1000, 500]), "raise", 1500, rule="TDA 2024 45-B, 43-A")


def test_addendum_46_situation_3_part_pulled_back_the_chips_out_are_one_push():
    """Rule 46, situation 3: one 25 pulled back, the other left out, a 1,000 added: the
    chips out (25 and 1,000) are a rule 45 push, a raise when reaching 50%: 425 over the
    call is at least half of 550, so the minimum raise, to 1,150."""
    ruled(interpret(big_blind_facing_600(), [25, 1000]), "raise", 1150, must_add=125, rule="TDA 2024 45-B, 43-A")


def test_addendum_46_situation_4_a_prior_chip_covering_the_call_makes_any_addition_a_raise_push():
    """Rule 46, situation 4: blinds 50-100, the big blind posted one 1,000 chip and faces a
    raise to 700 (600 more). The 1,000 covers the call, so any new chip makes a rule 45
    push of all the chips: a 100 added (1,100, 400 over the call, at least half of 600) is a
    raise, made the minimum, 1,300."""
    covered = nl(facing_to=700, committed=100, prior_chips=1000, last_full_raise=600, big_blind=100, stack=9000)
    ruled(interpret(covered, [100]), "raise", 1300, must_add=200, rule="TDA 2024 46")


def test_addendum_46_situation_5_pushing_every_chip_forward_together_is_one_push():
    """Rule 46, situation 5: whatever the case, gathering the chips out with new ones and
    pushing them all forward may be read as betting all of them (rule 45). The floor reads
    the gesture; read so, situation 1's two 25s and a 1,000 are one push of 1,050: a raise,
    made the minimum, 1,150, where the 1,000 dropped on the 25s alone was a call."""
    ruled(interpret(big_blind_facing_600(), [25, 25, 1000]), "raise", 1150, must_add=100, rule="TDA 2024 45-B, 43-A")


def test_46c2_chips_out_that_cover_the_call_with_too_little_added_are_a_call():
    """TDA 2024 rule 46-C-2's own text (not a published example), "if less it is a call":
    A's 1,000 chip is out for a 300 bet, B raised to 900 (a 600 raise); A adds one 100 chip:
    1,100 is 200 over the call, less than half of 600: a call of 900, 200 returns."""
    covered = nl(facing_to=900, committed=300, prior_chips=1000, last_full_raise=600, big_blind=100, stack=9000)
    ruled(interpret(covered, [100]), "call", 900, returned=200, rule="TDA 2024 46")


# ---------------------------------------------------------------- TDA 2024 47: re-opening


def test_addendum_47_example_3a_closed_to_raising_a_raise_said_with_chips_is_a_call():
    """TDA 2024 Addendum, rule 47, example 3-A (the raise sizes are tested in
    test_betting_rules.py): blinds 2,000-4,000; A called 4,000, C is all-in for 7,500 and
    the big blind called. A faces 3,500, not a full raise, so may only call or fold. The
    words and chips are ours: A says "raise" and pushes two 5,000s: a call of 7,500, the
    rest back."""
    hand = preflop([50000, 50000, 50000, 50000, 7500], 2000, 4000,
                   [(2, "call", None), (3, "fold", None), (4, "raise", 7500), (0, "fold", None), (1, "call", None)])
    a = situation_from_betting(hand, 2)
    assert not a.raise_open and (a.facing_to, a.committed) == (7500, 4000)
    ruled(interpret(a, [5000, 5000], "raise", "said_first"), "call", 7500, returned=6500, rule="TDA 2024 47-A")


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


def test_addendum_40a_example_1_forty_two_thousand_said_and_a_5000_chip_is_a_floor_decision():
    """TDA 2024 Addendum, rule 40-A, example 1: heads-up on the river A says "forty-two
    thousand" but pushes one 5,000 chip, and not everyone heard the words; B calls 5,000.
    Nobody can say the words clearly came first, so the TD rules (Rule 1): nothing is
    ruled and nothing moves. Blinds and pot not given: 1,000 and 60,000 here."""
    heads_up = nl(big_blind=1000, pot=60000, stack=90000, opponents=1)
    ruled(interpret(heads_up, [5000], "forty-two thousand"), "floor_decision", 5000, rule="TDA 2024 1, 40-A")


def test_40c_a_bare_amount_is_the_same_as_pushing_it():
    facing = nl(facing_to=1000, last_full_raise=1000, big_blind=200, stack=9000)
    ruled(interpret(facing, [], "fourteen hundred"), "call", 1000, must_add=1000, rule="TDA 2024 40-C")
    ruled(interpret(facing, [], "sixteen hundred"), "raise", 2000, must_add=2000, rule="TDA 2024 40-C")


# ---------------------------------------------------------------- TDA 2024 57, 54-D, 61, 51-B


def test_57_example_i_bet_five_at_200_400_is_500_below_a_5000_pot_and_5000_from_it():
    """TDA 2024 rule 57's example: no-limit 200-400, "I bet five" with nothing else said is
    500 when the pot (bets in front not yet pulled in included) is under 5,000, and 5,000
    when it is 5,000 or more."""
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


def test_61_example_a_500_and_a_25_over_325_expecting_change_is_a_raise_to_650():
    """TDA 2024 rule 61's example: the opening bet to A is 325; A silently puts out 525 (a
    500 and a 25) expecting 200 change: under the multiple-chip rule (45) it is a raise to
    650. Asking for change does not make it a call either. Blinds not given: 100 here."""
    facing = nl(facing_to=325, last_full_raise=325, big_blind=100, stack=9000)
    ruled(interpret(facing, [500, 25]), "raise", 650, must_add=125, rule="TDA 2024 45-B, 43-A")
    ruled(interpret(facing, [500, 25], "change please", "simultaneous"), "raise", 650, must_add=125,
          rule="TDA 2024 61")


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


def test_make_it_names_the_total_as_raise_to_does():
    assert declaration("Make it 1,200") == declaration("raise to 1200")
    ruled(interpret(nl(facing_to=400, last_full_raise=400, big_blind=100, stack=5000), [], "make it twelve hundred"),
          "raise", 1200, must_add=1200, rule="TDA 2024 43-B")
    ruled(interpret(nl(facing_to=0, last_full_raise=0, big_blind=100, stack=5000), [], "make it 1200"),
          "bet", 1200, must_add=1200)


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
    from domain.live.table_events import TABLE_EVENT_TYPES
    from domain.records import from_record, to_record
    from domain.rules.declarations import ChipsRuled

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


def test_call_said_with_less_than_the_call_behind_is_an_all_in_for_what_the_player_has():
    found = interpret(nl(facing_to=1000, stack=500, big_blind=200), said="call")
    ruled(found, "all_in", 500, must_add=500, rule="TDA 2024 40-A")
    assert found.detail == "'call' in turn is binding: a call of 1,000; all the player has makes 500: all-in for 500"


def test_a_spoken_total_beyond_the_stack_is_an_all_in_and_says_so():
    found = interpret(nl(facing_to=1000, stack=5000, big_blind=200), said="raise 20000")
    ruled(found, "all_in", 5000, must_add=5000)
    assert found.detail.endswith("; all the player has makes 5,000: all-in for 5,000")


def test_a_spoken_total_beyond_the_pot_limit_is_the_pot_and_says_so():
    found = interpret(situation({"structure": "pot-limit", "facing_to": 200, "last_full_raise": 200, "pot": 700,
                                 "stack": 10000, "big_blind": 200}), said="raise 5000")
    ruled(found, "raise", 1100, must_add=1100)
    assert found.detail.endswith("; the pot limit allows at most 1,100")


def test_raise_said_with_the_chips_is_not_read_out_as_said_first():
    facing = nl(facing_to=400, last_full_raise=400, pot=1000, stack=10000, big_blind=200)
    together = interpret(facing, chips=[1000], said="raise", order="simultaneous")
    ruled(together, "raise", 1000, rule="TDA 2024 40-A, 44")
    assert together.detail == "'raise' said with the chips: a raise to the 1,000 pushed, at least the minimum"
    first = interpret(facing, chips=[1000], said="raise", order="said_first")
    assert first.detail.startswith("'raise' said first: a raise to the 1,000 pushed")


@pytest.mark.parametrize("said", ["I'm all in", "i am all in!", "I\u2019m all-in", "I'm all in."])
def test_im_all_in_is_an_all_in_declaration(said):
    assert declaration(said) == declaration("all in")
