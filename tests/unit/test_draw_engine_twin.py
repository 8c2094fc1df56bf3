"""Five-card draw in the draw family's engine (domain.games.draw.engine) against five-card
draw's own decider (domain.games.draw.decide), command by command: random hands of every
setting (the draw-family differential's: structures, antes, stacks, draw limits, second
round starts, jacks or better, the joker, redeals, false openers, split openers, greedy
draws that run the stub out, the declared showdown, no-betting mode), each command given
to both. Both must write the same events (names, fields, order), refuse the same
commands by code, and leave states that read the same (`_READS`); the engine's state
must be the one its events replay to.
"""
from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from domain import records
from domain.games.draw import decide as old
from domain.games.draw import engine
from domain.games.draw import legal as draw_legal
from domain.games.draw import openers as draw_openers
from domain.games.draw import stream as draw_stream
from domain.games.draw.commands import AskToSee, Discard, FalseOpeners, Muck, OpenWithoutProof, Redeal, ShowCards, StartHand
from domain.games.draw.openers import breaks_openers
from domain.games.draw.state import HAND_SIZE
from domain.games.draw_settings import NO_BETTING
from domain.games.hand_events import PostAction
from domain.rules import betting as bet
from domain.rules.cards import format_cards
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation
from tests.unit.test_draw_family_differential import _random_start, _reshuffle_order
from tests.unit.test_flop_family_differential import _choose

HANDS = 300
_READS = ("phase", "players", "button", "hands", "dealt", "drawn", "stub", "muck", "opener", "redeals",
          "stacks", "awards", "points", "showdown", "shown", "mucked", "to_act", "to_show", "awaiting",
          "at_showdown", "draw_to_act", "contenders", "pots", "over", "deck", "commitment", "reshuffle_order",
          "acted_after_open", "folded_at_open", "betting")


def _reads(state: Any) -> dict[str, Any]:
    values = {name: getattr(state, name) for name in _READS}
    if state.phase in ("first_round", "redeal"):
        values.pop("folded_at_open")  # the family notes it only while a seat has opened
    if state.betting is not None:
        b = state.betting
        values["betting"] = (b.bets, b.stacks, b.folded, b.to_act, b.committed, b.highest)
    if state.over:  # a hand over is shown no more pots, nor whose turn
        values.pop("at_showdown")
    return values


class Twins:
    """The two deciders' states, a command given to both at a time."""

    def __init__(self) -> None:
        self.old: Any = None
        self.new: Any = None
        self.commands = 0

    def give(self, command: Any) -> bool:
        """Both take it (True) or both refuse it by the same code (False)."""
        try:
            mine, old_state = old.handle(self.old, command)
        except Violation as refused:
            code = refused.code
            with pytest.raises(Violation) as theirs:
                engine.handle(self.new, command)
            assert theirs.value.code == code, (command, code, theirs.value)
            return False
        events, new_state = engine.handle(self.new, command)
        assert events == mine, (command, mine, events)
        self.commands += 1
        assert _reads(new_state) == _reads(old_state), command
        self.old, self.new = old_state, new_state
        return True


def _play(seed: int, no_betting: bool) -> tuple[Twins, list[Any]]:
    rng = random.Random(seed)
    greedy = rng.random() < 0.2
    start = _random_start(rng, greedy)
    if no_betting:
        start = dataclasses.replace(start, stacks=(), settings=dataclasses.replace(start.settings, mode=NO_BETTING))
    if rng.random() < 0.4:
        start = dataclasses.replace(start, settings=dataclasses.replace(start.settings, showdown=DECLARED))
    twins = Twins()
    assert twins.give(start)
    stream = list(old.handle(None, start)[0])
    while not twins.old.over:
        state = twins.old
        command = _next_command(rng, state, greedy)
        before = len(stream)
        if twins.give(command):
            stream.extend(old.handle(state, command)[0])
        assert len(stream) >= before
    return twins, stream


