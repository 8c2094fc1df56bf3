"""One hand of the mixed games as a decider (`handle`, `decide`, `evolve`, `replay`):
seven-card stud, stud hi-lo, razz, Omaha hi-lo, 2-7 triple draw, 2-7 single draw,
badugi and short-deck hold'em; hold'em, Omaha and five-card draw too, in their own events
(domain.games.holdem, domain.games.draw.engine: `Words`).

A hand without a deck (a replay, a mixed table's) stops where cards are due
(`state.awaiting`: "deal", "board", "draw", "action", "showdown") and waits for DealCards /
DealBoard / Discard. Unknown cards (`??`) are allowed anywhere; a hand with unknown cards
cannot win a showdown unless it is shown. A board game's hand may instead carry its deck
(`StartHand.deck`, as hold'em's live hands do): the decider deals it, a card burnt before
each street, and shows it down by the TDA (domain.rules.showdown_order): hands tabled face
up at an all-in, the order of show, `showdown` automatic or declared, AskToSee.

- Forced bets are positional, as PHH writes them: `antes[i]` and `blinds[i]` for seat i
  (heads-up the two blinds read reversed: the button posts the small one); antes are
  trimmed to the stack; `dead_antes` makes them dead money (the big-blind ante). The first
  round is opened by the seat after the biggest blind (position games) or by the bring-in.
- Stud: domain.games.stud says who brings it in and who opens; the bring-in may be posted
  or the bet completed; the big bet from fifth street, and on fourth with an open pair.
- Draw games: after each betting round but the last every player still in discards (in
  order from the button's left) and is dealt as many cards.
- Fixed limit: a bet or raise may stop short of the fixed amount when it already puts in
  all that the best-stacked opponent still in can match (the rest could not be called).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from domain.games import draw_family, stud
from domain.games.dealt_games import DEALT_GAMES, DRAW, FLOP, FLOP_BOARD, STUD, STUD_DEAL
from domain.games.dealt_hand import (
    MixedState,
    Words,
    board_phase,
    capped_fixed_amount,
    cards_of,
    cards_text,
    check_fresh,
    check_turn_to_show,
    differ,
    known_cards,
    round_over,
    shows_at_showdown,
    strengths,
    stud_odd_chip_order,
    tabled,
    tabled_face_up,
    up_cards,
)
from domain.games.dealt_start import check_start
from domain.games.draw_family import CardsDiscarded, Discard, FalseOpeners, FalseOpenersFound, OpenersShown, OpenersSplit, OpenWithoutProof, Redealt
from domain.games.draw_settings import DrawRules
from domain.games.draw_stub import DrawStub
from domain.games.forced_bets import post_by_position
from domain.games.hand_events import ActionTaken, PostAction, PotAwarded, ShowAsked, UncalledReturned, credit_award
from domain.games.settlement import settlement
from domain.rules import betting as bet
from domain.rules import showdown_order
from domain.rules.betting import FIXED_LIMIT, Amount, BettingStructure, with_changes, with_item
from domain.rules.cards import format_card
from domain.rules.citations import cite
from domain.rules.pots import Pot, PotAward
from domain.rules.showdown_order import AUTOMATIC
from domain.rules.split_pots import award_high_low
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

_NEW, _SET = object.__new__, object.__setattr__

# ------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class StartHand:
    game: str
    players: tuple[str, ...]
    stacks: tuple[Amount, ...]
    button: int
    betting: BettingStructure
    antes: tuple[Amount, ...]
    """Seat i's ante (and `blinds[i]` its blind): the structure's own are then unused. Both
    empty: the structure's forced bets are posted as hold'em's decider posts them
    (domain.rules.betting.open_hand: blinds by the button, straddles, the big-blind ante,
    a dead small blind, a blind posted short counted in full)."""
    blinds: tuple[Amount, ...]
    bring_in: Amount = 0
    dead_antes: bool = False
    odd_chip: str = "left_of_button"
    deck: tuple[str, ...] | None = None
    """Board and draw games, live play: the shuffled order (drawn by the service, published
    as `commitment`); the decider deals the hole cards and, one card burnt before each
    street, the board as they fall due (a draw game: a whole deck, dealt one card at a time
    round the table, each draw from the stub: domain.games.draw_stub), and plays the TDA
    showdown in `showdown` mode."""
    commitment: str | None = None
    showdown: str = AUTOMATIC
    draw_rules: DrawRules | None = None
    """Draw games: five-card draw's table settings the hand plays by (its draw limit, the
    round after the draw from the opener); None: any number drawn, left of the button."""
    reshuffle_order: tuple[str, ...] | None = None
    """A draw game with a deck: the order a run-out stub's discards are reshuffled in."""


