"""Hold'em and Omaha: their commands and events (the names and fields the store keeps)
and `HandState`, a view over the flop family's state (domain.games.dealt_hand.MixedState)
that reads as hold'em's; `handle`, `decide`, `evolve` and `replay` play the hand in the
flop family's engine (domain.games.mixed), as a rotation's hold'em and Omaha are played.

Seats are indexed 0..n-1 clockwise. Two ways to deal:
- live play: StartHand carries the deck order (drawn by the service); hole cards and the
  board are dealt by the engine as soon as they are due, and the showdown follows the TDA
  (domain.rules.showdown_order): all in with the betting over, every hand is shown at once;
  otherwise hands are shown or mucked in the order of show, by the computer on an
  "automatic" showdown, by the players themselves (ShowCards, Muck, AskToSee) on a
  "declared" one;
- replay (PHH, rulings): no deck; the hand stops where a deal is due (`state.awaiting`)
  and waits for DealBoard. Hole cards stay unknown until a DealHole names them (at any
  time) or the hand is shown; the showdown settles once every contender has shown or
  mucked (ShowCards / Muck, in any order), or on SettleShowdown; unknown cards cannot win.

The engine writes the flop family's events for the deals, the showdown and the end; they
are spoken here in hold'em's words (`_spoken`) and read back into the engine's
(`_flop_form`). The betting and the pots' events are the same in both.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from typing import Any

from domain.games import mixed
from domain.games.dealt_games import DEALT_GAMES, MAX_BOARD_PLAYERS
from domain.games.dealt_hand import HandView, MixedState, Words, cards_of, check_deck
from domain.games.dealt_hand import shows_at_showdown as flop_shows_at_showdown
from domain.games.hand_events import ActionTaken, CardsMucked, PostAction, PotAwarded, ShowAsked, UncalledReturned
from domain.rules import betting as bet
from domain.rules import showdown_order
from domain.rules.betting import Amount, BettingState, BettingStructure, LegalActions, with_changes, with_item
from domain.rules.cards import format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.pots import LEFT_OF_BUTTON, ODD_CHIP_POLICIES, Pot
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

VARIANTS = ("holdem", "omaha")
HOLE_CARD_COUNT = {"holdem": 2, "omaha": 4}
STREETS = ("preflop", "flop", "turn", "river")
_STREET_BY_BOARD = {0: 0, 3: 1, 4: 2, 5: 3}
_BOARD_CARDS_TO_DEAL = {0: 3, 3: 1, 4: 1}
_CARD_BY_TEXT = {format_card(c): c for c in range(52)}
AUTOMATIC = showdown_order.AUTOMATIC
DECLARED = showdown_order.DECLARED
SHOWDOWNS = showdown_order.SHOWDOWNS
# The flop family's games hold'em and Omaha are played as (domain.games.dealt_games).
_GAME_OF = {"holdem": "rotation_holdem", "omaha": "rotation_omaha"}
_VARIANT_OF = {game: variant for variant, game in _GAME_OF.items()}


# ------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class StartHand:
    """Start a hand. `stacks` before forced bets; `button` a seat index; `deck` (live play
    only) the shuffled order as card strings, with its published `commitment`."""
    players: tuple[str, ...]
    stacks: tuple[Amount, ...]
    button: int
    betting: BettingStructure
    variant: str = "holdem"
    odd_chip: str = LEFT_OF_BUTTON
    deck: tuple[str, ...] | None = None
    commitment: str | None = None
    showdown: str = AUTOMATIC


@dataclass(frozen=True)
class DealHole:
    position: int
    cards: str


@dataclass(frozen=True)
class DealBoard:
    cards: str


@dataclass(frozen=True)
class ShowCards:
    """Show at the showdown (or during an all-in run-out); `cards` needed if not dealt known."""
    position: int
    cards: str | None = None


@dataclass(frozen=True)
class Muck:
    position: int


@dataclass(frozen=True)
class SettleShowdown:
    """Settle now: contenders with known, unmucked cards show; the others cannot win."""


@dataclass(frozen=True)
class AskToSee:
    """A caller asks to see the last aggressor's hand (TDA 2024 18-B)."""
    position: int


