"""The draw in five-card draw: a seat's one exchange (Discard), within the table's draw
limit, from the stub (topped up with the discards and folded hands when it runs out,
never with the drawing player's own discards or split openers), and the opener's
declaration of split openers (RRP draw; the rulings we chose: domain.games.draw).
"""
from __future__ import annotations

from collections.abc import Sequence

from domain.games.draw.commands import Discard, parse_card_list
from domain.games.draw.events import Event, OpenersSplit, PlayerDrew, StubReshuffled
from domain.games.draw.legal import draw_limit
from domain.games.draw.openers import has_openers, openers_kept, opening_cards
from domain.games.draw.state import DRAW, HandState, card_numbers, check_seat
from domain.games.draw_settings import JACKS_OR_BETTER, THREE_OR_FOUR_WITH_ACE
from domain.games.draw_stub import in_reshuffle_order
from domain.rules.cards import format_card, format_cards
from domain.rules.citations import cite
from domain.rules.violations import Violation


def draw(state: HandState, command: Discard) -> list[Event]:
    if state.phase != DRAW:
        raise Violation("not_your_turn", f"no draw now: the hand awaits the {state.awaiting}",
                        numbers={"seat": command.position})
    check_seat(state, command.position)
    seat = command.position
    to_draw = state.draw_to_act
    if seat != to_draw:
        assert to_draw is not None  # the draw goes on while someone is still to draw
        raise Violation("not_your_turn",
                        f"it is {state.players[to_draw]}'s turn to draw, not "
                        f"{state.players[seat]}'s", numbers={"seat": seat, "to_act": to_draw})
    discarded = parse_card_list(command.cards, "cards to discard")
    held = state.hands[seat]
    foreign = [c for c in discarded if c not in held]
    if foreign:
        raise Violation("invalid_discard",
                        f"{format_cards(foreign)} not in {state.players[seat]}'s hand {format_cards(held)}",
                        numbers={"cards": format_cards(foreign)})
    kept = [c for c in held if c not in discarded]
    limit = draw_limit(state.settings, kept)
    if len(discarded) > limit:
        why = ("; 4 only when keeping an ace or the joker"
               if state.settings.draw_limit == THREE_OR_FOUR_WITH_ACE else "")
        raise Violation("draw_limit_exceeded",
                        f"cannot exchange {len(discarded)} cards: the limit is {limit}{why}",
                        cite("five_card_draw"), {"count": len(discarded), "limit": limit})
    split = _split_openers(state, command, discarded)
    events: list[Event] = []
    stub = state.stub_cards  # as the events write them: no card read for the draw's usual case
    if len(stub) < len(discarded):
        order = state.reshuffle_order
        pile = tuple(format_card(c) for c in in_reshuffle_order(
            state.muck, card_numbers("".join(order)) if order is not None else None))
        events.append(StubReshuffled(len(pile), pile))
        stub = stub + pile
    events.append(PlayerDrew(seat, len(discarded), format_cards(discarded), "".join(stub[:len(discarded)])))
    if split:
        events.append(OpenersSplit(seat, format_cards(discarded)))
    return events


def _split_openers(state: HandState, command: Discard, discarded: Sequence[int]) -> bool:
    """Whether this draw splits the openers; an opener who throws away part of them must
    say so (RRP draw), and only the opener can."""
    seat = command.position
    opener = state.settings.opening == JACKS_OR_BETTER and seat == state.opener
    if command.split_openers and not opener:
        why = ("did not open: only the opener splits openers" if state.settings.opening == JACKS_OR_BETTER
               else "has no openers to split: this table plays without an opening requirement (jacks or better)")
        raise Violation("illegal_action", f"{state.players[seat]} {why}", cite("split_openers"), {"seat": seat})
    if not opener or not has_openers(state.dealt[seat], state.settings.joker):
        return command.split_openers
    openers = set(card_numbers(opening_cards(state.dealt[seat], state.settings.joker)))
    if not openers_kept(state.dealt[seat], state.settings.joker, discarded) and not command.split_openers:
        raise Violation("split_openers_undeclared",
                        f"discarding {format_cards(sorted(openers & set(discarded)))} breaks the openers "
                        f"{format_cards(sorted(openers))}: the opener must declare splitting openers and keep the "
                        "discards aside", cite("split_openers"), {"seat": seat})
    return command.split_openers
