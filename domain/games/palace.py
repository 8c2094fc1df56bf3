"""Palace Poker (Castle Poker, Banner Poker): a stud/draw hybrid in which every bet is a
heads-up battle between an attacker and a defender (spec: palace-poker.md, seed 001).

The decider: `palace_decider.decide(state, command) -> list[Event]` (raises Violation)
and `evolve(state, event) -> state`; `replay(events)` folds the events from `INITIAL`.
Every reading of the rules the seed leaves open lives in `palace_interpretations`.

Randomness comes from the caller: StartHand carries the deck for the banner deal and
permutations of the 52 cards that order the gathered palace deck and any reshuffle of
set-aside banners; a Buy that finds the draw deck empty carries the permutation for the
discard pile. The events record the resulting orders, so replay never draws.

Hidden information: an event with a `visible_to` field may be seen only by the players it
names (floor staff see everything); an event without one is public. Deck orders are
visible to nobody; palace cards to their owner, and to a battle opponent in that battle's
BattleCardsShown; the final showdown (PalaceCardsShown) is public.

This module holds the game's vocabulary (commands, events, what each player may see) and
its state with `evolve`; `palace_decider` decides, `palace_battles` judges battles and
answers the floor's stateless battle ruling.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any

from domain.games.palace_interpretations import FIXED_LIMIT, PALACE_CARDS, QUIET_ACTIONS
from domain.rules.cards import format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

RULE = cite("palace_poker")
DECK_SIZE = 52

# Phases of a hand.
NOT_STARTED = "not_started"
DEALING = "dealing"
TURN = "turn"
DISCARDING = "discarding"  # after a buy or a capture: the taker discards (maybe nothing)
DEFENDING = "defending"
ANSWERING_RAISE = "answering_raise"
OVER = "over"

# Battle outcomes.
ATTACKER_WON = "attacker_won"
DEFENDER_WON = "defender_won"
DOUBLE_KNOCKOUT = "double_knockout"
SPLIT = "split"


# ---------------------------------------------------------------- commands

@dataclass(frozen=True)
class StartHand:
    players: tuple[str, ...]  # seat order, clockwise
    stacks: tuple[int, ...]
    dealer: int  # seat index of the dealer, who holds the button
    small_bet: int
    big_bet: int
    structure: str  # "fixed-limit" | "no-limit"
    deck: tuple[str, ...]  # the 52 cards, top first, for the banner deal
    palace_order: tuple[str, ...]  # a permutation of the 52: orders the gathered cards
    banner_reshuffle_order: tuple[str, ...] = ()  # a permutation: orders set-aside banners if the deck runs out


@dataclass(frozen=True)
class Buy:
    player: str
    reshuffle_order: tuple[str, ...] = ()  # a permutation of the 52, used only if the draw deck is empty


@dataclass(frozen=True)
class Discard:
    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Attack:
    player: str
    defender: str
    to: int | None = None  # the attacker's chips for this battle; None = the minimum


@dataclass(frozen=True)
class Call:
    player: str


@dataclass(frozen=True)
class Raise:
    player: str
    to: int | None = None  # the defender's total for this battle (call + raise); None = the minimum


@dataclass(frozen=True)
class Stay:
    player: str


@dataclass(frozen=True)
class Fold:
    player: str


Command = StartHand | Buy | Discard | Attack | Call | Raise | Stay | Fold


# ---------------------------------------------------------------- events

@dataclass(frozen=True)
class HandStarted:
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    dealer: int
    small_bet: int
    big_bet: int
    structure: str
    ante: int


@dataclass(frozen=True)
class AntesPosted:
    players: tuple[str, ...]
    amounts: tuple[int, ...]


@dataclass(frozen=True)
class BannerDealt:
    player: str
    card: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class BannerSetAside:
    player: str
    card: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class SetAsideBannersReshuffled:
    count: int
    order: tuple[str, ...] = field(metadata=SEALED)
    visible_to: tuple[str, ...] = ()


@dataclass(frozen=True)
class PalaceDeckShuffled:
    count: int
    order: tuple[str, ...] = field(metadata=SEALED)
    visible_to: tuple[str, ...] = ()


@dataclass(frozen=True)
class PalaceCardsDealt:
    player: str
    cards: tuple[str, ...] = field(metadata=OWNER_ONLY)
    visible_to: tuple[str, ...]


@dataclass(frozen=True)
class SoldierBought:
    player: str
    amount: int
    card: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class DrawDeckReshuffled:
    count: int
    order: tuple[str, ...] = field(metadata=SEALED)
    visible_to: tuple[str, ...] = ()


@dataclass(frozen=True)
class SoldiersDiscarded:
    player: str
    cards: tuple[str, ...] = field(metadata=PUBLIC)


@dataclass(frozen=True)
class Stayed:
    player: str


@dataclass(frozen=True)
class PlayerFolded:
    player: str


@dataclass(frozen=True)
class BattleDeclared:
    attacker: str
    defender: str
    amount: int
    minimum: int


@dataclass(frozen=True)
class DefenderFolded:
    defender: str


@dataclass(frozen=True)
class DefenderCalled:
    defender: str
    amount: int


@dataclass(frozen=True)
class DefenderRaised:
    defender: str
    call_amount: int
    raise_amount: int


@dataclass(frozen=True)
class AttackerCalled:
    attacker: str
    amount: int


@dataclass(frozen=True)
class AttackerFolded:
    attacker: str


@dataclass(frozen=True)
class BattleHand:
    """One side's hand in a battle: the cards that counted, those ignored for being of the
    opponent's banner suit, the best hand they make, and the tie-break count."""

    category: str
    best: tuple[str, ...]
    counted: tuple[str, ...]
    ignored: tuple[str, ...]
    ignored_suit: str
    banner_suit_cards: int


