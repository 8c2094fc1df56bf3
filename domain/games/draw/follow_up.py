"""What happens by itself next in a five-card draw hand, once a command's events are in:
a betting round closes (an unproven opener found, uncalled chips returned, a redeal for
want of an open, the draw, the showdown, the settlement), the draw ends (the second round,
or the no-betting showdown). When a redeal is due and when the opener must prove the
openers are the rulings domain.games.draw's docstring gives.
"""
from __future__ import annotations

from domain.games.draw.events import ALL_CHECKED, NO_OPENERS, DrawBegan, Event, FalseOpenersFound, RedealRequired, SecondRoundBegan
from domain.games.draw.openers import false_openers_outcome, has_openers
from domain.games.draw.showdown import no_betting_showdown, settlement, showdown_step
from domain.games.draw.state import DRAW, OVER, REDEAL, SECOND_ROUND, HandState
from domain.games.draw_settings import JACKS_OR_BETTER, LEFT_OF_DEALER
from domain.games.hand_events import UncalledReturned
from domain.rules import betting as bet


def follow_up(state: HandState) -> list[Event]:
    """The events that happen by themselves next; empty when the hand waits for a command."""
    if state.phase in (OVER, REDEAL):
        return []
    if state.phase == DRAW:
        if state.betting is not None and state.betting.hand_decided:
            # False openers found during the draw left one live hand: it takes the pot.
            return settlement(state)
        if state.draw_to_act is not None:
            return []
        if state.betting is None:
            return no_betting_showdown(state)
        return [SecondRoundBegan(_second_round_first(state))]
    b = state.wagers
    if b.to_act is not None:
        return []
    opener = state.opener
    if (b.hand_decided or state.phase == SECOND_ROUND) and opener is not None and _unproven_opener(state):
        # The opener must prove the openers at the end of the hand and cannot.
        return [FalseOpenersFound(opener, false_openers_outcome(state.wagers, opener, state.acted_after_open))]
    _, seat, amount = bet.return_uncalled(b)
    if seat is not None and amount:  # no seat: nothing goes back (amount 0)
        return [UncalledReturned(seat, amount)]
    if b.hand_decided:
        return settlement(state)
    if state.phase == SECOND_ROUND:
        return showdown_step(state)
    reason = _redeal_reason(state)
    return [RedealRequired(reason)] if reason else [DrawBegan()]


def _unproven_opener(state: HandState) -> bool:
    opener = state.opener
    return opener is not None and state.settings.opening == JACKS_OR_BETTER \
        and not state.wagers.folded[opener] and not has_openers(state.dealt[opener], state.settings.joker)


def _redeal_reason(state: HandState) -> str | None:
    """Why an unopened first round is dealt again (None: it goes on to the draw)."""
    b = state.wagers
    if state.opener is not None or not b.can_still_bet:
        return None
    if state.settings.opening == JACKS_OR_BETTER and not any(
            has_openers(state.hands[seat], state.settings.joker) for seat in b.contenders):
        return NO_OPENERS
    if state.settings.second_round_start == LEFT_OF_DEALER:
        return None
    return ALL_CHECKED


def _second_round_first(state: HandState) -> int | None:
    """The opener, or the next player still in with chips to the opener's left; or the
    first such player left of the dealer (setting, or when nobody opened)."""
    opened = bet.start_round(state.wagers, late=True)
    if opened.to_act is None:
        return None
    if state.settings.second_round_start == LEFT_OF_DEALER or state.opener is None:
        return opened.to_act
    n = state.seat_count
    for step in range(n):
        seat = (state.opener + step) % n
        if not opened.folded[seat] and opened.stacks[seat] > 0:
            return seat
    return None
