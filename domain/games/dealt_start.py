"""What a dealt hand needs before it starts (domain.games.mixed's StartHand): a game the
engine deals, 2 to the table's most distinct players with a stack each, a button, an odd-chip
rule and a showdown it knows, decks that fit, draw rules only for a draw game."""
from __future__ import annotations

from typing import Protocol

from domain.games import draw_family
from domain.games.dealt_games import DEALT_GAMES, DRAW, FLOP, GAMES, MAX_BOARD_PLAYERS, MAX_STUD_PLAYERS, STUD
from domain.games.dealt_hand import check_deck
from domain.games.draw_settings import DrawRules
from domain.rules.betting import Amount
from domain.rules.citations import cite
from domain.rules.pots import ODD_CHIP_POLICIES
from domain.rules.showdown_order import SHOWDOWNS
from domain.rules.violations import Violation


class StartRequest(Protocol):
    """What the checks read of a StartHand (domain.games.mixed's, which imports them)."""
    @property
    def game(self) -> str: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def stacks(self) -> tuple[Amount, ...]: ...
    @property
    def button(self) -> int: ...
    @property
    def antes(self) -> tuple[Amount, ...]: ...
    @property
    def blinds(self) -> tuple[Amount, ...]: ...
    @property
    def odd_chip(self) -> str: ...
    @property
    def deck(self) -> tuple[str, ...] | None: ...
    @property
    def showdown(self) -> str: ...
    @property
    def draw_rules(self) -> DrawRules | None: ...
    @property
    def reshuffle_order(self) -> tuple[str, ...] | None: ...


def check_start(command: StartRequest) -> None:
    """Raises Violation when the hand cannot start as `command` asks."""
    n = len(command.players)
    if command.game not in DEALT_GAMES:
        raise Violation("illegal_action", f"game must be one of {', '.join(GAMES)}")
    if command.odd_chip not in ODD_CHIP_POLICIES:
        raise Violation("illegal_action", f"odd_chip must be one of {', '.join(ODD_CHIP_POLICIES)}")
    game = DEALT_GAMES[command.game]
    family = game.family
    most = MAX_BOARD_PLAYERS if family == FLOP else 10
    if not 2 <= n <= most or len(command.stacks) != n or len(set(command.players)) != n:
        raise Violation("illegal_action", f"a hand needs 2 to {most} distinct players, one stack each")
    if not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    if family == STUD and n > MAX_STUD_PLAYERS:
        raise Violation("too_many_players",
                        f"{command.game} is dealt to at most {MAX_STUD_PLAYERS} players, not {n}: "
                        "the deck holds seven cards each for eight, with one common card on "
                        "seventh street when it runs out",
                        cite("stud_at_most_eight"), {"players": n, "max_players": MAX_STUD_PLAYERS})
    by_position = bool(command.antes or command.blinds)
    if by_position and (len(command.antes) != n or len(command.blinds) != n):
        raise Violation("illegal_action", "antes and blinds list one amount per player (or none: the structure's)")
    if not by_position and family == STUD:
        raise Violation("illegal_action", "stud games post their antes by seat")
    if not draw_family.without_chips(command.draw_rules, command.stacks, command.antes, command.blinds) \
            and min(command.stacks) <= 0:
        raise Violation("illegal_action", "every seated player needs chips")
    if command.showdown not in SHOWDOWNS:
        raise Violation("illegal_action", f"showdown must be one of {', '.join(SHOWDOWNS)}")
    if family == DRAW or command.reshuffle_order is not None:
        draw_family.check_decks(game, n, command.deck, command.reshuffle_order, command.draw_rules)
    elif command.deck is not None:
        check_deck(game, command.deck, n)
    if command.draw_rules is not None:
        if family != DRAW:
            raise Violation("illegal_action", f"{command.game} is not a draw game: it has no draw rules")
        command.draw_rules.validate()
