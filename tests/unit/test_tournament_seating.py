"""Seating: the draw, balancing (TDA 11), breaking (TDA 10), late entrants (TDA 8-A),
dead button (TDA 32) and the heads-up button (TDA 34-B)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules.violations import Violation
from domain.tournaments.seating import (
    BREAK_RANDOM,
    BalancePolicy,
    Positions,
    Seating,
    Table,
    apply_break,
    apply_move,
    apply_positions,
    draw_seating,
    empty_seating,
    entrant_seats,
    next_big_blind,
    next_positions,
    rebalance,
    remove_player,
    seat_late_entrant,
    seated,
    tables_needed,
    worst_open_seat,
)


def players(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


def draw(n: int, max_seats: int = 9, seed: int = 7) -> Seating:
    seats, buttons = draw_seating(players(n), max_seats, random.Random(seed))
    return seated(max_seats, seats, buttons)


# --- the draw -------------------------------------------------------------------------

def test_the_draw_uses_the_fewest_tables_with_sizes_within_one() -> None:
    seating = draw(100)
    assert seating.open_tables == 12
    assert seating.spread() <= 1 and seating.players == 100


def test_the_same_seed_draws_the_same_seats() -> None:
    assert draw_seating(players(30), 9, random.Random(42)) == draw_seating(players(30), 9, random.Random(42))
    assert draw_seating(players(30), 9, random.Random(42)) != draw_seating(players(30), 9, random.Random(43))


def test_the_first_hand_puts_the_button_on_the_drawn_seat() -> None:
    seats, buttons = draw_seating(players(9), 9, random.Random(1))
    seating = seated(9, seats, buttons)
    table = seating.table(1)
    assert table.positions is not None
    assert next_positions(table.seats, table.positions).button == buttons[0]


def test_a_draw_with_a_player_listed_twice_is_refused() -> None:
    with pytest.raises(Violation):
        draw_seating(["a", "a", "b"], 9, random.Random(1))


# --- button and blinds ----------------------------------------------------------------

SIX = ("a", "b", "c", "d", "e", "f")


def test_the_button_and_blinds_move_one_seat_each_hand() -> None:
    assert next_positions(SIX, Positions(0, 1, 2)) == Positions(1, 2, 3)


def test_a_busted_big_blind_leaves_a_dead_small_blind_next_hand() -> None:
    # TDA 32: the big blind moves on to d; the small blind would be c's seat, now empty.
    seats = ("a", "b", None, "d", "e", "f")
    positions = next_positions(seats, Positions(0, 1, 2))
    assert positions == Positions(1, 2, 3, dead_button=False, dead_small_blind=True)


def test_a_busted_small_blind_leaves_a_dead_button_next_hand() -> None:
    seats = ("a", None, "c", "d", "e", "f")
    assert next_positions(seats, Positions(0, 1, 2)) == Positions(1, 2, 3, dead_button=True)


def test_the_big_blind_never_skips_a_player() -> None:
    seats = ("a", "b", "c", None, None, "f")
    assert next_positions(seats, Positions(0, 1, 2)).big_blind == 5


def test_heads_up_the_button_posts_the_small_blind() -> None:
    # TDA 34-B: c was big blind; going heads-up the big blind moves on to a, c takes the
    # button and small blind, so nobody posts the big blind twice in a row.
    seats = ("a", None, "c", None, None, None)
    assert next_positions(seats, Positions(0, 1, 2)) == Positions(2, 2, 0)
    assert next_positions(seats, Positions(2, 2, 0)) == Positions(0, 0, 2)


def test_a_hand_needs_two_players() -> None:
    with pytest.raises(Violation):
        next_positions(("a", None, None), Positions(0, 1, 2))


# --- balancing and breaking -----------------------------------------------------------

def test_the_next_big_blind_moves_to_the_worst_seat_never_the_small_blind() -> None:
    source = Table(1, ("a", "b", "c", "d", "e", "f", "g", "h", "i"), Positions(0, 1, 2))
    target = Table(2, ("j", "k", None, "m", None, None, "q", "r", "s"), Positions(0, 1, 2))
    assert next_big_blind(source) == 3
    # Seat 2 (the last big blind's, now empty) would post the small blind next: skip it.
    assert worst_open_seat(target) == 4


def test_two_tables_balance_to_within_one() -> None:
    seating = draw(18)  # 9 + 9
    for player in ("p0", "p1", "p2"):
        seating = remove_player(seating, player)
    result = rebalance(seating, random.Random(3))
    counts = sorted(t.count for t in result.seating.tables if t is not None)
    assert counts[-1] - counts[0] <= 1 and all(m.reason == "balance" for m in result.moves)


def test_a_table_breaks_when_the_players_fit_on_one_fewer() -> None:
    seating = draw(19)  # three tables of 7 / 6 / 6
    seating = remove_player(seating, "p0")
    result = rebalance(seating, random.Random(3))
    assert result.broken == (3,) and result.seating.open_tables == 2
    assert {m.reason for m in result.moves} == {"break"}


def test_random_break_order_draws_the_table() -> None:
    seating = remove_player(draw(19), "p0")
    broken = {rebalance(seating, random.Random(s), BalancePolicy(break_order=BREAK_RANDOM)).broken
              for s in range(20)}
    assert len(broken) > 1


def test_the_final_table_forms_when_everybody_fits_on_one() -> None:
    seating = draw(10)
    seating = remove_player(seating, "p3")
    result = rebalance(seating, random.Random(1))
    assert result.seating.open_tables == 1 and result.seating.players == 9


def test_a_wider_tolerance_leaves_more_tables_alone() -> None:
    seating = draw(27)
    for player in ("p0", "p3", "p6"):  # all from one table of the round-robin draw
        seating = remove_player(seating, player)
    assert rebalance(seating, random.Random(1), BalancePolicy(tolerance=3)).moves == ()


def test_balancing_never_takes_a_player_from_a_table_playing_a_hand() -> None:
    seating = draw(27)  # 9 + 9 + 9
    for player in [p for p in seating.table(1).seats if p is not None][:3]:
        seating = remove_player(seating, player)
    table_two, table_three = 2, 3
    result = rebalance(seating, random.Random(1), busy=frozenset({table_two}))
    assert [(m.from_table, m.to_table) for m in result.moves] == [(table_three, 1)]
    assert result.deferred == (table_two,)  # table 2 still owes a player after its hand


def test_the_move_waits_when_every_largest_table_is_playing() -> None:
    seating = draw(18)  # 9 + 9
    for player in [p for p in seating.table(1).seats if p is not None][:3]:
        seating = remove_player(seating, player)
    result = rebalance(seating, random.Random(1), busy=frozenset({2}))
    assert result.moves == () and result.deferred == (2,) and result.seating == seating
    after_the_hand = rebalance(seating, random.Random(1))
    assert [(m.from_table, m.to_table, m.reason) for m in after_the_hand.moves] == [(2, 1, "balance")]


def test_a_table_due_to_break_finishes_its_hand_first() -> None:
    seating = remove_player(draw(19), "p0")  # 6 / 6 / 6: 18 fit on two tables
    result = rebalance(seating, random.Random(3), busy=frozenset({3}))
    assert result.broken == () and result.moves == () and result.deferred == (3,)
    assert rebalance(seating, random.Random(3), busy=frozenset({1})).broken == (3,)


def test_a_random_break_draws_among_tables_between_hands() -> None:
    seating = remove_player(draw(19), "p0")
    policy = BalancePolicy(break_order=BREAK_RANDOM)
    broken = {rebalance(seating, random.Random(s), policy, busy=frozenset({1, 2})).broken for s in range(20)}
    assert broken == {(3,)}


# --- late entrants ----------------------------------------------------------------------

def test_a_late_entrant_is_not_dealt_in_between_the_small_blind_and_the_button() -> None:
    # The last hand: button a (0), small blind c (2), big blind e (4). The next hand puts
    # the button on c, the small blind on e and the big blind on g (or on an entrant at 5).
    table = Table(1, ("a", None, "c", None, "e", None, "g", None, None), Positions(0, 2, 4))
    # Seat 3 lies between the next button (2) and the next small blind (4).
    assert entrant_seats(table) == [1, 5, 7, 8]


def test_a_late_entrant_at_a_heads_up_table_may_take_any_open_seat() -> None:
    table = Table(1, ("a", None, "c", None), Positions(0, 0, 2))
    assert entrant_seats(table) == [1, 3]


def test_a_late_entrant_joins_a_smallest_table() -> None:
    seating = remove_player(draw(18), "p0")
    seating, seat = seat_late_entrant(seating, "late", random.Random(5))
    assert seating.counts[seat.table - 1] == 9 and seating.where["late"] == (seat.table, seat.seat)


def test_a_late_entrant_opens_a_table_when_all_are_full() -> None:
    seating, seat = seat_late_entrant(draw(9), "late", random.Random(5))
    assert seat.table == 2 and seating.open_tables == 2
    balanced = rebalance(seating, random.Random(5))
    assert balanced.seating.spread() <= 1


# --- properties -----------------------------------------------------------------------

def check_invariants(seating: Seating, policy: BalancePolicy) -> None:
    seen: dict[str, tuple[int, int]] = {}
    for table in seating.tables:
        if table is None:
            continue
        for seat, player in enumerate(table.seats):
            if player is not None:
                assert player not in seen, "a player is seated twice"
                seen[player] = (table.number, seat)
    assert seen == dict(seating.where), "every remaining player sits exactly once"
    assert seating.open_tables == tables_needed(seating.players, seating.max_seats)
    assert seating.spread() <= policy.tolerance_for(seating.open_tables)


def replay_and_check_moves(before: Seating, after: Seating, moves, broken) -> None:
    seating = before
    for move in moves:
        if move.reason == "balance":
            source = seating.table(move.from_table)
            assert move.from_seat == next_big_blind(source), "the mover is the next big blind"
        seating = apply_move(seating, move)
        if move.reason == "balance":
            target = seating.table(move.to_table)
            assert target.positions is not None
            upcoming = next_positions(target.seats, target.positions)
            assert upcoming.small_blind != move.to_seat, "a moved player never posts the small blind next"
    for number in broken:
        seating = apply_break(seating, number)
    assert seating == after, "the moves replayed rebuild the same seating"


@settings(max_examples=25, deadline=None)
@given(
    tables=st.integers(2, 50),
    seed=st.integers(0, 2**32),
    tolerance=st.integers(1, 3),
    break_order=st.sampled_from(["predetermined", "random"]),
)
def test_every_elimination_leaves_tables_balanced_and_minimal(
    tables: int, seed: int, tolerance: int, break_order: str
) -> None:
    rng = random.Random(seed)
    policy = BalancePolicy(tolerance, break_order)
    seating = draw(tables * 9 - rng.randrange(9), seed=seed)
    check_invariants(seating, policy)
    while seating.players > 1:
        player = rng.choice(sorted(seating.where))
        number, _ = seating.where[player]
        table = seating.table(number)
        if table.count >= 2 and table.positions is not None:
            # The elimination happens in a hand, which moves that table's button on.
            seating = apply_positions(seating, number, next_positions(table.seats, table.positions))
        before = remove_player(seating, player)
        result = rebalance(before, rng, policy)
        replay_and_check_moves(before, result.seating, result.moves, result.broken)
        seating = result.seating
        check_invariants(seating, policy)


@settings(max_examples=40, deadline=None)
@given(
    tables=st.integers(2, 12),
    seed=st.integers(0, 2**32),
    tolerance=st.integers(1, 3),
    break_order=st.sampled_from(["predetermined", "random"]),
)
def test_players_only_leave_tables_between_hands_and_every_hand_end_catches_up(
    tables: int, seed: int, tolerance: int, break_order: str
) -> None:
    """Tables play hands at their own pace; eliminations happen at a hand's end. No move
    or break ever takes a player from a table playing a hand, and once every table is
    between hands the seating is balanced and minimal again."""
    rng = random.Random(seed)
    policy = BalancePolicy(tolerance, break_order)
    seating = draw(tables * 9 - rng.randrange(9), seed=seed)
    busy: set[int] = set()
    while seating.players > 1:
        number = rng.choice(seating.open_table_numbers())
        table = seating.table(number)
        if number not in busy:
            if table.count >= 2:
                seating = apply_positions(seating, number, next_positions(table.seats, table.positions))
                busy.add(number)
            continue
        busy.discard(number)  # the hand ends: someone may bust in it
        if table.count >= 2 and rng.random() < 0.7:
            seating = remove_player(seating, rng.choice([p for p in table.seats if p is not None]))
        result = rebalance(seating, rng, policy, busy=frozenset(busy))
        assert all(m.from_table not in busy for m in result.moves), "a player left a table mid-hand"
        assert not set(result.broken) & busy, "a table broke mid-hand"
        assert set(result.deferred) <= busy
        replay_and_check_moves(seating, result.seating, result.moves, result.broken)
        seating = result.seating
        if not result.deferred:
            check_invariants(seating, policy)
    settled = rebalance(seating, rng, policy)
    check_invariants(settled.seating, policy)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), entrants=st.integers(1, 30))
def test_late_entrants_keep_the_seating_balanced(seed: int, entrants: int) -> None:
    rng = random.Random(seed)
    policy = BalancePolicy()
    seating = draw(20, seed=seed)
    for index in range(entrants):
        before = seating
        seating, seat = seat_late_entrant(seating, f"late{index}", rng)
        if seat.table <= len(before.tables):
            assert seat.seat in entrant_seats(before.table(seat.table)), "TDA 8-A"
        seating = rebalance(seating, rng, policy).seating
        check_invariants(seating, policy)


def test_an_empty_seating_rejects_odd_table_sizes() -> None:
    with pytest.raises(Violation):
        empty_seating(11)
