"""Our ranking against independent evaluators: phevaluator (rank 1 = royal flush, lower is
better) and treys. Two hands must compare the same way under both: the map from their
rank to our strength must be a function (ties stay ties) and strictly decreasing."""
from __future__ import annotations

import random
from collections.abc import Iterable
from itertools import combinations_with_replacement

import pytest
from phevaluator import Card as PhCard
from phevaluator import evaluate_cards, evaluate_omaha_cards
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from domain.rules.cards import JOKER, format_card, new_deck
from domain.rules.evaluation import category_of, evaluate_high, evaluate_omaha, strength, strength7

PH_ID = [PhCard(format_card(card)).id_ for card in range(52)]
TREYS_ID = [TreysCard.new(format_card(card)) for card in range(52)]

# phevaluator's rank bands, best first: the last rank of each category.
PH_CATEGORY_ENDS = [
    (10, "straight_flush"), (166, "four_of_a_kind"), (322, "full_house"), (1599, "flush"),
    (1609, "straight"), (2467, "three_of_a_kind"), (3325, "two_pair"), (6185, "one_pair"),
    (7462, "high_card"),
]


def ph_rank(cards: Iterable[int]) -> int:
    return evaluate_cards(*(PH_ID[card] for card in cards))


def ph_category(rank: int) -> str:
    if rank == 1:
        return "royal_flush"
    return next(name for end, name in PH_CATEGORY_ENDS if rank <= end)


def assert_same_order(pairs: Iterable[tuple[int, int]]) -> None:
    """`pairs` of (reference rank, lower is better; our strength, higher is better)."""
    ours_by_rank: dict[int, int] = {}
    for rank, ours in pairs:
        assert ours_by_rank.setdefault(rank, ours) == ours, f"rank {rank} got two strengths"
    ordered = [ours_by_rank[rank] for rank in sorted(ours_by_rank)]
    assert all(better > worse for better, worse in zip(ordered, ordered[1:]))


