"""Hold'em played in the flop family's engine (docs/flop-family.md, step 3): what a replay
keeps of hold'em's own rules, and what snapshots make of the view over the engine's state."""
from __future__ import annotations

import json

import pytest

from domain.games import holdem
from domain.games.hand_events import PostAction
from domain.games.holdem import DealBoard, DealHole, HandState, Muck, ShowCards, StartHand, handle
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck
from domain.rules.violations import Violation
from service.application import snapshots

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
PLAYERS = ("A", "B", "C")


def _replayed(*commands: object) -> HandState:
    events, state = handle(None, StartHand(PLAYERS, (1000,) * 3, 2, NL))
    for command in commands:
        more, state = handle(state, command)  # type: ignore[arg-type]
        events += more
    assert holdem.replay(events) == state
    return state


def _to_showdown() -> tuple[object, ...]:
    return (PostAction(2, "call"), PostAction(0, "call"), PostAction(1, "check"), DealBoard("2s3s9d"),
            *(PostAction(s, "check") for s in (0, 1, 2)), DealBoard("Jc"),
            *(PostAction(s, "check") for s in (0, 1, 2)), DealBoard("Qh"),
            *(PostAction(s, "check") for s in (0, 1, 2)))


def test_a_replay_bets_at_once_and_its_hole_cards_are_none_until_a_deal_names_them():
    state = _replayed()
    assert state.hole == (None, None, None) and state.awaiting == "action" and state.to_act == 2
    state = _replayed(PostAction(2, "call"), DealHole(1, "AsAh"))
    assert state.hole == (None, (48, 49), None) and state.to_act == 0


def test_deal_hole_keeps_its_own_refusals():
    with pytest.raises(Violation, match="B already has cards"):
        _replayed(DealHole(1, "AsAh"), DealHole(1, "KsKh"))
    with pytest.raises(Violation, match="holdem deals 2 hole cards, not 3"):
        _replayed(DealHole(1, "AsAhKd"))
    with pytest.raises(Violation, match="As is already dealt"):
        _replayed(DealHole(1, "AsAh"), DealHole(0, "KsAs"))
    deck = tuple(format_card(c) for c in new_deck())
    _, live = handle(None, StartHand(PLAYERS, (1000,) * 3, 2, NL, deck=deck, commitment="c"))
    with pytest.raises(Violation, match="the service deals this hand from its deck"):
        handle(live, DealHole(1, "AsAh"))


def test_a_known_hand_is_shown_without_its_cards_an_unknown_one_must_name_them():
    state = _replayed(DealHole(0, "AsAh"), *_to_showdown())
    assert state.awaiting == "showdown"
    events, state = handle(state, ShowCards(0))
    assert [(type(e).__name__, e.cards) for e in events] == [("CardsShown", "AsAh")]  # type: ignore[union-attr]
    with pytest.raises(Violation, match="B's cards are unknown: say which"):
        handle(state, ShowCards(1))


def test_a_hand_shown_twice_is_refused_in_a_replay():
    state = _replayed(DealHole(0, "AsAh"), *_to_showdown(), ShowCards(0))
    with pytest.raises(Violation, match="A is not holding a live hand"):
        handle(state, ShowCards(0))
    with pytest.raises(Violation, match="A is not holding a live hand"):
        handle(state, Muck(0))


def test_a_replay_settles_once_every_hand_is_shown_or_mucked_in_any_order():
    state = _replayed(DealHole(0, "AsAh"), DealHole(1, "KsKh"), *_to_showdown(),
                      Muck(2), ShowCards(1), ShowCards(0))
    assert state.over and state.showdown and state.stacks == (1200, 900, 900)


def test_the_view_encodes_to_itself_and_a_snapshot_of_the_old_shape_is_refused_not_misread():
    for state in (_replayed(DealHole(0, "AsAh"), PostAction(2, "raise", 300)),
                  handle(None, StartHand(PLAYERS, (1000,) * 3, 2, NL, deck=tuple(format_card(c) for c in new_deck()),
                                         commitment="c"))[1]):
        assert snapshots.decode(snapshots.encode(state, {}))[0] == state
    # Hold'em's own state before step 3 named the same class with its own fields: built
    # through the view's constructor, such a body fails, and the loader replays the table.
    old_shape = {"@": "domain.games.holdem:HandState", "variant": "holdem", "players": list(PLAYERS),
                 "board": [], "over": False}
    with pytest.raises(TypeError):
        snapshots.decode(json.dumps({"state": old_shape, "idempotency_keys": {}, "first_metadata": {}}))


@pytest.mark.parametrize("deck", [None, tuple(format_card(c) for c in new_deck())])
def test_the_view_keeps_the_uncalled_chips_given_back_as_the_events_replay_them(deck):
    events, state = handle(None, StartHand(PLAYERS, (1000,) * 3, 2, NL, deck=deck, commitment="c"))
    for command in (PostAction(2, "raise", 300), PostAction(0, "fold"), PostAction(1, "fold")):
        more, state = handle(state, command)
        events += more
    assert state.returned == ((2, 200),) and state.over
    assert holdem.replay(events) == state


def test_a_fixed_limit_raise_short_of_the_fixed_amount_is_refused_though_it_covers_the_opponent():
    """Hold'em's fixed limit is the fixed amount or all in: Bob (13 chips, 10 in the big
    blind) can match a raise to 13 at most, and a raise to 13 is still not one (the engine
    takes such a bet for the mixed games' records; the random betting properties found it)."""
    fixed = BettingStructure("fixed-limit", small_blind=5, big_blind=10, small_bet=10, big_bet=20)
    _, state = handle(None, StartHand(("Ann", "Bob"), (100, 13), 0, fixed, deck=tuple(format_card(c) for c in range(52))))

    with pytest.raises(Violation) as refused:
        handle(state, PostAction(0, "raise", 13))
    assert refused.value.code == "wrong_fixed_amount"
    assert handle(state, PostAction(0, "raise", 20))[1].betting.bets == (20, 10)