Command = StartHand | PostAction | DealHole | DealBoard | ShowCards | Muck | SettleShowdown | AskToSee


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class HandStarted:
    variant: str
    players: tuple[str, ...]
    stacks: tuple[Amount, ...]
    button: int
    betting: BettingStructure
    odd_chip: str
    deck: tuple[str, ...] | None = field(metadata=SEALED)
    commitment: str | None
    showdown: str = AUTOMATIC


@dataclass(frozen=True)
class HoleCardsDealt:
    position: int
    cards: str = field(metadata=OWNER_ONLY)

    @property
    def up(self) -> tuple[bool, ...]:
        """Every hole card is dealt face down (what the flop family's engine reads of a deal)."""
        return (False,) * (len(self.cards) // 2)


@dataclass(frozen=True)
class BoardDealt:
    street: str
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class CardsShown:
    position: int
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class HandEnded:
    stacks: tuple[Amount, ...]
    showdown: bool


Event = (HandStarted | HoleCardsDealt | BoardDealt | ActionTaken | UncalledReturned
              | CardsShown | CardsMucked | ShowAsked | PotAwarded | HandEnded)
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    HandStarted, HoleCardsDealt, BoardDealt, ActionTaken, UncalledReturned, CardsShown,
    CardsMucked, ShowAsked, PotAwarded, HandEnded)}


def event_from_record(type_name: str, data: dict[str, Any]) -> Event:
    """Rebuild an event from its store record (`dataclasses.asdict` turned tuples to lists)."""
    cls = EVENT_TYPES[type_name]
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    if cls is HandStarted:
        structure = dict(values["betting"])
        structure["straddles"] = tuple(structure.get("straddles", ()))
        values["betting"] = BettingStructure(**structure)
    event: Event = cls(**values)
    return event




# ---------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class HandState(HandView):
    """Everything views need, read off the flop family's state of the hand (`hand`) in
    hold'em's terms. `hole[i]` is None while seat i's cards are unknown; `returned` the
    uncalled chips given back, in order (the flop family keeps no list of them)."""
    hand: MixedState
    returned: tuple[tuple[int, Amount], ...] = ()

    @property
    def variant(self) -> str:
        return _VARIANT_OF[self.hand.game.name]

    @property
    def odd_chip(self) -> str:
        return self.hand.odd_chip

    @property
    def betting(self) -> BettingState:
        return self.hand.betting

    @property
    def deck(self) -> tuple[str, ...] | None:
        return self.hand.deck

    @property
    def deck_position(self) -> int:
        return self.hand.deck_position

    @property
    def hole(self) -> tuple[tuple[int, ...] | None, ...]:
        return tuple([_known(cards) for cards in self.hand.hole])

    @property
    def board(self) -> tuple[int, ...]:
        return self.hand.board  # type: ignore[return-value]  # hold'em's board is never unknown

    @property
    def showdown_mode(self) -> str:
        return self.hand.showdown_mode

    @property
    def aggressor(self) -> int | None:
        """The last player to bet or raise in the current round."""
        return self.hand.aggressor

    @property
    def live(self) -> bool:
        """Dealt by the service from its deck (else a replay deals by command)."""
        return self.hand.deck is not None

    @property
    def show_order(self) -> tuple[int, ...]:
        """The contenders in the order of show (TDA 2024 17), for the final round."""
        return self.hand.show_order

    @property
    def to_show(self) -> int | None:
        """The hand seat to show or muck now at a live showdown, if any."""
        return None if self.hand.over else self.hand.to_show

    @property
    def round(self) -> str:
        return "showdown" if self.hand.showdown else STREETS[_STREET_BY_BOARD[len(self.hand.board)]]

    @property
    def to_act(self) -> int | None:
        """The player to bet, or (declared live showdown) to show or muck."""
        return None if self.hand.over else self.hand.to_act

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, the bets of the current round included."""
        return self.hand.pots

    @property
    def awaiting(self) -> str | None:
        """What the hand waits for: "action", "flop"/"turn"/"river" (a deal), "showdown", or None."""
        hand = self.hand
        if hand.over:
            return None
        if hand.betting.to_act is not None:
            return "action"
        if len(hand.board) < 5:
            return STREETS[_STREET_BY_BOARD[len(hand.board)] + 1]
        return "showdown"


def _known(cards: tuple[int | None, ...]) -> tuple[int, ...] | None:
    """A seat's hole cards, None while unknown (a replay deals them as unknown cards)."""
    if not cards or None in cards:
        return None
    return cards  # type: ignore[return-value]  # no None in them


