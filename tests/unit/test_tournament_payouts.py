"""Prize pool, payout table, shared places and the ICM chop."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.tournaments.payouts import (
    RANK_BY_STARTING_STACK,
    RANK_SHARED,
    icm_chop,
    icm_equities,
    icm_ruling,
    payout_amounts,
    places_for_bust,
    prize_pool,
    prizes_for_places,
)


def test_the_prize_pool_counts_entries_re_entries_rebuys_and_add_ons() -> None:
    assert prize_pool(100, entries=50, re_entries=5, rebuys=10, rebuy_price=100, add_ons=40, add_on_price=50) == 8500


def test_the_payout_table_pays_the_pool_exactly() -> None:
    assert payout_amounts(1000, [50, 30, 20]) == (500, 300, 200)


def test_odd_chips_go_to_first_place() -> None:
    # 1001 * 50% = 500.5, 30% = 300.3, 20% = 200.2: floors 500+300+200, one chip left.
    assert payout_amounts(1001, [50, 30, 20]) == (501, 300, 200)


def test_fractional_percentages_are_exact() -> None:
    # Floors 100 + 99 + 99 = 298; the two chips left go to first place (running-events.md).
    assert payout_amounts(300, ["33.34", "33.33", "33.33"]) == (102, 99, 99)


@pytest.mark.parametrize("table", [[50, 30], [50, 30, 30], [30, 50, 20], [100, 0]])
def test_a_payout_table_must_sum_to_100_and_never_increase(table: list[int]) -> None:
    with pytest.raises(Violation) as raised:
        payout_amounts(1000, table)
    assert raised.value.code == "invalid_payouts"


def test_players_busting_on_the_same_hand_share_the_places_reached() -> None:
    # TDA RP-8: 10 left, two bust on one hand: both finish 9th and split 9th + 10th prize.
    places = places_for_bust([("a", 5000), ("b", 3000)], players_before=10, ranking=RANK_SHARED)
    assert places == (("a", 9), ("b", 9))
    amounts = (400, 200, 100, 80, 60, 50, 40, 30, 21, 20)
    assert prizes_for_places(amounts, [9, 9]) == (21, 20)


def test_ranking_by_starting_stack_puts_the_bigger_stack_higher() -> None:
    places = places_for_bust([("a", 3000), ("b", 5000), ("c", 3000)], players_before=10,
                             ranking=RANK_BY_STARTING_STACK)
    assert places == (("b", 8), ("a", 9), ("c", 9))


def test_a_shared_place_beyond_the_money_pays_its_paid_part_only() -> None:
    # Two share 3rd-4th; only 3 places are paid.
    assert prizes_for_places((500, 300, 200), [3, 3]) == (100, 100)


def test_icm_with_equal_stacks_is_an_equal_split() -> None:
    assert icm_equities([100, 100, 100], [50, 30, 20]) == pytest.approx((100 / 3,) * 3)


def test_icm_two_players_is_the_chip_share_of_the_difference() -> None:
    # Heads-up: first pays 70, second 30; a 3:1 chip lead is worth 30 + 40 * 3/4.
    assert icm_equities([300, 100], [70, 30]) == pytest.approx((60.0, 40.0))


def test_icm_chop_pays_whole_chips_summing_to_the_prizes() -> None:
    chop = icm_chop([5000, 3000, 2000], [500, 300, 200])
    assert sum(chop) == 1000 and chop[0] > chop[1] > chop[2]


@given(st.integers(0, 10**9), st.lists(st.integers(1, 1000), min_size=1, max_size=50))
def test_payout_amounts_always_sum_to_the_pool_and_never_increase(pool: int, weights: list[int]) -> None:
    weights.sort(reverse=True)
    total = sum(weights)
    percentages = [Fraction(100 * w, total) for w in weights]
    amounts = payout_amounts(pool, percentages)
    assert sum(amounts) == pool
    assert all(a >= b for a, b in zip(amounts, amounts[1:]))


@given(st.lists(st.integers(1, 10**6), min_size=2, max_size=6), st.integers(0, 10**6))
def test_icm_chop_always_sums_exactly(stacks: list[int], pool: int) -> None:
    prizes = payout_amounts(pool, [60, 40]) if len(stacks) >= 2 else (pool,)
    assert sum(icm_chop(stacks, prizes)) == pool


def test_icm_ruling_gives_equities_to_the_cent_and_a_deal_that_adds_up() -> None:
    # The textbook final table: 50/30/20 of the chips, prizes 50/30/20.
    ruling = icm_ruling({"stacks": {"A": 50, "B": 30, "C": 20}, "prizes": [50, 30, 20]})

    assert ruling == {"prizes_to_pay": 100,
                      "equities": {"A": 38.39, "B": 32.75, "C": 28.86},
                      "deal": {"A": 38, "B": 33, "C": 29}}


def test_icm_ruling_pays_only_the_places_the_players_can_still_reach() -> None:
    ruling = icm_ruling({"stacks": {"A": 100, "B": 100}, "prizes": [300, 200, 100]})

    assert ruling["prizes_to_pay"] == 500 and ruling["deal"] == {"A": 250, "B": 250}


@pytest.mark.parametrize("request_body, code", [
    ({"stacks": {"A": 100}, "prizes": [100]}, "invalid_stacks"),
    ({"stacks": {"A": 100, "B": 50}, "prizes": [100, 200]}, "invalid_prizes"),
    ({"stacks": {"A": 100, "B": 50}, "prizes": [100, -1]}, "invalid_prizes"),
])
def test_icm_ruling_refuses_what_is_not_a_chop(request_body, code) -> None:
    with pytest.raises(Violation) as refused:
        icm_ruling(request_body)
    assert refused.value.code == code
