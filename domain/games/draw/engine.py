"""Five-card draw played in the draw family's engine (domain.games.mixed, a draw hand with
DrawRules and a deck): `handle`, `decide`, `evolve` and `replay` over `HandState`, a view
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
SecondRoundBegan. Every five-card draw event evolves the family's state (`_HAND`), so a
stream replays to the state its commands left.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, reduce
from typing import Any

from domain.games import draw_family, mixed
from domain.games.dealt_games import FIVE_CARD_DRAW
from domain.games.dealt_hand import MixedState, Words
from domain.games.draw.commands import AskToSee, Command, Discard, FalseOpeners, Muck, OpenWithoutProof, Redeal, ShowCards, StartHand
from domain.games.draw.decide import redeal_events, starting_events
from domain.games.draw.drawing import draw
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
from domain.games.draw.showdown import ask_to_see, show_or_muck
from domain.games.draw.state import DRAW, FIRST_ROUND, OVER, REDEAL, SECOND_ROUND, SHOWDOWN, card_numbers
from domain.games.draw_settings import DrawSettings
from domain.games.draw_stub import texts
from domain.games.hand_events import ActionTaken, CardsMucked, PostAction, PotAwarded, ShowAsked, UncalledReturned
from domain.rules import showdown_order
from domain.rules.betting import Amount, BettingState, with_changes, with_item
from domain.rules.cards import format_card
from domain.rules.evaluation import evaluate_high
from domain.rules.pots import LEFT_OF_BUTTON, Pot, PotAward
from domain.rules.violations import Violation

# The draw game the family's HandStarted is read as before the hand becomes five-card
# draw's (`_initial`): one draw of five cards, as FIVE_CARD_DRAW deals.
_READ_AS = "deuce_seven_single_draw"


# ---------------------------------------------------------------------------- state


@dataclass(frozen=True)
class HandState:
    """Everything views need, read off the draw family's state of the hand (`hand`) in
    five-card draw's terms (domain.games.draw.state had them as fields). The family keeps
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
    def players(self) -> tuple[str, ...]:
        return self.hand.players

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
    def over(self) -> bool:
        return self.hand.over

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
    def commitment(self) -> str | None:
        return self.hand.commitment

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
    def awards(self) -> tuple[PotAward, ...]:
        return self.hand.awards

    @property
    def showdown(self) -> bool:
        return self.hand.showdown

    @property
    def shown(self) -> tuple[bool, ...]:
        return self.hand.shown

    @property
    def mucked(self) -> tuple[bool, ...]:
        return self.hand.mucked

    @property
    def aggressor(self) -> int | None:
        """The last player to bet or raise in the second round (TDA 2024 17: shows first)."""
        return self.hand.aggressor if self.phase == SECOND_ROUND else None

    @property
    def contenders(self) -> tuple[int, ...]:
        """Seats still in the hand (every seat in no-betting mode)."""
        return self.hand.betting.contenders

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.hand.betting.stacks

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


# ------------------------------------------------------------------------- evolve


def evolve(state: HandState | None, event: Event) -> HandState:
    if isinstance(event, HandStarted):
        return _initial(event)
    if state is None:
        raise TypeError(f"a five-card draw hand begins with HandStarted, not {event!r}")
    step = _HAND.get(type(event))
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
    return reduce(evolve, iterator, _initial(started))


def _initial(event: HandStarted) -> HandState:
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
_HAND: dict[type, Callable[[MixedState, Any], MixedState]] = {
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


# ------------------------------------------------------------------------- decide


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included. Raises Violation."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        done = starting_events(command)
        started = _initial(done[0])  # type: ignore[arg-type]  # StartHand's events begin with HandStarted
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
                 evolvers=_HAND)
