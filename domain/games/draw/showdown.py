"""The showdown and the settlement of a five-card draw hand.

The showdown is the TDA's (declarations.md "Showdown"; domain.rules.showdown_order), as at
hold'em tables: all in with the betting over, every hand is tabled (TDA 2024 16: at the
showdown, after the draw, which has no board to run out); otherwise the last aggressor of
the second round shows first, else the first player left of the dealer, and the others show
or muck in turn (17), by the computer (`settings.showdown` "automatic") or by the players
themselves ("declared": ShowCards, Muck, AskToSee, 18-B); the last live hand wins without
showing (17-B). A mucked hand is never shown. No-betting mode shows every hand: points go
to every best hand, so there is nothing to muck for.

The settlement shows the opener's openers (OpenersShown, public, even when the opener
folded or won without a showdown) and awards every pot among the hands not mucked.
"""
from __future__ import annotations

from domain.games.draw.commands import AskToSee, Muck, ShowCards
from domain.games.draw.events import CardsShown, Event
from domain.games.draw.state import HandState, check_seat
from domain.games.hand_events import CardsMucked, ShowAsked
from domain.rules import showdown_order
from domain.rules.cards import format_cards
from domain.rules.citations import cite
from domain.rules.evaluation import evaluate_high
from domain.rules.violations import Violation


def show_or_muck(state: HandState, command: ShowCards | Muck) -> Event:
    seat = command.position
    check_seat(state, seat)
    if not state.at_showdown:
        raise Violation("illegal_action", f"hands are shown at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("order_of_show"), {"seat": seat})
    # A contender's hand (every hand in no-betting mode, which has no betting round to ask).
    if state.shown[seat] and seat in state.contenders:
        raise Violation("already_shown", f"{state.players[seat]}'s hand is already face up",
                        cite("order_of_show"), {"seat": seat})
    showdown_order.check_turn_to_show(state.show_order, state.shown, state.mucked, seat, state.players[seat])
    return _shown(state, seat) if isinstance(command, ShowCards) else CardsMucked(seat)


def ask_to_see(state: HandState, command: AskToSee) -> list[Event]:
    check_seat(state, command.position)
    if not state.at_showdown:
        raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("no_right_to_see"), {"seat": command.position})
    target = showdown_order.ask_to_see(state.show_order, state.shown, state.mucked, command.position,
                                       state.aggressor, state.players[command.position])
    return [ShowAsked(command.position, target), _shown(state, target)]


def shows_at_showdown(state: HandState, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown; else muck (domain.rules.showdown_order.computer_shows)."""
    return showdown_order.computer_shows(_strengths(state), state.show_order, state.shown, state.mucked, seat)


def _shown(state: HandState, seat: int) -> CardsShown:
    cards = state.hands[seat]
    return CardsShown(seat, format_cards(cards), evaluate_high(cards, state.settings.joker).category)


def _strengths(state: HandState) -> dict[int, int]:
    """The hands that count: every contender's hand not mucked."""
    return {seat: evaluate_high(state.hands[seat], state.settings.joker).strength
            for seat in state.contenders if not state.mucked[seat]}
