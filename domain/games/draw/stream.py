"""A five-card draw hand's event stream: the events it holds by type name (the registry
reads them with `evolve` and `replay`: this module is the game's decider for replay),
`evolve(state, event) -> state` and `replay(events) -> state`.

`evolve` is a table of small functions by event type, each typed with its own event; the
table names every event a stream holds but HandStarted, which begins it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import reduce
from typing import Any, TypeVar

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
from domain.games.draw.openers import CARRIED, false_opener_out
from domain.games.draw.state import DRAW, FIRST_ROUND, OVER, REDEAL, SECOND_ROUND, HandState, card_numbers
from domain.games.hand_events import ActionTaken, CardsMucked, PotAwarded, ShowAsked, UncalledReturned, credit_award
from domain.rules import betting as bet
from domain.rules.betting import with_changes


def evolve(state: HandState | None, event: Event) -> HandState:
    if isinstance(event, HandStarted):
        return _initial(event)
    if state is None:
        raise TypeError(f"a five-card draw hand begins with HandStarted, not {event!r}")
    step = _EVOLVERS.get(type(event))
    if step is None:
        raise TypeError(f"not a five-card draw event: {event!r}")
    return step(state, event)


def replay(events: Iterable[Event]) -> HandState:
    state = reduce(evolve, events, None)
    if state is None:
        raise TypeError("a five-card draw hand is replayed from its HandStarted: no events given")
    return state


def _initial(event: HandStarted) -> HandState:
    n = len(event.players)
    settings = event.settings
    betting = None
    if settings.betting:
        betting = bet.open_hand(settings.betting_structure(), event.players, event.stacks,
                                event.button)
    return HandState(
        settings=settings, players=event.players, button=event.button,
        phase=FIRST_ROUND if settings.betting else DRAW, betting=betting, deck=_unsealed(event.deck),
        commitment=event.commitment, reshuffle_order=event.reshuffle_order,
        hands=((),) * n, dealt=((),) * n, drawn=(None,) * n,
        stub=card_numbers("".join(_unsealed(event.deck))), muck=(), opener=None, redeals=0, awards=(),
        points=(0,) * n, showdown=False, shown=(False,) * n, mucked=(False,) * n)


def _antes_posted(state: HandState, event: AntesPosted) -> HandState:
    b = state.wagers
    stacks = tuple(s - a for s, a in zip(b.stacks, event.amounts))
    committed = tuple(c + a for c, a in zip(b.committed, event.amounts))
    posted = with_changes(b, stacks=stacks, committed=committed)
    return with_changes(state, betting=bet.start_round(posted, late=False))


def _hole_cards_dealt(state: HandState, event: HoleCardsDealt) -> HandState:
    cards = card_numbers(_unsealed(event.cards))
    dealt_set = set(cards)
    return with_changes(state, hands=_put(state.hands, event.position, cards),
                        dealt=_put(state.dealt, event.position, cards),
                        stub=tuple(c for c in state.stub if c not in dealt_set))


def _action_taken(state: HandState, event: ActionTaken) -> HandState:
    changes: dict[str, Any] = {
        "betting": bet.apply_action(state.wagers, event.position, event.action, event.to)}
    if event.action == "fold":
        changes.update(hands=_put(state.hands, event.position, ()),
                       muck=state.muck + state.hands[event.position])
    elif event.action == "bet" and state.phase == FIRST_ROUND and state.opener is None:
        changes.update(opener=event.position, folded_at_open=state.wagers.folded)
    if event.action in ("bet", "raise") and state.phase == SECOND_ROUND:
        changes["aggressor"] = event.position
    if state.opener is not None and event.position != state.opener:
        changes["acted_after_open"] = True
    return with_changes(state, **changes)


def _uncalled_returned(state: HandState, event: UncalledReturned) -> HandState:
    return with_changes(state, betting=bet.apply_return(state.wagers, event.position, event.amount))


def _redeal_required(state: HandState, event: RedealRequired) -> HandState:
    return with_changes(state, phase=REDEAL)


def _redealt(state: HandState, event: Redealt) -> HandState:
    n = state.seat_count
    return with_changes(state, phase=FIRST_ROUND, deck=event.deck, commitment=event.commitment,
                        reshuffle_order=event.reshuffle_order, hands=((),) * n,
                        dealt=((),) * n, drawn=(None,) * n, stub=card_numbers("".join(_unsealed(event.deck))),
                        muck=(), opener=None, redeals=state.redeals + 1, acted_after_open=False,
                        folded_at_open=None, aggressor=None)


def _draw_began(state: HandState, event: DrawBegan) -> HandState:
    return with_changes(state, phase=DRAW)


def _stub_reshuffled(state: HandState, event: StubReshuffled) -> HandState:
    return with_changes(state, stub=state.stub + card_numbers("".join(_unsealed(event.cards))), muck=())


def _player_drew(state: HandState, event: PlayerDrew) -> HandState:
    discarded = card_numbers(_unsealed(event.discarded))
    kept = tuple(c for c in state.hands[event.position] if c not in discarded)
    return with_changes(state, hands=_put(state.hands, event.position, kept + card_numbers(_unsealed(event.received))),
                        drawn=_put(state.drawn, event.position, event.count),
                        stub=state.stub[event.count:], muck=state.muck + discarded)


def _second_round_began(state: HandState, event: SecondRoundBegan) -> HandState:
    opened = bet.start_round(state.wagers, late=True)
    return with_changes(state, phase=SECOND_ROUND,
                        betting=with_changes(opened, to_act=event.first_to_act))


def _pot_awarded(state: HandState, event: PotAwarded) -> HandState:
    betting, award = credit_award(state.wagers, event)
    return with_changes(state, betting=betting, awards=state.awards + (award,))


def _points_scored(state: HandState, event: PointsScored) -> HandState:
    return with_changes(state, points=tuple(int(s in event.winners) for s in range(state.seat_count)))


def _hand_ended(state: HandState, event: HandEnded) -> HandState:
    return with_changes(state, phase=OVER, showdown=event.showdown)


def _openers_split(state: HandState, event: OpenersSplit) -> HandState:
    aside = set(card_numbers(event.cards)) if event.cards else set()
    return with_changes(state, muck=tuple(c for c in state.muck if c not in aside))


def _cards_shown(state: HandState, event: CardsShown) -> HandState:
    return with_changes(state, shown=_put(state.shown, event.position, True))


def _cards_mucked(state: HandState, event: CardsMucked) -> HandState:
    return with_changes(state, mucked=_put(state.mucked, event.position, True))


def _unchanged(state: HandState, event: OpenersShown | ShowAsked) -> HandState:
    return state


def _false_openers_found(state: HandState, event: FalseOpenersFound) -> HandState:
    seat = event.position
    betting = false_opener_out(state.wagers, seat, event.outcome, state.folded_at_open)
    if event.outcome == CARRIED:
        return with_changes(state, phase=REDEAL, betting=betting)
    return with_changes(state, betting=betting, hands=_put(state.hands, seat, ()), muck=state.muck + state.hands[seat])


# One small function per event type: the event's type picks it (each takes its own type).
# EVENT_TYPES is read from this table, so the two cannot disagree; its order is the one
# the type names have always been listed in.
_EVOLVERS: dict[type, Callable[[HandState, Any], HandState]] = {
    AntesPosted: _antes_posted, HoleCardsDealt: _hole_cards_dealt, ActionTaken: _action_taken,
    UncalledReturned: _uncalled_returned, RedealRequired: _redeal_required, Redealt: _redealt,
    DrawBegan: _draw_began, StubReshuffled: _stub_reshuffled, PlayerDrew: _player_drew,
    SecondRoundBegan: _second_round_began, OpenersShown: _unchanged, CardsShown: _cards_shown,
    PotAwarded: _pot_awarded, PointsScored: _points_scored, HandEnded: _hand_ended,
    OpenersSplit: _openers_split, FalseOpenersFound: _false_openers_found, CardsMucked: _cards_mucked,
    ShowAsked: _unchanged,
}

EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (HandStarted, *_EVOLVERS)}
"""Every event a draw stream holds, by the type name stored with it."""


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


Known = TypeVar("Known")


def _unsealed(value: Known | None) -> Known:
    """A field a viewer's copy of an event leaves None (visible_event): only the full
    events are replayed."""
    if value is None:
        raise TypeError("a redacted event cannot be replayed")
    return value