@dataclass(frozen=True)
class DealCards:
    """A seat's cards of this street, or its replacements on a draw; `??` unknown."""
    position: int
    cards: str


@dataclass(frozen=True)
class DealBoard:
    cards: str


@dataclass(frozen=True)
class ShowCards:
    """`cards` needed unless the decider dealt them (a hand with a deck)."""
    position: int
    cards: str | None = None


@dataclass(frozen=True)
class Muck:
    position: int


@dataclass(frozen=True)
class SettleShowdown:
    """Settle now: hands shown count, the others cannot win."""


@dataclass(frozen=True)
class AskToSee:
    """A caller asks to see the last aggressor's hand (TDA 2024 18-B; a hand with a deck)."""
    position: int


Command = (StartHand | PostAction | DealCards | DealBoard | Discard | ShowCards | Muck
                | SettleShowdown | AskToSee | OpenWithoutProof | FalseOpeners | draw_family.Redeal)


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class HandStarted:
    game: str
    players: tuple[str, ...]
    stacks: tuple[Amount, ...]
    button: int
    betting: BettingStructure
    antes: tuple[Amount, ...]
    blinds: tuple[Amount, ...]
    bring_in: Amount
    dead_antes: bool
    odd_chip: str
    deck: tuple[str, ...] | None = field(default=None, metadata=SEALED)
    commitment: str | None = None
    showdown: str = AUTOMATIC
    draw_rules: DrawRules | None = None
    reshuffle_order: tuple[str, ...] | None = field(default=None, metadata=SEALED)


@dataclass(frozen=True)
class CardsDealt:
    """`up`: which of the cards are dealt face up (stud)."""
    position: int
    cards: str = field(metadata=OWNER_ONLY)
    up: tuple[bool, ...]


@dataclass(frozen=True)
class BoardDealt:
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class CardsShown:
    position: int
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class CardsMucked:
    position: int


@dataclass(frozen=True)
class HandEnded:
    stacks: tuple[Amount, ...]
    showdown: bool


Event = (HandStarted | CardsDealt | BoardDealt | CardsDiscarded | ActionTaken
              | UncalledReturned | CardsShown | CardsMucked | ShowAsked | PotAwarded | HandEnded | Redealt
              | OpenersShown | OpenersSplit | FalseOpenersFound | draw_family.StubReshuffled | draw_family.PointsScored)
EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    HandStarted, CardsDealt, BoardDealt, CardsDiscarded, ActionTaken, UncalledReturned,
    CardsShown, CardsMucked, ShowAsked, PotAwarded, HandEnded, Redealt, OpenersShown, OpenersSplit,
    FalseOpenersFound, draw_family.StubReshuffled, draw_family.PointsScored)}


# ------------------------------------------------------------------------- evolve


def evolve(state: MixedState | None, event: Event) -> MixedState:
    try:
        apply = _EVOLVERS[type(event)]
    except KeyError:
        raise TypeError(f"not a mixed-game event: {event!r}") from None
    return apply(state, event)


def _hand_started(_: None, event: HandStarted) -> MixedState:
    posted, n = _posted(event), len(event.players)
    return _new_hand(event, with_changes(posted, to_act=None), posted.to_act, "deal",
                     ((),) * n, ((),) * n, (True,) * n)


def started_dealt(event: HandStarted, hole: tuple[tuple[Any, ...], ...], up: tuple[tuple[bool, ...], ...]
                  ) -> MixedState:
    """A board game's hand whose hole cards are all out as it starts (a replay's unknown
    ones): the first betting round opened in the copy that starts it, the state that
    `_hand_started` then `open_board_round` make in three."""
    posted = _posted(event)
    return _close_round(_new_hand(event, posted, posted.to_act, "action", hole, up, (False,) * len(hole)))


def _posted(event: HandStarted) -> bet.BettingState:
    if event.antes or event.blinds:
        return post_by_position(event.betting, event.players, event.stacks, event.button, event.antes,
                                event.blinds, event.dead_antes)
    return bet.open_hand(event.betting, event.players, event.stacks, event.button)


