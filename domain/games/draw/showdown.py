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
from domain.games.draw.events import CardsShown, Event, HandEnded, OpenersShown, PointsScored
from domain.games.draw.openers import has_openers, opening_cards
from domain.games.draw.state import Hand, check_seat
from domain.games.draw_settings import JACKS_OR_BETTER
from domain.games.hand_events import CardsMucked, ShowAsked
from domain.games.settlement import settlement as shared_settlement
from domain.rules import showdown_order
from domain.rules.betting import Amount
from domain.rules.cards import format_cards
from domain.rules.citations import cite
from domain.rules.evaluation import evaluate_high
from domain.rules.pots import LEFT_OF_BUTTON, Pot, PotAward, award_pots, seats_from_left_of_button
from domain.rules.violations import Violation


def show_or_muck(state: Hand, command: ShowCards | Muck) -> Event:
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


def ask_to_see(state: Hand, command: AskToSee) -> list[Event]:
    check_seat(state, command.position)
    if not state.at_showdown:
        raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("no_right_to_see"), {"seat": command.position})
    target = showdown_order.ask_to_see(state.show_order, state.shown, state.mucked, command.position,
                                       state.aggressor, state.players[command.position])
    return [ShowAsked(command.position, target), _shown(state, target)]


def showdown_step(state: Hand) -> list[Event]:
    """The showdown's next events: every hand tabled when one is all in (TDA 2024 16); else
    the computer's show or muck for the seat next in the order (automatic showdowns), or
    nothing while that player is to answer (declared); the settlement once every hand is
    shown or mucked, or one live hand is left (17-B)."""
    order = state.show_order
    if showdown_order.all_in_face_up(order, state.stacks):
        face_up: list[Event] = [_shown(state, seat) for seat in order if not state.shown[seat]]
        if face_up:
            return face_up
    due = showdown_order.next_to_show(order, state.shown, state.mucked)
    if due is None:
        return settlement(state)
    if state.settings.showdown == showdown_order.AUTOMATIC:
        return [_shown(state, due) if shows_at_showdown(state, due) else CardsMucked(due)]
    return []


def shows_at_showdown(state: Hand, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown; else muck (domain.rules.showdown_order.computer_shows)."""
    return showdown_order.computer_shows(_strengths(state), state.show_order, state.shown, state.mucked, seat)


def settlement(state: Hand) -> list[Event]:
    """Openers proven, then the settlement the other games share (domain.games.settlement):
    every pot awarded among the hands not mucked, hand over."""
    b = state.wagers
    n = state.seat_count
    proven: list[Event] = []
    if state.opener is not None and state.settings.opening == JACKS_OR_BETTER \
            and has_openers(state.dealt[state.opener], state.settings.joker):
        proven.append(OpenersShown(state.opener, opening_cards(state.dealt[state.opener], state.settings.joker)))

    def showdown_awards(pots: tuple[Pot, ...]) -> tuple[PotAward, ...]:
        return award_pots(pots, _strengths(state), b.button, n, LEFT_OF_BUTTON)

    def hand_ended(stacks: tuple[Amount, ...], at_showdown: bool) -> HandEnded:
        return HandEnded(stacks, (0,) * n, at_showdown)

    return [*proven, *shared_settlement(b, LEFT_OF_BUTTON, showdown_awards, hand_ended)]


def no_betting_showdown(state: Hand) -> list[Event]:
    """Every hand shown from the left of the dealer; every best hand scores a point."""
    n = state.seat_count
    events: list[Event] = []
    strengths = {}
    for seat in seats_from_left_of_button(range(n), state.button, n):
        value = evaluate_high(state.hands[seat], state.settings.joker)
        events.append(CardsShown(seat, format_cards(state.hands[seat]), value.category))
        strengths[seat] = value.strength
    best = max(strengths.values())
    winners = tuple(seat for seat in range(n) if strengths[seat] == best)
    events.append(PointsScored(winners))
    events.append(HandEnded((0,) * n, tuple(int(seat in winners) for seat in range(n)), True))
    return events


def _shown(state: Hand, seat: int) -> CardsShown:
    cards = state.hands[seat]
    return CardsShown(seat, format_cards(cards), evaluate_high(cards, state.settings.joker).category)


def _strengths(state: Hand) -> dict[int, int]:
    """The hands that count: every contender's hand not mucked."""
    return {seat: evaluate_high(state.hands[seat], state.settings.joker).strength
            for seat in state.contenders if not state.mucked[seat]}
