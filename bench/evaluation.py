"""Seven-card hand evaluations per second: cardroom's `strength7` beside treys, pokerkit and
phevaluator, all on the same random hands (fixed seed), each converted to its library's
own card format before the clock starts, so only evaluation is timed.

The mixed games' evaluators (eight-or-better low of seven cards, Omaha hi-lo's low of four
hole and five board cards, razz, deuce-to-seven, badugi, short deck) are timed beside
PokerKit's hand classes for the same games, on the same random hands
(`evaluation.<game>_cardroom_per_s`, `..._pokerkit_per_s`, `..._vs_pokerkit`).

Each library gets the best of a few timed passes (less noise from the machine). pokerkit
is far slower, so it is timed on a slice of the hands.

phevaluator is a C library; its `evaluate_cards` is a Python wrapper (card conversion,
a length check) around a C extension. It is timed four ways, so Cardroom's figure stands
beside C itself and not only beside the wrapper:
- `phevaluator_7card_per_s`: `evaluate_cards`, the wrapper, as an application calls it;
- `phevaluator_c_entry_7card_per_s`: the extension's `_pheval.evaluate_7cards` called
  directly, one Python call per hand (the cheapest way Python code can reach it);
- `phevaluator_ctypes_7card_per_s`: the library's exported C function `evaluate_7cards`
  through ctypes (what ctypes costs per call is in it);
- `phevaluator_c_loop_7card_per_s`: that C function called from a loop in C (compiled
  here with the system's C compiler, no Python per hand): phevaluator's own speed, the
  ceiling. Absent when there is no C compiler.
`cardroom_vs_phevaluator_c_entry` and `cardroom_vs_phevaluator_c_loop` say where Cardroom
(pure Python) stands against them.
"""
from __future__ import annotations

import ctypes
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import size
from domain.rules.cards import format_card, new_deck
from domain.rules.evaluation import strength7
from domain.rules.lowball import badugi_strength, deuce_seven_strength, low8_strength, omaha_low8_strength, razz_strength
from domain.rules.short_deck import short_deck_strength

SEED = 20240607
HANDS = size(50_000, smoke=200)  # at least the C loop's check of 100
POKERKIT_HANDS = size(2_000, smoke=20)
PASSES = size(3, smoke=1)
MIXED_HANDS = size(20_000, smoke=50)
MIXED_POKERKIT_HANDS = size(1_000, smoke=20)


def random_hands(count: int, seed: int = SEED) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    deck = list(new_deck())
    return [tuple(rng.sample(deck, 7)) for _ in range(count)]


def _best_rate(evaluate_all: Callable[[], None], count: int) -> float:
    best = float("inf")
    for _ in range(PASSES):
        started = time.perf_counter()
        evaluate_all()
        best = min(best, time.perf_counter() - started)
    return count / best


def _cardroom_rate(hands: Sequence[tuple[int, ...]]) -> float:
    def evaluate_all() -> None:
        for hand in hands:
            strength7(hand)
    return _best_rate(evaluate_all, len(hands))


def _treys_rate(hands: Sequence[tuple[int, ...]]) -> float:
    from treys import Card, Evaluator

    evaluator = Evaluator()
    converted = [
        ([Card.new(format_card(c)) for c in hand[:2]], [Card.new(format_card(c)) for c in hand[2:]])
        for hand in hands
    ]
    evaluate = evaluator.evaluate

    def evaluate_all() -> None:
        for hole, board in converted:
            evaluate(hole, board)
    return _best_rate(evaluate_all, len(hands))


def _phevaluator_rate(hands: Sequence[tuple[int, ...]]) -> float:
    from phevaluator import evaluate_cards

    converted = _phevaluator_ids(hands)

    def evaluate_all() -> None:
        for hand in converted:
            evaluate_cards(*hand)
    return _best_rate(evaluate_all, len(hands))


