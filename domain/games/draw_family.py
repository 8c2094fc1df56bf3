"""The draw family's own rules in a hand of domain.games.mixed (2-7 triple and single
draw, badugi, and five-card draw's table settings a hand may carry: DrawRules): what a
discard may throw, the cards kept after it, and who opens the rounds after the draw.
"""
from __future__ import annotations

from domain.games.dealt_hand import Hole, MixedState, cards_of
from domain.games.draw_settings import OPENER, most_exchanged
from domain.rules.betting import with_changes
from domain.rules.cards import Card, format_card
from domain.rules.citations import cite
from domain.rules.violations import Violation


def check_discard(state: MixedState, seat: int, text: str) -> tuple[Card | None, ...]:
    """The cards `seat` throws: held (or unknown), each once, within the hand's draw limit."""
    thrown = cards_of(text, state.game.short_deck)
    hole, name = state.hole[seat], state.players[seat]
    if len(thrown) > len(hole) or len(set(c for c in thrown if c is not None)) \
            != sum(c is not None for c in thrown):
        raise Violation("invalid_discard", f"{name} holds {len(hole)} cards and cannot throw {text}")
    for card in thrown:
        if card is not None and card not in hole and None not in hole:
            raise Violation("invalid_discard", f"{name} does not hold {format_card(card)}")
    rules = state.draw_rules
    if rules is not None and len(thrown) > (limit := most_exchanged(rules.draw_limit, after_discard(hole, thrown))):
        raise Violation("draw_limit_exceeded", f"{name} cannot exchange {len(thrown)} cards: the limit is "
                        f"{limit}", cite("five_card_draw"), {"count": len(thrown), "limit": limit})
    return thrown


def after_discard(hole: Hole, thrown: tuple[Card | None, ...]) -> Hole:
    """The cards kept. Unknown cards thrown from a hand of known cards leave every kept
    card unknown: nobody can say which were kept."""
    kept = list(hole)
    unplaced = 0
    for card in thrown:
        if card in kept:
            kept.remove(card)
        elif None in kept:
            kept.remove(None)
        else:
            unplaced += 1
    return (None,) * (len(kept) - unplaced) if unplaced else tuple(kept)


def bet_made(state: MixedState, seat: int) -> MixedState:
    """After `seat` bets in a hand with DrawRules: the first round's first bet opens it."""
    if state.street or state.opener is not None:
        return state
    return with_changes(state, opener=seat)


def opener_after_draw(state: MixedState) -> int | None:
    """The seat a round after the draw starts from: the first round's opener under
    `second_round_start` OPENER (domain.rules.betting.start_round passes on to the next
    seat still in with chips); None, left of the button, otherwise or when nobody opened."""
    rules = state.draw_rules
    return state.opener if rules is not None and rules.second_round_start == OPENER else None
