"""The commands of a five-card draw hand, and the checks of the cards they carry.

Randomness comes from the caller: StartHand and Redeal carry the deck order (a full
permutation, 53 cards with a joker) and its published commitment, plus an optional
`reshuffle_order` (another permutation) that orders the discards if the stub runs out.
Without one the discards are re-used in the order they were discarded; the service
should always send one. The events record both orders, so replay never draws.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.games.draw_settings import DrawSettings
from domain.games.draw_stub import check_full_deck
from domain.games.hand_events import PostAction
from domain.rules.betting import Amount
from domain.rules.cards import parse_cards
from domain.rules.violations import Violation


@dataclass(frozen=True)
class StartHand:
    """Start a hand. `stacks` before the antes (betting mode; empty in no-betting mode),
    `button` the dealer's seat, `deck` the shuffled full deck as card strings."""
    players: tuple[str, ...]
    button: int
    settings: DrawSettings
    deck: tuple[str, ...]
    stacks: tuple[Amount, ...] = ()
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = None
    derived_redeals: bool = False
    """Recorded on HandStarted: the caller will take every redeal's orders from the hand's
    secret (the table: domain.live.games.DrawGame), so they are fixed before the first
    action and the floor's check covers them."""


@dataclass(frozen=True)
class Discard:
    """The seat's one draw: the cards thrown away (none: stand pat). `split_openers`: the
    opener says they throw away part of the openers, and the discards are kept aside."""
    position: int
    cards: tuple[str, ...] = ()
    split_openers: bool = False


@dataclass(frozen=True)
class OpenWithoutProof:
    """The opening bet as it was made at a table where nobody checked the openers at the
    bet (a ruling describing a live game): the proof comes later (FalseOpeners, or the
    end of the hand)."""
    position: int
    to: int


@dataclass(frozen=True)
class FalseOpeners:
    """The floor finds that the opener did not hold openers."""
    position: int


@dataclass(frozen=True)
class Redeal:
    """After RedealRequired: a fresh deck order for the new deal (the pot stays)."""
    deck: tuple[str, ...]
    commitment: str | None = None
    reshuffle_order: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ShowCards:
    """At a declared showdown: the seat next in the order of show tables its hand."""
    position: int


@dataclass(frozen=True)
class Muck:
    """At a declared showdown: the seat next in the order of show throws its hand away."""
    position: int


@dataclass(frozen=True)
class AskToSee:
    """A caller asks to see the last aggressor's hand (TDA 2024 18-B)."""
    position: int


Command = (StartHand | PostAction | Discard | Redeal | OpenWithoutProof | FalseOpeners
                | ShowCards | Muck | AskToSee)


def check_deck(settings: DrawSettings, order: Any, name: str) -> tuple[str, ...]:
    """A full deck (with the joker when the table plays one) in the caller's order."""
    if isinstance(order, str):
        raise Violation("invalid_card", f"{name} must be a list of card strings")
    return check_full_deck(order, name, settings.joker is not None)


def parse_card_list(cards: Any, name: str) -> tuple[int, ...]:
    """Card strings ("As", ...) or one string ("AsKd"); anything else is invalid_card."""
    if isinstance(cards, str):
        return parse_cards(cards)
    if not isinstance(cards, (tuple, list)) or not all(isinstance(c, str) for c in cards):
        raise Violation("invalid_card", f"{name} must be a list of card strings like 'As'")
    return parse_cards(tuple(cards))
