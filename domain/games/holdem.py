"""One hand of hold'em or Omaha as a decider: `decide(state, command) -> events`,
`evolve(state, event) -> state`, `replay(events) -> state`.

Seats are indexed 0..n-1 clockwise. Two ways to deal:
- live play: StartHand carries the deck order (drawn by the service); hole cards and the
  board are dealt inside `decide` as soon as they are due. The showdown follows the TDA
  (domain.rules.showdown_order): all in with the betting over, every hand is shown at once;
  otherwise hands are shown or mucked in the order of show, by the computer on an
  "automatic" showdown, by the players themselves (ShowCards, Muck, AskToSee) on a
  "declared" one;
- replay (PHH, rulings): no deck; `decide` stops where a deal is due (`state.awaiting`)
  and waits for DealHole / DealBoard. The showdown settles once every contender has shown
  or mucked (ShowCards / Muck), or on SettleShowdown; unknown cards cannot win.

Rounds close by themselves; uncalled chips go back before the next card or the showdown;
when at most one player can still bet, the board runs out without betting.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from typing import Any

from domain.games.hand_events import ActionTaken, CardsMucked, PostAction, PotAwarded, ShowAsked, UncalledReturned, credit_award
from domain.games.settlement import open_pots, settlement
from domain.rules import betting as bet
from domain.rules import showdown_order
from domain.rules.betting import Amount, BettingState, BettingStructure, LegalActions, with_changes, with_item
from domain.rules.cards import format_card, parse_cards
from domain.rules.citations import cite
from domain.rules.evaluation import omaha_strength, strength, strength7
from domain.rules.pots import LEFT_OF_BUTTON, ODD_CHIP_POLICIES, Pot, PotAward, award_pots
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


@dataclass(frozen=True)
class HandState:
    """Everything views need. `hole[i]` is None while seat i's cards are unknown."""
    variant: str
    players: tuple[str, ...]
    odd_chip: str
    betting: BettingState
    deck: tuple[str, ...] | None
    deck_position: int
    commitment: str | None
    hole: tuple[tuple[int, ...] | None, ...]
    board: tuple[int, ...]
    shown: tuple[bool, ...]
    mucked: tuple[bool, ...]
    awards: tuple[PotAward, ...]
    returned: tuple[tuple[int, Amount], ...]
    over: bool
    showdown: bool
    showdown_mode: str = AUTOMATIC
    aggressor: int | None = None
    """The last player to bet or raise in the current round."""

    @property
    def live(self) -> bool:
        """Dealt by the service from its deck (else a replay deals by command)."""
        return self.deck is not None

    @property
    def show_order(self) -> tuple[int, ...]:
        """The contenders in the order of show (TDA 2024 17), for the final round."""
        b = self.betting
        return showdown_order.order_of_show(b.contenders, b.seat_count, b.button, self.aggressor)

    @property
    def to_show(self) -> int | None:
        """The hand seat to show or muck now at a live showdown, if any."""
        if self.over or not self.live or self.awaiting != "showdown":
            return None
        return showdown_order.next_to_show(self.show_order, self.shown, self.mucked)

    @property
    def round(self) -> str:
        return "showdown" if self.showdown else STREETS[_STREET_BY_BOARD[len(self.board)]]

    @property
    def to_act(self) -> int | None:
        """The player to bet, or (declared live showdown) to show or muck."""
        if self.over:
            return None
        if self.betting.to_act is None and self.showdown_mode == DECLARED:
            return self.to_show
        return self.betting.to_act

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.betting.stacks

    @property
    def pots(self) -> tuple[Pot, ...]:
        """Main pot then side pots, the bets of the current round included."""
        if self.over:
            return ()
        return open_pots(self.betting)

    @property
    def awaiting(self) -> str | None:
        """What the hand waits for: "action", "flop"/"turn"/"river" (a deal), "showdown", or None."""
        if self.over:
            return None
        if self.betting.to_act is not None:
            return "action"
        if len(self.board) < 5:
            return STREETS[_STREET_BY_BOARD[len(self.board)] + 1]
        return "showdown"