def _phevaluator_ids(hands: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    from phevaluator import Card

    return [tuple(Card(format_card(c)).id_ for c in hand) for hand in hands]


def _phevaluator_c_entry_rate(hands: Sequence[tuple[int, ...]]) -> float:
    from phevaluator import _pheval

    converted = _phevaluator_ids(hands)
    evaluate_7cards = _pheval.evaluate_7cards

    def evaluate_all() -> None:
        for hand in converted:
            evaluate_7cards(*hand)
    return _best_rate(evaluate_all, len(hands))


def _phevaluator_library() -> ctypes.CDLL:
    """phevaluator's compiled extension, which exports the C library's functions."""
    from phevaluator import _pheval

    library = ctypes.CDLL(_pheval.__file__)
    library.evaluate_7cards.restype = ctypes.c_int
    library.evaluate_7cards.argtypes = [ctypes.c_int] * 7
    return library


def _phevaluator_ctypes_rate(hands: Sequence[tuple[int, ...]]) -> float:
    converted = _phevaluator_ids(hands)
    evaluate_7cards = _phevaluator_library().evaluate_7cards

    def evaluate_all() -> None:
        for hand in converted:
            evaluate_7cards(*hand)
    return _best_rate(evaluate_all, len(hands))


_C_LOOP = """
typedef int (*evaluate7)(int, int, int, int, int, int, int);
long evaluate_all(evaluate7 evaluate, const int *cards, long hands) {
    long checksum = 0;
    for (long i = 0; i < hands; i++, cards += 7)
        checksum += evaluate(cards[0], cards[1], cards[2], cards[3], cards[4], cards[5], cards[6]);
    return checksum;
}
"""


def _phevaluator_c_loop_rate(hands: Sequence[tuple[int, ...]]) -> float | None:
    """phevaluator's `evaluate_7cards` called from C for every hand; None without a compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    library = _phevaluator_library()
    with tempfile.TemporaryDirectory(prefix="bench-pheval-") as scratch:
        source, built = Path(scratch) / "loop.c", Path(scratch) / "loop.so"
        source.write_text(_C_LOOP)
        subprocess.run([compiler, "-O2", "-shared", "-fPIC", str(source), "-o", str(built)], check=True)
        loop = ctypes.CDLL(str(built)).evaluate_all
    loop.restype = ctypes.c_long
    loop.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.c_long]
    flat = [card for hand in _phevaluator_ids(hands) for card in hand]
    cards = (ctypes.c_int * len(flat))(*flat)
    evaluate = ctypes.cast(library.evaluate_7cards, ctypes.c_void_p)
    checksums = []

    def evaluate_all() -> None:
        checksums.append(loop(evaluate, cards, len(hands)))
    rate = _best_rate(evaluate_all, len(hands))
    expected = sum(map(library.evaluate_7cards, *zip(*_phevaluator_ids(hands[:100]))))
    assert loop(evaluate, cards, 100) == expected, "the C loop evaluates what the library does"
    return rate


def _pokerkit_rate(hands: Sequence[tuple[int, ...]]) -> float:
    from pokerkit import Card, StandardHighHand

    converted = [
        (list(Card.parse("".join(map(format_card, hand[:2])))),
         list(Card.parse("".join(map(format_card, hand[2:])))))
        for hand in hands
    ]
    from_game = StandardHighHand.from_game

    def evaluate_all() -> None:
        for hole, board in converted:
            from_game(hole, board)
    return _best_rate(evaluate_all, len(hands))


# game: (ours(hole, board), PokerKit hand class name, hole cards, board cards, short deck)
MIXED_GAMES: dict[str, tuple[Callable[..., int], str, int, int, bool]] = {
    "eight_or_better_7card": (lambda h, b: low8_strength(h), "EightOrBetterLowHand", 7, 0, False),
    "omaha_eight_or_better": (omaha_low8_strength, "OmahaEightOrBetterLowHand", 4, 5, False),
    "razz_7card": (lambda h, b: razz_strength(h), "RegularLowHand", 7, 0, False),
    "deuce_to_seven": (lambda h, b: deuce_seven_strength(h), "StandardLowHand", 5, 0, False),
    "badugi": (lambda h, b: badugi_strength(h), "BadugiHand", 4, 0, False),
    "short_deck_7card": (lambda h, b: short_deck_strength(h + b), "ShortDeckHoldemHand", 2, 5, True),
}


def _mixed_rates(game: str) -> dict[str, float]:
    import pokerkit
    from pokerkit import Card

    ours, class_name, hole_size, board_size, short = MIXED_GAMES[game]
    rng = random.Random(SEED)
    deck = [card for card in new_deck() if not short or card >> 2 >= 4]
    deals = []
    for _ in range(MIXED_HANDS):
        cards = rng.sample(deck, hole_size + board_size)
        deals.append((tuple(cards[:hole_size]), tuple(cards[hole_size:])))

    def ours_all() -> None:
        for hole, board in deals:
            ours(hole, board)

    from_game = getattr(pokerkit, class_name).from_game
    converted = [(list(Card.parse("".join(map(format_card, hole)))),
                  list(Card.parse("".join(map(format_card, board)))))
                 for hole, board in deals[:MIXED_POKERKIT_HANDS]]

    def pokerkit_all() -> None:
        for hole, board in converted:
            try:  # noqa: SIM105 (a timed loop: try costs less than contextlib.suppress)
                from_game(hole, board)
            except ValueError:  # no qualifying low
                pass

    mine = _best_rate(ours_all, len(deals))
    theirs = _best_rate(pokerkit_all, len(converted))
    return {f"evaluation.{game}_cardroom_per_s": mine,
            f"evaluation.{game}_pokerkit_per_s": theirs,
            f"evaluation.{game}_vs_pokerkit": mine / theirs}


def run() -> dict[str, float]:
    hands = random_hands(HANDS)
    cardroom = _cardroom_rate(hands)
    treys = _treys_rate(hands)
    c_entry = _phevaluator_c_entry_rate(hands)
    figures = {
        "evaluation.cardroom_7card_per_s": cardroom,
        "evaluation.treys_7card_per_s": treys,
        "evaluation.pokerkit_7card_per_s": _pokerkit_rate(hands[:POKERKIT_HANDS]),
        "evaluation.phevaluator_7card_per_s": _phevaluator_rate(hands),
        "evaluation.phevaluator_c_entry_7card_per_s": c_entry,
        "evaluation.phevaluator_ctypes_7card_per_s": _phevaluator_ctypes_rate(hands),
        "evaluation.cardroom_vs_treys": cardroom / treys,
        "evaluation.cardroom_vs_phevaluator_c_entry": cardroom / c_entry,
    }
    c_loop = _phevaluator_c_loop_rate(hands)
    if c_loop is not None:
        figures["evaluation.phevaluator_c_loop_7card_per_s"] = c_loop
        figures["evaluation.cardroom_vs_phevaluator_c_loop"] = cardroom / c_loop
    for game in MIXED_GAMES:
        figures.update(_mixed_rates(game))
    return figures
