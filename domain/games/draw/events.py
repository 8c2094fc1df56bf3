"""The events of a five-card draw hand, and what each viewer may see of them.

Hidden information: `visible_event(event, viewer_seat, role)` returns what a viewer may
see. Hole cards and a player's discards and received cards are private to that seat;
deck orders and a reshuffled stub are for the floor only; everything else is public
(the number of cards each player drew included, as the seeds require). Each field's
secrecy is declared on it (domain.secrecy); the type names are stored with the events
and never change (the registry reads them: domain.games.draw.stream.EVENT_TYPES).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from domain import secrecy
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import ActionTaken, CardsMucked, PotAwarded, ShowAsked, UncalledReturned
from domain.rules.betting import Amount
from domain.rules.violations import Violation
from domain.secrecy import OWNER_ONLY, PUBLIC, SEALED

# RedealRequired's reasons.
ALL_CHECKED = "all_checked"
NO_OPENERS = "no_openers"

PLAYER = "player"
SPECTATOR = "spectator"
FLOOR = "floor"
ROLES = (PLAYER, SPECTATOR, FLOOR)


@dataclass(frozen=True)
class HandStarted:
    """Public but for `deck` and `reshuffle_order` (floor only). `derived_redeals`: every
    redeal's deck and reshuffle order come from the hand's secret (False: hands recorded
    before, whose redeals drew theirs when they came)."""
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    button: int
    settings: DrawSettings
    deck: tuple[str, ...] | None = field(metadata=SEALED)
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None = field(metadata=SEALED)
    derived_redeals: bool = False


@dataclass(frozen=True)
class AntesPosted:
    """Each seat's ante (a short stack is all-in for what it has; folded seats post 0)."""
    amounts: tuple[Amount, ...]


@dataclass(frozen=True)
class HoleCardsDealt:
    """`cards` private to `seat`."""
    position: int
    cards: str | None = field(metadata=OWNER_ONLY)

    @property
    def up(self) -> tuple[bool, ...]:
        """Every card is dealt face down (what the draw family's engine reads of a deal)."""
        return (False,) * (len(self.cards or "") // 2)


@dataclass(frozen=True)
class RedealRequired:
    """The first round ended unopened: the pot stays, a Redeal with a fresh deck is due.
    `reason`: "all_checked" or "no_openers"."""
    reason: str


@dataclass(frozen=True)
class Redealt:
    """Public but for `deck` and `reshuffle_order` (floor only)."""
    deck: tuple[str, ...] | None = field(metadata=SEALED)
    commitment: str | None
    reshuffle_order: tuple[str, ...] | None = field(metadata=SEALED)


@dataclass(frozen=True)
class DrawBegan:
    """The first betting round is over; the draw starts left of the dealer."""


@dataclass(frozen=True)
class StubReshuffled:
    """The stub ran out: `count` discards became the new stub (`cards`: floor only)."""
    count: int
    cards: tuple[str, ...] | None = field(metadata=SEALED)


@dataclass(frozen=True)
class PlayerDrew:
    """`count` is public; `discarded` and `received` are private to `seat`."""
    position: int
    count: int
    discarded: str | None = field(metadata=OWNER_ONLY)
    received: str | None = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class SecondRoundBegan:
    """`first_to_act` None: nobody can bet any more (all-in), straight to the showdown."""
    first_to_act: int | None


@dataclass(frozen=True)
class OpenersShown:
    """Under jacks or better the opener proves the opening (the cards that made it)."""
    position: int
    cards: str = field(metadata=PUBLIC)


@dataclass(frozen=True)
class OpenersSplit:
    """The opener split the openers: `cards`, the discards kept aside face down to prove
    them (private to the seat), never go back into a reshuffled stub."""
    position: int
    cards: str | None = field(metadata=OWNER_ONLY)


@dataclass(frozen=True)
class FalseOpenersFound:
    """The opener had no openers: their hand is dead and their chips stay in the pot.
    `outcome` "carried": nobody else had acted after the open (or no live hand is left),
    so the pot is carried to the next deal; "pot_plays": the others play for it."""
    position: int
    outcome: str


@dataclass(frozen=True)
class CardsShown:
    position: int
    cards: str = field(metadata=PUBLIC)
    category: str


@dataclass(frozen=True)
class PointsScored:
    """No-betting mode: every seat with the best hand scores one point."""
    winners: tuple[int, ...]


@dataclass(frozen=True)
class HandEnded:
    """`stacks` after the hand (zeros in no-betting mode); `points` scored this hand."""
    stacks: tuple[Amount, ...]
    points: tuple[int, ...]
    showdown: bool


Event = (HandStarted | AntesPosted | HoleCardsDealt | ActionTaken | UncalledReturned
              | RedealRequired | Redealt | DrawBegan | StubReshuffled | PlayerDrew
              | SecondRoundBegan | OpenersShown | CardsShown | PotAwarded | PointsScored | HandEnded
              | OpenersSplit | FalseOpenersFound | CardsMucked | ShowAsked)


def visible_event(event: Event, viewer_seat: int | None, role: str) -> Event:
    """The event as this viewer may see it: hidden fields set to None.

    `role`: "floor" sees everything; "player" (with `viewer_seat`) sees their own cards;
    "spectator" (viewer_seat None) sees only public fields.
    """
    if role not in ROLES:
        raise Violation("illegal_action", f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if role == FLOOR:
        return event
    kind: type = type(event)
    declared = secrecy.secrets_of(kind)
    hidden = declared.sealed
    private = declared.owner_only
    # An event with owner-only fields names its owner (`position`); mypy sees the union of all.
    if private and not (role == PLAYER and viewer_seat == event.position):  # type: ignore[union-attr]
        hidden += private
    if not hidden:
        return event
    # mypy types replace() over the union of every event class as taking no field at all;
    # the names hidden are this event's own (secrecy reads them from its class).
    return dataclasses.replace(event, **{name: None for name in hidden})  # type: ignore[arg-type]