def legal_actions(state: HandState) -> LegalActions | None:
    """What the player to act may do; None when nobody is to act."""
    return None if state.over else bet.legal_actions(state.betting)


def aggressive_action(state: HandState) -> str:
    """"bet" when nobody has bet this round, else "raise" (maps PHH `cbr`)."""
    return "bet" if state.betting.highest == 0 else "raise"


# ------------------------------------------------------------------------- evolve


def evolve(state: HandState | None, event: Event) -> HandState:
    try:
        apply = _EVOLVERS[type(event)]
    except KeyError:
        raise TypeError(f"not a hold'em event: {event!r}") from None
    return apply(state, event)


def _action_taken(state: HandState, event: ActionTaken) -> HandState:
    aggressor = event.position if event.action in ("bet", "raise") else state.aggressor
    return with_changes(state, betting=bet.apply_action(state.betting, event.position, event.action, event.to),
                        aggressor=aggressor)


def _hole_cards_dealt(state: HandState, event: HoleCardsDealt) -> HandState:
    cards = _cards(event.cards)
    position = state.deck_position + len(cards) if state.deck else 0
    return with_changes(state, hole=with_item(state.hole, event.position, cards), deck_position=position)


def _board_dealt(state: HandState, event: BoardDealt) -> HandState:
    board = state.board + _cards(event.cards)
    position = state.deck_position + 1 + len(event.cards) // 2 if state.deck else 0  # one burnt
    return with_changes(state, board=board, deck_position=position, aggressor=None,
                        betting=bet.start_round(state.betting, late=len(board) >= 4))


def _uncalled_returned(state: HandState, event: UncalledReturned) -> HandState:
    return with_changes(state, betting=bet.apply_return(state.betting, event.position, event.amount),
                        returned=state.returned + ((event.position, event.amount),))


def _cards_shown(state: HandState, event: CardsShown) -> HandState:
    return with_changes(state, hole=with_item(state.hole, event.position, _cards(event.cards)),
                        shown=with_item(state.shown, event.position, True))


def _cards_mucked(state: HandState, event: CardsMucked) -> HandState:
    return with_changes(state, mucked=with_item(state.mucked, event.position, True))


def _show_asked(state: HandState, _: ShowAsked) -> HandState:
    return state


def _pot_awarded(state: HandState, event: PotAwarded) -> HandState:
    betting, award = credit_award(state.betting, event)
    return with_changes(state, betting=betting, awards=state.awards + (award,))


def _hand_ended(state: HandState, event: HandEnded) -> HandState:
    return with_changes(state, over=True, showdown=event.showdown)


def _hand_started(_: None, event: HandStarted) -> HandState:
    return _initial(event)


_EVOLVERS: dict[type, Callable[[Any, Any], HandState]] = {
    ActionTaken: _action_taken, HoleCardsDealt: _hole_cards_dealt, BoardDealt: _board_dealt,
    UncalledReturned: _uncalled_returned, CardsShown: _cards_shown, CardsMucked: _cards_mucked,
    PotAwarded: _pot_awarded, HandEnded: _hand_ended, HandStarted: _hand_started,
    ShowAsked: _show_asked,
}


def _initial(event: HandStarted) -> HandState:
    n = len(event.players)
    betting = bet.open_hand(event.betting, event.players, event.stacks, event.button)
    return HandState(
        variant=event.variant, players=event.players, odd_chip=event.odd_chip, betting=betting,
        deck=event.deck, deck_position=0, commitment=event.commitment, hole=(None,) * n,
        board=(), shown=(False,) * n, mucked=(False,) * n, awards=(), returned=(),
        over=False, showdown=False, showdown_mode=event.showdown)


def replay(events: Iterable[Event]) -> HandState:
    """The state after the events, the first a HandStarted."""
    iterator = iter(events)
    started = next(iterator)
    if not isinstance(started, HandStarted):
        raise TypeError(f"a hand starts with HandStarted, not {started!r}")
    return reduce(evolve, iterator, _initial(started))


