"""League points (domain.series.points): each named formula from docs/series.md's worked
examples, the table, bounties and a deal's agreed place; and the properties every formula
keeps (points never negative; within an event without a deal, a better place never earns
fewer points)."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.series.points import BUY_IN_WEIGHTED, FIELD_ROOT, FORMULAS, LINEAR, TABLE, Finish, PointsFormula, check_formula, points


def _points(formula: PointsFormula, place: int, field_size: int, buy_in: int = 100, bounty_cash: int = 0,
            agreed_place: int = 0) -> Decimal:
    return points(formula, Finish("ann", place, 0, bounty_cash, agreed_place), field_size, buy_in)


@pytest.mark.parametrize("place, expected", [(1, "31.62"), (2, "22.36"), (3, "18.26"), (10, "10.00")])
def test_field_root_ten_players_scale_10(place: int, expected: str):
    # 10 × √(10/1) = 31.6227…, 10 × √5 = 22.3606…, 10 × √(10/3) = 18.2574…, 10 × √1 = 10
    assert _points(PointsFormula(FIELD_ROOT, scale=10), place, 10) == Decimal(expected)


@pytest.mark.parametrize("place, expected", [(1, "40.00"), (3, "30.00"), (8, "5.00")])
def test_linear_eight_players_scale_5(place: int, expected: str):
    # 5 × (8 − place + 1): 40, 30, 5
    assert _points(PointsFormula(LINEAR, scale=5), place, 8) == Decimal(expected)


@pytest.mark.parametrize("place, field_size, buy_in, expected", [
    (1, 10, 250, "79.06"),  # 10 × √10 × 250/100 = 79.0569…
    (1, 9, 50, "15.00"),  # 10 × √9 × 50/100
    (4, 16, 100, "20.00"),  # 10 × √4 × 1
])
def test_buy_in_weighted(place: int, field_size: int, buy_in: int, expected: str):
    formula = PointsFormula(BUY_IN_WEIGHTED, scale=10, reference_buy_in=100)
    assert _points(formula, place, field_size, buy_in) == Decimal(expected)


@pytest.mark.parametrize("place, expected", [(1, "27.00"), (5, "12.00"), (6, "2.00")])
def test_table_with_participation(place: int, expected: str):
    # table 25/18/15/12/10, 2 points for playing: first 27, fifth 12, sixth (past the table) 2
    formula = PointsFormula(TABLE, table=(25, 18, 15, 12, 10), participation=2)
    assert _points(formula, place, 20) == Decimal(expected)


def test_bounties_earn_a_point_per_so_much_cash_where_the_formula_says():
    # 50 of bounty cash at a point per 20: 2.5 points on top of linear's 3 (4 players, 2nd)
    assert _points(PointsFormula(LINEAR, scale=1, bounty_cash_per_point=20), 2, 4, bounty_cash=50) == Decimal("5.50")
    assert _points(PointsFormula(LINEAR, scale=1), 2, 4, bounty_cash=50) == Decimal("3.00")


def test_a_deal_earns_the_points_of_the_place_agreed_by_default_the_place_finished():
    formula = PointsFormula(LINEAR, scale=1)
    assert _points(formula, 2, 6, agreed_place=1) == Decimal("6.00")
    assert _points(formula, 2, 6) == Decimal("5.00")


@pytest.mark.parametrize("formula, code_numbers", [
    (PointsFormula("elo"), {"kind": "elo"}),
    (PointsFormula(LINEAR, scale=-1), {"scale": -1}),
    (PointsFormula(TABLE, table=(10, 12)), {"table": [10, 12]}),
    (PointsFormula(TABLE, table=(10, -1)), {"table": [10, -1]}),
    (PointsFormula(TABLE), {"places": 0}),
    (PointsFormula(BUY_IN_WEIGHTED, reference_buy_in=0), {"reference_buy_in": 0}),
    (PointsFormula(LINEAR, table=(3, 2)), {"kind": LINEAR}),
])
def test_formulas_that_could_reward_a_worse_place_or_go_negative_are_refused(formula, code_numbers):
    with pytest.raises(Violation) as refused:
        check_formula(formula)
    assert refused.value.code == "invalid_formula"
    assert code_numbers.items() <= dict(refused.value.numbers).items()


formulas = st.one_of(
    st.builds(PointsFormula, st.sampled_from([f for f in FORMULAS if f != TABLE]), scale=st.integers(0, 100),
              reference_buy_in=st.integers(1, 10_000), participation=st.integers(0, 50),
              bounty_cash_per_point=st.integers(0, 100)),
    st.builds(PointsFormula, st.just(TABLE), table=st.lists(st.integers(0, 100), min_size=1, max_size=30).map(
        lambda points: tuple(sorted(points, reverse=True))), participation=st.integers(0, 50),
        bounty_cash_per_point=st.integers(0, 100)),
)


@given(formulas, st.integers(1, 500), st.integers(0, 10_000), st.data())
def test_points_are_never_negative_and_a_better_place_never_earns_fewer(formula, field_size, buy_in, data):
    check_formula(formula)
    better = data.draw(st.integers(1, field_size))
    worse = data.draw(st.integers(better, field_size))
    bounty_cash = data.draw(st.integers(0, 10_000))
    assert _points(formula, worse, field_size, buy_in, bounty_cash) >= 0
    assert _points(formula, better, field_size, buy_in, bounty_cash) >= _points(formula, worse, field_size, buy_in,
                                                                                 bounty_cash)
