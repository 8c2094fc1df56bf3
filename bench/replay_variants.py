"""Replay speed per mixed game: the WSOP 2023 final-table hands of each variant (stud,
stud hi-lo, razz, Omaha hi-lo, 2-7 triple and single draw) and the famous badugi and
short-deck hands, through our rules and through PokerKit.

Both sides start from parsed records and resolve the PHH notation as they go: ours runs
`domain.history.phh_games.replay(record)`, PokerKit iterates its own `HandHistory` (which builds the
state and applies every action). A hand PokerKit cannot play (WSOP hand 85, a raise that
stops at what the opponent can call) is left out of both. Hands per second, best of three
CPU-timed rounds, each variant's hands repeated to about 200 replays.
"""
from __future__ import annotations

import gc
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from pokerkit import HandHistory as PokerKitHandHistory

from bench import size
from domain.history.phh import parse
from domain.history.phh_games import replay
from domain.history.phh_mixed import VARIANTS

# The corpus beside the repository, as tests/corpus.py finds it (CARDROOM_SHARED_DIR wins).
SHARED = Path(os.environ.get("CARDROOM_SHARED_DIR")
              or Path(__file__).resolve().parents[2] / "shared") / "phh"
REPLAYS = size(200, smoke=1)
ROUNDS = size(3, smoke=1)


def _best_cpu(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        gc.collect()
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def _pokerkit_plays(text: str) -> bool:
    try:
        for _ in PokerKitHandHistory.loads(text):
            pass
    except (ValueError, KeyError):
        return False
    return True


def run() -> dict[str, float]:
    texts: dict[str, list[str]] = {}
    for path in sorted([*SHARED.glob("wsop/**/*.phh"), *SHARED.glob("*.phh")]):
        text = path.read_text()
        variant = parse(text).variant
        if variant in VARIANTS:
            texts.setdefault(variant, []).append(text)
    figures: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for variant, hands in sorted(texts.items()):
            playable = [t for t in hands if _pokerkit_plays(t)]
            repeat = max(1, REPLAYS // len(playable))
            ours = [parse(t) for t in playable] * repeat
            theirs = [PokerKitHandHistory.loads(t) for t in playable] * repeat

            def ours_all(ours: list = ours) -> None:  # this iteration's lists, bound now
                for record in ours:
                    replay(record)

            def theirs_all(theirs: list = theirs) -> None:
                for history in theirs:
                    for _ in history:
                        pass

            name = variant.replace("/", "_")
            mine = len(ours) / _best_cpu(ours_all)
            reference = len(theirs) / _best_cpu(theirs_all)
            figures[f"replay_variants.{name}_cardroom_hands_per_s"] = mine
            figures[f"replay_variants.{name}_pokerkit_hands_per_s"] = reference
            figures[f"replay_variants.{name}_vs_pokerkit"] = mine / reference
    return figures