@lru_cache(maxsize=1 << 14)
def _cards(text: str) -> tuple[int, ...]:
    """Cards of canonical text ("AsKd"); KeyError otherwise. Cached: a hand parses the same
    hole cards when they are dealt, evolved and shown."""
    lookup = _CARD_BY_TEXT
    return tuple([lookup[text[i:i + 2]] for i in range(0, len(text), 2)])


# ------------------------------------------------------------------------- decide


def decide(state: HandState | None, command: Command) -> list[Event]:
    """The events a command causes, automatic follow-ups included (round closing, uncalled
    chips, live deals, settlement). Raises Violation when the command breaks a rule."""
    return handle(state, command)[0]


def handle(state: HandState | None, command: Command) -> tuple[list[Event], HandState]:
    """`decide` plus the state after its events (decide has to evolve them anyway to find
    the follow-ups, so replays that want both save evolving twice)."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        started, events = _start(command)
        current = _initial(started)
        undone = events[1:]
    else:
        if state is None:
            raise Violation("illegal_action", "the hand has not started")
        if state.over:
            raise Violation("hand_over", "the hand is over")
        decide_command = _DECIDERS.get(type(command))
        if decide_command is None:
            raise Violation("illegal_action", f"unknown command {command!r}")
        events = decide_command(state, command)
        current, undone = state, events
    evolvers = _EVOLVERS  # the events are ours, so no need for evolve's type check
    for event in undone:
        current = evolvers[type(event)](current, event)
    # Nothing follows by itself while a player is to act: skip asking (most commands).
    while current.betting.to_act is None and (follow := _follow_up(current)):
        for event in follow:
            events.append(event)
            current = evolvers[type(event)](current, event)
    return events, current


def _start(command: StartHand) -> tuple[HandStarted, list[Event]]:
    """The hand's HandStarted, and it followed by the hole cards a live hand deals."""
    n = len(command.players)
    if command.variant not in VARIANTS:
        raise Violation("illegal_action", f"variant must be one of {', '.join(VARIANTS)}")
    if command.odd_chip not in ODD_CHIP_POLICIES:
        raise Violation("illegal_action", f"odd_chip must be one of {', '.join(ODD_CHIP_POLICIES)}")
    if not 2 <= n <= 23 or len(command.stacks) != n or len(set(command.players)) != n:
        raise Violation("illegal_action", "a hand needs 2 or more distinct players, one stack each")
    if not 0 <= command.button < n:
        raise Violation("illegal_action", f"button must be a seat 0..{n - 1}")
    if min(command.stacks) <= 0:
        raise Violation("illegal_action", "every seated player needs chips")
    if command.showdown not in SHOWDOWNS:
        raise Violation("illegal_action", f"showdown must be one of {', '.join(SHOWDOWNS)}")
    if command.deck is not None:
        parsed = parse_cards(command.deck)
        if len(parsed) < n * HOLE_CARD_COUNT[command.variant] + 8:
            raise Violation("invalid_card", "the deck is too short for this hand")
    started = HandStarted(command.variant, tuple(command.players), tuple(command.stacks),
                          command.button, command.betting, command.odd_chip,
                          tuple(command.deck) if command.deck is not None else None,
                          command.commitment, command.showdown)
    events: list[Event] = [started]
    if command.deck is not None:
        k = HOLE_CARD_COUNT[command.variant]
        for step in range(n):
            seat = (command.button + 1 + step) % n
            cards = command.deck[step * k:(step + 1) * k]
            events.append(HoleCardsDealt(seat, "".join(cards)))
    return started, events


def _post_action(state: HandState, command: PostAction) -> list[Event]:
    b = state.betting
    seat = command.position
    if type(seat) is not int or seat != b.to_act:  # the seat to act is a valid seat
        if b.to_act is None:
            raise Violation("not_your_turn", f"nobody is to act: the hand awaits the {state.awaiting}",
                            numbers={"seat": seat})
        _check_seat(state, seat)
    to = bet.check_action(b, seat, command.action, command.to)
    return [ActionTaken(seat, command.action, to, to - b.bets[seat])]


