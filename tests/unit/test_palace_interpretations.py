"""The small rules in palace_interpretations, each as the seed (or our decision) states it."""
from __future__ import annotations

from domain.games import palace_interpretations as I


def test_a_shuffle_orders_the_cards_as_the_callers_permutation_does():
    assert I.in_shuffled_order(("2h", "As", "Kd"), ("Kd", "7c", "2h", "As")) == ("Kd", "2h", "As")


def test_players_are_grouped_four_four_and_two_in_deal_order():
    assert [I.banner_group(position) for position in range(10)] == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]


def test_each_side_pays_by_its_own_soldiers_plus_any_no_limit_excess():
    assert I.attack_minimum(attacker_soldiers=3, small_bet=10) == 40
    assert I.defender_call_amount(defender_soldiers=1, small_bet=10, attacker_excess=0) == 20
    assert I.defender_call_amount(defender_soldiers=1, small_bet=10, attacker_excess=35) == 55


def test_the_fixed_limit_raise_is_a_big_bet_or_two_small_bets_without_soldiers():
    assert I.fixed_limit_raise(defender_soldiers=2, small_bet=10, big_bet=30) == 30
    assert I.fixed_limit_raise(defender_soldiers=0, small_bet=10, big_bet=30) == 20


def test_a_short_stack_pays_what_it_has():
    assert I.all_in_amount(due=40, stack=25) == 25
    assert I.all_in_amount(due=40, stack=100) == 40


def test_the_forced_battle_needs_others_to_have_left():
    assert I.forced_battle_applies(players_at_start=3, players_left=2)
    assert not I.forced_battle_applies(players_at_start=2, players_left=2)
    assert not I.forced_battle_applies(players_at_start=4, players_left=3)


def test_odd_chips_go_round_from_the_first_seat_left_of_the_button():
    assert I.odd_chip_order((0, 2, 4), dealer=2, seat_count=5) == (4, 0, 2)
    assert I.odd_chip_order((1, 3), dealer=3, seat_count=4) == (1, 3)


def test_the_tie_break_counts_the_banner_too():
    assert I.banner_suit_count(("Ah", "Kh", "2c", "9h"), "h") == 3