@dataclass(frozen=True)
class BattleCardsShown:
    attacker: str
    defender: str
    attacker_palace: tuple[str, ...] = field(metadata=OWNER_ONLY)
    defender_palace: tuple[str, ...] = field(metadata=OWNER_ONLY)
    attacker_hand: BattleHand | None = field(metadata=OWNER_ONLY)  # None once redacted
    defender_hand: BattleHand | None = field(metadata=OWNER_ONLY)
    visible_to: tuple[str, ...]


@dataclass(frozen=True)
class BattleDecided:
    attacker: str
    defender: str
    outcome: str  # attacker_won | defender_won | double_knockout | split
    winner: str | None
    reason: str  # better_hand | more_banner_suit_cards | tie


@dataclass(frozen=True)
class CardsCaptured:
    winner: str
    loser: str
    cards: tuple[str, ...] = field(metadata=PUBLIC)


@dataclass(frozen=True)
class PalaceCardsShown:
    player: str
    cards: tuple[str, ...] = field(metadata=PUBLIC)
    category: str
    best: tuple[str, ...] = field(metadata=PUBLIC)


@dataclass(frozen=True)
class HandEnded:
    reason: str  # last_player | same_banner_suit | battle_split | showdown
    winners: tuple[str, ...]
    amounts: tuple[int, ...]
    stacks: tuple[int, ...]  # every seat's stack after the award, in seat order


Event = (HandStarted | AntesPosted | BannerDealt | BannerSetAside | SetAsideBannersReshuffled
    | PalaceDeckShuffled | PalaceCardsDealt | SoldierBought | DrawDeckReshuffled
    | SoldiersDiscarded | Stayed | PlayerFolded | BattleDeclared | DefenderFolded | DefenderCalled
    | DefenderRaised | AttackerCalled | AttackerFolded | BattleCardsShown | BattleDecided
    | CardsCaptured | PalaceCardsShown | HandEnded)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        HandStarted, AntesPosted, BannerDealt, BannerSetAside, SetAsideBannersReshuffled,
        PalaceDeckShuffled, PalaceCardsDealt, SoldierBought, DrawDeckReshuffled,
        SoldiersDiscarded, Stayed, PlayerFolded, BattleDeclared, DefenderFolded,
        DefenderCalled, DefenderRaised, AttackerCalled, AttackerFolded, BattleCardsShown,
        BattleDecided, CardsCaptured, PalaceCardsShown, HandEnded,
    )
}