def _deal_hole(state: HandState, command: DealHole) -> list[Event]:
    _check_seat(state, command.position)
    if state.deck is not None:
        raise Violation("illegal_action", "the service deals this hand from its deck")
    if state.hole[command.position] is not None:
        raise Violation("illegal_action", f"{state.players[command.position]} already has cards")
    cards, text = _fresh_cards(state, command.cards)
    if len(cards) != HOLE_CARD_COUNT[state.variant]:
        raise Violation("invalid_card", f"{state.variant} deals {HOLE_CARD_COUNT[state.variant]} hole cards, not {len(cards)}")
    return [HoleCardsDealt(command.position, text)]


def _deal_board(state: HandState, command: DealBoard) -> list[Event]:
    if state.deck is not None:
        raise Violation("illegal_action", "the service deals this hand from its deck")
    awaiting = state.awaiting
    if awaiting not in ("flop", "turn", "river"):
        raise Violation("illegal_action", f"no board card is due: the hand awaits the {awaiting}")
    cards, text = _fresh_cards(state, command.cards)
    due = _BOARD_CARDS_TO_DEAL[len(state.board)]
    if len(cards) != due:
        raise Violation("invalid_card", f"the {awaiting} is {due} card(s), not {len(cards)}")
    return [BoardDealt(awaiting, text)]


def _show_cards(state: HandState, command: ShowCards) -> list[Event]:
    _check_contender(state, command.position)
    _check_turn_to_show(state, command.position)
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
    _check_turn_to_show(state, command.position)
    return [CardsMucked(command.position)]


def _ask_to_see(state: HandState, command: AskToSee) -> list[Event]:
    _check_seat(state, command.position)
    if not state.live or state.awaiting != "showdown":
        raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("no_right_to_see"), {"seat": command.position})
    target = showdown_order.ask_to_see(state.show_order, state.shown, state.mucked, command.position,
                                       state.aggressor, state.players[command.position])
    return [ShowAsked(command.position, target), _tabled(state, target)]


def _check_turn_to_show(state: HandState, seat: int) -> None:
    """Live hands show and muck in the order of show, once the last round is over."""
    if not state.live:
        return  # a replay records the showdown in whatever order it happened
    if state.awaiting != "showdown":
        raise Violation("illegal_action", f"hands are shown at the showdown: the hand awaits the "
                        f"{state.awaiting}", cite("order_of_show"), {"seat": seat})
    showdown_order.check_turn_to_show(state.show_order, state.shown, state.mucked, seat,
                                      state.players[seat])


