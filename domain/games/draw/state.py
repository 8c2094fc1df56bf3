"""The state of a five-card draw hand: its phases, its cards, its betting, whose turn it is,
read off the draw family's state of the hand (domain.games.dealt_hand.MixedState: five-card
draw plays in the mixed games' engine, domain.games.draw.engine).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.games.dealt_hand import HandView, MixedState
from domain.games.draw_settings import DrawSettings
from domain.rules import showdown_order
from domain.rules.betting import BettingState
from domain.rules.cards import format_card
from domain.rules.pots import Pot
from domain.rules.violations import Violation

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
class HandState(HandView):
    """Everything views need, read off the draw family's state of the hand (`hand`) in
    five-card draw's terms (its own decider's state had them as fields). The family keeps
    no hands as first dealt, draw counts, redeal count or points: `dealt[i]` seat i's hand
    as dealt before the draw, `drawn[i]` how many it drew (None: not yet), `redeals`,
    `points` this hand's (no-betting mode)."""
    hand: MixedState
    settings: DrawSettings
    dealt: tuple[tuple[int, ...], ...]
    drawn: tuple[int | None, ...]
    redeals: int = 0
    points: tuple[int, ...] = ()
    derived_redeals: bool = False

    @property
    def button(self) -> int:
        return self.hand.betting.button

    @property
    def seat_count(self) -> int:
        return len(self.hand.players)

    @property
    def phase(self) -> str:
        """FIRST_ROUND, REDEAL, DRAW, SECOND_ROUND (its showdown too) or OVER; in no-betting
        mode DRAW until the hand is over."""
        hand = self.hand
        phase = hand.phase
        if phase == "over":
            return OVER
        if phase == "redeal":
            return REDEAL
        if not self.settings.betting or phase == "draw":
            return DRAW
        return SECOND_ROUND if hand.street else FIRST_ROUND

    @property
    def betting(self) -> BettingState | None:
        """None in no-betting mode."""
        return self.hand.betting if self.settings.betting else None

    @property
    def wagers(self) -> BettingState:
        """`betting`, where only a betting-mode hand gets to (antes, bets, the pots)."""
        if not self.settings.betting:
            raise TypeError("a no-betting hand has no betting round")
        return self.hand.betting

    @property
    def deck(self) -> tuple[str, ...]:
        deck = self.hand.deck
        assert deck is not None  # five-card draw is always dealt from its deck
        return deck

    @property
    def reshuffle_order(self) -> tuple[str, ...] | None:
        stub = self.hand.stub
        return stub.reshuffle_order if stub is not None else None

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Seat i's cards now (empty once folded or dead; awaiting a new deal, a hand folded
        in the deal before is in the muck, though a carried pot deals it again)."""
        hand = self.hand
        folded = hand.betting.folded
        if hand.phase == "redeal" and hand.stub is not None:
            mucked = set(hand.stub.muck)
            folded = tuple(cards == () or format_card(cards[0]) in mucked  # type: ignore[arg-type]
                           for cards in hand.hole)
        return tuple([() if folded[seat] else cards for seat, cards in enumerate(hand.hole)])  # type: ignore[misc]

    @property
    def stub_cards(self) -> tuple[str, ...]:
        """The stub as the events write its cards, top first."""
        stub = self.hand.stub
        return stub.cards if stub is not None else ()

    @property
    def stub(self) -> tuple[int, ...]:
        stub = self.hand.stub
        return card_numbers("".join(stub.cards)) if stub is not None else ()

    @property
    def muck(self) -> tuple[int, ...]:
        """The discards and folded hands a reshuffle may use."""
        stub = self.hand.stub
        return card_numbers("".join(stub.muck + stub.pending)) if stub is not None else ()

    @property
    def opener(self) -> int | None:
        return self.hand.opener

    @property
    def acted_after_open(self) -> bool:
        return self.hand.acted_after_open

    @property
    def folded_at_open(self) -> tuple[bool, ...] | None:
        return self.hand.folded_at_open

    @property
    def aggressor(self) -> int | None:
        """The last player to bet or raise in the second round (TDA 2024 17: shows first)."""
        return self.hand.aggressor if self.phase == SECOND_ROUND else None

    @property
    def contenders(self) -> tuple[int, ...]:
        """Seats still in the hand (every seat in no-betting mode)."""
        return self.hand.betting.contenders

    @property
    def draw_to_act(self) -> int | None:
        """During the draw: the next seat from the left of the dealer still to draw."""
        return self.hand.next_to_draw if self.hand.phase == "draw" else None

    @property
    def at_showdown(self) -> bool:
        """The second round is over with two or more hands left: they are shown or mucked."""
        b = self.hand.betting
        return self.phase == SECOND_ROUND and b.to_act is None and not b.hand_decided

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
    def to_act(self) -> int | None:
        """Whose turn it is: to bet, to draw, or (declared showdown) to show or muck."""
        phase = self.phase
        if phase == DRAW:
            return self.draw_to_act
        if self.at_showdown and self.settings.showdown == showdown_order.DECLARED:
            return self.to_show
        if phase in (FIRST_ROUND, SECOND_ROUND):
            return self.hand.betting.to_act
        return None

    @property
    def awaiting(self) -> str | None:
        """"action", "draw", "redeal", "showdown", or None once the hand is over."""
        phase = self.phase
        if phase == DRAW:
            return "draw"
        if phase == REDEAL:
            return "redeal"
        if phase == OVER:
            return None
        if self.at_showdown:
            return SHOWDOWN
        return "action"

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, this round's bets included (none in no-betting mode)."""
        return self.hand.pots if self.settings.betting else ()


def check_seat(state: HandState, seat: Any) -> None:
    """A command's seat is one of the table's."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seat_count:
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def card_numbers(text: str) -> tuple[int, ...]:
    """The cards of an event's text ("AsKd..."), in the canonical form events write."""
    return tuple(_CARD_BY_TEXT[text[i:i + 2]] for i in range(0, len(text), 2))

