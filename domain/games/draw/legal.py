"""What the player to act may do in five-card draw: bet (openers permitting) or draw
(within the table's draw limit)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain.games.draw.openers import has_openers, needs_openers
from domain.games.draw.state import FIRST_ROUND, HAND_SIZE, SECOND_ROUND, HandState
from domain.games.draw_settings import DrawSettings, most_exchanged
from domain.rules import betting as bet
from domain.rules.betting import LegalActions, with_changes


def draw_limit(settings: DrawSettings, kept: Iterable[int]) -> int:
    """The most cards a player keeping `kept` may exchange."""
    return most_exchanged(settings.draw_limit, kept)


@dataclass(frozen=True)
class DrawOptions:
    """The drawing player's choice: throw away 0..`most` of their cards, but more than
    `most_keeping_no_ace` only while keeping an ace or the joker."""
    position: int
    most: int
    most_keeping_no_ace: int


def legal_draw(state: HandState) -> DrawOptions | None:
    """What the player to draw may do; None outside the draw."""
    seat = state.draw_to_act
    if seat is None:
        return None
    hand = state.hands[seat]
    plain = draw_limit(state.settings, ())
    best = max(draw_limit(state.settings, (card,)) for card in hand)
    return DrawOptions(seat, min(best, HAND_SIZE), plain)


def legal_actions(state: HandState) -> LegalActions | None:
    """What the player to bet may do; None when nobody is to bet (also during the draw).
    Under jacks or better a player without openers may not make the first bet."""
    if state.phase not in (FIRST_ROUND, SECOND_ROUND) or state.betting is None:
        return None
    legal = bet.legal_actions(state.betting)
    to_act = state.betting.to_act
    if legal is not None and legal.bet is not None and to_act is not None and needs_openers(state) \
            and not has_openers(state.hands[to_act], state.settings.joker):
        return with_changes(legal, bet=None)
    return legal
