"""The games the mixed-game decider (domain.games.mixed) deals, as data: each game's
family (stud, flop, draw), its hand, its draws, how its hands rank high and low, and the
stud and short-deck particulars. One state machine, games as configuration.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from domain.rules.cards import Card
from domain.rules.evaluation import omaha_strength, strength, strength7
from domain.rules.lowball import badugi_strength, deuce_seven_strength, low8_strength, omaha_low8_strength, razz_strength
from domain.rules.short_deck import short_deck_strength

STUD, FLOP, DRAW = "stud", "flop", "draw"
# Stud and its rotations' stud hands are dealt to at most eight (Robert's Rules, seven-card
# stud): live tables seat no more (domain.live.mixed) and a history of more is refused.
MAX_STUD_PLAYERS = 8
# Board games seat up to 23 as hold'em's decider does (a hand with a deck needs the
# cards: two hole cards each for 22, with three burns and the board).
MAX_BOARD_PLAYERS = 23


def _all_cards(evaluate: Callable[[tuple[Card, ...]], int]) -> Callable[..., int]:
    return lambda hole, board: evaluate(hole + board)


def _holdem_strength(hole: tuple[Card, ...], board: tuple[Card, ...]) -> int:
    """Hold'em's high hand: seven cards by the fast path hold'em's own showdown takes."""
    cards = hole + board
    return strength7(cards) if len(cards) == 7 else strength(cards)


@dataclass(frozen=True)
class Game:
    """What a game deals and how its hands rank. `high`/`low` take (hole, board) and give
    a strength (higher better; a low of 0 does not qualify); `low_only` games have no high."""
    name: str
    family: str
    hand_size: int                  # flop: hole cards; draw: the hand; stud: seven
    draws: int = 0
    high: Callable[..., int] | None = None
    low: Callable[..., int] | None = None
    razz: bool = False              # stud opening and bring-in by the low cards
    open_pair_option: bool = False
    short_deck: bool = False
    late_round: int = 2             # the first betting round at the big bet (fixed limit)

    @property
    def rounds(self) -> int:
        if self.family == STUD:
            return 5
        if self.family == FLOP:
            return 4
        return self.draws + 1

    @property
    def split(self) -> bool:
        return self.high is not None and self.low is not None


STUD_DEAL = ((False, False, True), (True,), (True,), (True,), (False,))  # up flags per street
FLOP_BOARD = (0, 3, 1, 1)

GAMES: dict[str, Game] = {game.name: game for game in (
    Game("stud", STUD, 7, high=_all_cards(strength), open_pair_option=True),
    Game("stud_hi_lo", STUD, 7, high=_all_cards(strength), low=_all_cards(low8_strength)),
    Game("razz", STUD, 7, low=_all_cards(razz_strength), razz=True),
    Game("omaha_hi_lo", FLOP, 4, high=omaha_strength, low=omaha_low8_strength),
    Game("short_deck", FLOP, 2, high=_all_cards(short_deck_strength), short_deck=True),
    Game("deuce_seven_triple_draw", DRAW, 5, draws=3, low=_all_cards(deuce_seven_strength)),
    Game("deuce_seven_single_draw", DRAW, 5, draws=1, low=_all_cards(deuce_seven_strength)),
    Game("badugi", DRAW, 4, draws=3, low=_all_cards(badugi_strength)),
)}
# Hold'em and Omaha high as a mixed-game rotation deals them (HORSE's hold'em, 8-game's
# hold'em and Omaha): through the mixed decider, so that every hand of a rotation table speaks
# one event vocabulary. Hold'em and Omaha tables and rulings play these two games as well,
# written in hold'em's own events (domain.games.holdem; docs/flop-family.md).
ROTATION_GAMES: dict[str, Game] = {game.name: game for game in (
    Game("rotation_holdem", FLOP, 2, high=_holdem_strength),
    Game("rotation_omaha", FLOP, 4, high=omaha_strength),
)}
DEALT_GAMES = {**GAMES, **ROTATION_GAMES}
FIVE_CARD_DRAW = Game("five_card_draw", DRAW, 5, draws=1, high=_all_cards(strength), late_round=1)
"""Five-card draw as the draw family plays it (domain.games.draw.engine): five cards, one
draw, ranked high, the big bet from the round after the draw. Not in DEALT_GAMES: the
registry reads those as the mixed games', and five-card draw's streams are its own."""