def _new_hand(event: HandStarted, betting: bet.BettingState, first_to_act: int | None, phase: str,
              hole: tuple[tuple[Any, ...], ...], up: tuple[tuple[bool, ...], ...], due: tuple[bool, ...]
              ) -> MixedState:
    game, n = DEALT_GAMES[event.game], len(event.players)
    # Made as with_changes makes a state: the dataclass's __init__ sets 34 fields one by one.
    state = _NEW(MixedState)
    _SET(state, "__dict__", {
        "game": game, "players": event.players, "odd_chip": event.odd_chip, "bring_in": event.bring_in,
        "betting": betting, "phase": phase, "street": 0, "hole": hole, "up": up, "board": (), "due": due,
        "drawn": (False,) * n, "owed": (0,) * n, "bring_in_due": False, "opener_unknown": False,
        "first_to_act": first_to_act, "shown": (False,) * n, "mucked": (False,) * n, "awards": (),
        "over": False, "showdown": False, "deck": event.deck, "deck_position": 0, "commitment": event.commitment,
        "showdown_mode": event.showdown, "aggressor": None, "draw_rules": event.draw_rules, "opener": None,
        "antes": event.antes, "openers": None, "false_open": False, "acted_after_open": False,
        "folded_at_open": None,
        "stub": DrawStub(event.deck, event.reshuffle_order) if event.deck is not None and game.family == DRAW
        else None})
    return state


def _cards_dealt(state: MixedState, event: CardsDealt) -> MixedState:
    cards = cards_of(event.cards, joker=True)
    seat = event.position
    if state.stub is not None:
        state = draw_family.off_the_stub(state, len(cards))
    hole = with_item(state.hole, seat, state.hole[seat] + cards)
    up = with_item(state.up, seat, state.up[seat] + event.up)
    if state.phase == "draw":
        owed = with_item(state.owed, seat, state.owed[seat] - len(cards))
        new = with_changes(state, hole=hole, up=up, owed=owed)
        return _after_draw_step(new)
    due = with_item(state.due, seat, False)
    position = state.deck_position + len(cards) if state.deck is not None else 0
    new = with_changes(state, hole=hole, up=up, due=due, deck_position=position)
    if True in due:  # a contender still to deal (a seat is due only while it is in the hand)
        return new
    return _open_round(new)


def _open_round(state: MixedState) -> MixedState:
    """Start the betting round of `state.street` once its cards are out."""
    game, b = state.game, state.betting
    if game.family == FLOP:
        return open_board_round(state)
    late = state.street >= game.late_round
    if state.street == 0:
        if game.family == STUD:
            return _open_stud_first_round(state)
        opened = with_changes(b, to_act=state.first_to_act)
        return _close_round(with_changes(state, phase="action", betting=opened))
    opener = draw_family.opener_after_draw(state) if game.family == DRAW else None
    unknown = False
    if game.family == STUD:
        opener = stud.opener_seat(up_cards(state), game.razz, (b.button + 1) % b.seat_count)
        unknown = opener is None
    opened = bet.start_round(b, late, opener)
    if unknown and opened.to_act is not None:
        opened = with_changes(opened, to_act=None)
    else:
        unknown = False
    return _close_round(with_changes(state, phase="action", betting=opened,
                                     opener_unknown=unknown, aggressor=None))


def open_board_round(state: MixedState, **dealt: Any) -> MixedState:
    """A board game's betting round once its cards are out, opened in the copy of the state
    that deals them (`dealt`: the hole cards or the board): one copy a street, as hold'em's."""
    b = state.betting
    opened = with_changes(b, to_act=state.first_to_act) if state.street == 0 \
        else bet.start_round(b, state.street >= state.game.late_round)
    return _close_round(with_changes(state, phase="action", betting=opened, opener_unknown=False,
                                     aggressor=None, **dealt))


def _close_round(state: MixedState) -> MixedState:
    """Move on once the betting round is over (domain.games.dealt_hand.round_over); otherwise
    leave the state as it is."""
    return _round_closed(state) if round_over(state, state.betting) else state


def _open_stud_first_round(state: MixedState) -> MixedState:
    b = state.betting
    ups = [next((c for c, up in zip(state.hole[s], state.up[s]) if up), None)
           for s in range(b.seat_count)]
    seat = stud.bring_in_seat(ups, state.game.razz)
    if seat is not None and b.stacks[seat] == 0:  # all in on the ante: the next one acts
        opened = with_changes(b, to_act=bet.next_to_act(b, seat))
        return _close_round(with_changes(state, phase="action", betting=opened))
    if seat is None:  # an up card the record does not name: its first action says
        return with_changes(state, phase="action", betting=b, opener_unknown=True,
                            bring_in_due=bool(state.bring_in))
    return with_changes(state, phase="action", betting=with_changes(b, to_act=seat),
                        bring_in_due=bool(state.bring_in))


