"""What a tournament is asked: its settings and the commands of the organiser, the floor
and the service's tables.
"""
from __future__ import annotations

from dataclasses import dataclass

from domain.tournaments.payouts import RANK_BY_STARTING_STACK
from domain.tournaments.seating import BREAK_PREDETERMINED
from domain.tournaments.structure import Period

TABLES_SERVICE, TABLES_PHYSICAL = "service", "physical"  # who deals: the service, or dealers at real tables


@dataclass(frozen=True)
class Settings:
    name: str
    structure: tuple[Period, ...]
    starts_at: float
    starting_stack: int
    buy_in: int
    payout_percentages: tuple[str, ...]  # exact decimals by place, summing to 100
    table_size: int = 9
    late_registration_until_level: int = 0  # 0: no late registration
    re_entries_allowed: int = 0  # per player
    rebuy_price: int = 0  # 0: no rebuys
    add_on_price: int = 0  # 0: no add-on
    balance_tolerance: int = 1  # with more than two tables
    break_order: str = BREAK_PREDETERMINED
    bust_ranking: str = RANK_BY_STARTING_STACK
    rebuy_chips: int = 0  # chips per rebuy (offered: rebuy_price > 0)
    rebuys_allowed: int = 0  # per player
    rebuy_until_level: int = 0  # the last level a rebuy is taken in (and the break after it)
    add_on_chips: int = 0
    add_ons_allowed: int = 0  # per player
    add_on_until_level: int = 0
    tables: str = TABLES_SERVICE
    hand_for_hand_at_bubble: bool = False
    denominations: tuple[int, ...] = ()  # chips in play at the start, smallest first
    auto_start: bool = False  # starts by itself at starts_at (with min_players); else at the director's word
    min_players: int = 2
    rebuy_at_or_below: int = 0  # a rebuy is taken at or below this stack (0: the starting stack)
    double_rebuy: bool = False  # two rebuys at once
    rebuy_grace_s: int = 300  # physical tables: a busted player's time to rebuy
    move_call_s: int = 180  # physical tables: a move is pending until confirmed or this passes
    action_clock_s: int | None = None  # service tables: seconds per action (a level may override)
    time_bank_s: int = 0  # service tables: extra seconds each player may use once the clock runs out
    # Money (running-events.md). A price (buy_in, rebuy_price, add_on_price) is what enters
    # the prize pool; its fee beside it is the house's and never does.
    fee: int = 0  # per entry and re-entry
    rebuy_fee: int = 0
    add_on_fee: int = 0
    guarantee: int = 0  # the prize pool is at least this; the shortfall (overlay) is paid by the house
    payout_fixed: tuple[int, ...] = ()  # fixed amounts by place, instead of payout_percentages
    payout_preset: bool = False  # the preset by field size (payouts.preset_percentages) instead
    payout_unit: int = 1  # percentages' amounts are rounded down to it, the remainder to first place
    bounty_kind: str = ""  # "": no bounties; "fixed" or "progressive" (bounties.py)
    bounty: int = 0  # each entry's bounty, paid beside the buy-in and fee
    bounty_cash_percent: int = 50  # progressive: the eliminator's cash share; the rest goes on their head


@dataclass(frozen=True)
class Bust:
    player_id: str
    starting_stack: int  # the player's stack when the hand started
    table: int = 0  # where they busted (set by the decider)
    busted_by: str | None = None  # who busted them (bounties, records), when the floor says
    also_busted_by: tuple[str, ...] = ()  # a split pot: the pot's other winners (they share the bounty)


@dataclass(frozen=True)
class ChipCount:
    player_id: str
    chips: int


@dataclass(frozen=True)
class CreateTournament:
    tournament_id: str
    settings: Settings
    at: float | None = None  # now: a start before it is refused


@dataclass(frozen=True)
class Register:
    player_id: str
    at: float
    seed: int = 0  # draws a late entrant's seat


@dataclass(frozen=True)
class Unregister:
    player_id: str


@dataclass(frozen=True)
class StartTournament:
    at: float
    seed: int


@dataclass(frozen=True)
class DealHand:
    table: int
    at: float


@dataclass(frozen=True)
class FinishHand:
    table: int
    at: float
    busted: tuple[Bust, ...] = ()
    seed: int = 0  # balancing and breaking draws
    stacks: tuple[ChipCount, ...] = ()  # the table's players' chips after the hand


@dataclass(frozen=True)
class Eliminate:
    """Players out on one hand, reported without hand tracking (floor or a table service
    that does not deal through the tournament)."""

    busted: tuple[Bust, ...]
    at: float
    seed: int = 0
    counts: tuple[ChipCount, ...] = ()  # physical tables: the table's chip counts after the hand


@dataclass(frozen=True)
class ReportChipCounts:
    """Physical tables: one table's chip counts (every player at it; chips conserved)."""
    counts: tuple[ChipCount, ...]
    at: float


@dataclass(frozen=True)
class RaceChips:
    """The scheduled colour-up at one table (TDA 2024 24), between its hands."""
    table: int
    at: float
    seed: int


@dataclass(frozen=True)
class Disqualify:
    player_id: str
    reason: str
    at: float
    seed: int = 0


@dataclass(frozen=True)
class MovePlayer:
    player_id: str
    to_table: int
    to_seat: int
    at: float = 0


@dataclass(frozen=True)
class CancelMove:
    move_id: int


@dataclass(frozen=True)
class StartHandForHand:
    at: float


@dataclass(frozen=True)
class StopHandForHand:
    at: float
    seed: int = 0


@dataclass(frozen=True)
class PauseClock:
    at: float


@dataclass(frozen=True)
class ResumeClock:
    at: float


@dataclass(frozen=True)
class AdjustClock:
    seconds: float
    at: float
    confirm: bool = False  # past the level's own length: the organiser confirmed it


@dataclass(frozen=True)
class StartLevel:
    period_index: int
    at: float


@dataclass(frozen=True)
class SetLevel:
    """The organiser sets the clock to a period, forward or back: its full time, or
    `remaining_s` of it."""
    period_index: int
    at: float
    remaining_s: int | None = None


@dataclass(frozen=True)
class Rebuy:
    player_id: str
    at: float
    double: bool = False  # two rebuys at once (settings.double_rebuy)
    seed: int = 0  # balancing, once a busted player's seat no longer waits


@dataclass(frozen=True)
class DeclineRebuy:
    """A busted player waiting to rebuy says they will not: out now."""
    player_id: str
    at: float
    seed: int = 0


@dataclass(frozen=True)
class ExpireRebuys:
    """The clock sweep: busted players whose time to rebuy has passed (the grace, or the
    rebuy period's end) are out."""
    at: float
    seed: int = 0


@dataclass(frozen=True)
class ConfirmSeated:
    """Physical tables: the floor saw the moved player sit down."""
    move_id: int
    at: float


@dataclass(frozen=True)
class Undo:
    """Undo the last elimination, rebuy or clock change, while nothing later depends on it."""
    at: float


@dataclass(frozen=True)
class AddOn:
    player_id: str
    at: float


@dataclass(frozen=True)
class DealShare:
    player_id: str
    amount: int
    place: int = 0  # the place agreed, for league points (running-events.md); 0: the place they finish in


@dataclass(frozen=True)
class RecordDeal:
    """The players left agreed a deal: an amount each, and what is left to play for (paid
    to the winner); together exactly the prize money still to pay."""
    shares: tuple[DealShare, ...]
    left_to_play_for: int
    at: float