def legal_actions(state: HandState) -> LegalActions | None:
    """What the player to act may do; None when nobody is to act."""
    return None if state.hand.over else bet.legal_actions(state.hand.betting)


def aggressive_action(state: HandState) -> str:
    """"bet" when nobody has bet this round, else "raise" (maps PHH `cbr`)."""
    return "bet" if state.hand.betting.highest == 0 else "raise"


def shows_at_showdown(state: HandState, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown; else muck (domain.rules.showdown_order.computer_shows)."""
    return flop_shows_at_showdown(state.hand, seat)


def showdown_command(state: HandState, seat: int) -> Command:
    """The computer's showdown command for `seat` (next to show)."""
    return ShowCards(seat) if shows_at_showdown(state, seat) else Muck(seat)


# ------------------------------------------------------------------------- evolve


def evolve(state: HandState | None, event: Event) -> HandState:
    kind = type(event)
    if kind is HandStarted:
        return _view(_initial(event), ())  # type: ignore[arg-type]  # a HandStarted
    if state is None:
        raise TypeError(f"a hand starts with HandStarted, not {event!r}")
    evolver = _EVOLVERS.get(kind)
    if evolver is None:
        raise TypeError(f"not a hold'em event: {event!r}")
    returned = state.returned
    if kind is UncalledReturned:
        returned += ((event.position, event.amount),)  # type: ignore[union-attr]
    return _view(evolver(state.hand, event), returned)


def _hole_cards_dealt(hand: MixedState, event: HoleCardsDealt) -> MixedState:
    """A live hand's hole cards as the flop family deals them; a replay's name the cards of
    a seat dealt unknown ones."""
    if hand.deck is not None:
        return _ENGINE_EVOLVERS[HoleCardsDealt](hand, event)
    return with_changes(hand, hole=with_item(hand.hole, event.position, cards_of(event.cards)))


def _made(kind: type, fields: dict[str, Any]) -> Any:
    """An event of `kind` with these fields, made as domain.rules.betting.with_changes makes
    a state (without the frozen dataclass's __init__): the engine writes each deal, show
    and end of a hand in hold'em's words."""
    event: Any = _NEW(kind)
    _SET(event, "__dict__", fields)
    return event


_ENGINE_EVOLVERS = mixed.evolvers_in(HoleCardsDealt, BoardDealt, CardsShown, CardsMucked, HandEnded)
_EVOLVERS: dict[type, Callable[[Any, Any], MixedState]] = {**_ENGINE_EVOLVERS, HoleCardsDealt: _hole_cards_dealt}
# What the flop family's engine writes a hold'em hand in: its deals and shows as hold'em's
# events, so that they need no translating (the street a board card is dealt on by name).
_WORDS = Words(
    dealt=lambda position, cards, _: _made(HoleCardsDealt, {"position": position, "cards": cards}),
    board=lambda street, cards: _made(BoardDealt, {"street": STREETS[street], "cards": cards}),
    shown=lambda position, cards: _made(CardsShown, {"position": position, "cards": cards}),
    mucked=lambda position: _made(CardsMucked, {"position": position}),
    ended=lambda stacks, showdown: _made(HandEnded, {"stacks": stacks, "showdown": showdown}),
    evolvers=_EVOLVERS)
# The events of the flop family's own deciders of a live showdown and the settlement, in
# hold'em's words.
_HOLDEM_FORM: dict[type, Callable[[Any], Event]] = {
    mixed.CardsShown: lambda event: _made(CardsShown, event.__dict__.copy()),
    mixed.CardsMucked: lambda event: _made(CardsMucked, event.__dict__.copy()),
    mixed.HandEnded: lambda event: _made(HandEnded, event.__dict__.copy()),
}


def _initial(started: HandStarted) -> MixedState:
    """The flop family's hand as `started` opens it: a replay's seats hold unknown cards
    (named later by DealHole or shown), so that its betting opens at once."""
    fields = started.__dict__.copy()
    fields.update(game=_GAME_OF[fields.pop("variant")], antes=(), blinds=(), bring_in=0, dead_antes=False,
                  draw_rules=None)
    engine_started = _made(mixed.HandStarted, fields)
    if started.deck is None:  # every seat dealt at once, the first round opened in the same copy
        k, n = HOLE_CARD_COUNT[started.variant], len(started.players)
        return mixed.started_dealt(engine_started, ((None,) * k,) * n, ((False,) * k,) * n)
    return mixed.evolve(None, engine_started)


def replay(events: Iterable[Event]) -> HandState:
    """The state after the events, the first a HandStarted."""
    iterator = iter(events)
    started = next(iterator)
    if not isinstance(started, HandStarted):
        raise TypeError(f"a hand starts with HandStarted, not {started!r}")
    return reduce(evolve, iterator, _view(_initial(started), ()))


@lru_cache(maxsize=1 << 14)
def _cards(text: str) -> tuple[int, ...]:
    """Cards of canonical text ("AsKd"); KeyError otherwise. Cached: a hand parses the same
    hole cards when they are dealt and shown."""
    lookup = _CARD_BY_TEXT
    return tuple([lookup[text[i:i + 2]] for i in range(0, len(text), 2)])


# ------------------------------------------------------------------------- decide


_FIXED_AMOUNTS = frozenset(("bet", "raise"))


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included (round closing, uncalled
    chips, live deals, settlement). Raises Violation when the command breaks a rule."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events (decide has to evolve them anyway to find
    the follow-ups, so replays that want both save evolving twice)."""
    if type(command) is PostAction and state is not None:  # most commands: a player acts
        hand = state.hand
        if not hand.over and hand.betting.to_act is not None:
            if command.action in _FIXED_AMOUNTS and hand.betting.structure.kind == bet.FIXED_LIMIT \
                    and command.position == hand.betting.to_act:
                # Hold'em's fixed limit: the fixed amount or all in (a short bet refused as
                # wrong_fixed_amount). The engine also takes a bet capped at what the
                # best-stacked opponent can match, for the mixed games' records; hold'em never did.
                bet.check_action(hand.betting, command.position, command.action, command.to)
            events, after = mixed.act(hand, command, _WORDS)  # all in hold'em's words
            returned = state.returned
            if len(events) > 1:  # what the action closed: the uncalled chips among it
                for written in events:
                    if type(written) is UncalledReturned:
                        returned += ((written.position, written.amount),)
            view = _NEW(HandState)  # as _view, without the call: the commonest path of all
            _SET(view, "hand", after)
            _SET(view, "returned", returned)
            return events, view  # type: ignore[return-value]
    deal = _DEALS.get(type(command))  # a replay's next commonest: hole cards and board named
    if deal is not None and state is not None and not state.hand.over:
        return deal(state, command)
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        started = _start(command)
        return _followed([started], _initial(started), ())
    if state is None:
        raise Violation("illegal_action", "the hand has not started")
    hand = state.hand
    if hand.over:
        raise Violation("hand_over", "the hand is over")
    if type(command) is PostAction:
        raise Violation("not_your_turn", f"nobody is to act: the hand awaits the {state.awaiting}",
                        numbers={"seat": command.position})
    flop_command = _flop_command(state, command)
    if flop_command is not None:
        events, after = mixed.handle(hand, flop_command, _WORDS)
        return _spoken([], events, after, state.returned)
    decide_command = _DECIDERS.get(type(command))
    if decide_command is None:
        raise Violation("illegal_action", f"unknown command {command!r}")
    done = decide_command(state, command)
    for event in done:
        hand = _EVOLVERS[type(event)](hand, event)
    return _followed(done, hand, state.returned)


def _followed(done: list[Event], hand: MixedState, returned: tuple[tuple[int, Amount], ...]
              ) -> tuple[list[Event], HandState]:
    """Hold'em's own decision's events `done` (`hand` the state after them), followed by
    what happens by itself, asked only when nobody is to act (only a betting round names one)."""
    if hand.betting.to_act is not None:
        view = _NEW(HandState)  # as _view, without the call: after most deals
        _SET(view, "hand", hand)
        _SET(view, "returned", returned)
        return done, view
    more, hand = mixed.follow(hand, _WORDS)
    return _spoken(done, more, hand, returned)


def _spoken(done: list[Event], more: list[Any], hand: MixedState,
            returned: tuple[tuple[int, Amount], ...]) -> tuple[list[Event], HandState]:
    """`done` followed by the engine's events `more` (its follow-ups already in hold'em's
    words, a live showdown's and the settlement's decided in the flop family's), and the
    state after them."""
    holdem_form = _HOLDEM_FORM
    for event in more:
        kind = type(event)
        if kind is UncalledReturned:
            returned += ((event.position, event.amount),)
        spoken = holdem_form.get(kind)
        done.append(event if spoken is None else spoken(event))
    return done, _view(hand, returned)


def _view(hand: MixedState, returned: tuple[tuple[int, Amount], ...]) -> HandState:
    """HandState(hand, returned) without running the dataclass's __init__: a view is made
    at every decision (domain.rules.betting.with_changes says why that counts)."""
    view = _NEW(HandState)
    _SET(view, "hand", hand)
    _SET(view, "returned", returned)
    return view


_NEW = object.__new__
_SET = object.__setattr__


def _flop_command(state: HandState, command: Command) -> mixed.Command | None:
    """The flop family's command for one it decides as hold'em would: a live hand's
    showdown, a request to see, the settlement (None: hold'em's own, below)."""
    kind = type(command)
    if state.live and (kind is ShowCards or kind is Muck):
        if kind is Muck:
            return mixed.Muck(command.position)  # type: ignore[union-attr]
        return mixed.ShowCards(command.position, command.cards)  # type: ignore[union-attr]
    if kind is AskToSee or kind is SettleShowdown:
        awaiting = state.awaiting
        if kind is SettleShowdown:
            if awaiting != "showdown":
                raise Violation("illegal_action", f"not at the showdown: the hand awaits the {awaiting}")
            return mixed.SettleShowdown()
        _check_seat(state, command.position)  # type: ignore[union-attr]
        if state.live and awaiting != "showdown":
            raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                            f"{awaiting}", cite("no_right_to_see"), {"seat": command.position})  # type: ignore[union-attr]
        return mixed.AskToSee(command.position)  # type: ignore[union-attr]
    return None


def _start(command: StartHand) -> HandStarted:
    n = len(command.players)
    if command.variant not in VARIANTS:
        raise Violation("illegal_action", f"variant must be one of {', '.join(VARIANTS)}")
    if command.odd_chip not in ODD_CHIP_POLICIES:
        raise Violation("illegal_action", f"odd_chip must be one of {', '.join(ODD_CHIP_POLICIES)}")
    if not 2 <= n <= MAX_BOARD_PLAYERS or len(command.stacks) != n or len(set(command.players)) != n:
        raise Violation("illegal_action", "a hand needs 2 or more distinct players, one stack each")
    if not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    if min(command.stacks) <= 0:
        raise Violation("illegal_action", "every seated player needs chips")
    if command.showdown not in SHOWDOWNS:
        raise Violation("illegal_action", f"showdown must be one of {', '.join(SHOWDOWNS)}")
    if command.deck is not None:
        check_deck(DEALT_GAMES[_GAME_OF[command.variant]], command.deck, n)
    return HandStarted(command.variant, tuple(command.players), tuple(command.stacks),
                       command.button, command.betting, command.odd_chip,
                       tuple(command.deck) if command.deck is not None else None,
                       command.commitment, command.showdown)


# A replay's deals and showdown, as hold'em decides them: hole cards named at any time, a
# hand shown without its cards when they are known, in any order once the betting is over.


def _deal_hole(state: HandState, command: DealHole) -> tuple[list[Event], HandState]:
    """A replay names a seat's hole cards: decided and evolved in one step (the event's
    state as `_hole_cards_dealt` makes it), a replay's commonest command after the actions."""
    hand, seat = state.hand, command.position
    _check_seat(state, seat)
    if hand.deck is not None:
        raise Violation("illegal_action", "the service deals this hand from its deck")
    hole = hand.hole[seat]
    if hole and None not in hole:  # known (a replay deals unknown cards first)
        raise Violation("illegal_action", f"{hand.players[seat]} already has cards")
    cards, text = _fresh_cards(state, command.cards)
    count = hand.game.hand_size
    if len(cards) != count:
        raise Violation("invalid_card", f"{state.variant} deals {count} hole cards, not {len(cards)}")
    dealt = _made(HoleCardsDealt, {"position": seat, "cards": text})
    return _followed([dealt], with_changes(hand, hole=with_item(hand.hole, seat, cards)), state.returned)