def _board_dealt(state: MixedState, event: BoardDealt) -> MixedState:
    cards = cards_of(event.cards)
    position = state.deck_position + 1 + len(cards) if state.deck is not None else 0  # one card burnt
    if state.game.family == FLOP:
        return open_board_round(state, board=state.board + cards, deck_position=position)
    # stud: the common card of a deck run out, everyone's seventh
    return _open_round(with_changes(state, board=state.board + cards, deck_position=position,
                                    due=(False,) * len(state.due)))


def _cards_discarded(state: MixedState, event: CardsDiscarded) -> MixedState:
    return _after_draw_step(draw_family.discarded(state, event.position, event.cards))


def _after_draw_step(state: MixedState) -> MixedState:
    b = state.betting
    if all(state.drawn[s] and not state.owed[s] for s in b.contenders):
        return _open_round(with_changes(state, drawn=(False,) * len(state.drawn)))
    return state


def _action_taken(state: MixedState, event: ActionTaken) -> MixedState:
    b = state.betting
    if state.opener_unknown:
        b = with_changes(b, to_act=event.position)
        state = with_changes(state, opener_unknown=False)
    if event.action == "bring_in":
        paid = event.adds
        betting = with_changes(
            b, bets=with_item(b.bets, event.position, event.to),
            stacks=with_item(b.stacks, event.position, b.stacks[event.position] - paid),
            committed=with_item(b.committed, event.position, b.committed[event.position] + paid),
            faced=with_item(b.faced, event.position, event.to), highest=event.to)
        betting = with_changes(betting, to_act=bet.next_to_act(betting, event.position))
        return _close_round(with_changes(state, betting=betting, bring_in_due=False))
    if event.action == "bet" and _big_bet_on_fourth(state, event.to):
        b = with_changes(b, late=True, full_increment=b.structure.unit(late=True))
    betting = bet.apply_action(b, event.position, event.action, event.to)
    if event.action not in ("bet", "raise"):  # a bring-in still due is answered by a bet
        if betting.to_act is None and state.game.family == FLOP and round_over(state, betting):
            return with_changes(state, betting=betting, **board_phase(state))  # closed in the same copy
        new = with_changes(state, betting=betting)
    else:
        new = with_changes(state, betting=betting, bring_in_due=False, aggressor=event.position)
    if state.draw_rules is not None or state.stub is not None:
        new = draw_family.action_taken(new, event)
    return new if betting.to_act is not None else _close_round(new)


def _big_bet_on_fourth(state: MixedState, to: Amount | None) -> bool:
    """A bet of more than the small bet on fourth street of stud with an open pair showing
    (a bet that names no amount is the small one)."""
    b = state.betting
    return (state.game.open_pair_option and state.street == 1 and b.structure.kind == FIXED_LIMIT
            and to is not None and to > b.structure.unit(late=False) and stud.open_pair(up_cards(state)))


def _uncalled_returned(state: MixedState, event: UncalledReturned) -> MixedState:
    return _close_round(
        with_changes(state, betting=bet.apply_return(state.betting, event.position, event.amount)))


def _cards_shown(state: MixedState, event: CardsShown) -> MixedState:
    seat = event.position
    cards = cards_of(event.cards, joker=True)
    hole, up = state.hole[seat], state.up[seat]
    if None not in hole and len(cards) == len(hole):  # known: kept in the order dealt
        return with_changes(state, shown=with_item(state.shown, seat, True))
    up = up + (False,) * (len(cards) - len(up)) if len(cards) > len(up) else up[:len(cards)]
    return with_changes(state, hole=with_item(state.hole, seat, cards),
                        up=with_item(state.up, seat, up),
                        shown=with_item(state.shown, seat, True))


def _cards_mucked(state: MixedState, event: CardsMucked) -> MixedState:
    return with_changes(state, mucked=with_item(state.mucked, event.position, True))


def _unchanged(state: MixedState, _: ShowAsked | OpenersShown | draw_family.PointsScored) -> MixedState:
    """An event that changes nothing in the state (it tells what was asked or shown)."""
    return state


def _false_openers_found(state: MixedState, event: FalseOpenersFound) -> MixedState:
    new = draw_family.false_openers_found(state, event)
    return _after_draw_step(new) if new.phase == "draw" else _close_round(new)


