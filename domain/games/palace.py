"""Palace Poker (Castle Poker, Banner Poker): a stud/draw hybrid in which every bet is a
heads-up battle between an attacker and a defender (spec: palace-poker.md, seed 001).

The decider: `decide(state, command) -> list[Event]` (raises Violation) and
`evolve(state, event) -> state`; `replay(events)` folds the events from `INITIAL`.
Every reading of the rules the seed leaves open lives in `palace_interpretations`.

Randomness comes from the caller: StartHand carries the deck for the banner deal and
permutations of the 52 cards that order the gathered palace deck and any reshuffle of
set-aside banners; a Buy that finds the draw deck empty carries the permutation for the
discard pile. The events record the resulting orders, so replay never draws.

Hidden information: an event with a `visible_to` field may be seen only by the players it
names (floor staff see everything); an event without one is public. Deck orders are
visible to nobody; palace cards to their owner, and to a battle opponent in that battle's
BattleCardsShown; the final showdown (PalaceCardsShown) is public.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Any

from domain.games.palace_interpretations import (
    ATTACK_ABOVE_MINIMUM,
    FIXED_LIMIT,
    FORCED_BATTLE_ALLOWS_FOLD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MISSING_CARD_RANK,
    PALACE_CARDS,
    QUIET_ACTIONS,
    SOLDIER_LIMIT,
    STRUCTURES,
    all_in_amount,
    ante_for,
    attack_minimum,
    attacker_call_amount,
    banner_group,
    banner_suit_count,
    defender_call_amount,
    fixed_limit_raise,
    forced_battle_applies,
    in_shuffled_order,
    no_limit_minimum_raise,
    odd_chip_order,
)
from domain.rules.betting import chips
from domain.rules.cards import JOKER, card_rank, format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.evaluation import CATEGORIES, evaluate_high
from domain.rules.evaluation_tables import FOUR_OF_A_KIND, HIGH_CARD, ONE_PAIR, THREE_OF_A_KIND, TWO_PAIR, pack
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
            value = BattleHand(**{k: tuple(v) if isinstance(v, list) else v for k, v in value.items()})
        elif isinstance(value, list):
            value = tuple(value)
        values[name] = value
    return cls(**values)


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

def evolve(state: PalaceHand, event: Event) -> PalaceHand:
    if isinstance(event, HandStarted):
        seats = tuple(Seat(player, stack) for player, stack in zip(event.players, event.stacks))
        return PalaceHand(seats=seats, dealer=event.dealer, small_bet=event.small_bet,
                          big_bet=event.big_bet, structure=event.structure, phase=DEALING,
                          players_at_start=len(seats))
    if isinstance(event, AntesPosted):
        for player, amount in zip(event.players, event.amounts):
            state = _pay(state, state.seat_of(player), amount)
        return state
    if isinstance(event, BannerDealt):
        return _with_seat(state, state.seat_of(event.player), banner=event.card)
    if isinstance(event, (BannerSetAside, SetAsideBannersReshuffled, BattleCardsShown,
                          PalaceCardsShown)):
        return state
    if isinstance(event, PalaceDeckShuffled):
        return replace(state, draw_deck=event.order)
    if isinstance(event, PalaceCardsDealt):
        dealt = set(event.cards)
        state = _with_seat(state, state.seat_of(event.player), palace=event.cards)
        state = replace(state, draw_deck=tuple(c for c in state.draw_deck if c not in dealt))
        if all(len(seat.palace) == PALACE_CARDS for seat in state.seats):
            first = state.left[0]
            return replace(state, phase=TURN, to_act=first, turn_owner=first)
        return state
    if isinstance(event, SoldierBought):
        index = state.seat_of(event.player)
        state = _pay(state, index, event.amount)
        state = _with_seat(state, index, soldiers=state.seats[index].soldiers + (event.card,))
        return replace(state, draw_deck=state.draw_deck[1:], phase=DISCARDING, to_act=index,
                       quiet=frozenset())
    if isinstance(event, DrawDeckReshuffled):
        return replace(state, draw_deck=event.order, discard_pile=())
    if isinstance(event, SoldiersDiscarded):
        index = state.seat_of(event.player)
        gone = set(event.cards)
        seat = state.seats[index]
        state = _with_seat(state, index, soldiers=tuple(c for c in seat.soldiers if c not in gone))
        state = replace(state, discard_pile=state.discard_pile + event.cards)
        if state.phase == TURN:  # a discard turn, not the step after a buy or capture
            state = _quiet_turn(state, index, "discard")
        return _pass_turn(state)
    if isinstance(event, Stayed):
        return _pass_turn(_quiet_turn(state, state.seat_of(event.player), "stay"))
    if isinstance(event, PlayerFolded):
        index = state.seat_of(event.player)
        state = _out(state, index, keep_face_up=False)
        return _pass_turn(_quiet_turn(state, index, "fold"))
    if isinstance(event, BattleDeclared):
        attacker, defender = state.seat_of(event.attacker), state.seat_of(event.defender)
        state = _pay(state, attacker, event.amount)
        battle = Battle(attacker, defender, attacker_excess=max(0, event.amount - event.minimum))
        return replace(state, battle=battle, phase=DEFENDING, to_act=defender, quiet=frozenset())
    if isinstance(event, DefenderFolded):
        state = _out(state, state.seat_of(event.defender), keep_face_up=True)
        return replace(state, battle=None)
    if isinstance(event, DefenderCalled):
        return _pay(state, state.seat_of(event.defender), event.amount)
    if isinstance(event, DefenderRaised):
        index = state.seat_of(event.defender)
        state = _pay(state, index, event.call_amount + event.raise_amount)
        assert state.battle is not None
        return replace(state, battle=replace(state.battle, raise_by=event.raise_amount),
                       phase=ANSWERING_RAISE, to_act=state.battle.attacker)
    if isinstance(event, AttackerCalled):
        return _pay(state, state.seat_of(event.attacker), event.amount)
    if isinstance(event, AttackerFolded):
        state = _out(state, state.seat_of(event.attacker), keep_face_up=True)
        return replace(state, battle=None)
    if isinstance(event, BattleDecided):
        attacker, defender = state.seat_of(event.attacker), state.seat_of(event.defender)
        if event.outcome == ATTACKER_WON:
            state = _out(state, defender, keep_face_up=True)
        elif event.outcome == DEFENDER_WON:
            state = _out(state, attacker, keep_face_up=True)
        elif event.outcome == DOUBLE_KNOCKOUT:
            state = _out(_out(state, attacker, keep_face_up=False), defender, keep_face_up=False)
            return _pass_turn(replace(state, battle=None))
        return replace(state, battle=None)  # a capture (or the split's award) follows
    if isinstance(event, CardsCaptured):
        winner, loser = state.seat_of(event.winner), state.seat_of(event.loser)
        state = _with_seat(state, loser, banner=None, soldiers=())
        state = _with_seat(state, winner, soldiers=state.seats[winner].soldiers + event.cards)
        return replace(state, phase=DISCARDING, to_act=winner)
    if isinstance(event, HandEnded):
        seats = tuple(replace(seat, stack=stack) for seat, stack in zip(state.seats, event.stacks))
        return replace(state, seats=seats, pot=0, phase=OVER, to_act=None, battle=None)
    raise TypeError(f"not a Palace Poker event: {event!r}")


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


# ---------------------------------------------------------------- the first dealer

def first_dealer(draws: Sequence[dict[str, str]]) -> str:
    """Seed: "The initial dealer is chosen by drawing cards. The player with the highest
    ranking card deals first. Since suits are not ranked, if two or more players tie they
    keep drawing until a dealer is determined."

    `draws` holds the rounds of the draw, each mapping player -> card drawn; after the
    first round only the players tied for the highest card draw. Raises
    Violation("draw_again") naming the tied players when the rounds given do not settle it.
    """
    contenders: set[str] | None = None
    for round_ in draws:
        if contenders is not None and set(round_) != contenders:
            raise Violation("illegal_action", f"only the tied players ({', '.join(sorted(contenders))}) "
                            "draw again", RULE, {"tied": sorted(contenders)})
        ranks = {player: card_rank(card) for player, card in zip(round_, parse_cards(list(round_.values())))}
        top = max(ranks.values())
        contenders = {player for player, rank in ranks.items() if rank == top}
        if len(contenders) == 1:
            return contenders.pop()
    if contenders is None:
        raise Violation("validation_error", "no cards were drawn for the first dealer")
    raise Violation("draw_again", f"{', '.join(sorted(contenders))} tie for the highest card: "
                    "they draw again", numbers={"tied": sorted(contenders)})


# ---------------------------------------------------------------- decide

class _Story:
    """The events decided so far and the state they lead to, so that later rules in the
    same decision see the earlier facts."""

    def __init__(self, state: PalaceHand) -> None:
        self.state = state
        self.events: list[Event] = []

    def add(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def decide(state: PalaceHand, command: Command) -> list[Event]:
    if isinstance(command, StartHand):
        if state.phase not in (NOT_STARTED, OVER):
            raise Violation("illegal_action", "a hand is already in progress", RULE)
        story = _Story(state)
        _deal(story, command)
        return story.events
    if state.phase in (NOT_STARTED, DEALING):
        raise Violation("illegal_action", "no hand is in progress: start one first", RULE)
    if state.phase == OVER:
        raise Violation("hand_over", "the hand is over", RULE)
    index = state.seat_of(command.player)
    if state.to_act != index:
        waiting = state.seats[state.to_act].player if state.to_act is not None else "nobody"
        raise Violation("not_your_turn", f"{command.player} may not act: {waiting} is to "
                        f"{_PHASE_WORDS[state.phase]}", RULE,
                        {"player": command.player, "to_act": waiting})
    story = _Story(state)
    _PHASE_RULES[state.phase](story, index, command)
    _settle(story)
    return story.events


_PHASE_WORDS = {
    TURN: "take a turn",
    DISCARDING: "discard down to five soldiers",
    DEFENDING: "answer the attack (fold, call or raise)",
    ANSWERING_RAISE: "answer the raise (call or fold)",
}


def _deal(story: _Story, command: StartHand) -> None:
    count = len(command.players)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise Violation("illegal_action", f"Palace Poker takes {MIN_PLAYERS} to {MAX_PLAYERS} "
                        f"players, not {count}", RULE, {"players": count})
    if len(set(command.players)) != count:
        raise Violation("illegal_action", "a player may hold only one seat", RULE)
    if len(command.stacks) != count or any(stack < 0 for stack in command.stacks):
        raise Violation("illegal_action", "give one stack of zero or more chips per player", RULE)
    if not 0 <= command.dealer < count:
        raise Violation("illegal_action", f"the dealer must be a seat 0..{count - 1}", RULE)
    if command.structure not in STRUCTURES:
        raise Violation("illegal_action", f"structure must be one of {', '.join(STRUCTURES)}", RULE)
    if command.small_bet <= 0 or command.big_bet < command.small_bet:
        raise Violation("illegal_action", f"the small bet ({chips(command.small_bet)}) must be positive "
                        f"and the big bet ({chips(command.big_bet)}) at least as large", RULE)
    deck = _full_deck(command.deck, "deck")
    palace_order = _full_deck(command.palace_order, "palace_order")

    ante = ante_for(command.small_bet)
    story.add(HandStarted(tuple(command.players), tuple(command.stacks), command.dealer,
                          command.small_bet, command.big_bet, command.structure, ante))
    deal_order = story.state.left
    players = tuple(story.state.seats[i].player for i in deal_order)
    antes = tuple(all_in_amount(ante, story.state.seats[i].stack) for i in deal_order)
    story.add(AntesPosted(players, antes))

    remaining = list(deck)
    set_aside: list[str] = []
    banners: list[str] = []
    for position, player in enumerate(players):
        group_suits = {banners[p][1] for p in range(position) if banner_group(p) == banner_group(position)}
        while True:
            if not remaining:
                reshuffle = _full_deck(command.banner_reshuffle_order, "banner_reshuffle_order",
                                       needed_for="the deck ran out while dealing banners")
                order = in_shuffled_order(set_aside, reshuffle)
                story.add(SetAsideBannersReshuffled(len(order), order))
                remaining, set_aside = list(order), []
            card = remaining.pop(0)
            if card[1] in group_suits:
                set_aside.append(card)
                story.add(BannerSetAside(player, card))
                continue
            banners.append(card)
            story.add(BannerDealt(player, card))
            break

    gathered = in_shuffled_order(remaining + set_aside, palace_order)
    story.add(PalaceDeckShuffled(len(gathered), gathered))
    for position, player in enumerate(players):
        cards = tuple(gathered[position + round_ * count] for round_ in range(PALACE_CARDS))
        story.add(PalaceCardsDealt(player, cards, visible_to=(player,)))


def _full_deck(cards: Sequence[str], name: str, needed_for: str = "") -> tuple[str, ...]:
    if not cards and needed_for:
        raise Violation("shuffle_order_required", f"{needed_for}: pass {name}, a random "
                        f"permutation of the 52 cards", numbers={"missing": name})
    parsed = parse_cards(cards)
    if len(parsed) != DECK_SIZE or JOKER in parsed:
        raise Violation("invalid_card", f"{name} must hold each of the 52 cards once, "
                        f"not {len(parsed)} cards", numbers={"field": name, "cards": len(parsed)})
    return tuple(format_card(card) for card in parsed)


def _canonical(cards: Sequence[str] | str) -> tuple[str, ...]:
    return tuple(format_card(card) for card in parse_cards(cards))


def _battle_forced(state: PalaceHand) -> bool:
    left = state.left
    return (forced_battle_applies(state.players_at_start, len(left))
            and len({state.seats[i].suit for i in left}) == 2)


def _turn(story: _Story, index: int, command: Command) -> None:
    state = story.state
    seat = state.seats[index]
    if isinstance(command, Attack):
        _attack(story, index, command)
        return
    if isinstance(command, (Call, Raise)):
        raise Violation("illegal_action", f"{seat.player} has no attack to answer: on a turn, "
                        "buy, discard, bet, stay or fold", RULE)
    if isinstance(command, Fold) and (FORCED_BATTLE_ALLOWS_FOLD or not _battle_forced(state)):
        story.add(PlayerFolded(seat.player))
        return
    if _battle_forced(state):
        other = next(state.seats[i].player for i in state.left if i != index)
        concede = " (or fold)" if FORCED_BATTLE_ALLOWS_FOLD else ""
        raise Violation("battle_required", f"only {seat.player} and {other} are left and their "
                        f"banners differ: {seat.player} must bet against {other}{concede}", RULE)
    if isinstance(command, Stay):
        story.add(Stayed(seat.player))
    elif isinstance(command, Discard):
        cards = _canonical(command.cards)
        if not cards:
            raise Violation("invalid_discard", "a discard turn discards one or more soldiers", RULE)
        _check_own_soldiers(seat, cards)
        story.add(SoldiersDiscarded(seat.player, cards))
    elif isinstance(command, Buy):
        _buy(story, index, command)
    else:
        raise TypeError(f"not a Palace Poker command: {command!r}")


def _buy(story: _Story, index: int, command: Buy) -> None:
    state = story.state
    seat = state.seats[index]
    if seat.stack < state.small_bet:
        raise Violation("exceeds_stack", f"buying costs one small bet ({chips(state.small_bet)}) and "
                        f"{seat.player} has {chips(seat.stack)}", RULE,
                        {"cost": state.small_bet, "stack": seat.stack})
    if not state.draw_deck:
        if not state.discard_pile:
            raise Violation("no_cards_to_buy", "the draw deck and the discard pile are both "
                            "empty: buying is no longer possible", RULE)
        permutation = _full_deck(command.reshuffle_order, "reshuffle_order",
                                 needed_for="the draw deck is empty and the discard pile must be shuffled")
        order = in_shuffled_order(state.discard_pile, permutation)
        story.add(DrawDeckReshuffled(len(order), order))
    story.add(SoldierBought(seat.player, state.small_bet, story.state.draw_deck[0]))


def _attack(story: _Story, index: int, command: Attack) -> None:
    state = story.state
    seat = state.seats[index]
    target = state.seat_of(command.defender)
    defender = state.seats[target]
    if target == index or not defender.in_hand:
        raise Violation("illegal_action", f"{seat.player} may attack only another player still "
                        f"in the hand, not {command.defender}", RULE)
    if defender.suit == seat.suit:
        raise Violation("same_banner_suit", f"{seat.player} ({seat.banner}) may not attack "
                        f"{defender.player} ({defender.banner}): their banners have the same suit",
                        RULE, {"attacker_banner": seat.banner, "defender_banner": defender.banner})
    minimum, required, most = attack_range(state, index)
    amount = required if command.to is None else command.to
    formula = f"({len(seat.soldiers)} soldiers + 1) x {chips(state.small_bet)}"
    numbers = {"to": amount, "minimum": minimum, "stack": seat.stack}
    if not ATTACK_ABOVE_MINIMUM[state.structure] and amount != required:
        raise Violation("wrong_fixed_amount", f"fixed-limit: the bet is {formula} = {chips(required)}, "
                        f"not {chips(amount)}", RULE, numbers)
    if amount < required:
        raise Violation("bet_below_minimum", f"a bet of {chips(amount)} is below the minimum {formula} "
                        f"= {chips(required)}", RULE, numbers)
    if amount > most:
        raise Violation("exceeds_stack", f"a bet of {chips(amount)} exceeds {seat.player}'s stack of "
                        f"{chips(seat.stack)}", RULE, numbers)
    story.add(BattleDeclared(seat.player, defender.player, amount, minimum))


def _check_own_soldiers(seat: Seat, cards: tuple[str, ...]) -> None:
    foreign = [card for card in cards if card not in seat.soldiers]
    if foreign:
        raise Violation("invalid_discard", f"{seat.player} can discard only their own soldiers "
                        f"({' '.join(seat.soldiers) or 'none'}), not {' '.join(foreign)}", RULE,
                        {"cards": foreign})


def _discarding(story: _Story, index: int, command: Command) -> None:
    seat = story.state.seats[index]
    if not isinstance(command, Discard):
        raise Violation("illegal_action", f"{seat.player} must first discard (any number, "
                        f"leaving at most {SOLDIER_LIMIT} soldiers)", RULE)
    cards = _canonical(command.cards)
    _check_own_soldiers(seat, cards)
    keeps = len(seat.soldiers) - len(cards)
    if keeps > SOLDIER_LIMIT:
        raise Violation("invalid_discard", f"{seat.player} holds {len(seat.soldiers)} soldiers "
                        f"and may keep at most {SOLDIER_LIMIT}: discard {keeps - SOLDIER_LIMIT} more",
                        RULE, {"soldiers": len(seat.soldiers), "discarding": len(cards)})
    story.add(SoldiersDiscarded(seat.player, cards))


def _defending(story: _Story, index: int, command: Command) -> None:
    state = story.state
    battle = state.battle
    assert battle is not None
    seat = state.seats[index]
    attacker = state.seats[battle.attacker]
    if isinstance(command, Fold):
        story.add(DefenderFolded(seat.player))
        story.add(CardsCaptured(attacker.player, seat.player, (seat.banner or "",) + seat.soldiers))
        return
    due, call, raise_range = defence_amounts(state)
    if isinstance(command, Call):
        story.add(DefenderCalled(seat.player, call))
        _fight(story)
        return
    if not isinstance(command, Raise):
        raise Violation("illegal_action", f"{seat.player} is attacked by {attacker.player}: "
                        "fold, call or raise", RULE)
    if raise_range is None:
        raise Violation("exceeds_stack", f"calling takes {seat.player}'s whole stack "
                        f"({chips(seat.stack)}): no chips are left to raise", RULE,
                        {"call": due, "stack": seat.stack})
    smallest, largest = raise_range
    to = smallest if command.to is None else command.to
    if state.structure == FIXED_LIMIT and to != smallest:
        raise Violation("wrong_fixed_amount", f"fixed-limit: the raise is to {chips(smallest)} "
                        f"(the call of {chips(due)} plus the fixed raise), not {chips(to)}", RULE,
                        {"to": to, "required": smallest})
    if to < smallest:
        raise Violation("raise_below_minimum", f"a raise to {chips(to)} is below the minimum "
                        f"{chips(smallest)}: the call of {chips(due)} plus one big bet ({chips(state.big_bet)})",
                        RULE, {"to": to, "minimum": smallest})
    if to > largest:
        raise Violation("exceeds_stack", f"a raise to {chips(to)} exceeds {seat.player}'s stack "
                        f"of {chips(seat.stack)}", RULE, {"to": to, "stack": seat.stack})
    story.add(DefenderRaised(seat.player, due, to - due))


def _answering_raise(story: _Story, index: int, command: Command) -> None:
    state = story.state
    battle = state.battle
    assert battle is not None
    seat = state.seats[index]
    defender = state.seats[battle.defender]
    if isinstance(command, Fold):
        story.add(AttackerFolded(seat.player))
        story.add(CardsCaptured(defender.player, seat.player, (seat.banner or "",) + seat.soldiers))
    elif isinstance(command, Call):
        story.add(AttackerCalled(seat.player, answering_raise_call(state)))
        _fight(story)
    else:
        raise Violation("illegal_action", f"{defender.player} raised: {seat.player} may only "
                        "call or fold", RULE)


_PHASE_RULES = {
    TURN: _turn,
    DISCARDING: _discarding,
    DEFENDING: _defending,
    ANSWERING_RAISE: _answering_raise,
}


def _fight(story: _Story) -> None:
    """Both sides are in: compare the hands and settle the battle."""
    state = story.state
    battle = state.battle
    assert battle is not None
    attacker, defender = state.seats[battle.attacker], state.seats[battle.defender]
    last_two = len(state.left) == 2
    judgement = judge_battle(_holding(attacker), _holding(defender))
    story.add(BattleCardsShown(attacker.player, defender.player, attacker.palace, defender.palace,
                               judgement.attacker, judgement.defender,
                               visible_to=(attacker.player, defender.player)))
    if judgement.winner == "attacker":
        winner, loser, outcome = attacker, defender, ATTACKER_WON
    elif judgement.winner == "defender":
        winner, loser, outcome = defender, attacker, DEFENDER_WON
    else:
        outcome = SPLIT if last_two else DOUBLE_KNOCKOUT
        story.add(BattleDecided(attacker.player, defender.player, outcome, None, judgement.reason))
        if outcome == SPLIT:
            _award(story, (battle.attacker, battle.defender), "battle_split")
        return
    story.add(BattleDecided(attacker.player, defender.player, outcome, winner.player,
                            judgement.reason))
    story.add(CardsCaptured(winner.player, loser.player, (loser.banner or "",) + loser.soldiers))


def _settle(story: _Story) -> None:
    """After every action: the hand ends with one player left, with only one banner suit
    left, or after a full round of quiet turns."""
    state = story.state
    if state.phase == OVER:
        return
    left = state.left
    if len(left) == 1:
        _award(story, left, "last_player")
    elif len({state.seats[i].suit for i in left}) == 1:
        _award(story, left, "same_banner_suit")
    elif state.phase == TURN and set(left) <= state.quiet:
        _showdown(story)


def _showdown(story: _Story) -> None:
    state = story.state
    values: dict[int, HandStrength] = {}
    for index in state.left:
        seat = state.seats[index]
        value = hand_value(seat.cards)
        values[index] = value
        story.add(PalaceCardsShown(seat.player, seat.palace, value.category, value.best))
    top = max(value.strength for value in values.values())
    _award(story, tuple(i for i, value in values.items() if value.strength == top), "showdown")


def _award(story: _Story, winner_seats: Sequence[int], reason: str) -> None:
    state = story.state
    order = odd_chip_order(winner_seats, state.dealer, len(state.seats))
    share, odd = divmod(state.pot, len(order))
    amounts = tuple(share + (1 if position < odd else 0) for position in range(len(order)))
    stacks = [seat.stack for seat in state.seats]
    for index, amount in zip(order, amounts):
        stacks[index] += amount
    story.add(HandEnded(reason, tuple(state.seats[i].player for i in order), amounts, tuple(stacks)))


# ---------------------------------------------------------------- amounts and legal actions

def attack_range(state: PalaceHand, index: int) -> tuple[int, int, int]:
    """(the formula minimum, the least the attacker may put in, the most): a short stack
    attacks all in; fixed-limit bets exactly the minimum."""
    seat = state.seats[index]
    minimum = attack_minimum(len(seat.soldiers), state.small_bet)
    required = all_in_amount(minimum, seat.stack)
    most = seat.stack if ATTACK_ABOVE_MINIMUM[state.structure] else required
    return minimum, required, most


def defence_amounts(state: PalaceHand) -> tuple[int, int, tuple[int, int] | None]:
    """For the defender of the current battle: (what the rules ask to call, what they
    actually put in to call, (least, most) total for a raise or None when they cannot)."""
    battle = state.battle
    assert battle is not None
    seat = state.seats[battle.defender]
    due = defender_call_amount(len(seat.soldiers), state.small_bet, battle.attacker_excess)
    call = all_in_amount(due, seat.stack)
    if seat.stack <= due:
        return due, call, None
    if state.structure == FIXED_LIMIT:
        fixed = due + fixed_limit_raise(len(seat.soldiers), state.small_bet, state.big_bet)
        return due, call, (all_in_amount(fixed, seat.stack), all_in_amount(fixed, seat.stack))
    smallest = due + no_limit_minimum_raise(state.big_bet)
    return due, call, (all_in_amount(smallest, seat.stack), seat.stack)


def answering_raise_call(state: PalaceHand) -> int:
    """What the attacker adds to call the defender's raise."""
    assert state.battle is not None
    seat = state.seats[state.battle.attacker]
    return all_in_amount(attacker_call_amount(state.battle.raise_by), seat.stack)


