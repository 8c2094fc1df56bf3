"""Stateless adjudication: POST /v1/rulings/showdown as a pure function (api.md).

Who wins a showdown, from the cards alone: five-card draw (with the joker setting none,
wild or bug, five-card-draw.md), hold'em and Omaha (with a board of 3 to 5 cards, so a
floor can also settle "who is ahead" before the river). Equal hands tie: every one of them
wins and they share a place in the ranking. The mixed games (stud, stud hi-lo, razz, Omaha
hi-lo, short deck, deuce-to-seven, badugi) are ruled by domain.rulings.showdown_mixed.
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby
from typing import Any

from domain.rules.cards import Card, format_cards, parse_cards
from domain.rules.evaluation import HandValue, evaluate_high, evaluate_holdem, evaluate_omaha
from domain.rules.violations import Violation
from domain.rulings.showdown_mixed import GAMES as MIXED_GAMES
from domain.rulings.showdown_mixed import mixed_showdown_ruling

FIVE_CARD_DRAW = "five-card-draw"
HOLDEM = "holdem"
OMAHA = "omaha"
GAMES = (FIVE_CARD_DRAW, HOLDEM, OMAHA, *MIXED_GAMES)
JOKER_SETTINGS = ("none", "wild", "bug")

# Cards each player shows: a draw hand is five; hold'em and Omaha are hole cards only.
HAND_SIZE = {FIVE_CARD_DRAW: 5, HOLDEM: 2, OMAHA: 4}
BOARD_SIZES = (3, 4, 5)


def showdown_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """{"game", "joker"?, "board"?, "hands": {player: cards}} -> winners, ranking, hands.

    Raises Violation: "validation_error" for a request of the wrong shape (unknown game,
    board given to a draw game, fewer than two hands, wrong card counts), "invalid_card"
    and "duplicate_card" for cards no deck could deal (a joker outside a joker game, the
    same card in two places).
    """
    game = request.get("game")
    if game not in GAMES:
        raise Violation("validation_error", f"game must be one of {', '.join(GAMES)}, not {game!r}")
    joker = _joker_setting(request, game)
    if game in MIXED_GAMES:
        hands = _shown_cards(request)
        board = _cards(request.get("board") or "", "the board")
        _refuse_shared_cards(hands, board)
        return mixed_showdown_ruling(game, hands, board)
    board = _board(request, game)
    hands = _hands(request, game)
    _refuse_shared_cards(hands, board)
    values = {player: _evaluate(game, joker, cards, board) for player, cards in hands.items()}
    ranking = _ranking(values)
    return {
        "winners": ranking[0],
        "ranking": ranking,
        "hands": {
            player: {"category": value.category, "best": format_cards(value.best),
                     "description": value.describe()}
            for player, value in values.items()
        },
    }


def _joker_setting(request: Mapping[str, Any], game: str) -> str | None:
    """The evaluator's joker rule: None when the game plays without a joker."""
    setting = request.get("joker")
    if setting is None:
        setting = "none"
    if setting not in JOKER_SETTINGS:
        raise Violation("validation_error",
                        f"joker must be one of {', '.join(JOKER_SETTINGS)}, not {setting!r}")
    if setting != "none" and game != FIVE_CARD_DRAW:
        raise Violation("validation_error", f"{game} plays without a joker: the joker setting "
                        "belongs to five-card draw")
    return None if setting == "none" else setting


def _board(request: Mapping[str, Any], game: str) -> tuple[Card, ...]:
    text = request.get("board")
    if game == FIVE_CARD_DRAW:
        if text:
            raise Violation("validation_error", "five-card draw has no board")
        return ()
    if text is None:
        raise Violation("validation_error", f"{game} needs the board")
    board = _cards(text, "the board")
    if len(board) not in BOARD_SIZES:
        raise Violation("validation_error", f"a board has 3, 4 or 5 cards, not {len(board)}",
                        numbers={"board": len(board)})
    return board


def _shown_cards(request: Mapping[str, Any]) -> dict[str, tuple[Card, ...]]:
    shown = request.get("hands")
    if not isinstance(shown, Mapping) or len(shown) < 2:
        raise Violation("validation_error", "hands must name at least two players and their cards")
    return {player: _cards(text, f"{player}'s hand") for player, text in shown.items()}


def _hands(request: Mapping[str, Any], game: str) -> dict[str, tuple[Card, ...]]:
    size = HAND_SIZE[game]
    hands = {}
    for player, cards in _shown_cards(request).items():
        if len(cards) != size:
            raise Violation("validation_error",
                            f"{player} shows {len(cards)} cards: a {game} hand shows {size}",
                            numbers={"player": player, "cards": len(cards), "expected": size})
        hands[player] = cards
    return hands


def _cards(text: Any, what: str) -> tuple[Card, ...]:
    if not isinstance(text, str):
        raise Violation("validation_error", f"{what} must be cards written as text (e.g. 'AsKd'), "
                        f"not {text!r}")
    return parse_cards(text)


def _refuse_shared_cards(hands: Mapping[str, tuple[Card, ...]], board: tuple[Card, ...]) -> None:
    where: dict[Card, str] = {card: "the board" for card in board}
    for player, cards in hands.items():
        for card in cards:
            if card in where:
                shown = format_cards((card,))
                raise Violation("duplicate_card", f"{shown} is both in {where[card]} and in {player}'s "
                                "hand: a deck holds each card once", numbers={"card": shown})
            where[card] = f"{player}'s hand"


def _evaluate(game: str, joker: str | None, cards: tuple[Card, ...], board: tuple[Card, ...]) -> HandValue:
    if game == HOLDEM:
        return evaluate_holdem(cards, board)
    if game == OMAHA:
        return evaluate_omaha(cards, board)
    return evaluate_high(cards, joker)


def _ranking(values: Mapping[str, HandValue]) -> list[list[str]]:
    """Players best first; players whose hands tie share one group, in the request's order."""
    order = sorted(values, key=lambda player: values[player], reverse=True)
    return [list(group) for _, group in groupby(order, key=lambda player: values[player].strength)]
