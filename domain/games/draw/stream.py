"""A five-card draw hand's event stream: the events it holds by type name (the registry
reads them with `evolve` and `replay`: this module is the game's decider for replay),
`evolve(state, event) -> state` and `replay(events) -> state`.

Each event moves the draw family's state of the hand (domain.games.dealt_hand.MixedState,
`EVOLVERS`: the family's own evolvers, five-card draw's events read as the family's), and
the view (domain.games.draw.state.HandState) keeps what the family does not (`_VIEW`):
the hands as first dealt, the draw counts, the redeals, the points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import reduce
from typing import Any

from domain.games import draw_family, mixed
from domain.games.dealt_games import FIVE_CARD_DRAW
from domain.games.dealt_hand import MixedState
from domain.games.draw.events import (
    AntesPosted,
    CardsShown,
    DrawBegan,
    Event,
    FalseOpenersFound,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    OpenersShown,
    OpenersSplit,
    PlayerDrew,
    PointsScored,
    RedealRequired,
    Redealt,
    SecondRoundBegan,
    StubReshuffled,
)
from domain.games.draw.state import REDEAL, HandState, card_numbers
from domain.games.draw_stub import texts
from domain.games.hand_events import ActionTaken, CardsMucked, PotAwarded, ShowAsked, UncalledReturned
from domain.rules.betting import with_changes, with_item
from domain.rules.pots import LEFT_OF_BUTTON

# The draw game the family's HandStarted is read as before the hand becomes five-card
# draw's (`initial`): one draw of five cards, as FIVE_CARD_DRAW deals.
_READ_AS = "deuce_seven_single_draw"

# ------------------------------------------------------------------------- evolve


def evolve(state: HandState | None, event: Event) -> HandState:
    if isinstance(event, HandStarted):
        return initial(event)
    if state is None:
        raise TypeError(f"a five-card draw hand begins with HandStarted, not {event!r}")
    step = EVOLVERS.get(type(event))
    if step is None:
        raise TypeError(f"not a five-card draw event: {event!r}")
    view = _VIEW.get(type(event))
    hand = step(state.hand, event)
    return view(state, hand, event) if view is not None else _with_hand(state, hand)


def replay(events: Iterable[Event]) -> HandState:
    iterator = iter(events)
    started = next(iterator, None)
    if not isinstance(started, HandStarted):
        raise TypeError(f"a five-card draw hand is replayed from its HandStarted, not {started!r}")
    return reduce(evolve, iterator, initial(started))


def initial(event: HandStarted) -> HandState:
    """The family's hand as five-card draw's HandStarted opens it (its antes posted: the
    AntesPosted that follows changes nothing more)."""
    settings, n = event.settings, len(event.players)
    if event.deck is None:
        raise TypeError("a redacted event cannot be replayed")
    chips = settings.betting
    started = mixed.HandStarted(
        _READ_AS, event.players, event.stacks, event.button, settings.betting_structure(),
        (settings.ante if chips else 0,) * n, (0,) * n, 0, False, LEFT_OF_BUTTON, event.deck, event.commitment,
        settings.showdown, settings.hand_rules(), event.reshuffle_order)
    hand = with_changes(mixed.evolve(None, started), game=FIVE_CARD_DRAW)
    return HandState(hand, settings, ((),) * n, (None,) * n, 0, (0,) * n, event.derived_redeals)


def _with_hand(state: HandState, hand: MixedState, **changes: Any) -> HandState:
    return with_changes(state, hand=hand, **changes)


def _unchanged(hand: MixedState, _: Any) -> MixedState:
    """An event the family's state already holds (the antes, a phase it moved to itself)
    or that only tells (openers shown, points: the view keeps those)."""
    return hand


def _player_drew(hand: MixedState, event: PlayerDrew) -> MixedState:
    """The seat's discards, then its replacements from the stub (the family's two steps)."""
    assert event.discarded is not None and event.received is not None, "a redacted event cannot be replayed"
    hand = _FAMILY[draw_family.CardsDiscarded](hand, draw_family.CardsDiscarded(event.position, event.discarded))
    if not event.received:
        return hand
    return _FAMILY[HoleCardsDealt](hand, HoleCardsDealt(event.position, event.received))


def _openers_split(hand: MixedState, event: OpenersSplit) -> MixedState:
    """The discards kept aside never go back into the stub: out of the muck they joined
    with the PlayerDrew before (the family keeps them out as they are thrown)."""
    stub = hand.stub
    if stub is None or event.cards is None:
        return hand
    aside = set(texts(event.cards))
    return with_changes(hand, stub=with_changes(stub, muck=tuple(c for c in stub.muck if c not in aside),
                                                pending=tuple(c for c in stub.pending if c not in aside)))


def _redealt(hand: MixedState, event: Redealt) -> MixedState:
    """The new deal, its antes (the AntesPosted after it) as the family posts them again."""
    assert event.deck is not None, "a redacted event cannot be replayed"
    deck = draw_family.Redeal(event.deck, event.commitment, event.reshuffle_order)
    return draw_family.redealt(hand, draw_family.redeal(hand, REDEAL, deck))


def _dealt_view(state: HandState, hand: MixedState, event: HoleCardsDealt) -> HandState:
    assert event.cards is not None
    return _with_hand(state, hand, dealt=with_item(state.dealt, event.position, card_numbers(event.cards)))


def _drew_view(state: HandState, hand: MixedState, event: PlayerDrew) -> HandState:
    return _with_hand(state, hand, drawn=with_item(state.drawn, event.position, event.count))


def _redealt_view(state: HandState, hand: MixedState, _: Redealt) -> HandState:
    n = state.seat_count
    return _with_hand(state, hand, dealt=((),) * n, drawn=(None,) * n, redeals=state.redeals + 1)


def _points_view(state: HandState, hand: MixedState, event: PointsScored) -> HandState:
    return _with_hand(state, hand, points=tuple(int(seat in event.winners) for seat in range(state.seat_count)))


_FAMILY = mixed.evolvers_in(HoleCardsDealt, mixed.BoardDealt, CardsShown, CardsMucked, HandEnded)
# Each five-card draw event as it moves the family's state.
EVOLVERS: dict[type, Callable[[MixedState, Any], MixedState]] = {
    AntesPosted: _unchanged, HoleCardsDealt: _FAMILY[HoleCardsDealt], ActionTaken: _FAMILY[ActionTaken],
    UncalledReturned: _FAMILY[UncalledReturned], RedealRequired: _unchanged, Redealt: _redealt,
    DrawBegan: _unchanged, StubReshuffled: draw_family.stub_reshuffled, PlayerDrew: _player_drew,
    SecondRoundBegan: _unchanged, OpenersShown: _unchanged, CardsShown: _FAMILY[CardsShown],
    PotAwarded: _FAMILY[PotAwarded], PointsScored: _unchanged, HandEnded: _FAMILY[HandEnded],
    OpenersSplit: _openers_split, FalseOpenersFound: _FAMILY[draw_family.FalseOpenersFound],
    CardsMucked: _FAMILY[CardsMucked], ShowAsked: _FAMILY[ShowAsked],
}
# What the view keeps beside the family's state.
_VIEW: dict[type, Callable[[HandState, MixedState, Any], HandState]] = {
    HoleCardsDealt: _dealt_view, PlayerDrew: _drew_view, Redealt: _redealt_view, PointsScored: _points_view}

EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (HandStarted, *EVOLVERS)}
"""Every event a draw stream holds, by the type name stored with it (in the order they
have always been listed in)."""
