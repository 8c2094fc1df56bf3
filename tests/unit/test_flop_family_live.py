"""A live hand, dealt from its deck by the decider, in hold'em's decider and in the flop
family (domain.games.mixed): the same deck and the same decisions must give the same
hole cards, the same board after the same burns, the same hands tabled face up at an
all-in, the same order of show, the same cards shown or mucked (by the computer on an
automatic showdown, by the players on a declared one, asking to see included) and the
same awards. docs/flop-family.md, step 2."""
from __future__ import annotations

import random
from dataclasses import astuple
from typing import Any

import pytest

from domain.games import holdem, mixed
from domain.games.dealt_hand import cards_of
from domain.games.hand_events import PostAction
from domain.rules import betting as bet
from domain.rules.betting import NO_LIMIT, BettingStructure
from domain.rules.showdown_order import AUTOMATIC, DECLARED
from domain.rules.violations import Violation
from tests.unit.test_flop_family_differential import _DECK, _choose, _flop_family_start, _random_start

HANDS = 200


def _live_starts(rng: random.Random, showdown: str) -> tuple[holdem.StartHand, mixed.StartHand]:
    start = _random_start(rng, straddles_and_dead_blinds=True)
    deck = _DECK[:]
    rng.shuffle(deck)
    ours = holdem.StartHand(start.players, start.stacks, start.button, start.betting, start.variant,
                            start.odd_chip, tuple(deck), "commitment", showdown)
    flop = _flop_family_start(start, by_structure=True)
    theirs = mixed.StartHand(flop.game, flop.players, flop.stacks, flop.button, flop.betting, (), (),
                             odd_chip=flop.odd_chip, deck=tuple(deck), commitment="commitment",
                             showdown=showdown)
    return ours, theirs


def _facts(events: list[Any]) -> list[tuple[Any, ...]]:
    """The events as comparable facts: hold'em's hole cards and board in the flop family's
    words (no street name, no up flags)."""
    facts: list[tuple[Any, ...]] = []
    for event in events:
        name = type(event).__name__
        if name == "HandStarted":
            continue
        if name in ("HoleCardsDealt", "CardsDealt"):
            facts.append(("dealt", event.position, event.cards))
        elif name == "BoardDealt":
            facts.append(("board", event.cards))
        else:
            facts.append((name, *astuple(event)))
    return facts


def _both(ours: Any, theirs: Any, command: Any, mixed_command: Any) -> tuple[Any, Any, str]:
    """Each decider's answer: a violation's code, or the events as facts (must agree)."""
    try:
        our_events, ours = holdem.handle(ours, command)
        our_answer: Any = _facts(our_events)
    except Violation as refused:
        our_answer = refused.code
    try:
        their_events, theirs = mixed.handle(theirs, mixed_command)
        their_answer: Any = _facts(their_events)
    except Violation as refused:
        their_answer = refused.code
    differs = "" if our_answer == their_answer else f"hold'em {our_answer}, flop family {their_answer}"
    return ours, theirs, differs


def _showdown_command(rng: random.Random, ours: holdem.HandState) -> tuple[Any, Any]:
    seat = ours.to_act
    assert seat is not None
    choice = rng.choice(["show", "show", "muck", "ask", "ask_other"])
    if choice == "show":
        return holdem.ShowCards(seat), mixed.ShowCards(seat)
    if choice == "muck":
        return holdem.Muck(seat), mixed.Muck(seat)
    asker = seat if choice == "ask" else rng.randrange(len(ours.players))
    return holdem.AskToSee(asker), mixed.AskToSee(asker)


def play_live(seed: int, showdown: str) -> str:
    """"" when both deciders agree at every step, else the first disagreement."""
    rng = random.Random(seed)
    our_start, their_start = _live_starts(rng, showdown)
    ours, theirs, differs = _both(None, None, our_start, their_start)
    steps = 0
    while not differs and not ours.over and steps < 200:
        steps += 1
        if ours.awaiting == "action":
            legal = holdem.legal_actions(ours)
            assert legal is not None
            # Mostly checking and calling, so that most hands reach a showdown.
            action, to = ("check" if legal.check else "call", None) if rng.random() < 0.7 else _choose(rng, legal)
            command = PostAction(ours.to_act, action, to)  # type: ignore[arg-type]
            ours, theirs, differs = _both(ours, theirs, command, command)
        elif ours.to_act is not None:  # a declared showdown: the player to show answers
            ours, theirs, differs = _both(ours, theirs, *_showdown_command(rng, ours))
        else:
            return f"hold'em stopped awaiting {ours.awaiting}"
        if not differs and (ours.to_act, ours.over) != (theirs.to_act, theirs.over):
            differs = f"to act: hold'em {ours.to_act}, flop family {theirs.to_act}"
    if not differs and ours.stacks != theirs.stacks:
        differs = f"stacks: hold'em {ours.stacks}, flop family {theirs.stacks}"
    return differs


