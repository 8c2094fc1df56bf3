"""Seven-card hand evaluations per second: cardroom's `strength7` beside treys, pokerkit and
phevaluator, all on the same random hands (fixed seed), each converted to its library's
own card format before the clock starts, so only evaluation is timed.

Each library gets the best of a few timed passes (less noise from the machine). pokerkit
is far slower, so it is timed on a slice of the hands.
"""
from __future__ import annotations

import random
import time
from typing import Callable, Sequence

from domain.cards import format_card, new_deck
from domain.evaluation import strength7

SEED = 20240607
HANDS = 50_000
POKERKIT_HANDS = 2_000
PASSES = 3


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
    from phevaluator import Card, evaluate_cards

    converted = [tuple(Card(format_card(c)).id_ for c in hand) for hand in hands]

    def evaluate_all() -> None:
        for hand in converted:
            evaluate_cards(*hand)
    return _best_rate(evaluate_all, len(hands))


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


def run() -> dict[str, float]:
    hands = random_hands(HANDS)
    cardroom = _cardroom_rate(hands)
    treys = _treys_rate(hands)
    return {
        "evaluation.cardroom_7card_per_s": cardroom,
        "evaluation.treys_7card_per_s": treys,
        "evaluation.pokerkit_7card_per_s": _pokerkit_rate(hands[:POKERKIT_HANDS]),
        "evaluation.phevaluator_7card_per_s": _phevaluator_rate(hands),
        "evaluation.cardroom_vs_treys": cardroom / treys,
    }
