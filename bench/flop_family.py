"""What one decision of a live hold'em table costs through hold'em's vocabulary
(domain.games.holdem: the flop family's engine writing hold'em's events, behind a view of
hold'em's state) and in the flop family's engine itself (domain.games.mixed, as a
rotation's hold'em): the cost of hold'em's layer (docs/flop-family.md). Until issue 36's
step 3 the first was hold'em's own decider; its figure against today's is measured by
running this bench on both commits, interleaved (tools/bench_compare.py).

A fixed, seeded set of live hands (no-limit, 2 to 9 players, the deck dealt by the
decider, the showdown automatic) is played once in hold'em to record each hand's commands;
each round then times `handle` (decide, and evolve of the events) over every command, in
both, alternately (A, B, A, B ...) so that the shared machine's noise falls on
both, and counts the process's own CPU time, not the wall clock (up to 8 helpers share
the machine's 2 cores). The figures are milliseconds per player action (the deals,
burns, showdown and settlement that follow an action are part of its cost), medians over
the rounds.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench import SMOKE
from domain.games import holdem, mixed
from domain.games.hand_events import PostAction
from domain.rules.betting import NO_LIMIT, BettingStructure, LegalActions
from domain.rules.cards import RANKS, SUITS

HANDS = 40 if SMOKE else 400
ROUNDS = 2 if SMOKE else 9
_DECK = [rank + suit for rank in RANKS for suit in SUITS]
_STRUCTURE = BettingStructure(kind=NO_LIMIT, small_blind=50, big_blind=100)

Hand = tuple[holdem.StartHand, mixed.StartHand, tuple[PostAction, ...]]


def _choose(rng: random.Random, seat: int, legal: LegalActions) -> PostAction:
    """Mostly checks and calls (as tables play: most hands see a flop), some folds and raises."""
    roll = rng.random()
    sizes = legal.bet or legal.raise_
    if roll < 0.15 and legal.call:
        return PostAction(seat, "fold")
    if roll > 0.85 and sizes:
        return PostAction(seat, "bet" if legal.bet else "raise", rng.randint(int(sizes.min_to), int(sizes.max_to)))
    return PostAction(seat, "check" if legal.check else "call")


def hands(count: int = HANDS, seed: int = 36) -> list[Hand]:
    rng = random.Random(seed)
    made: list[Hand] = []
    for _ in range(count):
        n = rng.randint(2, 9)
        players = tuple(f"p{i}" for i in range(n))
        stacks = tuple(rng.randint(20, 300) * 100 for _ in range(n))
        deck = _DECK[:]
        rng.shuffle(deck)
        ours = holdem.StartHand(players, stacks, n - 1, _STRUCTURE, deck=tuple(deck), commitment="c")
        theirs = mixed.StartHand("rotation_holdem", players, stacks, n - 1, _STRUCTURE, (), (),
                                 odd_chip=ours.odd_chip, deck=tuple(deck), commitment="c")
        actions: list[PostAction] = []
        _, state = holdem.handle(None, ours)
        while not state.over:
            legal = holdem.legal_actions(state)
            assert legal is not None and state.to_act is not None
            action = _choose(rng, state.to_act, legal)
            actions.append(action)
            _, state = holdem.handle(state, action)
        made.append((ours, theirs, tuple(actions)))
    return made


def _timed(handle: Callable[[Any, Any], tuple[list[Any], Any]], starts: list[Any],
           played: list[tuple[PostAction, ...]]) -> float:
    started = time.process_time()
    for start, actions in zip(starts, played):
        _, state = handle(None, start)
        for action in actions:
            _, state = handle(state, action)
        assert state.over
    return time.process_time() - started


def run() -> dict[str, float]:
    made = hands()
    played = [actions for _, _, actions in made]
    action_count = sum(len(actions) for actions in played)
    holdem_starts = [ours for ours, _, _ in made]
    flop_starts = [theirs for _, theirs, _ in made]
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(ROUNDS):
        ours.append(_timed(holdem.handle, holdem_starts, played))
        theirs.append(_timed(mixed.handle, flop_starts, played))
    holdem_ms = statistics.median(ours) * 1000 / action_count
    flop_ms = statistics.median(theirs) * 1000 / action_count
    return {"flop_family.holdem_live_ms_per_action": holdem_ms,
            "flop_family.flop_family_live_ms_per_action": flop_ms,
            "flop_family.flop_family_to_holdem_ratio": flop_ms / holdem_ms}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<50} {value:.4f}")
