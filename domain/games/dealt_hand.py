"""One hand of a dealt game (domain.games.mixed) as its decider's state, and what can be
read off it: its cards, the up cards, the hands that count at the showdown and the order
of show, and the fixed-limit bet nobody can call in full. The decider's events move it
(domain.games.mixed.evolve); nothing here writes one.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from domain.games.dealt_games import FLOP, Game
from domain.games.draw_settings import DrawRules
from domain.games.draw_stub import DrawStub
from domain.games.hand_events import PostAction
from domain.games.settlement import open_pots
from domain.rules import betting as bet
from domain.rules import showdown_order
from domain.rules.betting import FIXED_LIMIT, Amount, BettingState
from domain.rules.cards import JOKER, Card, format_card, parse_card
from domain.rules.citations import cite
from domain.rules.draw_order import next_to_draw
from domain.rules.evaluation import evaluate_high
from domain.rules.pots import Pot, PotAward
from domain.rules.short_deck import is_short_deck_card
from domain.rules.showdown_order import DECLARED
from domain.rules.violations import Violation

UNKNOWN = "??"
_CARD_TEXTS = frozenset(format_card(card) for card in range(52))
_SHORT_DECK_TEXTS = frozenset(format_card(card) for card in range(52) if is_short_deck_card(card))

Hole = tuple[Card | None, ...]


@dataclass(frozen=True)
class MixedState:
    """`hole[i]`: seat i's cards in dealing order (None: unknown), `up[i]` which are face up.
    `phase`: "deal" (hole cards due to the seats in `due`), "board", "action", "draw",
    "redeal" (a first round nobody opened, until its Redealt), "showdown", "over". `street` counts betting rounds from 0; `first_to_act` opens the
    first round of a game with blinds, once the cards are out. A hand with a `deck` is
    dealt by the decider (`deck_position`: the next card) and shown down by the TDA
    (`aggressor`: the last to bet or raise this round; `showdown_mode`). A draw hand may
    carry five-card draw's table rules (`draw_rules`; `opener`: the first round's first
    bet, domain.games.draw_family)."""
    game: Game
    players: tuple[str, ...]
    odd_chip: str
    bring_in: Amount
    betting: BettingState
    phase: str
    street: int
    hole: tuple[Hole, ...]
    up: tuple[tuple[bool, ...], ...]
    board: tuple[Card | None, ...]
    due: tuple[bool, ...]          # deal phase: seats still to be dealt this street
    drawn: tuple[bool, ...]        # draw phase: seats that discarded
    owed: tuple[int, ...]          # draw phase: replacement cards still to deal
    bring_in_due: bool
    opener_unknown: bool
    first_to_act: int | None
    shown: tuple[bool, ...]
    mucked: tuple[bool, ...]
    awards: tuple[PotAward, ...]
    over: bool
    showdown: bool
    deck: tuple[str, ...] | None
    deck_position: int
    commitment: str | None
    showdown_mode: str
    aggressor: int | None
    draw_rules: DrawRules | None = None
    opener: int | None = None
    antes: tuple[Amount, ...] = ()  # as the hand started: a redeal posts them again
    openers: str | None = None  # the cards the opener opened on, under jacks or better
    false_open: bool = False  # the opener was dealt no openers (OpenWithoutProof)
    acted_after_open: bool = False  # another player acted since the open (false openers)
    folded_at_open: tuple[bool, ...] | None = None  # who had folded at the open (a carried pot)
    stub: DrawStub | None = None  # a draw hand dealt from its deck: what no player holds

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.betting.stacks

    @property
    def to_show(self) -> int | None:
        """The seat to show or muck now at the showdown of a hand dealt from its deck, if any."""
        if self.phase != "showdown" or self.deck is None:
            return None
        return showdown_order.next_to_show(self.show_order, self.shown, self.mucked)

    @property
    def show_order(self) -> tuple[int, ...]:
        """The contenders in the order of show (TDA 2024 17), for the final round."""
        b = self.betting
        return showdown_order.order_of_show(b.contenders, b.seat_count, b.button, self.aggressor)

    @property
    def to_act(self) -> int | None:
        """The player to bet, or (declared live showdown) to show or muck."""
        if self.phase == "action":
            return self.betting.to_act
        return self.to_show if self.showdown_mode == DECLARED else None

    @property
    def awaiting(self) -> str | None:
        return None if self.over else self.phase

    @property
    def next_to_draw(self) -> int | None:
        b = self.betting
        return next_to_draw({seat for seat in b.contenders if not self.drawn[seat]}, b.button, b.seat_count)

    @property
    def holds_joker(self) -> bool:
        """The hand's deck holds the joker (five-card draw's joker rule, DrawRules.joker)."""
        return self.draw_rules is not None and self.draw_rules.joker is not None

    @property
    def high(self) -> Callable[..., int] | None:
        """How the hand's hands rank high: the game's way, or by its joker rule."""
        rules = self.draw_rules
        if rules is not None and rules.joker is not None:
            return partial(_high_with_joker, rules.joker)
        return self.game.high

    @property
    def pots(self) -> tuple[Pot, ...]:
        if self.over:
            return ()
        return open_pots(self.betting)


@dataclass(frozen=True)
class Words:
    """The events a board game's hand writes its deals, shows and end in, and the engine's
    evolver of each event it meets: the mixed games' own (domain.games.mixed), or hold'em's
    (domain.games.holdem), whose stored names and fields are not those. The engine reads
    only the fields both have (`position`, `cards`, `up`, `stacks`, `showdown`)."""
    dealt: Callable[[int, str, tuple[bool, ...]], Any]
    board: Callable[[int, str], Any]
    """A street's board cards, by the street's index (1: the flop)."""
    shown: Callable[[int, str], Any]
    mucked: Callable[[int], Any]
    ended: Callable[[tuple[Amount, ...], bool], Any]
    evolvers: Mapping[type, Callable[[Any, Any], MixedState]]


# ------------------------------------------------------------------------- cards


def _card(text: str, short_deck: bool, joker: bool) -> Card | None:
    if text == UNKNOWN:
        return None
    card = parse_card(text)
    if card > 51 and not (joker and card == JOKER) or (short_deck and not is_short_deck_card(card)):
        deck = "the short deck (sixes to aces)" if short_deck else "a 52-card deck"
        raise Violation("invalid_card", f"{text} is not a card of {deck}", numbers={"card": text})
    return card


@lru_cache(maxsize=1 << 14)
def cards_of(text: str, short_deck: bool = False, joker: bool = False) -> tuple[Card | None, ...]:
    """The cards of `text` (None: `??`), checked against the game's deck (`joker`: the deck
    holds the joker; an event's cards, checked when decided, are read with it). Cached, as
    hold'em's parser is: a hand reads the same cards when they are dealt, evolved, shown."""
    if len(text) % 2:
        raise Violation("invalid_card", f"{text!r} is not a run of two-character cards")
    return tuple(_card(text[i:i + 2], short_deck, joker) for i in range(0, len(text), 2))


def cards_text(cards: Iterable[Card | None]) -> str:
    return "".join(UNKNOWN if c is None else format_card(c) for c in cards)


def _high_with_joker(joker: str, hole: tuple[Card, ...], board: tuple[Card, ...]) -> int:
    return evaluate_high(hole + board, joker).strength


def known_cards(state: MixedState) -> set[Card]:
    seen = {c for c in state.board if c is not None}
    for hole in state.hole:
        seen.update(c for c in hole if c is not None)
    return seen


def check_fresh(state: MixedState, cards: tuple[Card | None, ...]) -> None:
    seen = known_cards(state)
    for card in cards:
        if card is None:
            continue
        if card in seen:
            raise Violation("duplicate_card", f"{format_card(card)} is already dealt",
                            numbers={"card": format_card(card)})
        seen.add(card)


def up_cards(state: MixedState) -> list[tuple[Card | None, ...] | None]:
    folded = state.betting.folded
    return [None if folded[s] else tuple(c for c, up in zip(state.hole[s], state.up[s]) if up)
            for s in range(len(state.hole))]


def strengths(state: MixedState, evaluate: Callable[..., int] | None) -> dict[int, int]:
    """The hands that count on one side (None: a side the game does not have): known and
    not mucked; a hand with an unknown card ranks -1, below every other."""
    values: dict[int, int] = {}
    if evaluate is None:
        return values
    board = tuple(state.board)
    for seat in state.betting.contenders:
        if state.mucked[seat]:
            continue
        hole = state.hole[seat]
        if None in hole or None in board:
            values[seat] = -1
        else:
            values[seat] = evaluate(hole, board)
    return values


def stud_odd_chip_order(state: MixedState) -> Callable[[Any], list[int]]:
    """Stud: tied winners by their highest card by suit (TDA 2024 rule 20)."""
    def key(seat: int) -> int:
        cards = [c for c in state.hole[seat] if c is not None]
        return max((((c >> 2) << 2) + (3 - (c & 3)) for c in cards), default=-1)
    return lambda seats: sorted(seats, key=key, reverse=True)


def shows_at_showdown(state: MixedState, seat: int) -> bool:
    """What the computer does for `seat` when it is next to show: show if it is first, or
    beats or ties every hand shown on a side of the pot it can win; else muck
    (domain.rules.showdown_order.computer_shows)."""
    game, order = state.game, state.show_order
    high = strengths(state, state.high or game.low)
    if showdown_order.computer_shows(high, order, state.shown, state.mucked, seat):
        return True
    low = {s: v for s, v in strengths(state, game.low).items() if v > 0} if game.split else {}
    return seat in low and showdown_order.computer_shows(
        low, [s for s in order if s in low], state.shown, state.mucked, seat)


def tabled(state: MixedState, seat: int, shown: Callable[[int, str], Any]) -> Any:
    """A hand dealt from the deck shown (`shown`: the vocabulary's event): its cards are known."""
    return shown(seat, cards_text(state.hole[seat]))


def tabled_face_up(state: MixedState, shown: Callable[[int, str], Any]) -> list[Any]:
    """TDA 2024 16: all in, and nobody can bet any more: every hand still hidden is shown,
    before the rest of the board."""
    b = state.betting
    contenders = b.contenders
    if not showdown_order.all_in_face_up(contenders, b.stacks):
        return []
    if state.phase == "board" and sum(1 for seat in contenders if b.stacks[seat] > 0) > 1:
        return []  # two can still bet on the next street
    return [tabled(state, seat, shown) for seat in state.show_order if not state.shown[seat]]


def differ(named: Hole, dealt: Hole) -> bool:
    """Whether the cards a player names are not the ones dealt (in any order)."""
    return len(named) != len(dealt) or set(named) != set(dealt)


def check_turn_to_show(state: MixedState, seat: int) -> None:
    """A hand dealt from the deck shows or mucks at the showdown, in the order of show,
    and a hand face up stays so (TDA 2024 16, 17)."""
    b, name = state.betting, state.players[seat]
    if b.to_act is not None and state.phase == "action":
        raise Violation("illegal_action", "cards are shown once the betting is over")
    if state.shown[seat] and not b.folded[seat]:
        all_in = any(b.stacks[s] == 0 for s in b.contenders)
        why = ": all in with the betting over, every hand is tabled and none is mucked" if all_in else ""
        raise Violation("already_shown", f"{name}'s hand is already face up{why}",
                        cite("all_in_face_up" if all_in else "order_of_show"), {"seat": seat})
    if b.folded[seat] or state.mucked[seat]:
        raise Violation("illegal_action", f"{name} is not holding a live hand")
    if state.phase != "showdown":
        raise Violation("illegal_action", f"hands are shown at the showdown: the hand awaits the "
                        f"{state.phase}", cite("order_of_show"), {"seat": seat})
    showdown_order.check_turn_to_show(state.show_order, state.shown, state.mucked, seat, name)


def check_deck(game: Game, deck: tuple[str, ...], players: int) -> None:
    """A deck the decider deals from: a board game's, long enough for every hole card,
    three burns and five board cards, of the game's own cards."""
    if game.family != FLOP:
        raise Violation("illegal_action", f"{game.name} is dealt by the table, not from a deck in the hand")
    if len(deck) < players * game.hand_size + 8:
        raise Violation("invalid_card", "the deck is too short for this hand")
    own = _SHORT_DECK_TEXTS if game.short_deck else _CARD_TEXTS
    for text in deck:
        if text not in own:
            raise Violation("invalid_card", f"{text!r} is not a card of the deck", numbers={"card": text})
    if len(set(deck)) != len(deck):
        raise Violation("duplicate_card", "the deck holds a card twice")


def round_over(state: MixedState, b: BettingState) -> bool:
    """Whether the betting round of `state`, its betting now `b`, is over for the hand to
    move on: nobody to act or to name as opener, its uncalled chips back (a follow-up
    event), more than one player left."""
    return state.phase == "action" and b.to_act is None and not state.opener_unknown \
        and not b.hand_decided and bet.uncalled_chips(b)[0] is None


def board_phase(state: MixedState) -> dict[str, Any]:
    """A board game's phase once its betting round is over: the next street's board, or
    the showdown after the last."""
    street = state.street + 1
    return {"phase": "showdown"} if street >= state.game.rounds else {"phase": "board", "street": street}


def capped_fixed_amount(b: BettingState, seat: int, command: PostAction) -> Amount | None:
    """A fixed-limit bet or raise short of the fixed amount that puts in everything the
    best-stacked opponent still in can match: accepted as it is (None: not such a bet)."""
    if b.structure.kind != FIXED_LIMIT or command.action not in ("bet", "raise") \
            or seat != b.to_act or command.to is None:
        return None
    if command.action == "bet" and b.highest:
        return None
    cover = max((b.bets[i] + b.stacks[i] for i in b.contenders if i != seat), default=0)
    to = command.to
    legal = bet.legal_actions(b)
    if command.action == "raise" and (legal is None or legal.raise_ is None):
        return None
    full = b.full_level + b.structure.unit(b.late) if b.highest else b.structure.unit(b.late)
    if b.highest < to == cover < full and to <= b.bets[seat] + b.stacks[seat]:
        return to
    return None


class HandView:
    """What a game's view over the family's state (`hand`) reads the same whichever game
    it speaks for: hold'em's and five-card draw's `HandState` (each adds its own terms)."""
    __slots__ = ()
    hand: MixedState

    @property
    def players(self) -> tuple[str, ...]:
        return self.hand.players

    @property
    def stacks(self) -> tuple[Amount, ...]:
        return self.hand.betting.stacks

    @property
    def over(self) -> bool:
        return self.hand.over

    @property
    def commitment(self) -> str | None:
        return self.hand.commitment

    @property
    def shown(self) -> tuple[bool, ...]:
        return self.hand.shown

    @property
    def mucked(self) -> tuple[bool, ...]:
        return self.hand.mucked

    @property
    def awards(self) -> tuple[PotAward, ...]:
        return self.hand.awards

    @property
    def showdown(self) -> bool:
        return self.hand.showdown