def _pot_awarded(state: MixedState, event: PotAwarded) -> MixedState:
    betting, award = credit_award(state.betting, event)
    return with_changes(state, betting=betting, awards=state.awards + (award,))


def _hand_ended(state: MixedState, event: HandEnded) -> MixedState:
    return with_changes(state, over=True, showdown=event.showdown, phase="over")


_EVOLVERS: dict[type, Callable[[Any, Any], MixedState]] = {
    HandStarted: _hand_started, CardsDealt: _cards_dealt, BoardDealt: _board_dealt,
    CardsDiscarded: _cards_discarded, ActionTaken: _action_taken,
    UncalledReturned: _uncalled_returned, CardsShown: _cards_shown, CardsMucked: _cards_mucked,
    ShowAsked: _unchanged, PotAwarded: _pot_awarded, HandEnded: _hand_ended, Redealt: draw_family.redealt,
    OpenersShown: _unchanged, OpenersSplit: draw_family.openers_split, FalseOpenersFound: _false_openers_found,
    draw_family.StubReshuffled: draw_family.stub_reshuffled, draw_family.PointsScored: _unchanged,
}


_WORDS = Words(CardsDealt, lambda _, cards: BoardDealt(cards), CardsShown, CardsMucked, HandEnded, _EVOLVERS)


def evolvers_in(dealt: type, board: type, shown: type, mucked: type, ended: type) -> dict[type, Callable[[Any, Any], MixedState]]:
    """The engine's evolvers, with another vocabulary's deal, board, show, muck and end (of
    the fields the mixed games' own have: domain.games.dealt_hand.Words)."""
    return {**_EVOLVERS, dealt: _cards_dealt, board: _board_dealt, shown: _cards_shown, mucked: _cards_mucked,
            ended: _hand_ended}


def replay(events: Iterable[Event]) -> MixedState:
    """The state after the events, the first a HandStarted."""
    iterator = iter(events)
    started = next(iterator)
    if not isinstance(started, HandStarted):
        raise TypeError(f"a hand starts with HandStarted, not {started!r}")
    return reduce(evolve, iterator, _hand_started(None, started))


# ------------------------------------------------------------------------- decide


def decide(state: MixedState | None, command: Command) -> list[Event]:
    return handle(state, command)[0]


def handle(state: MixedState | None, command: Command, words: Words | None = None) -> tuple[list[Event], MixedState]:
    """`decide` plus the state after its events, automatic follow-ups included (written in
    `words`: the mixed games' own unless another vocabulary's are given)."""
    if isinstance(command, StartHand):
        if state is not None:
            raise Violation("illegal_action", "this hand has already started")
        started = _start(command)
        events: list[Event] = [started]
        current = _hand_started(None, started)
    else:
        if state is None:
            raise Violation("illegal_action", "the hand has not started")
        if state.over:
            raise Violation("hand_over", "the hand is over")
        events = decided(state, command)
        current = state
        for event in events:
            current = _EVOLVERS[type(event)](current, event)
    # Nothing follows by itself while a player is to act (only a betting round names one):
    # skip asking (most commands).
    if current.betting.to_act is None:
        more, current = follow(current, words or _WORDS)
        events.extend(more)
    return events, current


def act(state: MixedState, command: PostAction, words: Words) -> tuple[list[Event], MixedState]:
    """`handle` of a player's action on a hand a seat is to act in (the caller has looked),
    without the dispatch: the commonest command of all."""
    events: list[Event] = _post_action(state, command)
    after = _action_taken(state, events[0])  # type: ignore[arg-type]  # an ActionTaken
    if after.betting.to_act is None:
        more, after = follow(after, words)
        events.extend(more)
    return events, after


def decided(state: MixedState, command: Command) -> list[Event]:
    """A command's own events, checked (no follow-up): five-card draw's engine asks."""
    decider = _DECIDERS.get(type(command))
    if decider is None:
        raise Violation("illegal_action", f"unknown command {command!r}")
    return decider(state, command)


def follow(state: MixedState, words: Words) -> tuple[list[Event], MixedState]:
    """The events that happen by themselves from `state` on, written in `words`, and the
    state after them (domain.games.holdem decides hold'em's own commands, then asks)."""
    events: list[Event] = []
    evolvers = words.evolvers
    while state.betting.to_act is None and (more := follow_up(state, words)):
        events.extend(more)
        if state.phase == "deal" and state.stub is None:  # only a hand with a deck deals by itself
            state = _hole_cards_from_deck(state, more)
            continue
        for event in more:
            state = evolvers[type(event)](state, event)
    return events, state