def event_from_record(type_name: str, data: dict[str, Any]) -> Event:
    """Rebuild an event from its store record (`dataclasses.asdict` turned tuples into lists)."""
    cls = EVENT_TYPES[type_name]
    values: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, dict):  # the only nested records are a battle's two hands
            hand: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in value.items()}
            value = BattleHand(**hand)
        elif isinstance(value, list):
            value = tuple(value)
        values[name] = value
    event: Event = cls(**values)
    return event


def can_see(event: Event, player: str | None) -> bool:
    """Whether `player` (None: a spectator) may see this event's secret fields."""
    visible_to = getattr(event, "visible_to", None)
    return visible_to is None or player in visible_to


SECRET_FIELDS: dict[type, tuple[str, ...]] = {
    SetAsideBannersReshuffled: ("order",),
    PalaceDeckShuffled: ("order",),
    PalaceCardsDealt: ("cards",),
    DrawDeckReshuffled: ("order",),
    BattleCardsShown: ("attacker_palace", "defender_palace", "attacker_hand", "defender_hand"),
}
"""The fields an event with `visible_to` hides from everyone else; the rest of it (who
was dealt cards, how many cards a deck holds, who fought whom) is public."""

UNKNOWN_CARD = "??"


def redacted_for(event: Event, player: str | None) -> Event:
    """The event as `player` may see it: secret cards become "??" (so counts still show)
    and secret hands None. Floor staff and admins get the event itself."""
    if can_see(event, player):
        return event
    hidden: dict[str, Any] = {}
    for name in SECRET_FIELDS[type(event)]:
        value = getattr(event, name)
        hidden[name] = (UNKNOWN_CARD,) * len(value) if isinstance(value, tuple) else None
    return replace(event, **hidden)


# ---------------------------------------------------------------- state

@dataclass(frozen=True)
class Seat:
    player: str
    stack: int
    in_hand: bool = True
    banner: str | None = None
    palace: tuple[str, ...] = ()
    soldiers: tuple[str, ...] = ()

    @property
    def cards(self) -> tuple[str, ...]:
        return ((self.banner,) if self.banner else ()) + self.palace + self.soldiers

    @property
    def suit(self) -> str:
        return self.banner[1] if self.banner else ""


@dataclass(frozen=True)
class Battle:
    attacker: int
    defender: int
    attacker_excess: int  # what the attacker put in above their minimum (no-limit)
    raise_by: int = 0  # the defender's raise, for the attacker to call


@dataclass(frozen=True)
class PalaceHand:
    seats: tuple[Seat, ...] = ()
    dealer: int = 0
    small_bet: int = 0
    big_bet: int = 0
    structure: str = FIXED_LIMIT
    pot: int = 0
    draw_deck: tuple[str, ...] = ()
    discard_pile: tuple[str, ...] = ()
    phase: str = NOT_STARTED
    to_act: int | None = None
    turn_owner: int | None = None  # whose turn it is; play passes left of them
    battle: Battle | None = None
    quiet: frozenset[int] = field(default_factory=frozenset)  # quiet turns since the last buy or battle
    players_at_start: int = 0

    def seat_of(self, player: str) -> int:
        for index, seat in enumerate(self.seats):
            if seat.player == player:
                return index
        raise Violation("unknown_player", f"{player!r} is not seated in this hand",
                        numbers={"player": player})

    @property
    def left(self) -> tuple[int, ...]:
        """Seats still in the hand, in deal order (first left of the dealer first)."""
        count = len(self.seats)
        order = ((self.dealer + 1 + step) % count for step in range(count))
        return tuple(index for index in order if self.seats[index].in_hand)


INITIAL = PalaceHand()


def replay(events: Iterable[Event], initial: PalaceHand = INITIAL) -> PalaceHand:
    return reduce(evolve, events, initial)


# ---------------------------------------------------------------- evolve

def _started(state: PalaceHand, event: HandStarted) -> PalaceHand:
    seats = tuple(Seat(player, stack) for player, stack in zip(event.players, event.stacks))
    return PalaceHand(seats=seats, dealer=event.dealer, small_bet=event.small_bet,
                      big_bet=event.big_bet, structure=event.structure, phase=DEALING,
                      players_at_start=len(seats))


def _antes(state: PalaceHand, event: AntesPosted) -> PalaceHand:
    for player, amount in zip(event.players, event.amounts):
        state = _pay(state, state.seat_of(player), amount)
    return state


