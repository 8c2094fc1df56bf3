"""What happened to a tournament: the events it is stored as (their type and field names
are persisted) and EVENT_TYPES, by name, for reading them back.
"""
from __future__ import annotations

from dataclasses import dataclass

from domain.tournaments.bounties import BountyAward
from domain.tournaments.chips import RacedStack
from domain.tournaments.clock import CLOCK_EVENT_TYPES
from domain.tournaments.commands import Bust, ChipCount, DealShare, Settings
from domain.tournaments.seating import Move, Positions, Seat


@dataclass(frozen=True)
class TournamentCreated:
    tournament_id: str
    settings: Settings


@dataclass(frozen=True)
class PlayerRegistered:
    player_id: str
    re_entry: bool = False


@dataclass(frozen=True)
class PlayerUnregistered:
    player_id: str


@dataclass(frozen=True)
class TournamentStarted:
    at: float
    seed: int
    seats: tuple[Seat, ...]
    buttons: tuple[int, ...]  # the drawn button of table 1, 2, ...


@dataclass(frozen=True)
class PlayerSeated:
    seat: Seat
    seed: int


@dataclass(frozen=True)
class HandDealt:
    table: int
    positions: Positions
    period_index: int  # the level this hand plays to its end (TDA 2024 23)
    at: float


@dataclass(frozen=True)
class HandFinished:
    table: int
    at: float
    stacks: tuple[ChipCount, ...] = ()


@dataclass(frozen=True)
class Elimination:
    player_id: str
    place: int
    busted_by: str | None = None
    also_busted_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayersEliminated:
    eliminations: tuple[Elimination, ...]
    at: float


@dataclass(frozen=True)
class PlayerDisqualified:
    player_id: str
    reason: str
    place: int
    at: float
    chips_removed: int = 0  # the player's chips, taken out of play


@dataclass(frozen=True)
class DisqualificationQueued:
    """Asked while the player's table plays a hand: made when that hand is over."""
    player_id: str
    reason: str
    at: float


@dataclass(frozen=True)
class ChipsCounted:
    counts: tuple[ChipCount, ...]
    at: float


@dataclass(frozen=True)
class ChipsRaced:
    """A table's colour-up race: every stack before and after; `removed` chips left play
    (negative: the rounding added chips)."""
    table: int
    smallest_before: int
    smallest: int
    stacks: tuple[RacedStack, ...]
    removed: int
    seed: int
    at: float


@dataclass(frozen=True)
class PlayersBusted:
    """Hand-for-hand: players out on a table's hand of a round that other tables are
    still playing. They are placed together when the round is over (TDA 2024 RP-8)."""

    busted: tuple[Bust, ...]
    at: float


@dataclass(frozen=True)
class PlayerMoved:
    move: Move
    seed: int
    move_id: int = 0  # the move's number (the queued floor move it carries out, if any); 0 in old logs
    at: float = 0


@dataclass(frozen=True)
class MoveQueued:
    """A floor move asked while a table it concerns plays a hand: made after that hand,
    before the table's next deal."""
    move_id: int
    player_id: str
    to_table: int
    to_seat: int
    at: float


@dataclass(frozen=True)
class MoveCancelled:
    move_id: int
    reason: str  # "cancelled" by the floor, or why it could not be made (the code)


@dataclass(frozen=True)
class BalancePending:
    """A move or break is due but its table is playing a hand: it is made when one of
    `tables` finishes its hand (TDA: moves between hands only). Empty: nothing pending."""

    tables: tuple[int, ...]


@dataclass(frozen=True)
class TableBroken:
    table: int
    seed: int


@dataclass(frozen=True)
class FinalTableReached:
    table: int
    players: int


@dataclass(frozen=True)
class HandForHandStarted:
    at: float


@dataclass(frozen=True)
class HandForHandStopped:
    at: float


@dataclass(frozen=True)
class RebuyTaken:
    player_id: str
    chips: int = 0
    count: int = 1  # 2: a double rebuy


@dataclass(frozen=True)
class RebuyAwaited:
    """A player out of chips during the rebuy period keeps the seat until they rebuy,
    decline, or their time passes (the end of the next hand at their table; physical
    tables: `rebuy_grace_s`)."""
    player_id: str
    table: int
    starting_stack: int  # the stack the bust hand started with: ranks them if they go out
    at: float
    busted_by: str | None = None  # who busted them: wins their bounty if they go out
    also_busted_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class RebuyDeclined:
    player_id: str
    at: float


@dataclass(frozen=True)
class MoveSeated:
    """Physical tables: the floor confirmed the moved player seated."""
    move_id: int
    at: float


@dataclass(frozen=True)
class RestoredSeat:
    player_id: str
    table: int
    seat: int
    chips: int
    place: int


@dataclass(frozen=True)
class EliminationUndone:
    """Compensates the last PlayersEliminated: the players sit again with their chips."""
    seats: tuple[RestoredSeat, ...]
    at: float


@dataclass(frozen=True)
class RebuyUndone:
    """Compensates the last RebuyTaken: its chips (and count) are taken back."""
    player_id: str
    chips: int
    count: int
    at: float


@dataclass(frozen=True)
class ClockChangeUndone:
    """Marks the compensating clock events that follow it (the clock as it was before `undone`)."""
    undone: str  # the clock event's type
    at: float


@dataclass(frozen=True)
class AddOnTaken:
    player_id: str
    chips: int = 0


@dataclass(frozen=True)
class ChipChange:
    """Chips a service table must give (or take) a player between hands, numbered."""
    change_id: int
    player_id: str
    amount: int
    reason: str  # rebuy, add-on, colour-up


@dataclass(frozen=True)
class BountiesWon:
    """Bounties paid for the players just out (or the winner's own, at the end)."""
    awards: tuple[BountyAward, ...]
    at: float


@dataclass(frozen=True)
class BountiesReversed:
    """Compensates the BountiesWon of an undone elimination."""
    awards: tuple[BountyAward, ...]
    at: float


@dataclass(frozen=True)
class DealRecorded:
    shares: tuple[DealShare, ...]
    left_to_play_for: int
    remaining_pool: int  # the prize money still to pay when the deal was made
    at: float


@dataclass(frozen=True)
class Prize:
    player_id: str
    place: int
    amount: int


@dataclass(frozen=True)
class TournamentFinished:
    winner: str
    prize_pool: int
    prizes: tuple[Prize, ...]
    at: float


EVENT_TYPES: dict[str, type] = {
    **CLOCK_EVENT_TYPES,
    **{
        cls.__name__: cls
        for cls in (
            TournamentCreated, PlayerRegistered, PlayerUnregistered, TournamentStarted,
            PlayerSeated, HandDealt, HandFinished, PlayersEliminated, PlayerDisqualified,
            PlayersBusted, PlayerMoved, BalancePending, TableBroken, FinalTableReached, HandForHandStarted,
            HandForHandStopped, RebuyTaken, AddOnTaken, TournamentFinished, DisqualificationQueued,
            ChipsCounted, ChipsRaced, MoveQueued, MoveCancelled, RebuyAwaited, RebuyDeclined, MoveSeated,
            EliminationUndone, RebuyUndone, ClockChangeUndone, BountiesWon, BountiesReversed, DealRecorded,
        )
    },
}
