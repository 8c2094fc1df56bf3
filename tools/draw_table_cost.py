"""What an action at a five-card draw table costs in `domain.live.table.handle`, this
checkout's against another's (issue 36: five-card draw in the draw family's engine, within
10% of its own decider; docs/draw-family.md).

    .venv/bin/python tools/draw_table_cost.py --against /work/main [--blocks 6] [--passes 5]

Ten seeded tables of 4 players and 30 hands (no-limit, jacks or better, the wild joker in
fixed limit, pot-limit from the dealer's left, no betting, the bug, the declared showdown,
draw limit 5, jacks or better with the joker, fixed limit heads-up uncapped) are played
by a scripted player; every action is then timed again from the state before it (process
CPU time, `passes` times, the median kept). Each measure is its own process, of one
checkout or the other (`--root`), run in A B B A blocks so that the shared machine's
load falls on both alike. Prints each run and the medians, and B/A by block.
"""
from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SETTINGS: tuple[dict[str, Any], ...] = (
    {}, {"opening": "jacks_or_better"}, {"joker": "wild", "structure": "fixed-limit"},
    {"structure": "pot-limit", "second_round_start": "left_of_dealer"}, {"mode": "no-betting"},
    {"joker": "bug"}, {"showdown": "declared"}, {"draw_limit": 5}, {"opening": "jacks_or_better", "joker": "wild"},
    {"structure": "fixed-limit", "heads_up_uncapped": True})


def _trace() -> list[tuple[Any, Any, tuple[Any, ...]]]:
    """(the table before, the command, the draws taken) of every action of the ten tables."""
    from bench.action_domain import _Draws  # the same seeded, replayable draws as action_domain's
    from domain.games.draw import openers
    from domain.live import table, table_commands
    from domain.rules.betting import BettingStructure
    from domain.rules.cards import format_card, new_deck
    from service.application.views import legal_actions_view

    steps = []
    for number, extra in enumerate(SETTINGS):
        rng = random.Random(100 + number)
        seats = tuple(table_commands.TableSeat(f"p{i}", 1000) for i in range(4))
        create = table_commands.CreateTable(f"t{number}", "five-card-draw", {"hands": 30, "ante": 5, **extra},
                                            BettingStructure(), seats)
        _, state = table.handle(None, create)
        while not state.finished:
            draws = _Draws(rng)
            command: Any
            if not state.hand_in_progress:
                deck = draws.shuffled(tuple(format_card(c) for c in new_deck("joker" in extra)))
                command = table_commands.StartNextHand(deck, draws.salt())
            else:
                shown = legal_actions_view(state)
                player, legal = shown["to_act"], shown["legal"]
                if legal.get("discard"):
                    seat = state.position_of(player)
                    assert seat is not None  # the player to act is seated
                    cards = [format_card(c) for c in state.hand.game.hands[seat]]
                    thrown = tuple(rng.sample(cards, rng.randint(0, legal["discard"]["max_cards_keeping_no_ace"])))
                    split = openers.breaks_openers(state.hand.game, seat, thrown)
                    command = table_commands.Act(player, "split_openers" if split else "discard", discard=thrown)
                elif legal.get("show") or legal.get("muck"):
                    command = table_commands.Act(player, "show" if legal.get("show") else "muck")
                elif legal.get("bet") and rng.random() < 0.3:
                    command = table_commands.Act(player, "bet", legal["bet"]["min_to"])
                elif legal.get("raise") and rng.random() < 0.2:
                    command = table_commands.Act(player, "raise", legal["raise"]["min_to"])
                else:
                    command = table_commands.Act(player, rng.choice([a for a in ("check", "call", "fold") if legal.get(a)]))
            before = state
            _, state = table.handle(state, command, 0, draws)
            steps.append((before, command, tuple(draws.taken)))
    return steps


def measure(passes: int) -> str:
    """"actions median-ms min-ms" of this process's checkout."""
    from bench.action_domain import _Draws
    from domain.live import table

    steps = _trace()
    spent = []
    for _ in range(passes):
        total = 0.0
        for before, command, taken in steps:
            draws = _Draws(random.Random(), taken)
            start = time.process_time()
            table.handle(before, command, 0, draws)
            total += time.process_time() - start
        spent.append(total / len(steps) * 1000)
    return f"{len(steps)} {statistics.median(spent):.4f} {min(spent):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="time the checkout at this path (one measure, printed)")
    parser.add_argument("--against", help="the checkout to compare with (A; this one is B)")
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    if args.root:
        sys.path.insert(0, args.root)
        print(measure(args.passes))
        return
    here = str(Path(__file__).resolve().parent.parent)
    runs: dict[str, list[float]] = {"A": [], "B": []}
    ratios = []
    for _ in range(args.blocks):
        block: dict[str, list[float]] = {"A": [], "B": []}
        for side in "ABBA":
            root = args.against if side == "A" else here
            out = subprocess.run([sys.executable, __file__, "--root", root, "--passes", str(args.passes)],
                                 capture_output=True, text=True, check=True, cwd="/").stdout.split()
            print(side, *out, flush=True)
            block[side].append(float(out[1]))
            runs[side].append(float(out[1]))
        ratios.append(sum(block["B"]) / sum(block["A"]))
    a, b = statistics.median(runs["A"]), statistics.median(runs["B"])
    print(f"medians: A {a:.4f} ms, B {b:.4f} ms an action, B/A {b / a:.3f}; "
          f"B/A by block {min(ratios):.3f} to {max(ratios):.3f}, median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