def legal_actions(state: PalaceHand) -> dict[str, Any]:
    """What the player to act may do now, as the API's `legal` shape for Palace Poker:
    each action maps to its amounts, or None when it is not allowed."""
    if state.to_act is None or state.phase not in _PHASE_RULES:
        return {"to_act": None, "phase": state.phase, "legal": {}}
    index = state.to_act
    seat = state.seats[index]
    legal: dict[str, Any]
    if state.phase == TURN:
        forced = _battle_forced(state)
        targets = [state.seats[i].player for i in state.left
                   if i != index and state.seats[i].suit != seat.suit]
        _, least, most = attack_range(state, index)
        can_buy = seat.stack >= state.small_bet and bool(state.draw_deck or state.discard_pile)
        legal = {
            "buy": None if forced or not can_buy else
            {"cost": state.small_bet, "needs_reshuffle": not state.draw_deck},
            "discard": None if forced or not seat.soldiers else
            {"min_cards": 1, "from": seat.soldiers},
            "attack": {"targets": targets, "min_to": least, "max_to": most} if targets else None,
            "stay": not forced,
            "fold": FORCED_BATTLE_ALLOWS_FOLD or not forced,
        }
    elif state.phase == DISCARDING:
        legal = {"discard": {"min_cards": max(0, len(seat.soldiers) - SOLDIER_LIMIT),
                             "from": seat.soldiers}}
    elif state.phase == DEFENDING:
        _, call, raise_range = defence_amounts(state)
        legal = {"fold": True, "call": {"adds": call},
                 "raise": None if raise_range is None else
                 {"min_to": raise_range[0], "max_to": raise_range[1]}}
    else:
        assert state.battle is not None
        legal = {"fold": True, "call": {"adds": answering_raise_call(state)}}
    return {"to_act": seat.player, "phase": state.phase, "legal": legal}