@pytest.mark.parametrize("showdown", [AUTOMATIC, DECLARED])
def test_live_hands_are_dealt_shown_and_settled_alike_by_both_engines(showdown: str) -> None:
    different = [f"seed {seed}: {why}" for seed in range(HANDS) if (why := play_live(seed, showdown))]
    assert not different, f"{len(different)} of {HANDS} hands differ, first: {different[:3]}"


def _structure() -> BettingStructure:
    return BettingStructure(kind=NO_LIMIT, small_blind=1, big_blind=2)


def test_a_hand_with_a_deck_deals_from_it_and_burns_one_card_before_each_street() -> None:
    deck = tuple(_DECK)
    start = mixed.StartHand("rotation_holdem", ("a", "b"), (100, 100), 1, _structure(), (), (), deck=deck)
    _, state = mixed.handle(None, start)
    assert [state.hole[0], state.hole[1]] == [cards_of("".join(deck[0:2])), cards_of("".join(deck[2:4]))]
    for command in (PostAction(1, "call"), PostAction(0, "check")):
        events, state = mixed.handle(state, command)
    assert [e.cards for e in events if isinstance(e, mixed.BoardDealt)] == ["".join(deck[5:8])]
    assert state.deck_position == 8


def test_a_hand_with_a_deck_is_not_dealt_by_command() -> None:
    start = mixed.StartHand("rotation_holdem", ("a", "b"), (100, 100), 1, _structure(), (), (), deck=tuple(_DECK))
    _, state = mixed.handle(None, start)
    with pytest.raises(Violation, match="deals this hand from its deck"):
        mixed.handle(state, mixed.DealBoard("2c3c4c"))


def test_only_the_board_and_draw_games_are_dealt_from_a_deck_in_the_hand() -> None:
    # The draw games are since dealt from theirs too (docs/draw-family.md): stud is not.
    start = mixed.StartHand("stud", ("a", "b"), (100, 100), 1, _structure(), (1, 1), (0, 0), bring_in=1,
                            deck=tuple(_DECK))
    with pytest.raises(Violation, match="dealt by the table"):
        mixed.handle(None, start)


@pytest.mark.parametrize(("game", "players", "seated"), [
    ("rotation_holdem", 23, True), ("rotation_holdem", 24, False), ("badugi", 11, False), ("stud", 9, False)])
def test_board_games_seat_up_to_twenty_three(game: str, players: int, seated: bool) -> None:
    names = tuple(f"p{i}" for i in range(players))
    antes = (1,) * players if game == "stud" else ()
    start = mixed.StartHand(game, names, (100,) * players, 0, _structure(), antes, antes and (0,) * players)
    if seated:
        assert mixed.handle(None, start)[1].phase == "deal"
    else:
        with pytest.raises(Violation):
            mixed.handle(None, start)


@pytest.mark.parametrize(("game", "bad_card"), [("rotation_holdem", "??"), ("rotation_holdem", "AsKs"),
                                                ("short_deck", "2c")])
def test_a_deck_holds_only_the_games_own_cards(game: str, bad_card: str) -> None:
    own = [card for card in _DECK if game != "short_deck" or card[0] not in "2345"]
    deck = tuple(card for card in own if card != "2c") + (bad_card,)
    start = mixed.StartHand(game, ("a", "b"), (100, 100), 1, _structure(), (), (), deck=deck)
    with pytest.raises(Violation) as refused:
        mixed.handle(None, start)
    assert refused.value.code == "invalid_card"


def test_a_deck_holds_each_card_once() -> None:
    deck = tuple(_DECK[:-1]) + (_DECK[0],)
    start = mixed.StartHand("rotation_holdem", ("a", "b"), (100, 100), 1, _structure(), (), (), deck=deck)
    with pytest.raises(Violation) as refused:
        mixed.handle(None, start)
    assert refused.value.code == "duplicate_card"


@pytest.mark.parametrize("showdown", [AUTOMATIC, DECLARED])
def test_the_state_a_live_hand_is_handled_to_is_the_one_its_events_replay_to(showdown: str) -> None:
    """`handle` may evolve its own events in one step (every hole card dealt at once): after
    every command its state is the one that evolving the events one by one gives."""
    for seed in range(60):
        rng = random.Random(seed)
        _, start = _live_starts(rng, showdown)
        events, state = mixed.handle(None, start)
        assert mixed.replay(events) == state
        while not state.over:
            if state.phase == "action":
                action, to = _choose(rng, bet.legal_actions(state.betting))
                command: Any = PostAction(state.to_act, action, to)  # type: ignore[arg-type]
            else:
                seat = state.to_act
                assert seat is not None
                command = rng.choice([mixed.ShowCards(seat), mixed.Muck(seat), mixed.AskToSee(seat)])
            try:
                more, state = mixed.handle(state, command)
            except Violation:
                continue  # a hand asked to see of nobody: the player answers again
            events += more
            assert mixed.replay(events) == state, f"seed {seed}, after {command}"
