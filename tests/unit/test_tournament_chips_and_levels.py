"""Colour-up races (TDA 2024 24), level control, and the rule citations of tournament refusals."""
from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.citations import CITATIONS, rule_for
from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import decider as tournament_decider
from domain.tournaments import tournament
from domain.tournaments.chips import chip_race
from domain.tournaments.clock import LevelSet, LevelStarted, check_adjustment, evolve_clock, new_clock, read_clock
from domain.tournaments.structure import Period

PERIODS = (Period.level(25, 50, 20), Period.pause(10), Period.level(100, 200, 20))


def test_the_race_rounds_every_stack_to_the_new_chip_and_races_out_nobody() -> None:
    # 24-A: at most one chip each; a player whose last chips are raced gets one first.
    raced = chip_race([(0, "a", 1_010), (1, "b", 15), (2, "c", 2_075), (3, "d", 500)], 5, 25, random.Random(3))
    by = {r.player_id: r for r in raced}
    assert by["b"].protected and by["b"].after == 25
    assert all(r.after % 25 == 0 and r.after - (r.before - r.before % 25) in (0, 25) for r in raced)
    assert by["d"].after == 500 and by["d"].cards == ()


@given(stacks=st.lists(st.integers(1, 5000).map(lambda n: n * 5), min_size=2, max_size=10), seed=st.integers())
def test_a_race_changes_chips_by_less_than_one_new_chip_per_player(stacks, seed) -> None:
    raced = chip_race([(i, f"p{i}", s) for i, s in enumerate(stacks)], 5, 100, random.Random(seed))
    assert all(r.after > 0 and r.after % 100 == 0 for r in raced)
    assert abs(sum(r.before - r.after for r in raced)) < 100 * len(stacks)


def test_an_adjustment_may_end_the_period_but_never_leaves_it() -> None:
    clock = evolve_clock(new_clock(PERIODS), LevelStarted(0, 1000))
    check_adjustment(clock, -1200, 1000)  # exactly the time left: the level ends now
    with pytest.raises(Violation) as refused:
        check_adjustment(clock, -1201, 1000)
    assert refused.value.code == "adjust_beyond_period" and refused.value.numbers["remaining_s"] == 1200


def test_a_level_set_back_gets_its_time_and_a_paused_clock_stays_paused() -> None:
    clock = evolve_clock(new_clock(PERIODS), LevelStarted(2, 1000))
    back = evolve_clock(clock, LevelSet(0, 300, 1100))
    reading = read_clock(back, 1150)
    assert (reading.level, reading.remaining_s) == (1, 250)


def test_every_cited_rule_comes_from_the_one_table_and_names_its_edition() -> None:
    assert all(CITATIONS[code].startswith("TDA 2024 ")
               for code in ("hand_for_hand", "colour_up_due", "no_colour_up_due", "on_break"))
    assert rule_for("player_has_chips") == ""
    state = tournament.INITIAL
    settings = tournament_commands.Settings("x", PERIODS, 0, 1000, 0, ("100",), denominations=(25, 100))
    assert tournament_decider.decide(state, tournament_commands.CreateTournament("t", settings))