def _hole_cards_from_deck(state: MixedState, dealt: list[Event]) -> MixedState:
    """Every seat's hole cards from the deck as one step: the state that evolving each
    CardsDealt in turn gives (`replay`), with one copy of it instead of one a seat."""
    hole, up, position = list(state.hole), list(state.up), state.deck_position
    for event in dealt:  # a deal in either vocabulary: the fields read are the same
        cards = cards_of(event.cards)  # type: ignore[union-attr]
        hole[event.position] += cards  # type: ignore[union-attr]
        up[event.position] += event.up  # type: ignore[union-attr]
        position += len(cards)
    return open_board_round(state, hole=tuple(hole), up=tuple(up), due=(False,) * len(hole),
                             deck_position=position)


def _start(command: StartHand) -> HandStarted:
    check_start(command)
    return HandStarted(command.game, tuple(command.players), tuple(command.stacks),
                       command.button, command.betting, tuple(command.antes),
                       tuple(command.blinds), command.bring_in, command.dead_antes,
                       command.odd_chip, tuple(command.deck) if command.deck is not None else None,
                       command.commitment, command.showdown, command.draw_rules,
                       tuple(command.reshuffle_order) if command.reshuffle_order is not None else None)


def _check_seat(state: MixedState, seat: Any) -> None:
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise Violation("illegal_action", f"no seat {seat!r} at this table", numbers={"seat": seat})


def _deal_cards(state: MixedState, command: DealCards) -> list[Event]:
    _check_seat(state, command.position)
    _check_dealt_by_command(state)
    seat, game = command.position, state.game
    cards = cards_of(command.cards, game.short_deck, state.holds_joker)
    check_fresh(state, cards)
    name = state.players[seat]
    if state.phase == "draw":
        draw_family.check_replacements(state, seat, len(cards))
        return [CardsDealt(seat, cards_text(cards), (False,) * len(cards))]
    if state.phase != "deal" or not state.due[seat] or state.betting.folded[seat]:
        raise Violation("illegal_action", f"no cards are due to {name}: the hand awaits the "
                        f"{state.phase}")
    up = STUD_DEAL[state.street] if game.family == STUD else (False,) * game.hand_size
    if len(cards) != len(up):
        raise Violation("invalid_card", f"{name} is dealt {len(up)} card(s) now, not {len(cards)}")
    return [CardsDealt(seat, cards_text(cards), up)]


def _check_dealt_by_command(state: MixedState) -> None:
    if state.deck is not None:
        raise Violation("illegal_action", "the service deals this hand from its deck")


def _deal_board(state: MixedState, command: DealBoard) -> list[Event]:
    _check_dealt_by_command(state)
    game = state.game
    cards = cards_of(command.cards, game.short_deck)
    check_fresh(state, cards)
    if game.family == STUD and state.phase == "deal" and state.street == 4 and len(cards) == 1 \
            and all(state.due[s] for s in state.betting.contenders):
        return [BoardDealt(cards_text(cards))]  # the deck ran out: one common card
    if state.phase != "board":
        raise Violation("illegal_action", f"no board card is due: the hand awaits the {state.phase}")
    due = FLOP_BOARD[state.street]
    if len(cards) != due:
        raise Violation("invalid_card", f"this street is {due} board card(s), not {len(cards)}")
    return [BoardDealt(cards_text(cards))]


def _post_action(state: MixedState, command: PostAction) -> list[Event]:
    seat, b = command.position, state.betting
    # A seat to act is a valid seat, and only a betting round names one (with its opener).
    if type(seat) is not int or seat != b.to_act:
        _check_seat(state, seat)
        if state.phase != "action":
            raise Violation("not_your_turn", f"nobody is to act: the hand awaits the {state.phase}",
                            numbers={"seat": seat})
        if state.opener_unknown:  # the record names the opener: any seat still able to bet
            if b.folded[seat] or not b.stacks[seat]:
                raise Violation("not_your_turn", f"{state.players[seat]} cannot open this street",
                                numbers={"seat": seat})
            b = with_changes(b, to_act=seat)
    if state.bring_in_due and seat == b.to_act:
        if command.action == "bring_in":
            to = min(state.bring_in, b.stacks[seat])
            return [ActionTaken(seat, "bring_in", to, to)]
        if command.action != "bet":
            raise Violation("illegal_action", f"{state.players[seat]} brings it in or completes "
                            "the bet", numbers={"seat": seat})
    elif command.action == "bring_in":
        raise Violation("illegal_action", "no bring-in is due", numbers={"seat": seat})
    if command.action == "bet" and _big_bet_on_fourth(state, command.to):
        b = with_changes(b, late=True, full_increment=b.structure.unit(late=True))
    capped = capped_fixed_amount(b, seat, command) if b.structure.kind == FIXED_LIMIT else None
    to = bet.check_action(b, seat, command.action, command.to) if capped is None else capped
    if command.action == "bet" and state.draw_rules is not None:
        draw_family.check_opening(state, seat)
    # Made as with_changes makes a state, without the dataclass's __init__: one a decision.
    taken = _NEW(ActionTaken)
    _SET(taken, "__dict__", {"position": seat, "action": command.action, "to": to, "adds": to - b.bets[seat]})
    return [taken]