def _banner(state: PalaceHand, event: BannerDealt) -> PalaceHand:
    return _with_seat(state, state.seat_of(event.player), banner=event.card)


def _shown(state: PalaceHand, event: BannerSetAside | SetAsideBannersReshuffled | BattleCardsShown
           | PalaceCardsShown) -> PalaceHand:
    return state


def _palace_deck(state: PalaceHand, event: PalaceDeckShuffled) -> PalaceHand:
    return replace(state, draw_deck=event.order)


def _palace_dealt(state: PalaceHand, event: PalaceCardsDealt) -> PalaceHand:
    dealt = set(event.cards)
    state = _with_seat(state, state.seat_of(event.player), palace=event.cards)
    state = replace(state, draw_deck=tuple(c for c in state.draw_deck if c not in dealt))
    if all(len(seat.palace) == PALACE_CARDS for seat in state.seats):
        first = state.left[0]
        return replace(state, phase=TURN, to_act=first, turn_owner=first)
    return state


def _bought(state: PalaceHand, event: SoldierBought) -> PalaceHand:
    index = state.seat_of(event.player)
    state = _pay(state, index, event.amount)
    state = _with_seat(state, index, soldiers=state.seats[index].soldiers + (event.card,))
    return replace(state, draw_deck=state.draw_deck[1:], phase=DISCARDING, to_act=index,
                   quiet=frozenset())


def _draw_deck(state: PalaceHand, event: DrawDeckReshuffled) -> PalaceHand:
    return replace(state, draw_deck=event.order, discard_pile=())


def _discarded(state: PalaceHand, event: SoldiersDiscarded) -> PalaceHand:
    index = state.seat_of(event.player)
    gone = set(event.cards)
    seat = state.seats[index]
    state = _with_seat(state, index, soldiers=tuple(c for c in seat.soldiers if c not in gone))
    state = replace(state, discard_pile=state.discard_pile + event.cards)
    if state.phase == TURN:  # a discard turn, not the step after a buy or capture
        state = _quiet_turn(state, index, "discard")
    return _pass_turn(state)


def _stayed(state: PalaceHand, event: Stayed) -> PalaceHand:
    return _pass_turn(_quiet_turn(state, state.seat_of(event.player), "stay"))


def _folded(state: PalaceHand, event: PlayerFolded) -> PalaceHand:
    index = state.seat_of(event.player)
    state = _out(state, index, keep_face_up=False)
    return _pass_turn(_quiet_turn(state, index, "fold"))


def _declared(state: PalaceHand, event: BattleDeclared) -> PalaceHand:
    attacker, defender = state.seat_of(event.attacker), state.seat_of(event.defender)
    state = _pay(state, attacker, event.amount)
    battle = Battle(attacker, defender, attacker_excess=max(0, event.amount - event.minimum))
    return replace(state, battle=battle, phase=DEFENDING, to_act=defender, quiet=frozenset())


def _defender_folded(state: PalaceHand, event: DefenderFolded) -> PalaceHand:
    state = _out(state, state.seat_of(event.defender), keep_face_up=True)
    return replace(state, battle=None)


def _defender_called(state: PalaceHand, event: DefenderCalled) -> PalaceHand:
    return _pay(state, state.seat_of(event.defender), event.amount)


def _defender_raised(state: PalaceHand, event: DefenderRaised) -> PalaceHand:
    index = state.seat_of(event.defender)
    state = _pay(state, index, event.call_amount + event.raise_amount)
    assert state.battle is not None
    return replace(state, battle=replace(state.battle, raise_by=event.raise_amount),
                   phase=ANSWERING_RAISE, to_act=state.battle.attacker)


def _attacker_called(state: PalaceHand, event: AttackerCalled) -> PalaceHand:
    return _pay(state, state.seat_of(event.attacker), event.amount)


def _attacker_folded(state: PalaceHand, event: AttackerFolded) -> PalaceHand:
    state = _out(state, state.seat_of(event.attacker), keep_face_up=True)
    return replace(state, battle=None)


