"""The replay fast paths give exactly what the general rules give (no timing here: speed is
measured by `make bench`). Each shortcut is checked against the slower rule it replaces."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.rules import betting as bet
from domain.rules.betting import BettingStructure
from domain.rules.pots import SPLIT_EXACTLY, award_pots, build_pots, split
from domain.rules.violations import Violation

amounts = st.one_of(st.integers(0, 500), st.fractions(0, 500, max_denominator=4))


@settings(max_examples=200, deadline=None)
@given(amount=st.one_of(st.integers(1, 10_000), st.fractions(0, 1000, max_denominator=6)),
       count=st.integers(1, 6))
def test_splitting_exactly_gives_whole_shares_as_ints_and_the_rest_as_fractions(amount, count):
    _, shares = split(amount, tuple(range(count)), button=count - 1, seat_count=count,
                      odd_chip=SPLIT_EXACTLY)
    exact = Fraction(amount) / count
    assert all(share == exact for share in shares)
    assert all(type(share) is (int if exact.denominator == 1 else Fraction) for share in shares)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_pot_won_by_folds_is_what_the_side_pot_rules_would_award(data):
    n = data.draw(st.integers(2, 6))
    committed = tuple(data.draw(st.lists(amounts, min_size=n, max_size=n)))
    winner = data.draw(st.integers(0, n - 1))
    folded = tuple(seat != winner for seat in range(n))
    all_in = tuple(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    dead = data.draw(st.integers(0, 50))
    general = award_pots(build_pots(committed, folded, all_in, dead), {}, n - 1, n, SPLIT_EXACTLY)
    total = sum(committed) + dead
    assert [(a.amount, a.eligible, a.winners, a.shares) for a in general] == [
        (total, (winner,), (winner,), (total,))]


@settings(max_examples=200, deadline=None)
@given(st.lists(amounts, min_size=2, max_size=6))
def test_uncalled_chips_are_the_excess_of_the_single_biggest_contribution(committed):
    state = bet.open_hand(BettingStructure(small_blind=1, big_blind=2), tuple(
        f"p{i}" for i in range(len(committed))), (1000,) * len(committed), 0)
    state = bet.with_changes(state, committed=tuple(committed))
    top = max(committed)
    others = sorted(committed, reverse=True)[1]
    expected = (committed.index(top), top - others) if top > others else (None, 0)
    assert bet.uncalled_chips(state) == expected
    returned, seat, amount = bet.return_uncalled(state)
    assert (seat, amount) == expected
    if seat is not None:
        assert returned.committed[seat] == others


def _started(players: int = 3) -> holdem.HandState:
    structure = BettingStructure(small_blind=1, big_blind=2)
    _, state = holdem.handle(None, holdem.StartHand(
        tuple(f"p{i}" for i in range(players)), (100,) * players, players - 1, structure))
    return state


def test_hole_cards_in_any_spelling_are_dealt_in_canonical_form():
    events, _ = holdem.handle(_started(), holdem.DealHole(0, "as kd"))
    assert events == [holdem.HoleCardsDealt(0, "AsKd")]


def test_a_card_already_dealt_cannot_be_dealt_again_canonical_or_not():
    _, state = holdem.handle(_started(), holdem.DealHole(0, "AsKd"))
    for text in ("KdQc", "qc kd"):
        with pytest.raises(Violation) as refused:
            holdem.handle(state, holdem.DealHole(1, text))
        assert refused.value.code == "duplicate_card"


def test_the_same_card_twice_in_one_deal_is_refused():
    with pytest.raises(Violation) as refused:
        holdem.handle(_started(), holdem.DealHole(0, "AsAs"))
    assert refused.value.code == "duplicate_card"


def test_the_last_fold_returns_the_uncalled_bet_and_awards_the_pot_once():
    state = _started(3)  # p0 small blind 1, p1 big blind 2, p2 (button) acts first
    _, state = holdem.handle(state, holdem.PostAction(2, "raise", 6))
    _, state = holdem.handle(state, holdem.PostAction(0, "fold"))
    events, state = holdem.handle(state, holdem.PostAction(1, "fold"))
    assert events[1:] == [
        holdem.UncalledReturned(2, 4),
        holdem.PotAwarded(5, (2,), (2,), (5,)),
        holdem.HandEnded((99, 98, 103), False),
    ]
    assert state.over and state.stacks == (99, 98, 103)
