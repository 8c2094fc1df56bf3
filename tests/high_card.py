"""High card, a game that exists only for the tests: each player antes, is dealt one card
face down, and in turn shows it or folds; the highest card shown (by rank, then suit)
takes the antes. Registered by a test alone (`registered`), it shows that a game is one
plug-in: its events declare their own secrecy, its adapter has the shape of
domain.live.games' (DiceGame's), and service/ serves it with no line of its own.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from domain import registry
from domain.live.games.common import Dealing, DealSeal, Opening, PlaysForChips, TableMove, Viewing, deck_deal_view
from domain.rules.betting import BettingStructure
from domain.rules.cards import parse_card
from domain.rules.violations import Violation
from domain.ruling_forms import LINES, FormError, FormField, RulingForm, read_lines
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

NAME = "high_card"
RULE = "high card: the highest card shown takes the antes"


# ------------------------------------------------------------------ events


@dataclass(frozen=True)
class HighCardStarted:
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    ante: int
    deck: tuple[str, ...] = field(metadata=SEALED)
    """The shuffled pack, for the deal's check once the hand is closed."""


@dataclass(frozen=True)
class HighCardDealt:
    position: int
    card: str = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class HighCardShown:
    position: int
    card: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class HighCardFolded:
    position: int


@dataclass(frozen=True)
class HighCardWon:
    position: int
    amount: int


EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    HighCardStarted, HighCardDealt, HighCardShown, HighCardFolded, HighCardWon)}


# ------------------------------------------------------------------ commands and state


@dataclass(frozen=True)
class Start:
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    ante: int
    deck: tuple[str, ...]


@dataclass(frozen=True)
class Show:
    position: int


@dataclass(frozen=True)
class Fold:
    position: int


@dataclass(frozen=True)
class HighCardHand:
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    deck: tuple[str, ...]
    pot: int = 0
    cards: tuple[str | None, ...] = ()
    shown: tuple[str | None, ...] = ()
    folded: tuple[bool, ...] = ()
    winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def to_act(self) -> int | None:
        if self.over:
            return None
        return next((p for p in range(len(self.players)) if self.shown[p] is None and not self.folded[p]), None)

    @property
    def round(self) -> str:
        return "over" if self.over else "show"


def evolve(hand: HighCardHand | None, event: Any) -> HighCardHand:
    if isinstance(event, HighCardStarted):
        count = len(event.players)
        return HighCardHand(event.players, tuple(s - event.ante for s in event.stacks), event.deck,
                            event.ante * count, (None,) * count, (None,) * count, (False,) * count)
    assert hand is not None
    if isinstance(event, HighCardDealt):
        return replace(hand, cards=_put(hand.cards, event.position, event.card))
    if isinstance(event, HighCardShown):
        return replace(hand, shown=_put(hand.shown, event.position, event.card))
    if isinstance(event, HighCardFolded):
        return replace(hand, folded=_put(hand.folded, event.position, True))
    if isinstance(event, HighCardWon):
        stacks = _put(hand.stacks, event.position, hand.stacks[event.position] + event.amount)
        return replace(hand, stacks=stacks, pot=0, winner=event.position)
    raise TypeError(f"high card has no event {type(event).__name__}")


def decide(hand: HighCardHand | None, command: Any) -> list[Any]:
    if isinstance(command, Start):
        return [HighCardStarted(command.players, command.stacks, command.ante, command.deck),
                *(HighCardDealt(p, command.deck[p]) for p in range(len(command.players)))]
    assert hand is not None
    if hand.to_act != command.position:
        raise Violation("not_your_turn", f"position {hand.to_act} is to act, not {command.position}", RULE)
    events: list[Any] = [HighCardShown(command.position, hand.cards[command.position] or "")
                         if isinstance(command, Show) else HighCardFolded(command.position)]
    after = evolve(hand, events[0])
    live = [p for p in range(len(after.players)) if not after.folded[p]]
    if len(live) == 1 or after.to_act is None:
        shown = [p for p in live if after.shown[p] is not None] or live
        best = max(shown, key=lambda p: parse_card(after.cards[p] or ""))
        events.append(HighCardWon(best, after.pot))
    return events


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


# ------------------------------------------------------------------ the table adapter


