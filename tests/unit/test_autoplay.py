"""The computer player: check when possible, call a small bet with a pair or better, fold
otherwise; on a timeout never call; the same state always gets the same action."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.live.autoplay import betting_choice, holdem_auto_action, holds_pair_or_better
from domain.live.table import handle
from domain.live.table_commands import Act, CreateTable, SitOut, StartNextHand, TableSeat
from domain.live.table_events import AutomaticAction
from domain.rules.betting import AmountRange, BettingStructure, CallOption, LegalActions
from domain.rules.cards import format_card, new_deck, parse_cards

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SALT = "ef" * 32


def facing(adds: int | None) -> LegalActions:
    """What a player may do facing a bet that costs `adds` more (None: nothing to call)."""
    if adds is None:
        return LegalActions(True, True, None, AmountRange(100, 1000), None, None)
    return LegalActions(True, False, CallOption(adds, adds), None, AmountRange(2 * adds, 1000), None)


def test_the_computer_checks_when_it_may():
    assert betting_choice(facing(None), 100, pair_or_better=False, timed_out=False) == "check"
    assert betting_choice(facing(None), 100, pair_or_better=True, timed_out=True) == "check"


def test_the_computer_calls_a_bet_of_one_big_blind_with_a_pair():
    assert betting_choice(facing(100), 100, pair_or_better=True, timed_out=False) == "call"


def test_the_computer_folds_to_a_bigger_bet_even_with_a_pair():
    assert betting_choice(facing(101), 100, pair_or_better=True, timed_out=False) == "fold"


def test_the_computer_folds_a_small_bet_without_a_pair():
    assert betting_choice(facing(50), 100, pair_or_better=False, timed_out=False) == "fold"


def test_a_timed_out_player_never_calls():
    assert betting_choice(facing(50), 100, pair_or_better=True, timed_out=True) == "fold"


@pytest.mark.parametrize("hole, board, variant, expected", [
    ("7s7d", "", "holdem", True),
    ("AsKd", "", "holdem", False),
    ("AsKd", "Kc9h2s", "holdem", True),
    ("AsKd", "9c9h2s", "holdem", True),  # the board's pair plays in hold'em
    ("AsKdQh3c", "", "omaha", False),
    ("AsKdQhAc", "", "omaha", True),
    ("AsKdQh3c", "Jc9h2s", "omaha", False),
    ("AsKdQh3c", "Ac9h2s", "omaha", True),
])
def test_a_pair_or_better(hole, board, variant, expected):
    assert holds_pair_or_better(parse_cards(hole), parse_cards(board), variant) is expected


def stacked_deck(first: str) -> tuple[str, ...]:
    """A deck that deals `first` first, the rest in pack order."""
    top = parse_cards(first)
    return tuple(format_card(c) for c in (*top, *(c for c in new_deck() if c not in top)))


def test_an_absent_big_blind_with_a_pocket_pair_calls_a_min_raise_of_one_big_blind():
    # Heads-up, button P0; hole cards go to P1 first: P1 gets 8s8d, P0 gets AsKd.
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    _, state = handle(None, CreateTable("t", "holdem", {}, NL, seats))
    _, state = handle(state, SitOut("P1"))
    _, state = handle(state, StartNextHand(stacked_deck("8s8dAsKd"), SALT))
    events, state = handle(state, Act("P0", "raise", 200))
    auto = events.index(AutomaticAction("t.1", 1, "P1", "sitting_out"))
    assert (events[auto + 1].position, events[auto + 1].action) == (1, "call")


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(52))), st.booleans())
def test_the_same_hand_always_gets_the_same_action(order, timed_out):
    deck = tuple(format_card(c) for c in order)
    hand = holdem.replay(holdem.decide(None, holdem.StartHand(("A", "B", "C"), (1000, 1000, 1000), 0, NL,
                                                                deck=deck)))
    seat = hand.to_act
    first = holdem_auto_action(hand, seat, timed_out)
    assert holdem_auto_action(hand, seat, timed_out) == first
    assert first.action in ("check", "call", "fold")
    holdem.decide(hand, first)  # always a legal action