def _next_command(rng: random.Random, state: Any, greedy: bool) -> Any:
    seat = rng.randrange(len(state.players))
    if rng.random() < 0.1:  # anything, mostly refused
        return rng.choice([PostAction(seat, "check"), PostAction(seat, "bet", 10 ** 6), Discard(seat, ("As",)),
                           ShowCards(seat), Muck(seat), AskToSee(seat), FalseOpeners(seat),
                           Redeal(tuple(state.deck)), OpenWithoutProof(seat, 1)])
    if state.opener is not None and rng.random() < 0.1:
        return FalseOpeners(state.opener if rng.random() < 0.8 else seat)
    awaiting = state.awaiting
    if awaiting == "redeal":
        deck = list(state.deck)
        rng.shuffle(deck)
        order = _reshuffle_order(rng, deck) if state.reshuffle_order is not None else None
        return Redeal(tuple(deck), None, order)
    if awaiting == "draw":
        drawer = state.draw_to_act
        hand = list(state.hands[drawer])
        thrown = rng.sample(hand, HAND_SIZE if greedy else rng.randint(0, HAND_SIZE))
        while len(thrown) > draw_legal.draw_limit(state.settings, [c for c in hand if c not in thrown]):
            thrown.pop()
        text = format_cards(thrown)
        discard = tuple(text[i:i + 2] for i in range(0, len(text), 2))
        split = breaks_openers(state, drawer, discard) if rng.random() < 0.9 else not breaks_openers(
            state, drawer, discard)
        return Discard(drawer, discard, split)
    if awaiting == "showdown":
        roll = rng.random()
        if roll < 0.2:
            return AskToSee(seat)
        return Muck(state.to_act) if roll < 0.6 else ShowCards(state.to_act)
    to_act, legal = state.to_act, draw_legal.legal_actions(state)
    sizes = bet.legal_actions(state.wagers)
    if draw_openers.needs_openers(state) and legal.bet is None and sizes is not None and sizes.bet is not None \
            and rng.random() < 0.3:
        return OpenWithoutProof(to_act, rng.choice([sizes.bet.min_to, sizes.bet.max_to]))
    action, to = _choose(rng, legal)
    return PostAction(to_act, action, to)


@pytest.mark.parametrize("no_betting", [False, True])
def test_the_engine_writes_five_card_draws_events_and_reads_as_its_state(no_betting: bool) -> None:
    commands = 0
    for seed in range(HANDS if not no_betting else HANDS // 3):
        twins, stream = _play(seed, no_betting)
        commands += twins.commands
        replayed = engine.replay(stream)
        assert _reads(replayed) == _reads(twins.new), seed
        assert replayed.hand == twins.new.hand, seed
    assert commands > HANDS


_RECORDED = Path(__file__).parent / "recorded" / "five_card_draw_hands.json"
_COMMAND_TYPES = {cls.__name__: cls for cls in (StartHand, PostAction, Discard, Redeal, OpenWithoutProof,
                                                FalseOpeners, ShowCards, Muck, AskToSee)}


def test_hands_recorded_by_mains_decider_are_decided_and_replayed_alike() -> None:
    """120 hands played by main's five-card draw decider (5511cdd; `_next_command`'s
    choices: 90 betting, 30 without chips), each command with the events it wrote or the
    code it was refused by, and the hand's end: the engine must write the same events,
    refuse by the same code, and its replay of the stream must end where main's did."""
    hands = json.loads(_RECORDED.read_text())
    assert len(hands) == 120
    for recorded in hands:
        state: Any = None
        stream: list[Any] = []
        for step in recorded["steps"]:
            command = records.from_record(_COMMAND_TYPES, *step["command"])
            if "refused" in step:
                with pytest.raises(Violation) as refused:
                    engine.handle(state, command)
                assert refused.value.code == step["refused"], (recorded["seed"], command)
                continue
            events, state = engine.handle(state, command)
            assert [list(records.to_record(event)) for event in events] == step["events"], (recorded["seed"], command)
            stream.extend(records.from_record(draw_stream.EVENT_TYPES, *event) for event in step["events"])
        replayed = engine.replay(stream)
        end = {name: getattr(replayed, name) for name in recorded["end"]}
        assert json.loads(json.dumps(end)) == recorded["end"], recorded["seed"]