def _show_cards(state: MixedState, command: ShowCards) -> list[Event]:
    _check_seat(state, command.position)
    seat = command.position
    if state.deck is not None:
        check_turn_to_show(state, seat)
        if command.cards is not None and differ(cards_of(command.cards), state.hole[seat]):
            raise Violation("invalid_card", f"{state.players[seat]} was dealt {cards_text(state.hole[seat])}, "
                            f"not {command.cards}")
        return [tabled(state, seat, CardsShown)]
    if state.betting.folded[seat] or state.mucked[seat]:
        raise Violation("illegal_action", f"{state.players[seat]} is not holding a live hand")
    if state.phase == "action" or state.betting.can_still_bet and state.phase != "showdown":
        raise Violation("illegal_action", "cards are shown once the betting is over")
    if command.cards is None:
        raise Violation("invalid_card", f"{state.players[seat]}'s cards are unknown: say which")
    cards = cards_of(command.cards, state.game.short_deck, state.holds_joker)
    hole = state.hole[seat]
    known = [c for c in hole if c is not None]
    if None in cards or any(c not in cards for c in known) or len(cards) != len(hole):
        raise Violation("invalid_card", f"{state.players[seat]} holds {cards_text(hole)}, not "
                        f"{command.cards}")
    others = known_cards(state) - set(known)
    for card in cards:
        if card in others:
            raise Violation("duplicate_card", f"{format_card(card)} is already dealt",
                            numbers={"card": format_card(card)})
    return [CardsShown(seat, cards_text(cards))]


def _muck(state: MixedState, command: Muck) -> list[Event]:
    _check_seat(state, command.position)
    if state.deck is not None:
        check_turn_to_show(state, command.position)
    if state.phase != "showdown":
        raise Violation("illegal_action", "hands are mucked at the showdown")
    if state.betting.folded[command.position] or state.mucked[command.position]:
        raise Violation("illegal_action", f"{state.players[command.position]} is not holding a live hand")
    return [CardsMucked(command.position)]


def _ask_to_see(state: MixedState, command: AskToSee) -> list[Event]:
    _check_seat(state, command.position)
    if state.deck is None or state.phase != "showdown":
        raise Violation("illegal_action", f"a hand is asked to see at the showdown: the hand awaits the "
                        f"{state.phase}", cite("no_right_to_see"), {"seat": command.position})
    target = showdown_order.ask_to_see(state.show_order, state.shown, state.mucked, command.position,
                                       state.aggressor, state.players[command.position])
    return [ShowAsked(command.position, target), tabled(state, target, CardsShown)]


def showdown_command(state: MixedState, seat: int) -> Command:
    """The computer's showdown command for `seat` (next to show)."""
    return ShowCards(seat) if shows_at_showdown(state, seat) else Muck(seat)


def _settle_showdown(state: MixedState, _: SettleShowdown) -> list[Event]:
    if state.phase != "showdown":
        raise Violation("illegal_action", f"not at the showdown: the hand awaits the {state.phase}")
    return _settlement(state)


_DECIDERS: dict[type, Callable[[MixedState, Any], list[Any]]] = {  # Any: the draw family's own events too
    PostAction: _post_action, DealCards: _deal_cards, DealBoard: _deal_board, Discard: draw_family.discard,
    ShowCards: _show_cards, Muck: _muck, SettleShowdown: _settle_showdown, AskToSee: _ask_to_see,
    OpenWithoutProof: draw_family.open_without_proof, FalseOpeners: draw_family.false_openers,
    draw_family.Redeal: draw_family.redeal_from_deck,
}


# ---------------------------------------------------------------- automatic follow-ups