# ---------------------------------------------------------------- hands and battles

@dataclass(frozen=True)
class HandStrength:
    """A hand's worth, whatever the number of cards: `strength` in the layout of
    domain.rules.evaluation (so hands of fewer than five cards compare with full hands)."""

    strength: int
    category: str
    best: tuple[str, ...]


_SHORT_CATEGORY = {  # rank-count shape -> category, for hands of fewer than five cards
    (4,): FOUR_OF_A_KIND, (3, 1): THREE_OF_A_KIND, (3,): THREE_OF_A_KIND,
    (2, 2): TWO_PAIR, (2, 1, 1): ONE_PAIR, (2, 1): ONE_PAIR, (2,): ONE_PAIR,
}


def hand_value(cards: Sequence[str]) -> HandStrength:
    """The best five-card hand from `cards` (1..9 cards). Fewer than five cards are ranked
    by the categories they can make, a missing card ranking below a deuce
    (palace_interpretations.MISSING_CARD_RANK)."""
    parsed = parse_cards(cards)
    if len(parsed) >= 5:
        value = evaluate_high(parsed)
        return HandStrength(value.strength, value.category,
                              tuple(format_card(card) for card in value.best))
    counts = Counter(card_rank(card) for card in parsed)
    ordered = sorted(parsed, key=lambda card: (counts[card_rank(card)], card_rank(card), card),
                     reverse=True)
    shape = tuple(sorted(counts.values(), reverse=True))
    category = _SHORT_CATEGORY.get(shape, HIGH_CARD)
    ranks = [card_rank(card) for card in ordered] + [MISSING_CARD_RANK] * (5 - len(ordered))
    return HandStrength(pack(category, ranks), CATEGORIES[category],
                          tuple(format_card(card) for card in ordered))


