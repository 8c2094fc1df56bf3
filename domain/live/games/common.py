"""What every live-table game's adapter shares: what a hand is dealt from (`Opening`), a
table action as the games read it (`TableMove`), the randomness drawn for it (`Draws`), the
deal's commitment, and the pieces of every view.

A viewer is `Viewing`: whose cards they may see (`sees`: the owner, or the players allowed)
and whether they see everything (floor and admin).

Randomness a game needs besides the shuffled pack (a draw hand's reshuffle order, Palace
Poker's palace and reshuffle orders, every dice roll) is drawn through `Draws`, which the
service implements with `secrets` and tests with a seeded generator. Whatever is drawn lands
in an event, so replay never draws. The card games draw every order at the deal, before the
first action; an order a hand may need any number of times (a draw redeal's deck, a Palace
draw deck's later reshuffles) comes from the hand's secret salt (domain.rules.deal_commitment:
`derived_order`, `ranked_order`), which the deal's root binds, so nothing is drawn mid-hand.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from domain.frozen import made_at_once
from domain.rules import deal_commitment
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_commitment, format_card, parse_cards, verify_deck_commitment
from domain.rules.violations import Violation


class Draws(Protocol):
    """Fresh randomness, drawn by the caller's generator."""

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        """`cards` in a uniformly random order."""

    def salt(self) -> str:
        """32 random bytes as lowercase hex."""

    def die(self) -> int:
        """A die's face, 1..6."""


@made_at_once
@dataclass(frozen=True)
class Dealing:
    """What a game may need besides the command: the generator and the hand's salt."""
    draws: Draws
    salt: str


@dataclass(frozen=True)
class Opening:
    """What a game deals a hand from: the players dealt in and their stacks, the hand's
    button, the table's settings and betting (hold'em and Omaha bet with the table's, the
    others read theirs from the settings), the shuffled pack and its commitment, the fresh
    randomness, and the table's last hand (a rotation follows it)."""
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int
    settings: Mapping[str, Any]
    betting: BettingStructure
    deck: tuple[str, ...]
    commitment: str | None
    """None when the game makes it itself (`commits_card_by_card`: five-card draw)."""
    dealing: Dealing | None
    previous: Any = None


@made_at_once
@dataclass(frozen=True)
class TableMove:
    """A table action as the games read it (domain.live.table_commands.Act without the table's
    concerns): `position`, the player's in the hand."""
    player: str
    position: int
    action: str
    to: int | None = None
    discard: tuple[str, ...] | None = None
    defender: str | None = None
    keep: tuple[int, ...] | None = None
    line: str | None = None


DECK_HASH = "sha256(<deck cards concatenated>|<salt hex>)"


def commit_whole_deck(cards: list[int], salt: str) -> tuple[str, str]:
    """(scheme, commitment) of a deck committed whole: one hash, checkable once it is shown."""
    return DECK_HASH, deck_commitment(cards, bytes.fromhex(salt))


def commit_card_by_card(cards: list[int], salt: str) -> tuple[str, str]:
    """(scheme, commitment) of a deck committed card by card (a Merkle root): each card can
    be opened on its own, so a hand shows only the cards its viewer saw."""
    return deal_commitment.SCHEME, deal_commitment.deal_root(tuple(format_card(card) for card in cards),
                                                             bytes.fromhex(salt))


class PlaysForChips:
    """The hooks of a game played for chips, hand after hand, with a 52-card pack."""

    commit = staticmethod(commit_whole_deck)

    @staticmethod
    def begun(hand: Any) -> bool:
        """Whether the hand's game has started, so there is a hand to show: the events that
        open a hand (its deck's cut, its rotation's game) may come first."""
        return True

    @staticmethod
    def with_joker(raw: Mapping[str, Any]) -> bool:
        return False

    @staticmethod
    def plays_for_chips(raw: Mapping[str, Any]) -> bool:
        return True

    @staticmethod
    def hands_in_match(raw: Mapping[str, Any]) -> int | None:
        return None


@dataclass(frozen=True)
class Viewing:
    """Who looks at a hand: `sees(owner)` says whether they may see the cards of `owner`
    (a player id, or the players allowed to see them); `everything`: the floor and admin."""
    sees: Callable[[Any], bool]
    everything: bool


@dataclass(frozen=True)
class DealSeal:
    """The table's commitment to the hand's deal, and the salt once it may be shown."""
    commitment: str | None
    scheme: str | None
    salt: str | None


NO_BETTING_ACTIONS: dict[str, Any] = {"fold": False, "check": False, "call": None, "bet": None, "raise": None}
"""The betting actions while the player to act does something else (draws, shows)."""


