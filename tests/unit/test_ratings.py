"""Ratings: the figures of tournaments.md and Glickman's Glicko-2 example, verbatim."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.ratings import (
    EVENT_TYPES,
    Finish,
    GameResult,
    Glicko2Rating,
    elo_head_to_head,
    elo_multiplayer,
    expected_score,
    glicko2_update,
    rate_elo,
    rate_elo_and_glicko2,
    rate_glicko2,
)
from domain.records import from_record, to_record
from domain.rules.violations import Violation


def test_expected_score_follows_the_logistic_formula() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1600, 1400) == pytest.approx(1 / (1 + 10 ** (-200 / 400)))


def test_a_draw_between_equal_ratings_changes_nothing() -> None:
    assert elo_head_to_head(1500, 1500, 0.5, k=32) == (1500, 1500)


def test_a_draw_against_a_weaker_player_costs_8_3119() -> None:
    a, b = elo_head_to_head(1600, 1400, 0.5, k=32)
    assert a - 1600 == pytest.approx(-8.3119, abs=1e-4)
    assert b - 1400 == pytest.approx(+8.3119, abs=1e-4)


def test_multiplayer_pairs_with_k_over_n_minus_1_and_a_shared_second_place() -> None:
    ratings = [1600, 1550, 1450, 1400]
    new = elo_multiplayer(ratings, [1, 2, 2, 4], k=32)
    changes = [n - r for n, r in zip(new, ratings)]
    assert changes == pytest.approx([+10.2977, -2.9012, +2.9012, -10.2977], abs=1e-4)


def test_two_player_multiplayer_is_head_to_head() -> None:
    assert elo_multiplayer([1600, 1400], [1, 1]) == pytest.approx(elo_head_to_head(1600, 1400, 0.5))


def test_rate_elo_names_the_result_and_starts_newcomers_at_1500() -> None:
    result = GameResult("r-1", "holdem", (Finish("ann", 1), Finish("bob", 1)))
    event = rate_elo(result, {"ann": 1600})
    assert event.result_id == "r-1" and event.system == "elo"
    assert event.elo[0].before == 1600 and event.elo[1].before == 1500
    assert event.elo[0].after == pytest.approx(1600 + 32 * (0.5 - expected_score(1600, 1500)))


def test_a_result_naming_a_player_twice_is_refused() -> None:
    result = GameResult("r-2", "holdem", (Finish("ann", 1), Finish("ann", 2)))
    with pytest.raises(Violation) as raised:
        rate_elo(result, {})
    assert raised.value.code == "invalid_result"


def test_glickmans_example_1464_05_151_52_0_05999() -> None:
    player = Glicko2Rating(1500, 200, 0.06)
    games = [
        (Glicko2Rating(1400, 30, 0.06), 1.0),
        (Glicko2Rating(1550, 100, 0.06), 0.0),
        (Glicko2Rating(1700, 300, 0.06), 0.0),
    ]
    new = glicko2_update(player, games, tau=0.5)
    assert new.rating == pytest.approx(1464.05, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_a_glicko2_period_without_games_only_widens_the_deviation() -> None:
    new = glicko2_update(Glicko2Rating(1500, 200, 0.06), [])
    assert new.rating == 1500 and new.volatility == 0.06 and new.deviation > 200


def test_rate_glicko2_decomposes_a_table_into_pairs() -> None:
    result = GameResult("r-3", "dice", (Finish("a", 1), Finish("b", 2), Finish("c", 3)))
    event = rate_glicko2(result, {})
    after = [c.after.rating for c in event.glicko2]
    assert after[0] > 1500 > after[2] and after[1] == pytest.approx(1500)


def test_ratings_updated_round_trips_through_a_record() -> None:
    result = GameResult("r-4", "holdem", (Finish("a", 1), Finish("b", 2)))
    for event in (rate_elo(result, {}), rate_glicko2(result, {})):
        assert from_record(EVENT_TYPES, *to_record(event)) == event


ratings_strategy = st.lists(st.floats(800, 2400), min_size=2, max_size=8)


@given(ratings_strategy, st.data())
def test_elo_is_zero_sum_for_any_table(ratings: list[float], data: st.DataObject) -> None:
    places = data.draw(st.lists(st.integers(1, len(ratings)), min_size=len(ratings), max_size=len(ratings)))
    new = elo_multiplayer(ratings, places)
    assert sum(new) == pytest.approx(sum(ratings))


@given(ratings_strategy)
def test_finishing_ahead_never_loses_more_than_finishing_behind(ratings: list[float]) -> None:
    # The same player does at least as well placed first as placed last.
    others = list(range(2, len(ratings) + 1))
    first = elo_multiplayer(ratings, [1, *others])[0]
    last = elo_multiplayer(ratings, [len(ratings) + 1, *others])[0]
    assert first > last


def test_both_systems_rate_one_result_in_one_event() -> None:
    result = GameResult("r-9", "holdem", (Finish("ann", 1), Finish("bob", 2), Finish("cat", 2)))
    elo = {"ann": 1450.0}
    glicko2 = {"bob": Glicko2Rating(1600.0, 120.0, 0.059)}
    both = rate_elo_and_glicko2(result, elo, glicko2)
    assert both.system == "elo+glicko2" and both.result_id == "r-9"
    assert both.elo == rate_elo(result, elo).elo
    assert both.glicko2 == rate_glicko2(result, glicko2).glicko2
