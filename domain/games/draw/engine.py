"""Five-card draw played in the draw family's engine (domain.games.mixed, a draw hand with
DrawRules and a deck): `handle` and `decide` over `HandState` (domain.games.draw.state), a view
of the family's state (domain.games.dealt_hand.MixedState) that reads as five-card draw's,
writing five-card draw's events (domain.games.draw.events: the names and fields stored)
field for field and in its order (issue 36, step 4; docs/draw-family.md).

The engine decides the betting, the false openers' findings and everything that follows
by itself (a round closed, uncalled chips, the showdown, the settlement, no-betting mode's
points), and writes its shows and end in five-card draw's words (`_words`); five-card
draw's own commands that deal (StartHand, Redeal), draw (Discard) and show at a declared
showdown (ShowCards, Muck, AskToSee) are decided by its package (domain.games.draw.decide,
.drawing, .showdown) from the view, with five-card draw's checks and messages. The events the family has no word for are written where five-card draw writes
them, from the change of phase an event makes (`_between`): DrawBegan, RedealRequired,
SecondRoundBegan. The state after them is the one their stream replays to
(domain.games.draw.stream evolves each).
"""
from __future__ import annotations

from functools import cache
from typing import Any

from domain.games import draw_family, mixed
from domain.games.dealt_hand import Words
from domain.games.draw.commands import AskToSee, Command, Discard, FalseOpeners, Muck, OpenWithoutProof, Redeal, ShowCards, StartHand
from domain.games.draw.decide import redeal_events, starting_events
from domain.games.draw.drawing import draw
from domain.games.draw.events import (
    CardsShown,
    DrawBegan,
    Event,
    FalseOpenersFound,
    HandEnded,
    HoleCardsDealt,
    OpenersShown,
    PointsScored,
    RedealRequired,
    SecondRoundBegan,
)
from domain.games.draw.showdown import ask_to_see, show_or_muck
from domain.games.draw.state import DRAW, FIRST_ROUND, REDEAL, SECOND_ROUND, HandState, card_numbers
from domain.games.draw.stream import EVOLVERS, evolve, initial
from domain.games.hand_events import CardsMucked, PostAction
from domain.rules.evaluation import evaluate_high
from domain.rules.violations import Violation


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included. Raises Violation."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        done = starting_events(command)
        started = initial(done[0])  # type: ignore[arg-type]  # StartHand's events begin with HandStarted
        return _followed(started, done, 1)
    if state is None:
        raise Violation("illegal_action", "the hand has not started")
    if state.over:
        raise Violation("hand_over", "the hand is over")
    kind = type(command)
    if kind is Discard:
        done = draw(state, command)  # type: ignore[arg-type]  # a Discard
    elif kind is Redeal:
        done = redeal_events(state, command)  # type: ignore[arg-type]  # a Redeal
    elif kind is ShowCards or kind is Muck:
        done = [show_or_muck(state, command)]  # type: ignore[arg-type]  # a ShowCards or a Muck
    elif kind is AskToSee:
        done = ask_to_see(state, command)  # type: ignore[arg-type]  # an AskToSee
    else:
        done = [_spoken(state, event, ()) for event in mixed.decided(state.hand, _family_command(state, command))]
    return _followed(state, done, 0)


def _family_command(state: HandState, command: Command) -> mixed.Command:
    """The family's command for five-card draw's (checked first where five-card draw
    refuses it otherwise: a bet outside a betting round, a show outside the showdown)."""
    if isinstance(command, PostAction):
        if state.phase not in (FIRST_ROUND, SECOND_ROUND):
            raise Violation("not_your_turn", f"nobody is to bet: the hand awaits the {state.awaiting}",
                            numbers={"seat": command.position})
        return command  # the family's own
    if isinstance(command, OpenWithoutProof):
        return draw_family.OpenWithoutProof(command.position, command.to)
    if isinstance(command, FalseOpeners):
        return draw_family.FalseOpeners(command.position)
    raise Violation("illegal_action", f"unknown command {command!r}")


def _followed(state: HandState, done: list[Event], start: int) -> tuple[list[Event], HandState]:
    """`done` (from its `start`th event: StartHand's HandStarted is `state` already) and
    what follows by itself, each evolved in turn with the events five-card draw writes
    between them (`_between`), and the state after them."""
    events = done[:start]
    pending = list(done[start:])
    words = _words(state.settings.joker)
    while True:
        before = state.phase
        for event in pending:
            state = evolve(state, event)
        events.extend(pending)
        if state.phase != before:
            events.extend(_between(state, before, pending))  # they change nothing in the state
        hand = state.hand
        if hand.over or hand.betting.to_act is not None:
            return events, state
        more = mixed.follow_up(hand, words)
        if not more:
            return events, state
        pending = [_spoken(state, event, more) for event in more]


def _between(state: HandState, before: str, batch: list[Event]) -> list[Event]:
    """The events five-card draw writes after a batch of events (a command's, or a
    follow-up's) in which the family changed its phase by itself: the draw begun, a new
    deal required (not a false opener's carried pot: its finding says so), the second
    round begun with the seat that opens it."""
    after = state.phase
    if after == DRAW and before in (FIRST_ROUND, REDEAL):
        return [DrawBegan()]
    if after == REDEAL and not any(type(event) is FalseOpenersFound for event in batch):
        reason = draw_family.redeal_reason(state.hand)
        assert reason is not None
        return [RedealRequired(reason)]
    if after == SECOND_ROUND and before == DRAW:
        return [SecondRoundBegan(state.hand.betting.to_act if state.hand.phase == "action" else None)]
    return []


def _spoken(state: HandState, event: Any, batch: list[Any] | tuple[Any, ...]) -> Event:
    """The family's event in five-card draw's words (those the family writes in its own:
    the draw's, the showdown's decided and the settlement's); `batch` the events it came
    with (no-betting mode's HandEnded counts the points of its PointsScored)."""
    kind = type(event)
    if kind is mixed.CardsShown:
        return _shown(state.settings.joker, event.position, event.cards)
    if kind is mixed.CardsMucked:
        return CardsMucked(event.position)
    if kind is draw_family.FalseOpenersFound:
        return FalseOpenersFound(event.position, event.outcome)
    if kind is draw_family.OpenersShown:
        return OpenersShown(event.position, event.cards)
    if kind is draw_family.PointsScored:
        return PointsScored(event.winners)
    if kind is HandEnded:
        scored = next((e.winners for e in batch if type(e) is draw_family.PointsScored), ())
        return HandEnded(event.stacks, tuple(int(seat in scored) for seat in range(len(event.stacks))), event.showdown)
    return event  # type: ignore[no-any-return]  # the betting's, the pots', ShowAsked: the same in both


def _shown(joker: str | None, position: int, cards: str) -> CardsShown:
    return CardsShown(position, cards, evaluate_high(card_numbers(cards), joker).category)


def _refused(*_: Any) -> Any:
    raise TypeError("five-card draw has no board")


@cache
def _words(joker: str | None) -> Words:
    """What the family's engine writes a five-card draw hand's shows and end in (a hand
    shown names its category, by the table's joker rule)."""
    return Words(dealt=lambda position, cards, _: HoleCardsDealt(position, cards), board=_refused,
                 shown=lambda position, cards: _shown(joker, position, cards), mucked=CardsMucked,
                 ended=lambda stacks, showdown: HandEnded(stacks, (0,) * len(stacks), showdown),
                 evolvers=EVOLVERS)
