"""The state of a five-card draw hand: its phases, its cards, its betting, whose turn it is.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from domain.games.draw_settings import DrawSettings
from domain.games.settlement import open_pots
from domain.rules import showdown_order
from domain.rules.betting import Amount, BettingState
from domain.rules.cards import format_card
from domain.rules.draw_order import next_to_draw
from domain.rules.pots import Pot, PotAward
from domain.rules.violations import Violation

if TYPE_CHECKING:  # the view of the draw family's engine, as its callers move to it (issue 36)
    from domain.games.draw import engine

HAND_SIZE = 5
FIRST_ROUND = "first_round"
REDEAL = "redeal"
DRAW = "draw"
SECOND_ROUND = "second_round"
SHOWDOWN = "showdown"
"""Not a phase of its own: what a hand awaits once the second round is over (`awaiting`)."""
OVER = "over"

_CARD_BY_TEXT = {format_card(c): c for c in range(53)}


@dataclass(frozen=True)
class HandState:
    """Everything views need. `hands[i]` are seat i's cards now (empty once folded);
    `dealt[i]` as dealt before the draw; `drawn[i]` how many seat i drew (None: not yet).
    `stub` the cards left to draw from; `muck` the discards and folded hands a reshuffle
    may use. `betting` is None in no-betting mode."""
    settings: DrawSettings
    players: tuple[str, ...]
    button: int
    phase: str
    betting: BettingState | None
    deck: tuple[str, ...]
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None
    hands: tuple[tuple[int, ...], ...]
    dealt: tuple[tuple[int, ...], ...]
    drawn: tuple[int | None, ...]
    stub: tuple[int, ...]
    muck: tuple[int, ...]
    opener: int | None
    redeals: int
    awards: tuple[PotAward, ...]
    points: tuple[int, ...]
    showdown: bool
    acted_after_open: bool = False
    """Someone other than the opener has acted since the open (false openers, RRP draw)."""
    folded_at_open: tuple[bool, ...] | None = None
    """Who had folded when the opening bet was made (a carried pot deals the rest again)."""
    shown: tuple[bool, ...] = ()
    """Per seat: the hand was tabled at the showdown (CardsShown)."""
    mucked: tuple[bool, ...] = ()
    """Per seat: the hand was mucked at the showdown (CardsMucked): it stays hidden."""
    aggressor: int | None = None
    """The last player to bet or raise in the second round (TDA 2024 17: shows first)."""

    @property
    def seat_count(self) -> int:
        return len(self.players)

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def contenders(self) -> tuple[int, ...]:
        """Seats still in the hand (every seat in no-betting mode)."""
        if self.betting is None:
            return tuple(range(self.seat_count))
        return self.betting.contenders

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.betting.stacks if self.betting is not None else (0,) * self.seat_count

    @property
    def wagers(self) -> BettingState:
        """`betting`, where only a betting-mode hand gets to (antes, bets, the pots)."""
        if self.betting is None:
            raise TypeError("a no-betting hand has no betting round")
        return self.betting

    @property
    def draw_to_act(self) -> int | None:
        """During the draw: the next seat from the left of the dealer still to draw."""
        if self.phase != DRAW:
            return None
        return next_to_draw({seat for seat in self.contenders if self.drawn[seat] is None}, self.button,
                            self.seat_count)

    @property
    def to_act(self) -> int | None:
        """Whose turn it is: to bet, to draw, or (declared showdown) to show or muck."""
        if self.phase == DRAW:
            return self.draw_to_act
        if self.at_showdown and self.settings.showdown == showdown_order.DECLARED:
            return self.to_show
        if self.phase in (FIRST_ROUND, SECOND_ROUND):
            return self.wagers.to_act
        return None

    @property
    def awaiting(self) -> str | None:
        """"action", "draw", "redeal", "showdown", or None once the hand is over."""
        if self.phase == DRAW:
            return "draw"
        if self.phase == REDEAL:
            return "redeal"
        if self.phase == OVER:
            return None
        if self.at_showdown:
            return SHOWDOWN
        return "action"

    @property
    def at_showdown(self) -> bool:
        """The second round is over with two or more hands left: they are shown or mucked."""
        b = self.betting
        return self.phase == SECOND_ROUND and b is not None and b.to_act is None and not b.hand_decided

    @property
    def show_order(self) -> tuple[int, ...]:
        """The contenders in the order of show (TDA 2024 17)."""
        return showdown_order.order_of_show(self.contenders, self.seat_count, self.button, self.aggressor)

    @property
    def to_show(self) -> int | None:
        """The seat to show or muck now, at the showdown."""
        if not self.at_showdown:
            return None
        return showdown_order.next_to_show(self.show_order, self.shown, self.mucked)

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, this round's bets included (none in no-betting mode)."""
        if self.betting is None or self.over:
            return ()
        return open_pots(self.betting)


def check_seat(state: Hand, seat: Any) -> None:
    """A command's seat is one of the table's."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seat_count:
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def card_numbers(text: str) -> tuple[int, ...]:
    """The cards of an event's text ("AsKd..."), in the canonical form events write."""
    return tuple(_CARD_BY_TEXT[text[i:i + 2]] for i in range(0, len(text), 2))


Hand: TypeAlias = "HandState | engine.HandState"
"""A hand's state as five-card draw's rules read it: its own decider's, or the draw family
engine's view (domain.games.draw.engine)."""
