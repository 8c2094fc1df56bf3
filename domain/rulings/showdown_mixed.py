"""POST /v1/rulings/showdown for the mixed games: seven-card stud, stud hi-lo, razz, Omaha
hi-lo, short-deck hold'em, deuce-to-seven (single or triple draw) and badugi.

The answer has the shape of domain.rulings.showdown's (winners, ranking, hands with category, best
cards and words). In the hi-lo games those are the high hands, and `low` adds the low
half: its winners (none when no hand qualifies: the high hand then scoops), the ranking
of the qualifying lows, and each hand's low (null when it does not qualify).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations, groupby
from typing import Any

from domain.rules.cards import Card, format_cards
from domain.rules.evaluation import category_of, describe_strength, evaluate_high, evaluate_omaha
from domain.rules.evaluation_tables import FLUSH, FULL_HOUSE
from domain.rules.lowball import (
    badugi_ranks,
    badugi_size,
    badugi_strength,
    deuce_seven_high,
    deuce_seven_strength,
    low8_strength,
    low_mask_ranks,
    omaha_low8_strength,
    razz_pairing,
    razz_ranks,
    razz_strength,
)
from domain.rules.short_deck import is_short_deck_card, short_deck_category, short_deck_strength
from domain.rules.violations import Violation

STUD, STUD_HI_LO, RAZZ = "stud", "stud_hi_lo", "razz"
OMAHA_HI_LO, SHORT_DECK = "omaha_hi_lo", "short_deck"
DEUCE_SEVEN, BADUGI = "deuce_seven", "badugi"
GAMES = (STUD, STUD_HI_LO, RAZZ, OMAHA_HI_LO, SHORT_DECK, DEUCE_SEVEN, BADUGI)
# Cards a hand shows: (fewest, most); board games take the board apart.
HAND_SIZES = {STUD: (5, 7), STUD_HI_LO: (5, 7), RAZZ: (5, 7), OMAHA_HI_LO: (4, 4),
              SHORT_DECK: (2, 2), DEUCE_SEVEN: (5, 5), BADUGI: (4, 4)}
BOARD_GAMES = (OMAHA_HI_LO, SHORT_DECK)
_RANK_TEXT = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T"}


def _rank(rank: int) -> str:
    return _RANK_TEXT.get(rank, str(rank))


def _low_words(ranks: Sequence[int]) -> str:
    return "-".join(_rank(r) for r in ranks)


def _best_of(cards: Sequence[Card], size: int, value: Callable[[tuple[Card, ...]], int],
             target: int) -> tuple[Card, ...]:
    for chosen in combinations(cards, size):
        if value(chosen) == target:
            return chosen
    raise AssertionError("no cards make the value found")


def _omaha_best(hole: Sequence[Card], board: Sequence[Card],
                value: Callable[[tuple[Card, ...]], int], target: int) -> tuple[Card, ...]:
    for two in combinations(hole, 2):
        for three in combinations(board, 3):
            if value(two + three) == target:
                return two + three
    raise AssertionError("no cards make the value found")


def _high(game: str, cards: tuple[Card, ...], board: tuple[Card, ...]) -> tuple[int, dict[str, str]]:
    """(strength, shown hand) of the high side of a hand."""
    if game == SHORT_DECK:
        value = short_deck_strength(cards + board)
        best = _best_of(cards + board, 5, short_deck_strength, value)
        standard = value
        if value >> 20 in (FLUSH, FULL_HOUSE):  # short deck swaps them: name them as they are
            standard = (FLUSH + FULL_HOUSE - (value >> 20)) << 20 | value & 0xFFFFF
        return value, {"category": short_deck_category(value), "best": format_cards(best),
                       "description": describe_strength(standard)}
    hand = evaluate_omaha(cards, board) if game == OMAHA_HI_LO else evaluate_high(cards)
    return hand.strength, {"category": hand.category, "best": format_cards(hand.best),
                           "description": hand.describe()}


def _low(game: str, cards: tuple[Card, ...], board: tuple[Card, ...]) -> tuple[int, dict[str, str] | None]:
    """(strength, shown hand) of a low hand; (0, None) for an eight-or-better that fails."""
    if game == OMAHA_HI_LO:
        value = omaha_low8_strength(cards, board)
        if not value:
            return 0, None
        best = _omaha_best(cards, board, lambda five: low8_strength(five), value)
        return value, _low_hand("eight_or_better", best, low_mask_ranks(value))
    if game == STUD_HI_LO:
        value = low8_strength(cards)
        if not value:
            return 0, None
        best = _best_of(cards, 5, low8_strength, value)
        return value, _low_hand("eight_or_better", best, low_mask_ranks(value))
    if game == RAZZ:
        value = razz_strength(cards)
        best = _best_of(cards, 5, razz_strength, value)
        pairing = ("low", "one_pair", "two_pair", "three_of_a_kind", "full_house",
                   "four_of_a_kind")[razz_pairing(value)]
        return value, _low_hand(pairing, best, razz_ranks(value))
    if game == DEUCE_SEVEN:
        value = deuce_seven_strength(cards)
        high = deuce_seven_high(cards)
        category = category_of(high)
        words = describe_strength(high)
        if category == "high_card":
            words = f"{_low_words(sorted((c >> 2) + 2 for c in cards)[::-1])} low"
        return value, {"category": category, "best": format_cards(cards), "description": words}
    value = badugi_strength(cards)
    size = badugi_size(value)
    best = _best_of(cards, size, badugi_strength, value)
    category = "badugi" if size == 4 else f"{('one', 'two', 'three')[size - 1]}_card_hand"
    return value, {"category": category, "best": format_cards(best),
                   "description": f"{_low_words(badugi_ranks(value))} "
                                  f"{'badugi' if size == 4 else f'{size}-card hand'}"}


def _low_hand(category: str, best: Sequence[Card], ranks: Sequence[int]) -> dict[str, str]:
    words = f"{_low_words(ranks)} low" if category in ("low", "eight_or_better") \
        else f"{category.replace('_', ' ')}, {_low_words(ranks)}"
    return {"category": category, "best": format_cards(best), "description": words}


def _ranking(values: Mapping[str, int]) -> list[list[str]]:
    order = sorted(values, key=lambda player: values[player], reverse=True)
    return [list(group) for _, group in groupby(order, key=lambda player: values[player])]


def mixed_showdown_ruling(game: str, hands: Mapping[str, tuple[Card, ...]],
                          board: tuple[Card, ...]) -> dict[str, Any]:
    """The ruling for cards already parsed and checked against each other."""
    _check(game, hands, board)
    if game in (RAZZ, DEUCE_SEVEN, BADUGI):
        lows = {player: _low(game, cards, board) for player, cards in hands.items()}
        ranking = _ranking({player: value for player, (value, _) in lows.items()})
        return {"winners": ranking[0], "ranking": ranking,
                "hands": {player: shown for player, (_, shown) in lows.items()}}
    highs = {player: _high(game, cards, board) for player, cards in hands.items()}
    ranking = _ranking({player: value for player, (value, _) in highs.items()})
    answer: dict[str, Any] = {"winners": ranking[0], "ranking": ranking,
                              "hands": {player: shown for player, (_, shown) in highs.items()}}
    if game in (STUD_HI_LO, OMAHA_HI_LO):
        lows = {player: _low(game, cards, board) for player, cards in hands.items()}
        qualifying = {player: value for player, (value, _) in lows.items() if value}
        low_ranking = _ranking(qualifying) if qualifying else []
        answer["low"] = {"winners": low_ranking[0] if low_ranking else [],
                         "ranking": low_ranking,
                         "hands": {player: shown for player, (_, shown) in lows.items()}}
    return answer


def _check(game: str, hands: Mapping[str, tuple[Card, ...]], board: tuple[Card, ...]) -> None:
    fewest, most = HAND_SIZES[game]
    for player, cards in hands.items():
        if not fewest <= len(cards) <= most:
            expected = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise Violation("validation_error", f"{player} shows {len(cards)} cards: a {game} "
                            f"hand shows {expected}",
                            numbers={"player": player, "cards": len(cards), "expected": most})
    if game in BOARD_GAMES:
        if len(board) not in (3, 4, 5):
            raise Violation("validation_error", f"a board has 3, 4 or 5 cards, not {len(board)}",
                            numbers={"board": len(board)})
    elif board:
        raise Violation("validation_error", f"{game} has no board")
    if game == SHORT_DECK:
        for card in (*board, *(c for cards in hands.values() for c in cards)):
            if not is_short_deck_card(card):
                raise Violation("invalid_card", f"{format_cards((card,))} is not in the short "
                                "deck (sixes to aces)", numbers={"card": format_cards((card,))})
    if any(card > 51 for cards in hands.values() for card in cards):
        raise Violation("invalid_card", f"{game} plays without a joker")

