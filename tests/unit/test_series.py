"""A series' schedule (domain.series.series) and its standings (domain.series.standings)."""
from __future__ import annotations

from decimal import Decimal
from functools import reduce

import pytest

from domain.rules.violations import Violation
from domain.series import series
from domain.series.points import LINEAR, Finish, PointsFormula
from domain.series.standings import EventResults, standings


def _run(state: series.Series, command: object) -> series.Series:
    return reduce(series.evolve, series.decide(state, command), state)


def _created() -> series.Series:
    return _run(series.INITIAL, series.CreateSeries("s1", " Winter league ", PointsFormula(LINEAR, scale=1), 0))


def _event(tournament_id: str, starts_at: float, opens: float | None = None, closes: float | None = None) -> object:
    return series.ScheduleEvent(series.ScheduledEvent(
        tournament_id, starts_at, starts_at - 3600 if opens is None else opens,
        starts_at + 1800 if closes is None else closes), at=0)


def test_a_series_lists_its_events_by_start():
    state = _run(_run(_created(), _event("late", 2000)), _event("early", 1000))
    assert state.name == "Winter league"
    assert [e.tournament_id for e in state.events] == ["early", "late"]


@pytest.mark.parametrize("command, code", [
    (series.CreateSeries("s1", "again", PointsFormula(), 0), "series_exists"),
    (_event("t", 1000, opens=1000, closes=1000), "invalid_registration_window"),
    (_event("t", 1000, opens=1001, closes=2000), "invalid_registration_window"),
])
def test_refusals(command: object, code: str):
    with pytest.raises(Violation) as refused:
        series.decide(_created(), command)
    assert refused.value.code == code


def test_an_event_is_in_a_series_once_and_a_series_must_exist():
    state = _run(_created(), _event("t", 1000))
    with pytest.raises(Violation, match="event_scheduled"):
        series.decide(state, _event("t", 5000))
    with pytest.raises(Violation, match="unknown_series"):
        series.decide(series.INITIAL, _event("t", 1000))
    with pytest.raises(Violation, match="invalid_formula"):
        series.decide(series.INITIAL, series.CreateSeries("s2", "x", PointsFormula("made_up"), 0))


def test_standings_sum_each_players_points_and_ties_share_a_rank():
    formula = PointsFormula(LINEAR, scale=1)
    first = EventResults("t1", 3, 100, (Finish("ann", 1, 0, 0), Finish("bob", 2, 0, 0), Finish("cy", 3, 0, 0)))
    second = EventResults("t2", 2, 100, (Finish("cy", 1, 0, 0), Finish("ann", 2, 0, 0)))
    table = standings(formula, [first, second])
    assert [(s.rank, s.player_id, s.points) for s in table] == [
        (1, "ann", Decimal("4.00")), (2, "cy", Decimal("3.00")), (3, "bob", Decimal("2.00"))]
    swapped = [EventResults("t3", 2, 100, (Finish("x", 1, 0, 0), Finish("y", 2, 0, 0))),
               EventResults("t4", 2, 100, (Finish("y", 1, 0, 0), Finish("x", 2, 0, 0)))]
    tied = standings(formula, swapped)
    assert [(s.rank, s.points) for s in tied] == [(1, Decimal("3.00")), (1, Decimal("3.00"))]
