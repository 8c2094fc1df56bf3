"""Side pots from contribution levels, folded chips, odd chips (betting-rules.md)."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from domain.rules.pots import Pot, award_pots, build_pots, split


def test_one_pot_while_nobody_is_all_in_even_with_uneven_bets():
    assert build_pots((50, 100, 300, 0), (False,) * 4, (False,) * 4) == (
        Pot(450, (0, 1, 2, 3)),)


def test_side_pots_are_built_from_all_in_levels():
    # A all-in 100, B all-in 300, C and D put in 500.
    pots = build_pots((100, 300, 500, 500), (False,) * 4, (True, True, False, False))
    assert pots == (Pot(400, (0, 1, 2, 3)), Pot(600, (1, 2, 3)), Pot(400, (2, 3)))


def test_folded_chips_stay_in_the_pots_they_reached_but_win_nothing():
    # A all-in 100; B put 250 then folded; C put 400.
    pots = build_pots((100, 250, 400), (False, True, False), (True, False, False))
    assert pots == (Pot(300, (0, 2)), Pot(450, (2,)))


def test_big_blind_ante_is_dead_money_in_the_main_pot():
    pots = build_pots((100, 50, 300), (False,) * 3, (False, True, False), dead=100)
    assert pots[0] == Pot(250, (0, 1, 2))


def test_each_pot_goes_to_the_best_eligible_hand():
    pots = (Pot(300, (0, 1, 2)), Pot(400, (1, 2)))
    awards = award_pots(pots, {0: 9, 1: 5, 2: 7}, button=2, seat_count=3)
    assert [(a.winners, a.shares) for a in awards] == [((0,), (300,)), ((2,), (400,))]


def test_odd_chip_goes_to_the_first_winner_left_of_the_button():
    # Button seat 1; winners seats 0 and 3 of 4: seat 3 is first left of the button.
    assert split(101, (0, 3), button=1, seat_count=4) == ((3, 0), (51, 50))
    assert split(5, (0, 1, 2), button=2, seat_count=3) == ((0, 1, 2), (2, 2, 1))


def test_split_exactly_gives_fractions_for_phh_replay():
    assert split(101, (0, 3), button=1, seat_count=4, odd_chip="split_exactly") == (
        (3, 0), (Fraction(101, 2), Fraction(101, 2)))


def test_a_pot_with_no_shown_hand_is_shared_by_its_eligible_players():
    awards = award_pots((Pot(100, (0, 1)),), {}, button=1, seat_count=2)
    assert awards[0].winners == (0, 1)


@given(st.lists(st.tuples(st.integers(0, 1000), st.booleans(), st.booleans()), min_size=2, max_size=9),
       st.integers(0, 500), st.data())
def test_pots_and_awards_conserve_every_chip(seats, dead, data):
    committed = tuple(c for c, _, _ in seats)
    folded = tuple(f for _, f, _ in seats)
    if all(folded):
        folded = (False,) + folded[1:]
    all_in = tuple(a for _, _, a in seats)
    pots = build_pots(committed, folded, all_in, dead)
    assert sum(p.amount for p in pots) == sum(committed) + dead
    for pot in pots:
        assert pot.eligible and not any(folded[s] for s in pot.eligible)
    strengths = {s: data.draw(st.integers(0, 3)) for s in range(len(seats)) if not folded[s]}
    for policy in ("left_of_button", "split_exactly"):
        awards = award_pots(pots, strengths, button=0, seat_count=len(seats), odd_chip=policy)
        assert sum(sum(a.shares) for a in awards) == sum(committed) + dead
