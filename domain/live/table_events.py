"""The live table's own events (a table stream holds them, with each hand's game events
between a HandOpened and its HandClosed), and what each keeps secret, declared on the
class (domain.secrecy) and registered here."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain import secrecy
from domain.frozen import made_at_once
from domain.live.games.common import DECK_HASH
from domain.live.table_commands import TableSeat
from domain.rules.betting import BettingStructure
from domain.rules.declarations import ChipsRuled
from domain.secrecy import SEALED

# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class TableCreated:
    table_id: str
    game: str
    settings: dict[str, Any]
    betting: BettingStructure
    seats: tuple[TableSeat, ...]
    ranked: bool
    action_clock_s: int | None
    tournament_id: str | None = None
    auto_deal: bool = False
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    name: str | None = None
    """Absent from the tables created before names were given: they read as unnamed."""


@dataclass(frozen=True)
class PlayerSeatedAtTable:
    seat: int
    player_id: str
    stack: int
    tournament_version: int = 0
    re_entry: bool = False  # a new entry: their bust here is a finished entry's


@dataclass(frozen=True)
class PlayerLeftTable:
    """The player left between hands taking `stack` chips (0 once busted)."""
    seat: int
    player_id: str
    stack: int
    tournament_version: int = 0


@dataclass(frozen=True)
class ChipsAdjusted:
    seat: int
    player_id: str
    amount: int
    change_id: int
    reason: str


@dataclass(frozen=True)
class HandOpened:
    """A hand begins. `seats`: the table seats dealt in (position k in the hand is table
    seat seats[k]); `button`: a table seat. `salt` is secret until the hand is closed."""
    hand_id: str
    number: int
    button: int
    seats: tuple[int, ...]
    commitment: str
    salt: str = field(metadata=SEALED)
    scheme: str = DECK_HASH
    """How `commitment` was made: DECK_HASH (one hash of the whole deck) or
    domain.rules.deal_commitment.SCHEME (a Merkle root over each card: hold'em, Omaha and
    five-card draw)."""


@dataclass(frozen=True)
class TimeBankSet:
    """Each player at this table has `seconds` of time bank (after TableCreated)."""
    seconds: int


@dataclass(frozen=True)
class TimeBankUsed:
    """`player_id`'s clock ran out and their time bank gives them `seconds` more (a
    ClockStarted with the new deadline follows)."""
    hand_id: str
    seat: int
    player_id: str
    seconds: int


@dataclass(frozen=True)
class ActionClockSet:
    """A tournament's level changed the action clock from the next hand on (None: none)."""
    action_clock_s: int | None


@dataclass(frozen=True)
class SeatStack:
    """A player's chips at table seat `seat` once a hand is over, and the points the hand
    scored them in a game played for points (draw without betting, dice; else None)."""
    seat: int
    player_id: str
    stack: int
    points: int | None = None


@dataclass(frozen=True)
class PotWinners:
    """Who busted a player: the winners of the highest-numbered pot the player was in
    (their chips may have gone to several pots; running-events.md's bounty rule)."""
    player_id: str
    winners: tuple[str, ...]


@dataclass(frozen=True)
class HandClosed:
    """The hand is over: the stack of every seat dealt in, and who lost their last chip
    (with who busted them, for bounties: empty in logs written before). (The game's
    HandEnded lists its stacks the same way, with each one's position in the hand beside:
    domain.live.table_records.)"""
    hand_id: str
    stacks: tuple[SeatStack, ...]
    busted: tuple[str, ...]
    busted_by: tuple[PotWinners, ...] = ()


@dataclass(frozen=True)
class Standing:
    player_id: str
    place: int
    stack: int


@dataclass(frozen=True)
class Result:
    """A player's result for ratings: "win" (alone at the top), "draw" (sharing the top)
    or "loss"."""
    player_id: str
    place: int
    outcome: str


@dataclass(frozen=True)
class TableFinished:
    """Fewer than two players have chips, or the match's hands are played: the final
    standings, best first, and each player's result."""
    standings: tuple[Standing, ...]
    results: tuple[Result, ...] = ()


@dataclass(frozen=True)
class StandUpQueued:
    """A cash-table player asked to stand up during a hand they are in: they leave with
    their stack when it ends (an auto-deal table deals the next hand in that same write,
    so "between their hands" would never come)."""
    seat: int
    player_id: str
    hand_id: str


@dataclass(frozen=True)
class TableClosing:
    """Closed during a hand: no hand follows it, and the table finishes when it ends."""
    hand_id: str


@made_at_once
@dataclass(frozen=True)
class ClockStarted:
    """`player_id` (table seat `seat`) is to act in `hand_id` by `deadline_at_ms` (ms since
    the epoch). A later ClockStarted, ClockExpired or HandClosed ends it."""
    hand_id: str
    seat: int
    player_id: str
    deadline_at_ms: int


@dataclass(frozen=True)
class ClockExpired:
    hand_id: str
    seat: int
    player_id: str
    deadline_at_ms: int
    expired_at_ms: int


@dataclass(frozen=True)
class AutomaticAction:
    """The computer acts for the player; the game events up to the next table event are
    its action (the service marks them `automatic` in their metadata)."""
    hand_id: str
    seat: int
    player_id: str
    reason: str


@dataclass(frozen=True)
class PlayerSatOut:
    seat: int
    player_id: str
    reason: str


@dataclass(frozen=True)
class PlayerReturned:
    seat: int
    player_id: str


TABLE_EVENTS = (TableCreated, HandOpened, ActionClockSet, TimeBankSet, TimeBankUsed, HandClosed, TableFinished, ClockStarted, ClockExpired,
                AutomaticAction, PlayerSatOut, PlayerReturned, PlayerSeatedAtTable, PlayerLeftTable,
                ChipsAdjusted, ChipsRuled, TableClosing, StandUpQueued)
TABLE_EVENT_TYPES: dict[str, type] = {cls.__name__: cls for cls in TABLE_EVENTS}
TABLE_EVENT_CLASSES = frozenset(TABLE_EVENTS)
"""TABLE_EVENTS as a set: whether an event's type is one of them is asked of every event a
table records, and a game's event would otherwise be compared with each of them in turn."""


# What each record type keeps secret is read from its class's declarations
# (domain.secrecy): the table's here, each game's when it is registered (domain.registry).
secrecy.register(TABLE_EVENTS)