def _deal_board(state: HandState, command: DealBoard) -> tuple[list[Event], HandState]:
    """A replay's board cards of a street: decided and evolved in one step."""
    hand = state.hand
    if hand.deck is not None:
        raise Violation("illegal_action", "the service deals this hand from its deck")
    awaiting = state.awaiting
    if awaiting not in ("flop", "turn", "river"):
        raise Violation("illegal_action", f"no board card is due: the hand awaits the {awaiting}")
    cards, text = _fresh_cards(state, command.cards)
    due = _BOARD_CARDS_TO_DEAL[len(hand.board)]
    if len(cards) != due:
        raise Violation("invalid_card", f"the {awaiting} is {due} card(s), not {len(cards)}")
    dealt = _made(BoardDealt, {"street": awaiting, "cards": text})
    return _followed([dealt], _ENGINE_EVOLVERS[BoardDealt](hand, dealt), state.returned)


def _show_cards(state: HandState, command: ShowCards) -> list[Event]:
    _check_contender(state, command.position)
    known = state.hole[command.position]
    name = state.players[command.position]
    if command.cards is None:
        if known is None:
            raise Violation("invalid_card", f"{name}'s cards are unknown: say which")
        return [CardsShown(command.position, _text(known))]
    if known is not None:
        if sorted(_parsed(command.cards)) != sorted(known):
            raise Violation("invalid_card", f"{name} was dealt {_text(known)}, not {command.cards}")
        return [CardsShown(command.position, _text(known))]
    cards, text = _fresh_cards(state, command.cards)
    if len(cards) != HOLE_CARD_COUNT[state.variant]:
        raise Violation("invalid_card", f"{state.variant} hands hold {HOLE_CARD_COUNT[state.variant]} hole cards")
    return [CardsShown(command.position, text)]


