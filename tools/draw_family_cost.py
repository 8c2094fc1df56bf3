"""What a five-card draw command costs as five-card draw's tables decide it (domain.games.draw.engine:
the draw family's engine writing five-card draw's events, since issue 36 step 5) and in
the draw family dealing from its deck in its own events (domain.games.mixed): the cost of
speaking five-card draw's words (docs/draw-family.md).

    .venv/bin/python tools/draw_family_cost.py [--rounds 5] [--seeds 2000]

Plays the draw-family differential's hands that the draw family deals itself
(tests/unit/test_draw_family_differential.py: the same deck, the same commands in both,
command by command, so the shared machine's noise falls on both alike) and counts the
process's CPU time of each engine's `handle` (the refusal probes are not timed). Prints each
round's microseconds a command and milliseconds a hand, then the medians.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.games import dealt_games, mixed  # noqa: E402
from domain.games.draw import engine as draw_engine  # noqa: E402
from tests.unit import test_draw_family_differential as differential  # noqa: E402


def _timed(handle: Callable[[Any, Any], Any], spent: list[float]) -> Callable[[Any, Any], Any]:
    def timed(state: Any, command: Any) -> Any:
        start = time.process_time()
        try:
            return handle(state, command)
        finally:
            spent.append(time.process_time() - start)
    return timed


def one_round(seeds: int) -> tuple[float, float, float, float]:
    """(five-card draw µs a command, the draw family's, five-card draw ms a hand, the draw family's)."""
    ours: list[float] = []
    theirs: list[float] = []
    refusal = differential._refusal
    timed_ours, timed_theirs = _timed(draw_engine.handle, ours), _timed(mixed.handle, theirs)
    untimed: dict[Callable[[Any, Any], Any], Callable[[Any, Any], Any]] = {
        timed_ours: draw_engine.handle, timed_theirs: mixed.handle}

    def untimed_refusal(handle: Callable[[Any, Any], object], state: object, command: object) -> str | None:
        return refusal(untimed.get(handle, handle), state, command)

    hands = [seed for seed in range(seeds) if random.Random(seed).random() < 0.5]  # play_in_both's `dealt`
    with patch.object(draw_engine, "handle", timed_ours), patch.object(mixed, "handle", timed_theirs), \
            patch.object(differential, "_refusal", untimed_refusal):
        for seed in hands:
            differential.play_in_both(seed)
    return (sum(ours) / len(ours) * 1e6, sum(theirs) / len(theirs) * 1e6,
            sum(ours) / len(hands) * 1e3, sum(theirs) / len(hands) * 1e3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=2000)
    args = parser.parse_args()
    game = differential.FIVE_CARD_DRAW
    dealt_games.DEALT_GAMES[game.name] = game
    rounds = [one_round(args.seeds) for _ in range(args.rounds)]
    for figures in (*rounds, tuple(statistics.median(r[i] for r in rounds) for i in range(4))):
        ours, theirs, our_hand, their_hand = figures
        print(f"five-card draw {ours:.1f} µs a command, draw family {theirs:.1f}; a hand {our_hand:.3f} ms and "
              f"{their_hand:.3f}")
    print("(the last line: the medians)")


if __name__ == "__main__":
    main()