def shows_at_showdown(state: HandState, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown; else muck (domain.rules.showdown_order.computer_shows)."""
    return showdown_order.computer_shows(_strengths(state), state.show_order, state.shown,
                                         state.mucked, seat)


def showdown_command(state: HandState, seat: int) -> Command:
    """The computer's showdown command for `seat` (next to show)."""
    return ShowCards(seat) if shows_at_showdown(state, seat) else Muck(seat)


def _settle_showdown(state: HandState, command: SettleShowdown) -> list[Event]:
    if state.awaiting != "showdown":
        raise Violation("illegal_action", f"not at the showdown: the hand awaits the {state.awaiting}")
    return _settlement(state)


_DECIDERS: dict[type, Callable[[HandState, Any], list[Event]]] = {
    PostAction: _post_action, DealHole: _deal_hole, DealBoard: _deal_board,
    ShowCards: _show_cards, Muck: _muck, SettleShowdown: _settle_showdown, AskToSee: _ask_to_see}


def _check_seat(state: HandState, seat: Any) -> None:
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def _check_contender(state: HandState, seat: int) -> None:
    _check_seat(state, seat)
    if state.betting.to_act is not None:
        raise Violation("illegal_action", "cards are shown once the betting is over")
    if state.live and state.shown[seat] and not state.betting.folded[seat]:
        all_in = any(state.stacks[s] == 0 for s in state.betting.contenders)
        why = ": all in with the betting over, every hand is tabled and none is mucked" if all_in else ""
        raise Violation("already_shown", f"{state.players[seat]}'s hand is already face up{why}",
                        cite("all_in_face_up" if all_in else "order_of_show"), {"seat": seat})
    if state.betting.folded[seat] or state.shown[seat] or state.mucked[seat]:
        raise Violation("illegal_action", f"{state.players[seat]} is not holding a live hand")


def _fresh_cards(state: HandState, text: str) -> tuple[tuple[int, ...], str]:
    """Cards not dealt yet, and their canonical text ("AsKd"); raises Violation."""
    used = set(state.board).union(*filter(None, state.hole))
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


# ---------------------------------------------------------------- automatic follow-ups


def _follow_up(state: HandState) -> list[Event]:
    """The events that happen by themselves next; empty when the hand waits for a command."""
    b = state.betting
    if state.over or b.to_act is not None:
        return []
    seat, amount = bet.uncalled_chips(b)
    if seat is not None:
        return [UncalledReturned(seat, amount)]
    if b.hand_decided:
        return _settlement(state)
    if state.live and (face_up := _tabled_face_up(state)):
        return face_up
    if len(state.board) < 5:
        if state.deck is None:
            return []
        due = _BOARD_CARDS_TO_DEAL[len(state.board)]
        start = state.deck_position + 1  # burn one
        cards = "".join(state.deck[start:start + due])
        return [BoardDealt(STREETS[_STREET_BY_BOARD[len(state.board)] + 1], cards)]
    if state.live:
        seat = showdown_order.next_to_show(state.show_order, state.shown, state.mucked)
        if seat is None:  # every hand shown or mucked, or one live hand left (17-B)
            return _settlement(state)
        if state.showdown_mode == AUTOMATIC:
            return [_tabled(state, seat) if shows_at_showdown(state, seat) else CardsMucked(seat)]
        return []  # the player to show answers (or their clock runs out)
    undecided = [s for s in b.contenders if not state.shown[s] and not state.mucked[s]]
    unmucked = [s for s in b.contenders if not state.mucked[s]]
    if not undecided or len(unmucked) <= 1:
        return _settlement(state)
    return []


def _tabled_face_up(state: HandState) -> list[Event]:
    """TDA 2024 16: all in, and nobody can bet any more: every hand still hidden is shown,
    before the rest of the board."""
    b = state.betting
    still_betting = sum(1 for seat in b.contenders if b.stacks[seat] > 0) > 1
    if (len(state.board) < 5 and still_betting) or not showdown_order.all_in_face_up(b.contenders, b.stacks):
        return []
    return [_tabled(state, seat) for seat in state.show_order if not state.shown[seat]]


def _tabled(state: HandState, seat: int) -> CardsShown:
    """A live hand's cards shown: a live hand deals every seat its cards at the start."""
    hole = state.hole[seat]
    if hole is None:
        raise Violation("illegal_action", f"{state.players[seat]} holds no cards")
    return CardsShown(seat, _text(hole))


def _settlement(state: HandState) -> list[Event]:
    b = state.betting
    return [*settlement(b, state.odd_chip, lambda pots: award_pots(pots, _strengths(state), b.button,
                                                                   b.seat_count, state.odd_chip), HandEnded)]


def _strengths(state: HandState) -> dict[int, int]:
    """Hands that count: known and not mucked. A live hand with unknown cards ranks -1:
    it beats only mucked hands (it wins when everyone else mucked)."""
    strengths = {}
    board = state.board
    omaha = state.variant == "omaha"
    for seat in state.betting.contenders:
        if state.mucked[seat]:
            continue
        hole = state.hole[seat]
        if hole is None:
            strengths[seat] = -1
        elif omaha:
            strengths[seat] = omaha_strength(hole, board)
        else:
            cards = hole + board
            strengths[seat] = strength7(cards) if len(cards) == 7 else strength(cards)
    return strengths