def _muck(state: HandState, command: Muck) -> list[Event]:
    _check_contender(state, command.position)
    return [CardsMucked(command.position)]


_DEALS: dict[type, Callable[[HandState, Any], tuple[list[Event], HandState]]] = {
    DealHole: _deal_hole, DealBoard: _deal_board}
_DECIDERS: dict[type, Callable[[HandState, Any], list[Event]]] = {ShowCards: _show_cards, Muck: _muck}


def _check_seat(state: HandState, seat: Any) -> None:
    if type(seat) is not int or not 0 <= seat < len(state.hand.players):
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def _check_contender(state: HandState, seat: int) -> None:
    """A replay's hand shows or mucks once the betting is over, once (a hand shown twice
    is refused)."""
    _check_seat(state, seat)
    betting = state.betting
    if betting.to_act is not None:
        raise Violation("illegal_action", "cards are shown once the betting is over")
    if betting.folded[seat] or state.shown[seat] or state.mucked[seat]:
        raise Violation("illegal_action", f"{state.players[seat]} is not holding a live hand")


def _fresh_cards(state: HandState, text: str) -> tuple[tuple[int, ...], str]:
    """Cards not dealt yet, and their canonical text ("AsKd"); raises Violation."""
    hand = state.hand
    used: set[int | None] = set(hand.board).union(*hand.hole)  # None (an unknown card) matches no card
    try:  # the common, canonical form without the general parser
        cards: tuple[int, ...] | None = _cards(text)
    except (KeyError, TypeError):
        cards = None
    if cards is not None and len(used.union(cards)) == len(used) + len(cards):
        return cards, text  # distinct and none of them dealt: the usual case
    if cards is None or len(set(cards)) != len(cards):
        cards = parse_cards(text)
        text = _text(cards)
    for card in cards:
        if card in used:
            raise Violation("duplicate_card", f"{format_card(card)} is already dealt",
                            numbers={"card": format_card(card)})
        if card > 51:
            raise Violation("invalid_card", "hold'em plays without a joker")
    return cards, text


def _parsed(text: str) -> tuple[int, ...]:
    """Cards of any text the general parser reads, canonical text without it."""
    try:
        return _cards(text)
    except (KeyError, TypeError):
        return parse_cards(text)


def _text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)