def _decided(state: PalaceHand, event: BattleDecided) -> PalaceHand:
    attacker, defender = state.seat_of(event.attacker), state.seat_of(event.defender)
    if event.outcome == ATTACKER_WON:
        state = _out(state, defender, keep_face_up=True)
    elif event.outcome == DEFENDER_WON:
        state = _out(state, attacker, keep_face_up=True)
    elif event.outcome == DOUBLE_KNOCKOUT:
        state = _out(_out(state, attacker, keep_face_up=False), defender, keep_face_up=False)
        return _pass_turn(replace(state, battle=None))
    return replace(state, battle=None)  # a capture (or the split's award) follows


def _captured(state: PalaceHand, event: CardsCaptured) -> PalaceHand:
    winner, loser = state.seat_of(event.winner), state.seat_of(event.loser)
    state = _with_seat(state, loser, banner=None, soldiers=())
    state = _with_seat(state, winner, soldiers=state.seats[winner].soldiers + event.cards)
    return replace(state, phase=DISCARDING, to_act=winner)


def _ended(state: PalaceHand, event: HandEnded) -> PalaceHand:
    seats = tuple(replace(seat, stack=stack) for seat, stack in zip(state.seats, event.stacks))
    return replace(state, seats=seats, pot=0, phase=OVER, to_act=None, battle=None)


# Each event type's own step.
EVOLVERS: dict[type, Callable[[PalaceHand, Any], PalaceHand]] = {
    HandStarted: _started,
    AntesPosted: _antes,
    BannerDealt: _banner,
    BannerSetAside: _shown,
    SetAsideBannersReshuffled: _shown,
    BattleCardsShown: _shown,
    PalaceCardsShown: _shown,
    PalaceDeckShuffled: _palace_deck,
    PalaceCardsDealt: _palace_dealt,
    SoldierBought: _bought,
    DrawDeckReshuffled: _draw_deck,
    SoldiersDiscarded: _discarded,
    Stayed: _stayed,
    PlayerFolded: _folded,
    BattleDeclared: _declared,
    DefenderFolded: _defender_folded,
    DefenderCalled: _defender_called,
    DefenderRaised: _defender_raised,
    AttackerCalled: _attacker_called,
    AttackerFolded: _attacker_folded,
    BattleDecided: _decided,
    CardsCaptured: _captured,
    HandEnded: _ended,
}


def evolve(state: PalaceHand, event: Event) -> PalaceHand:
    step = EVOLVERS.get(type(event))
    if step is None:
        raise TypeError(f"not a Palace Poker event: {event!r}")
    return step(state, event)

def _quiet_turn(state: PalaceHand, index: int, action: str) -> PalaceHand:
    if action in QUIET_ACTIONS:
        return replace(state, quiet=state.quiet | {index})
    return replace(state, quiet=frozenset())


def _with_seat(state: PalaceHand, index: int, **changes: Any) -> PalaceHand:
    seats = list(state.seats)
    seats[index] = replace(seats[index], **changes)
    return replace(state, seats=tuple(seats))


def _pay(state: PalaceHand, index: int, amount: int) -> PalaceHand:
    state = _with_seat(state, index, stack=state.seats[index].stack - amount)
    return replace(state, pot=state.pot + amount)


def _out(state: PalaceHand, index: int, keep_face_up: bool) -> PalaceHand:
    """The player leaves the hand. Palace cards go to the discard pile; so do the banner
    and soldiers unless they stay face up for a winner to capture."""
    seat = state.seats[index]
    gone = seat.palace if keep_face_up else seat.cards
    state = replace(state, discard_pile=state.discard_pile + gone)
    if keep_face_up:
        return _with_seat(state, index, in_hand=False, palace=())
    return _with_seat(state, index, in_hand=False, banner=None, palace=(), soldiers=())


def _pass_turn(state: PalaceHand) -> PalaceHand:
    """Play passes left of the player whose turn it was."""
    owner = state.turn_owner if state.turn_owner is not None else state.dealer
    count = len(state.seats)
    for step in range(1, count + 1):
        index = (owner + step) % count
        if state.seats[index].in_hand:
            return replace(state, phase=TURN, to_act=index, turn_owner=index)
    return replace(state, phase=TURN, to_act=None, turn_owner=None)


def canonical_cards(cards: Sequence[str] | str) -> tuple[str, ...]:
    """Cards as the events write them ("Ah", "Td")."""
    return tuple(format_card(card) for card in parse_cards(cards))