def random_hands(count: int, size: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    deck = list(new_deck())
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


def five_card_classes() -> list[tuple[int, ...]]:
    """One hand for each of the 7,462 distinct five-card hands: every multiset of ranks
    (at most four of a rank) in mixed suits, and every five different ranks again suited."""
    hands = []
    for ranks in combinations_with_replacement(range(13), 5):
        if max(ranks.count(rank) for rank in ranks) > 4:
            continue
        if len(set(ranks)) == 5:
            hands.append(tuple(rank * 4 for rank in ranks))  # all spades
            hands.append((ranks[0] * 4 + 1,) + tuple(rank * 4 for rank in ranks[1:]))
        else:
            hands.append(tuple(rank * 4 + ranks[:position].count(rank) for position, rank in enumerate(ranks)))
    return hands


def test_all_7462_five_card_hands_rank_as_phevaluator_ranks_them():
    classes = five_card_classes()
    assert len(classes) == 7462
    ranks = [ph_rank(hand) for hand in classes]
    assert sorted(ranks) == list(range(1, 7463))
    values = [evaluate_high(hand) for hand in classes]
    assert_same_order(zip(ranks, (value.strength for value in values)))
    for rank, value in zip(ranks, values):
        assert value.category == ph_category(rank)


def test_all_7462_five_card_hands_rank_as_treys_ranks_them():
    evaluator = TreysEvaluator()
    classes = five_card_classes()
    treys_ranks = [evaluator.evaluate([TREYS_ID[c] for c in hand[:2]], [TREYS_ID[c] for c in hand[2:]])
                   for hand in classes]
    assert_same_order(zip(treys_ranks, (strength(hand) for hand in classes)))


def test_20000_random_seven_card_hands_order_as_phevaluator_orders_them():
    hands = random_hands(20_000, 7, seed=1)
    ours = [strength7(hand) for hand in hands]
    ranks = [ph_rank(hand) for hand in hands]
    assert_same_order(zip(ranks, ours))
    assert {category_of(value) for value in ours} >= {"high_card", "one_pair", "two_pair",
                                                      "three_of_a_kind", "straight", "flush",
                                                      "full_house", "four_of_a_kind"}
    for rank, value in zip(ranks[:2000], ours[:2000]):
        assert category_of(value) == ph_category(rank)


@pytest.mark.parametrize("size", [5, 6])
def test_random_five_and_six_card_hands_order_as_phevaluator_orders_them(size):
    hands = random_hands(5_000, size, seed=size)
    assert_same_order((ph_rank(hand), evaluate_high(hand).strength) for hand in hands)


def test_random_omaha_hands_order_as_phevaluator_orders_them():
    deals = random_hands(3_000, 9, seed=9)
    pairs = []
    for deal in deals:
        hole, board = deal[:4], deal[4:]
        reference = evaluate_omaha_cards(*(PH_ID[c] for c in board), *(PH_ID[c] for c in hole))
        pairs.append((reference, evaluate_omaha(hole, board).strength))
    assert_same_order(pairs)


def _wild_reference(real: tuple[int, ...]) -> int:
    """The joker as every card the hand lacks, judged by phevaluator; five of a kind ranks
    above everything (0 and below, higher ranks more negative)."""
    quads = [r for r in range(13) if sum(1 for c in real if c >> 2 == r) == 4]
    if quads:
        return -max(quads)
    return min(ph_rank(real + (stand_in,)) for stand_in in range(52) if stand_in not in real)


def _bug_reference(real: tuple[int, ...]) -> int:
    """The bug as an ace (any hand), or as any card making a straight, flush or straight
    flush; five aces rank above everything (-12, as in the wild reference). Five-card hands only, where phevaluator's category is the hand's."""
    if sum(1 for c in real if c >> 2 == 12) == 4:
        return -12
    candidates = []
    for stand_in in range(52):
        if stand_in in real:
            continue
        rank = ph_rank(real + (stand_in,))
        if stand_in >> 2 == 12 or ph_category(rank) in ("straight", "flush", "straight_flush", "royal_flush"):
            candidates.append(rank)
    return min(candidates)


def test_wild_joker_hands_order_as_phevaluator_with_the_joker_as_each_missing_card():
    reals = random_hands(300, 4, seed=10) + random_hands(300, 5, seed=11) + _four_of_a_kinds()
    reals += [quads + (kicker,) for quads in _four_of_a_kinds() for kicker in (0, 51) if kicker not in quads]
    pairs = [(_wild_reference(real), evaluate_high(real + (JOKER,), "wild").strength) for real in reals]
    assert_same_order(pairs)


def test_bug_hands_order_as_phevaluator_with_the_bug_as_ace_or_straight_flush_completer():
    reals = random_hands(1_500, 4, seed=12) + _near_straights_and_flushes() + _four_of_a_kinds()
    pairs = [(_bug_reference(real), evaluate_high(real + (JOKER,), "bug").strength) for real in reals]
    assert_same_order(pairs)


def _four_of_a_kinds() -> list[tuple[int, ...]]:
    return [tuple(rank * 4 + suit for suit in range(4)) for rank in range(13)]


def _near_straights_and_flushes() -> list[tuple[int, ...]]:
    """Four cards a joker can fill: open and gutshot straights (suited and not), flush draws."""
    rng = random.Random(13)
    hands = []
    for low in range(-1, 9):
        ranks = [(low + step) % 13 if low + step >= 0 else 12 for step in range(5)]
        for gap in range(5):
            kept = ranks[:gap] + ranks[gap + 1:]
            hands.append(tuple(rank * 4 for rank in kept))
            hands.append(tuple(rank * 4 + (i % 2) for i, rank in enumerate(kept)))
    for _ in range(200):
        hands.append(tuple(rank * 4 + 2 for rank in rng.sample(range(13), 4)))
    return hands