@dataclass(frozen=True)
class Holding:
    """A player's cards: banner (face up), palace (face down) and soldiers (face up)."""

    banner: str
    palace: tuple[str, ...]
    soldiers: tuple[str, ...] = ()

    @property
    def cards(self) -> tuple[str, ...]:
        return (self.banner,) + self.palace + self.soldiers

    @property
    def suit(self) -> str:
        return self.banner[1]


@dataclass(frozen=True)
class BattleJudgement:
    attacker: BattleHand
    defender: BattleHand
    winner: str | None  # "attacker", "defender", or None when still tied after the tie-break
    reason: str  # better_hand | more_banner_suit_cards | tie


def _holding(seat: Seat) -> Holding:
    return Holding(seat.banner or "", seat.palace, seat.soldiers)


def _battle_hand(own: Holding, opponent: Holding) -> tuple[BattleHand, int]:
    counted = tuple(card for card in own.cards if card[1] != opponent.suit)
    ignored = tuple(card for card in own.cards if card[1] == opponent.suit)
    value = hand_value(counted)
    hand = BattleHand(value.category, value.best, counted, ignored, opponent.suit,
                      banner_suit_count(own.cards, own.suit))
    return hand, value.strength


def judge_battle(attacker: Holding, defender: Holding) -> BattleJudgement:
    """Each side makes the best hand of all their own cards, not counting any card of the
    opponent's banner suit; the better hand wins, a tie goes to the side holding more cards
    of its own banner suit, and a tie after that leaves `winner` None."""
    attacker_hand, attacker_strength = _battle_hand(attacker, defender)
    defender_hand, defender_strength = _battle_hand(defender, attacker)
    if attacker_strength != defender_strength:
        winner = "attacker" if attacker_strength > defender_strength else "defender"
        return BattleJudgement(attacker_hand, defender_hand, winner, "better_hand")
    a_count, d_count = attacker_hand.banner_suit_cards, defender_hand.banner_suit_cards
    if a_count != d_count:
        winner = "attacker" if a_count > d_count else "defender"
        return BattleJudgement(attacker_hand, defender_hand, winner, "more_banner_suit_cards")
    return BattleJudgement(attacker_hand, defender_hand, None, "tie")


