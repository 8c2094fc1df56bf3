"""The live table's commands (domain.live.table decides them): what the service asks of a
table, each a frozen dataclass; randomness and time arrive in them, drawn outside."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.rules.betting import BettingStructure
from domain.rules.declarations import Pushed

# ------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class TableSeat:
    player_id: str
    stack: int


@dataclass(frozen=True)
class CreateTable:
    table_id: str
    game: str
    settings: dict[str, Any]
    betting: BettingStructure
    seats: tuple[TableSeat, ...]
    ranked: bool = False
    action_clock_s: int | None = None
    tournament_id: str | None = None
    """Set for a tournament's table: seats may be empty (EMPTY_SEAT, stack 0)."""
    auto_deal: bool = False
    """The next hand opens as soon as one closes (cash tables)."""
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    """Both set for a cash table: the chips a player sits down with, and the most a top-up
    may bring a stack to. Its seats may be empty (EMPTY_SEAT, stack 0)."""
    time_bank_s: int = 0
    """With an action clock: extra seconds each player has at this table, used whole the
    first time their clock runs out (TimeBankUsed)."""
    name: str | None = None
    """What the room calls the table (domain.live.table_names); None: unnamed."""


@dataclass(frozen=True)
class StartNextHand:
    """`deck`: the shuffled order as card strings; `salt`: the secret, as lowercase hex.

    A tournament gives the positions and the level in force: `button` (a table seat,
    empty for a dead button, TDA 2024 32), `small_blind` and `big_blind` (table seats; an
    empty small blind seat is a dead small blind) and `betting` for this hand. Without
    them the button moves to the next seat with chips and the table's betting applies."""
    deck: tuple[str, ...]
    salt: str
    button: int | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    betting: BettingStructure | None = None
    action_clock_s: int | None = None
    """A tournament's level sets the action clock from this hand on (0: none; None: as it was)."""


@dataclass(frozen=True)
class SeatPlayer:
    """Tournament tables, between hands: `player_id` sits in the empty `seat` with the
    chips they bring (a move from another table). `tournament_version`: the tournament
    version that moved them, for the audit log. `re_entry`: the tournament entered them
    again after they busted (they may be drawn to the table they busted at)."""
    player_id: str
    seat: int
    stack: int
    tournament_version: int = 0
    re_entry: bool = False


@dataclass(frozen=True)
class RemovePlayer:
    """Tournament tables, between hands: `player_id` leaves with their chips (moved to
    another table, or busted with none)."""
    player_id: str
    tournament_version: int = 0


@dataclass(frozen=True)
class FinishTournamentTable:
    """Tournament tables, between hands: the tournament is done with the table (it broke
    it and everyone has left, or the tournament is over), which finishes with the
    standings as they are; the tournament, not the table, ranks and rates the players."""
    tournament_version: int = 0


@dataclass(frozen=True)
class AdjustChips:
    """Tournament tables, between hands: the tournament's chip change `change_id` gives
    `player_id` `amount` chips (a rebuy, an add-on) or takes them (a colour-up race)."""
    player_id: str
    amount: int
    change_id: int
    reason: str


@dataclass(frozen=True)
class SitDown:
    """Cash tables: `player_id` takes an empty seat (`seat`, or the first empty one) with
    `buy_in` chips, between hands."""
    player_id: str
    buy_in: int
    seat: int | None = None


@dataclass(frozen=True)
class StandUp:
    """Cash tables: `player_id` leaves with their stack; asked during a hand they are in,
    when it ends (StandUpQueued)."""
    player_id: str


@dataclass(frozen=True)
class TopUp:
    """Cash tables: `player_id` adds `amount` chips, between their hands, up to the maximum
    buy-in."""
    player_id: str
    amount: int


@dataclass(frozen=True)
class CloseTable:
    """No new hand: the table finishes now, or when the hand being played ends."""


@dataclass(frozen=True)
class Act:
    """A player's action in the current hand: fold | check | call | bet | raise (`to`: the
    round total), or a game's own actions (`discard` for a draw)."""
    player_id: str
    action: str
    to: int | None = None
    discard: tuple[str, ...] | None = None
    defender: str | None = None
    """Palace Poker's attack: the player attacked."""
    keep: tuple[int, ...] | None = None
    """Dice poker's roll: positions (0-4) of the dice kept."""
    line: str | None = None
    """Dice poker's score: the line written."""
    pushed: Pushed | None = None
    """Chips pushed and words said, entered by the floor instead of `action` and `to`."""


@dataclass(frozen=True)
class ExpireClock:
    """The clock of `seat` (a table seat) in `hand_id` that ends at `deadline_at_ms` has run
    out: act for the player. Names the exact clock so a stale or repeated expiry misses."""
    hand_id: str
    seat: int
    deadline_at_ms: int


@dataclass(frozen=True)
class SitOut:
    player_id: str


@dataclass(frozen=True)
class ReturnToSeat:
    player_id: str


Command = (CreateTable | StartNextHand | Act | ExpireClock | SitOut | ReturnToSeat | SeatPlayer
                | RemovePlayer | AdjustChips | SitDown | StandUp | TopUp | CloseTable | FinishTournamentTable)
