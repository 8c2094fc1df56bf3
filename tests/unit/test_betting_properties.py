"""Invariants over random legal hands: 2-9 players, every betting structure."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from domain.betting import BettingStructure
from domain.cards import format_card
from domain.games.holdem import PostAction, StartHand, decide, handle, legal_actions, replay
from domain.violations import Violation

STRUCTURES = [
    BettingStructure("no-limit", small_blind=5, big_blind=10),
    BettingStructure("no-limit", small_blind=5, big_blind=10, ante=2, straddles=(20,)),
    BettingStructure("no-limit", small_blind=5, big_blind=10, ante=10, big_blind_ante=True),
    BettingStructure("pot-limit", small_blind=5, big_blind=10),
    BettingStructure("pot-limit", small_blind=5, big_blind=10, dead_small_blind=True),
    BettingStructure("fixed-limit", small_blind=5, big_blind=10, small_bet=10, big_bet=20),
    BettingStructure("fixed-limit", small_blind=5, big_blind=10, small_bet=10, big_bet=20,
                     raise_cap=5, heads_up_uncapped=True),
]


def rejected_code(state, seat, action, to):
    try:
        decide(state, PostAction(seat, action, to))
    except Violation as violation:
        return violation.code
    return None


def check_boundaries(state, seat, legal, structure):
    """Amounts just outside each legal range are rejected with the right code."""
    kind = structure.kind
    b = state.betting
    all_in = b.bets[seat] + b.stacks[seat]
    for name, option in (("bet", legal.bet), ("raise", legal.raise_)):
        if option is None:
            continue
        below, above = option.min_to - 1, option.max_to + 1
        if option.min_to < all_in and below > b.bets[seat]:
            expected = "wrong_fixed_amount" if kind == "fixed-limit" else f"{name}_below_minimum"
            assert rejected_code(state, seat, name, below) == expected
        if above > all_in:
            expected_above = "exceeds_stack"
        elif kind == "pot-limit":
            expected_above = "above_pot_limit"
        else:
            expected_above = "wrong_fixed_amount"
        assert rejected_code(state, seat, name, above) == expected_above
    if legal.raise_ is None and legal.bet is None and legal.raise_closed_reason == "not_reopened":
        assert rejected_code(state, seat, "raise", all_in) == "raise_not_reopened"
    if legal.call is not None:
        assert rejected_code(state, seat, "check", None) == "check_facing_bet"
    else:
        assert rejected_code(state, seat, "call", None) == "call_nothing_to_call"


@settings(max_examples=70, deadline=None)
@given(st.data())
def test_random_legal_hands_conserve_chips_and_replay_to_the_same_state(data):
    structure = data.draw(st.sampled_from(STRUCTURES))
    players = data.draw(st.integers(2, 9))
    stacks = tuple(data.draw(st.lists(st.integers(1, 400), min_size=players, max_size=players)))
    button = data.draw(st.integers(0, players - 1))
    deck = tuple(format_card(c) for c in data.draw(st.permutations(range(52))))
    names = tuple(f"P{i}" for i in range(players))
    events, state = handle(None, StartHand(names, stacks, button, structure, deck=deck))
    total = sum(stacks)
    while not state.over:
        assert sum(state.stacks) + state.betting.pot_total == total
        seat = state.to_act
        legal = legal_actions(state)
        check_boundaries(state, seat, legal, structure)
        choices = ["fold"] + (["check"] if legal.check else []) + (["call"] if legal.call else [])
        choices += ["bet"] * (legal.bet is not None) + ["raise"] * (legal.raise_ is not None)
        action = data.draw(st.sampled_from(choices))
        option = legal.bet if action == "bet" else legal.raise_
        to = data.draw(st.integers(option.min_to, option.max_to)) if option else None
        new_events, state = handle(state, PostAction(seat, action, to))
        events += new_events
    assert sum(state.stacks) == total
    assert all(stack >= 0 for stack in state.stacks)
    assert replay(events) == state