# ---------------------------------------------------------------- stateless battle ruling

def battle_stakes(attacker: Holding, defender: Holding, names: dict[str, str],
                  small_bet: int) -> dict[str, Any]:
    """A battle's money as the floor reads it out (seed 001; palace-poker.md "Table and
    stakes" and "Bet (battle)")."""
    minimum = attack_minimum(len(attacker.soldiers), small_bet)
    call = defender_call_amount(len(defender.soldiers), small_bet, 0)
    ante = ante_for(small_bet)
    return {
        "small_bet": small_bet, "minimum_bet": minimum, "defender_call": call, "ante": ante,
        "rule": RULE,
        "detail": f"{names['attacker']} bets at least ({_soldiers(attacker)} + banner) x {chips(small_bet)} = "
                  f"{chips(minimum)}; {names['defender']} calls ({_soldiers(defender)} + banner) x {chips(small_bet)} = "
                  f"{chips(call)}; the ante is half the small bet: {chips(ante)}",
    }


def _soldiers(holding: Holding) -> str:
    count = len(holding.soldiers)
    return f"{count} soldier{'' if count == 1 else 's'}"


def palace_battle_ruling(request: dict[str, Any]) -> dict[str, Any]:
    """Judge one battle from the cards alone.

    Request: {"attacker": {"name": "Ann", "banner": "Ah", "palace": "KdKc2s",
    "soldiers": ["7h", "7d"]}, "defender": {...}, "last_two": false}; cards as a string or
    a list, soldiers optional (0..5), "name" optional. Answer: the winner and loser (or
    none), the outcome (attacker_won, defender_won, double_knockout, split), the reason
    (better_hand, more_banner_suit_cards, tie), whether the tie-break was applied, the
    cards the winner captures, and per side the hand used and the suit ignored. With
    `small_bet` (S), `stakes` adds the battle's money: the attacker's minimum bet,
    (soldiers + banner) x S, the defender's call by the same formula, and the ante (half a
    small bet, rounded down).
    """
    if not isinstance(request, dict):
        raise Violation("validation_error", "the request must be an object with attacker and defender")
    sides = {role: _holding_from_request(request, role) for role in ("attacker", "defender")}
    names = {role: str(request[role].get("name") or role) for role in sides}
    every = sides["attacker"].cards + sides["defender"].cards
    repeated = sorted({card for card in every if every.count(card) > 1})
    if repeated:
        raise Violation("duplicate_card", f"{' '.join(repeated)} appear(s) in both hands: a deck "
                        "holds each card once", numbers={"cards": repeated})
    if names["attacker"] == names["defender"]:
        raise Violation("validation_error", "attacker and defender need different names")
    attacker, defender = sides["attacker"], sides["defender"]
    if attacker.suit == defender.suit:
        raise Violation("same_banner_suit", f"{names['attacker']} ({attacker.banner}) may not "
                        f"attack {names['defender']} ({defender.banner}): their banners have the "
                        "same suit", RULE)
    last_two = request.get("last_two", False)
    if not isinstance(last_two, bool):
        raise Violation("validation_error", "last_two must be true or false")
    small_bet = request.get("small_bet")
    if small_bet is not None and (isinstance(small_bet, bool) or not isinstance(small_bet, int)
                                  or small_bet < 1):
        raise Violation("validation_error", f"small_bet must be a whole number of chips of at least 1, "
                        f"not {small_bet!r}")

    judgement = judge_battle(attacker, defender)
    answer: dict[str, Any] = {
        **({"stakes": battle_stakes(attacker, defender, names, small_bet)} if small_bet else {}),
        "reason": judgement.reason,
        "tie_break_applied": judgement.reason != "better_hand",
        "hands": {
            role: {
                "player": names[role],
                "category": hand.category,
                "best": "".join(hand.best),
                "counted": "".join(hand.counted),
                "ignored": "".join(hand.ignored),
                "ignored_suit": hand.ignored_suit,
                "banner_suit_cards": hand.banner_suit_cards,
            }
            for role, hand in (("attacker", judgement.attacker), ("defender", judgement.defender))
        },
    }
    if judgement.winner is None:
        outcome = SPLIT if last_two else DOUBLE_KNOCKOUT
        answer.update(outcome=outcome, winner=None, loser=None, captured="",
                      out=[] if last_two else [names["attacker"], names["defender"]])
        return answer
    loser = "defender" if judgement.winner == "attacker" else "attacker"
    answer.update(
        outcome=ATTACKER_WON if judgement.winner == "attacker" else DEFENDER_WON,
        winner=names[judgement.winner],
        loser=names[loser],
        out=[names[loser]],
        captured="".join((sides[loser].banner,) + sides[loser].soldiers),
    )
    return answer


def _holding_from_request(request: dict[str, Any], role: str) -> Holding:
    side = request.get(role)
    if not isinstance(side, dict):
        raise Violation("validation_error", f"{role} must be an object with banner, palace "
                        "and soldiers", numbers={"field": role})
    banner = _canonical(side.get("banner") or "")
    palace = _canonical(side.get("palace") or "")
    soldiers = _canonical(side.get("soldiers") or "")
    if len(banner) != 1:
        raise Violation("validation_error", f"{role}.banner must be one card, not {len(banner)}",
                        numbers={"field": f"{role}.banner"})
    if len(palace) != PALACE_CARDS:
        raise Violation("validation_error", f"{role}.palace must be {PALACE_CARDS} cards, not "
                        f"{len(palace)}", numbers={"field": f"{role}.palace"})
    if len(soldiers) > SOLDIER_LIMIT:
        raise Violation("validation_error", f"{role} holds {len(soldiers)} soldiers: nobody may "
                        f"keep more than {SOLDIER_LIMIT}", numbers={"field": f"{role}.soldiers"})
    if "Jk" in banner + palace + soldiers:
        raise Violation("invalid_card", "Palace Poker is played without a joker")
    return Holding(banner[0], palace, soldiers)
