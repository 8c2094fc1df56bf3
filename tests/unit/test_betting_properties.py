"""Invariants over random legal hands: 2-9 players, every betting structure."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games.holdem import PostAction, StartHand, decide, handle, legal_actions, replay
from domain.rules.betting import BettingStructure, apply_action, check_action, open_hand, start_round
from domain.rules.betting import legal_actions as betting_legal
from domain.rules.cards import format_card
from domain.rules.violations import Violation

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


@settings(max_examples=80, deadline=None)
@given(unit=st.integers(2, 50), bet_units=st.integers(0, 1), short=st.data())
def test_a_fixed_limit_all_in_of_half_a_unit_or_more_is_raised_one_unit_on_top(unit, bet_units, short):
    """Robert's Rules, Betting and Raising 6: whatever the all-in (at least half a unit over
    the bet it faces, less than a full raise), the next raise goes to the all-in plus one unit."""
    structure = BettingStructure("fixed-limit", small_blind=unit // 2, big_blind=unit,
                                 small_bet=unit, big_bet=2 * unit)
    faced = bet_units * unit  # 0: the all-in opens the round; unit: it raises a bet
    over = short.draw(st.integers(-(-unit // 2), unit - 1))  # half a unit (rounded up) or more
    all_in = faced + over
    stacks = (10 * unit, unit + all_in, 10 * unit)  # the big blind called pre-flop
    state = open_hand(structure, ("A", "B", "C"), stacks, button=2)
    while state.to_act is not None:
        seat = state.to_act
        action = "call" if state.highest > state.bets[seat] else "check"
        state = apply_action(state, seat, action, check_action(state, seat, action))
    state = start_round(state, late=False)
    state = apply_action(state, 0, "bet", check_action(state, 0, "bet", faced)) if faced else apply_action(state, 0, "check", check_action(state, 0, "check"))
    action = "raise" if faced else "bet"
    state = apply_action(state, 1, action, check_action(state, 1, action, all_in))
    assert state.stacks[1] == 0
    raise_ = betting_legal(state).raise_
    assert raise_ is not None and raise_.min_to == raise_.max_to == all_in + unit
