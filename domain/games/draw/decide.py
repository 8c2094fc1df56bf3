"""The commands that start and deal a five-card draw hand (StartHand, Redeal): the table's
checks of the players, the stacks and the decks, and the deal, five each one card at a
time from the dealer's left, antes first (domain.games.draw.engine decides the rest).
"""
from __future__ import annotations

from domain.games.draw.commands import Redeal, StartHand, check_deck
from domain.games.draw.events import AntesPosted, Event, HandStarted, HoleCardsDealt, Redealt
from domain.games.draw.state import HAND_SIZE, REDEAL, HandState
from domain.games.draw_settings import MAX_PLAYERS, MIN_PLAYERS, DrawSettings
from domain.games.draw_stub import dealt_round
from domain.rules.pots import seats_from_left_of_button
from domain.rules.violations import Violation


def starting_events(command: StartHand) -> list[Event]:
    settings = command.settings
    if not isinstance(settings, DrawSettings):
        raise Violation("invalid_settings", "StartHand needs DrawSettings")
    settings.validate()
    players = tuple(command.players)
    n = len(players)
    wanted = f"exactly {settings.players}" if settings.players else f"{MIN_PLAYERS} to {MAX_PLAYERS}"
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or (settings.players and n != settings.players) \
            or len(set(players)) != n:
        raise Violation("illegal_action", f"five-card draw seats {wanted} distinct players, not {n}",
                        numbers={"players": n})
    if isinstance(command.button, bool) or not isinstance(command.button, int) \
            or not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    stacks = tuple(command.stacks)
    whole: tuple[int, ...] = (0,) * n  # no-betting mode: no chips
    if settings.betting:
        whole = tuple(s for s in stacks if isinstance(s, int) and not isinstance(s, bool) and s > 0)
        if len(stacks) != n or len(whole) != n:
            raise Violation("illegal_action", "every seated player needs a positive whole stack",
                            numbers={"stacks": stacks})
    elif stacks:
        raise Violation("illegal_action", "no-betting mode plays without chips: send no stacks")
    deck = check_deck(settings, command.deck, "deck")
    reshuffle = check_deck(settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    events: list[Event] = [HandStarted(players, whole,
                                       command.button, settings, deck, command.commitment,
                                       reshuffle, command.derived_redeals)]
    seats = seats_from_left_of_button(range(n), command.button, n)
    if settings.betting:
        events.append(AntesPosted(tuple(min(settings.ante, s) for s in whole)))
    events.extend(_deal(deck, seats))
    return events


def _deal(deck: tuple[str, ...], seats: tuple[int, ...]) -> list[Event]:
    """Five each, one card at a time round the table from the first seat in `seats`."""
    return [HoleCardsDealt(seat, cards) for seat, cards in dealt_round(deck, seats, HAND_SIZE)]


def redeal_events(state: HandState, command: Redeal) -> list[Event]:
    if state.phase != REDEAL:
        raise Violation("illegal_action", f"no redeal is due: the hand awaits the {state.awaiting}")
    deck = check_deck(state.settings, command.deck, "deck")
    reshuffle = check_deck(state.settings, command.reshuffle_order, "reshuffle_order") \
        if command.reshuffle_order is not None else None
    b = state.wagers
    contenders = set(b.contenders)
    ante = state.settings.ante
    amounts = tuple(min(ante, stack) if seat in contenders else 0
                    for seat, stack in enumerate(b.stacks))
    seats = seats_from_left_of_button(b.contenders, state.button, state.seat_count)
    return [Redealt(deck, command.commitment, reshuffle), AntesPosted(amounts), *_deal(deck, seats)]