def showdown_actions(asked: str | None) -> dict[str, Any]:
    """The `legal` of a declared showdown (hold'em, Omaha, five-card draw): show, muck, and
    ask to see `asked`'s hand (None: nobody's may be asked for)."""
    return {**NO_BETTING_ACTIONS, "show": True, "muck": True,
            "ask_to_see": None if asked is None else {"player": asked}}


def discard_bounds(least: int, most: int, **more: Any) -> dict[str, Any]:
    """A discard's parameters, in every game that has one: how few and how many cards."""
    return {"min_cards": least, "max_cards": most, **more}


def choices(field_name: str, values: Iterable[Any], **about: Mapping[Any, Any]) -> list[dict[str, Any]]:
    """The values an action's request field may take, each as the fields to send with it
    (`{field_name: value}`), and what else each means (`about`: name -> value -> fact):
    the `options` of a Palace attack (its defender) or a dice score (its line)."""
    return [{field_name: value, **{name: facts[value] for name, facts in about.items()}} for value in values]


def betting_status(betting: Any, seat: int) -> str:
    """A seat's status in a betting round (no round yet: active)."""
    if betting is None:
        return "active"
    if betting.folded[seat]:
        return "folded"
    if betting.stacks[seat] == 0:
        return "all_in"
    return "active"


def pots_view(pots: Iterable[Any], names: list[str]) -> list[dict[str, Any]]:
    return [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in pots]


def awards_view(awards: Iterable[Any], names: list[str]) -> list[dict[str, Any]]:
    return [{"amount": a.amount, "winners": [names[s] for s in a.winners],
             "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in awards]


def deck_deal_view(deck: tuple[str, ...] | None, seal: DealSeal) -> dict[str, Any]:
    """A deck committed whole: shown to everyone once the hand is over, so anyone can
    check the deal."""
    deck = deck or None
    verified = None
    if deck is not None and seal.salt is not None and seal.commitment is not None:
        verified = verify_deck_commitment(parse_cards(deck), bytes.fromhex(seal.salt), seal.commitment)
    return {
        "commitment": seal.commitment,
        "scheme": DECK_HASH,
        "deck": "".join(deck) if deck is not None else None,
        "salt": seal.salt,
        "verified": verified,
    }


def cards_text(cards: Iterable[int]) -> str:
    return "".join(format_card(c) for c in cards)


def hole_by_name(adapter: Any, hand: Any, names: list[str], viewing: Viewing) -> dict[str, str | None]:
    return {names[s]: adapter.hole_view(hand, s, names[s], viewing.sees) for s in range(len(names))}


def to_act_name(hand: Any, names: list[str]) -> str | None:
    return names[hand.to_act] if hand.to_act is not None else None


def summary_without_board(hand: Any, names: list[str], pots: list[dict[str, Any]]) -> dict[str, Any]:
    """The public summary of a game without a board (draw, Palace Poker, dice)."""
    return {"round": hand.round, "over": hand.over, "board": "", "pots": pots, "stacks": dict(zip(names, hand.stacks))}


def view_head(adapter: Any, hand: Any, names: list[str], viewing: Viewing) -> dict[str, Any]:
    """What every game's hand view begins with (draw, Palace Poker, dice): the game's own
    part follows."""
    return {"round": hand.round, "over": hand.over, "to_act": to_act_name(hand, names),
            "hole": hole_by_name(adapter, hand, names, viewing), "stacks": dict(zip(names, hand.stacks))}


def showdown_view(hand: Any, names: list[str], at_showdown: bool, mode: str) -> dict[str, Any]:
    """Who has shown and who mucked (public facts), and at a live showdown the order of show
    and who is next (TDA 2024 17). `hand`: a hold'em or draw hand state."""
    to_show = hand.to_show
    return {"mode": mode,
            "order": [names[s] for s in hand.show_order] if at_showdown else None,
            "to_show": names[to_show] if to_show is not None else None,
            "shown": [names[s] for s, shown in enumerate(hand.shown) if shown],
            "mucked": [names[s] for s, mucked in enumerate(hand.mucked) if mucked]}


def openings_view(committed: tuple[str, ...], secret: bytes, positions: list[int], root: str,
            first: int = 0) -> dict[str, Any]:
    """The openings of `positions` in a committed sequence starting at `first`, and whether
    each leads to `root` (the check the viewer can redo)."""
    opened = deal_commitment.openings(committed, secret, positions, first)
    return {"openings": [{"position": o.position, "card": o.card, "salt": o.salt,
                          "path": [list(step) for step in o.path]} for o in opened],
            "verified": all(deal_commitment.verify_opening(o, root) for o in opened)}


def refuse_fields(game: str, move: TableMove, *fields: str) -> None:
    for name in fields:
        if getattr(move, name) is not None:
            raise Violation("illegal_action", f"{game} has no {name!r} for {move.action!r}",
                            numbers={"action": move.action})