class HighCardGame(PlaysForChips):
    """High card at a live table, in the shape of domain.live.games' adapters: played for
    chips with a 52-card pack, committed whole (PlaysForChips)."""
    name = NAME
    EVENT_TYPES = EVENT_TYPES

    @staticmethod
    def settings(raw: Mapping[str, Any]) -> int:
        """The ante (settings.ante, default 10)."""
        unknown = set(raw) - {"ante", "starting_chips"}
        ante = raw.get("ante", 10)
        if unknown or isinstance(ante, bool) or not isinstance(ante, int) or ante < 1:
            raise Violation("invalid_table", f"high card's settings are ante (above 0) and starting_chips, "
                            f"not {sorted(unknown) or ante!r}")
        return ante

    @classmethod
    def betting(cls, raw: Mapping[str, Any]) -> BettingStructure:
        cls.settings(raw)
        return BettingStructure()

    @classmethod
    def start(cls, opening: Opening) -> Start:
        return Start(opening.players, opening.stacks, cls.settings(opening.settings), opening.deck)

    @staticmethod
    def evolve(hand: HighCardHand | None, event: Any) -> HighCardHand:
        return evolve(hand, event)

    @staticmethod
    def handle(hand: HighCardHand | None, command: Any, dealing: Dealing | None) -> tuple[list[Any], HighCardHand]:
        events = decide(hand, command)
        for event in events:
            hand = evolve(hand, event)
        assert hand is not None
        return events, hand

    @staticmethod
    def action(move: TableMove, hand: HighCardHand, dealing: Dealing | None) -> Any:
        if move.action == "show":
            return Show(move.position)
        if move.action == "fold":
            return Fold(move.position)
        raise Violation("illegal_action", f"high card's actions are show and fold, not {move.action!r}", RULE,
                        {"action": move.action})

    @staticmethod
    def auto_action(hand: HighCardHand, seat: int, timed_out: bool) -> Any:
        return Show(seat)

    @staticmethod
    def legal_actions(hand: HighCardHand) -> dict[str, Any] | None:
        return None if hand.to_act is None else {"show": True, "fold": True}

    @classmethod
    def legal_view(cls, hand: HighCardHand, to_act: str | None, sees: Callable[[Any], bool] | None) -> Any:
        return cls.legal_actions(hand)

    @staticmethod
    def seat_status(hand: HighCardHand, seat: int) -> str:
        return "folded" if hand.folded[seat] else "active"

    @staticmethod
    def bet(hand: HighCardHand, seat: int) -> int:
        return 0

    @staticmethod
    def hole_view(hand: HighCardHand, seat: int, owner: str, sees: Callable[[Any], bool]) -> str | None:
        return hand.shown[seat] or (hand.cards[seat] if sees(owner) else None)

    @staticmethod
    def hand_summary(hand: HighCardHand, names: list[str]) -> dict[str, Any]:
        pots = [{"amount": hand.pot, "eligible": [n for p, n in enumerate(names) if not hand.folded[p]]}]
        return {"round": hand.round, "over": hand.over, "board": "", "pots": pots if hand.pot else [],
                "stacks": dict(zip(names, hand.stacks))}

    @classmethod
    def hand_view(cls, hand: HighCardHand, names: list[str], viewing: Viewing) -> dict[str, Any]:
        return {**cls.hand_summary(hand, names),
                "to_act": names[hand.to_act] if hand.to_act is not None else None,
                "hole": {names[p]: cls.hole_view(hand, p, names[p], viewing.sees) for p in range(len(names))},
                "winner": names[hand.winner] if hand.winner is not None else None}

    @staticmethod
    def deal_view(hand: HighCardHand, names: list[str], seal: DealSeal, revealed: bool,
                  viewing: Viewing) -> dict[str, Any]:
        return deck_deal_view(hand.deck if revealed else None, seal)


def captions(type_name: str, data: Mapping[str, Any], player: Callable[[int], str]) -> str | None:
    """High card's words in the floor's replayer."""
    if type_name == "HighCardShown":
        return f"{player(data['position'])} shows {data['card']}"
    if type_name == "HighCardWon":
        return f"{player(data['position'])} takes {data['amount']} with the high card"
    return None


# ------------------------------------------------------------------ its ruling on the floor's page


def showdown_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """Who takes the antes among the cards shown: the highest by rank, then suit."""
    shown = request.get("shown")
    if not isinstance(shown, dict) or len(shown) < 2:
        raise Violation("validation_error", "give two or more players' shown cards")
    cards = {player: parse_card(card) for player, card in shown.items()}
    if len(set(cards.values())) != len(cards):
        raise Violation("duplicate_card", "a pack holds each card once", RULE)
    winner = max(cards, key=lambda player: cards[player])
    return {"winner": winner, "card": shown[winner], "rule": RULE}


def _ruling_request(form: Mapping[str, str]) -> dict[str, Any]:
    shown = {}
    for number, words in enumerate(read_lines(form, "shown"), 1):
        if len(words) != 2:
            raise FormError(f"shown, line {number}: write `name card`, e.g. `Ann Kd`")
        shown[words[0]] = words[1]
    return {"shown": shown}


RULING_FORM = RulingForm(
    "high-card-showdown", "High card: who takes the antes",
    (FormField("shown", "Cards shown, one per line", LINES, "name card"),),
    _ruling_request, showdown_ruling,
    lambda answer: [f"{answer['winner']} takes the antes with {answer['card']} ({answer['rule']})"],
    example={"shown": "Ann 9c\nBob Qh"})


def registered() -> Iterator[None]:
    """High card registered for the length of a test (a pytest fixture's body): other tests
    of the same process (pytest-xdist runs each worker's share in one) see the built-in
    games only."""
    registry.register(registry.Game(NAME, registry.table_game_rules(HighCardGame), captions=captions,
                                    ruling_form=RULING_FORM))
    try:
        yield
    finally:
        registry.unregister(NAME)