def follow_up(state: MixedState, words: Words) -> list[Event]:
    """What happens by itself next from `state`, in `words` (none: a command is awaited)."""
    if state.over:
        return []
    b = state.betting
    if state.draw_rules is not None and (found := draw_family.unproven_opener(state)):
        return [found]
    if state.phase == "action":
        if b.to_act is not None or state.opener_unknown:
            return []
        seat, amount = bet.uncalled_chips(b)
        if seat is not None:
            return [UncalledReturned(seat, amount)]
        if b.hand_decided:
            return _settlement(state, words.ended)
        return []
    if state.phase == "draw" and b.hand_decided:  # a false opener's hand dead in the draw
        return _settlement(state, words.ended)
    if state.deck is not None:
        return _dealt_from_deck(state, state.deck, words)
    if state.phase == "redeal" and (reason := draw_family.redeal_reason(state)):
        return [draw_family.redeal(state, reason)]
    if state.phase == "showdown":
        undecided = [s for s in b.contenders if not state.shown[s] and not state.mucked[s]]
        unmucked = [s for s in b.contenders if not state.mucked[s]]
        if not undecided or len(unmucked) <= 1:
            return _settlement(state, words.ended)
    return []


def _dealt_from_deck(state: MixedState, deck: tuple[str, ...], words: Words) -> list[Event]:
    """What follows by itself in a hand with a deck: the hole cards, every hand tabled face
    up once a player is all in and nobody can bet (TDA 2024 16), the board (one card burnt
    first), and the showdown in the order of show (17), by the computer when automatic."""
    if state.stub is not None and state.phase in ("deal", "draw", "redeal"):  # a draw hand's own
        reshuffled, dealt = draw_family.from_stub(state)
        return [*reshuffled, *(words.dealt(seat, cards, (False,) * (len(cards) // 2)) for seat, cards in dealt)]
    if state.phase == "deal":
        k, n, button = state.game.hand_size, len(state.players), state.betting.button
        return [words.dealt((button + 1 + step) % n, "".join(deck[step * k:(step + 1) * k]), (False,) * k)
                for step in range(n)]
    if face_up := tabled_face_up(state, words.shown):
        return face_up
    if state.phase == "board":
        start = state.deck_position + 1
        return [words.board(state.street, "".join(deck[start:start + FLOP_BOARD[state.street]]))]
    if state.phase != "showdown":
        return []
    seat = showdown_order.next_to_show(state.show_order, state.shown, state.mucked)
    if seat is None:  # every hand shown or mucked, or one live hand left (17-B)
        return _settlement(state, words.ended)
    if state.showdown_mode == AUTOMATIC:
        return [tabled(state, seat, words.shown) if shows_at_showdown(state, seat) else words.mucked(seat)]
    return []  # the player to show answers (or their clock runs out)


def _round_closed(state: MixedState) -> MixedState:
    """The phase after a closed betting round."""
    game = state.game
    if state.street + 1 >= game.rounds:
        return with_changes(state, phase="showdown")
    if state.draw_rules is not None and draw_family.redeal_reason(state):
        return with_changes(state, phase="redeal")
    street = state.street + 1
    if game.family == STUD:
        due = tuple(not f for f in state.betting.folded)
        return with_changes(state, phase="deal", street=street, due=due)
    if game.family == FLOP:
        return with_changes(state, **board_phase(state))
    return with_changes(state, phase="draw", street=street, drawn=(False,) * len(state.drawn),
                        owed=(0,) * len(state.owed))


def _settlement(state: MixedState, ended: Callable[..., Any] = HandEnded) -> list[Event]:
    b, game = state.betting, state.game
    order = stud_odd_chip_order(state) if game.family == STUD else None

    def showdown_awards(pots: tuple[Pot, ...]) -> tuple[PotAward, ...]:
        # One-sided games rank by their only side (razz and the draws by the low) and have
        # no low half; award_high_low then settles each pot whole.
        highs = strengths(state, state.high or game.low)
        lows = {s: v for s, v in strengths(state, game.low).items() if v > 0} if game.split else {}
        return award_high_low(pots, highs, lows, b.button, b.seat_count, state.odd_chip, order)

    if state.draw_rules is not None and not state.draw_rules.betting:  # no chips: a point to every best hand
        return [draw_family.PointsScored(draw_family.best_hands(strengths(state, state.high or game.low))),
                ended(b.stacks, True)]
    proven = draw_family.openers_shown(state) if state.draw_rules is not None else []
    return [*proven, *settlement(b, state.odd_chip, showdown_awards, ended)]
