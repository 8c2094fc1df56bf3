"""The tournament decider: registration, the draw, hands dealt with the level in force
(TDA 2024 23) and a dead button (TDA 2024 32), eliminations with balancing and breaking (TDA 2024 10,
11), hand-for-hand, the level clock, floor moves, disqualification, rebuys, add-ons and
colour-ups, finishing order and prizes, and the money (fees, a guarantee, payouts as rooms
set them, bounties and deals: docs/tournaments-money.md).

Players leave a table between hands only: balancing and breaking (after every hand's end,
elimination, disqualification or late entry) never take a player from a table with a hand
in progress; what must wait is recorded (BalancePending) and done when that table's
FinishHand arrives. A floor move (or seat change) asked while either table plays a hand
is queued (MoveQueued, with an id) and made after that hand, before the table's next
deal; a disqualification during the player's hand likewise.

Places. Players out on one hand at one table: the larger starting stack finishes higher,
equal stacks share (`bust_ranking` "starting_stack", the default; "shared" makes them all
share). Hand-for-hand, everyone out in one round is placed when the round is over: each
table's busts ranked as above, and busts of the same rank at different tables share
(one out at each of two tables: they share; two at table A and one at table B: B's
shares with A's larger stack and A's smaller stack finishes below them). Everyone out on
the hand during which hand-for-hand is announced shares, whatever the stacks (TDA 2024
RP-8-A). With `hand_for_hand_at_bubble`, hand-for-hand starts by itself when the next
bust is the bubble and stops once it has burst.

Chips. The tournament keeps every player's chips as last known: the starting stack on
entry, the stacks each hand ends with (FinishHand, from the service's tables) or the
counts the floor reports (physical tables), rebuy and add-on chips, colour-up races.
Chips in play = entries x starting stack + rebuys x rebuy chips + add-ons x add-on chips
- chips removed (colour-up races and disqualifications, each an event with its amount).
On the service's tables the chips a rebuy, add-on or race gives or takes are chip
changes (numbered) that the table applies between hands, before its next deal.

Money. The prize pool is what the prices paid in, at least the guarantee; fees and
bounties are apart. A bust pays the busted player's bounty to the winners of the pot that
busted them (BountiesWon, right after the PlayersEliminated; an undone bust compensates
it with BountiesReversed). A deal (DealRecorded) fixes what its players are paid, whatever
their places. `Tournament.prizes()` is the one place prizes are worked out.

Every random draw (seats, balancing ties, broken tables' seats, chip races) uses a seed
carried by the command and recorded in the events; replay applies the recorded seats and
never draws again. Times are seconds since the epoch, carried by the commands; problems
speak of them as ISO 8601 instants.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import reduce

from domain.ratings import Finish, GameResult
from domain.rules.betting import chips as chips_written  # "chips" names a stack here
from domain.rules.violations import Violation
from domain.tournaments.bounties import BOUNTY_KINDS, BountyAward, bust_awards, tda20_order
from domain.tournaments.by_player import ByPlayer
from domain.tournaments.chips import RacedStack, chip_race
from domain.tournaments.clock import (
    CLOCK_EVENT_TYPES,
    Clock,
    ClockAdjusted,
    ClockPaused,
    ClockResumed,
    LevelSet,
    LevelStarted,
    check_adjustment,
    evolve_clock,
    new_clock,
    read_clock,
)
from domain.tournaments.payouts import (
    RANK_BY_STARTING_STACK,
    RANK_SHARED,
    fixed_payout_amounts,
    parse_fixed_amounts,
    parse_percentages,
    payout_amounts,
    places_for_round,
    preset_percentages,
    prize_pool,
    prizes_for_places,
)
from domain.tournaments.seating import (
    BREAK_PREDETERMINED,
    BREAK_RANDOM,
    BalancePolicy,
    Move,
    Positions,
    Seat,
    Seating,
    apply_break,
    apply_move,
    apply_positions,
    apply_seat,
    draw_seating,
    empty_seating,
    floor_move,
    next_positions,
    rebalance,
    remove_player,
    seat_late_entrant,
    seated,
)
from domain.tournaments.structure import Period, level_number, validate_structure

REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"
TABLES_SERVICE, TABLES_PHYSICAL = "service", "physical"  # who deals: the service, or dealers at real tables


# --- settings and commands -------------------------------------------------------------

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


# --- events ----------------------------------------------------------------------------

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


# --- state -----------------------------------------------------------------------------

RECENT_MOVES = 30  # moves kept for the screens: "Ann Duke: table 3 seat 4 -> table 1 seat 2"
# Events after an elimination, rebuy or clock change that leave it undoable.
UNDO_TRANSPARENT = ("LevelStarted", "MoveSeated", "BalancePending", "ClockChangeUndone", "BountiesWon")


@dataclass(frozen=True)
class MoveCall:
    """A move the floor calls out; pending at physical tables until `seated_at` (the floor
    confirmed it) or `move_call_s` has passed."""
    move_id: int
    player_id: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str
    at: float
    seated_at: float | None = None


@dataclass(frozen=True)
class UndoableAct:
    kind: str  # "elimination", "rebuy" or "clock"
    event: object
    seats: tuple[RestoredSeat, ...] = ()  # an elimination: where the players sat, with their chips
    awaiting: tuple[RebuyAwaited, ...] = ()  # busted players waiting to rebuy before the act
    clock_before: Clock | None = None
    bounties: tuple[BountyAward, ...] = ()  # an elimination: the bounties it paid

@dataclass(frozen=True)
class Tournament:
    tournament_id: str | None = None
    settings: Settings | None = None
    status: str | None = None
    registered: tuple[str, ...] = ()
    entries_by_player: Mapping[str, int] = field(default_factory=dict)  # never mutated
    re_entries: int = 0
    rebuys: int = 0
    add_ons: int = 0
    seating: Seating = field(default_factory=lambda: empty_seating(9))
    clock: Clock = field(default_factory=lambda: new_clock(()))
    hands_in_progress: frozenset[int] = frozenset()
    hand_for_hand: bool = False
    dealt_this_round: frozenset[int] = frozenset()  # hand-for-hand: tables dealt this round
    round_busts: tuple[Bust, ...] = ()  # hand-for-hand: out this round, placed when it ends
    balance_pending: tuple[int, ...] = ()  # tables whose hand must end before the next move
    standings: tuple[Elimination, ...] = ()  # eliminations, in the order they happened
    final_table_reached: bool = False
    announcement_round: bool = False  # hand-for-hand: this round's hands were dealt before it was announced
    stacks: ByPlayer[int] = field(default_factory=ByPlayer)  # chips last known, by player
    credits_in_hand: Mapping[str, int] = field(default_factory=dict)  # rebuys/add-ons taken during the hand
    chip_changes: tuple[ChipChange, ...] = ()  # service tables: every change, in order
    rebuys_by_player: Mapping[str, int] = field(default_factory=dict)
    add_ons_by_player: Mapping[str, int] = field(default_factory=dict)
    chips_removed: int = 0
    smallest_chip: Mapping[int, int] = field(default_factory=dict)  # by table, once raced
    pending_moves: tuple[MoveQueued, ...] = ()
    moves_queued: int = 0  # the last move id given
    pending_disqualifications: tuple[DisqualificationQueued, ...] = ()
    awaiting_rebuy: tuple[RebuyAwaited, ...] = ()  # busted, seat kept, until they rebuy or their time passes
    dealt_since_bust: frozenset[str] = frozenset()  # awaiting players whose table dealt a hand since
    move_calls: tuple[MoveCall, ...] = ()  # the recent moves, oldest first
    undoable: UndoableAct | None = None  # the last elimination, rebuy or clock change
    undo_blocked_by: str | None = None  # the first later event that depends on it
    left_periods: Mapping[int, int] = field(default_factory=dict)  # time a period had when the clock left it
    bounty_heads: Mapping[str, int] = field(default_factory=dict)  # each player's bounty now (never mutated)
    bounties_won: tuple[BountyAward, ...] = ()  # the bounty ledger, in order
    deal: DealRecorded | None = None
    final_prizes: tuple[Prize, ...] | None = None  # as TournamentFinished recorded them

    @property
    def entries(self) -> int:
        return sum(self.entries_by_player.values())

    @property
    def contributions(self) -> int:
        """What the players paid into the prize pool (fees and bounties apart)."""
        s = self._settings
        return prize_pool(
            s.buy_in, self.entries - self.re_entries, self.re_entries,
            self.rebuys, s.rebuy_price, self.add_ons, s.add_on_price,
        )

    @property
    def fees(self) -> int:
        s = self._settings
        return self.entries * s.fee + self.rebuys * s.rebuy_fee + self.add_ons * s.add_on_fee

    @property
    def bounties_collected(self) -> int:
        return self.entries * self._settings.bounty if self._settings.bounty_kind else 0

    @property
    def prize_pool(self) -> int:
        """The contributions, at least the guarantee (fixed payouts guarantee their sum)."""
        s = self._settings
        return max(self.contributions, s.guarantee, sum(s.payout_fixed))

    @property
    def overlay(self) -> int:
        """What the house adds to reach the guarantee."""
        return self.prize_pool - self.contributions

    def payout_table(self) -> tuple[int, ...]:
        """The amounts by place for the prize pool so far (percentages, fixed or preset)."""
        s = self._settings
        if s.payout_fixed:
            return fixed_payout_amounts(self.prize_pool, s.payout_fixed)
        percentages = preset_percentages(self.entries) if s.payout_preset else s.payout_percentages
        return payout_amounts(self.prize_pool, percentages, s.payout_unit)

    def prizes(self) -> tuple[Prize, ...]:
        """Each player's prize by the finishing order, best first: the payout table's for
        the places reached, or, for the players in a deal, the amount agreed (the winner
        adds what was left to play for). Players still in have none until the end; once it is
        over, the prizes TournamentFinished recorded (an older rule's stay as they were paid)."""
        if self.final_prizes is not None:
            return self.final_prizes
        order = self.finishing_order()
        amounts = prizes_for_places(self.payout_table(), [e.place for e in order])
        agreed = {share.player_id: share.amount for share in self.deal.shares} if self.deal else {}
        alive = self.seating.where if self.status != FINISHED else {}
        prizes = []
        for elimination, amount in zip(order, amounts):
            player = elimination.player_id
            if player in alive:
                continue
            if player in agreed:
                assert self.deal is not None
                amount = agreed[player] + (self.deal.left_to_play_for if elimination.place == 1 else 0)
            if amount:
                prizes.append(Prize(player, elimination.place, amount))
        return tuple(prizes)

    @property
    def remaining_pool(self) -> int:
        """The prize money still to pay: the pool less the prizes of the players out."""
        return self.prize_pool - sum(p.amount for p in self.prizes())

    def open_prizes(self) -> tuple[int, ...]:
        """The payout table's amounts for the places the players left still play for."""
        return self.payout_table()[: self.seating.players]

    @property
    def _settings(self) -> Settings:
        if self.settings is None:
            raise Violation("unknown_tournament", "the tournament has not been created")
        return self.settings

    def stack_of(self, player_id: str) -> int:
        """The player's chips as last known, rebuys and add-ons taken during a hand included."""
        return self.stacks.get(player_id, 0) + self.credits_in_hand.get(player_id, 0)

    @property
    def chips_in_play(self) -> int:
        """Known exactly from the ledger: issued - removed (whoever holds them)."""
        return self.chips_issued - self.chips_removed

    @property
    def chips_known(self) -> int:
        """The players' chips as last known (physical tables: the counts the floor gave;
        a bust named without counts leaves its chips with someone not yet counted)."""
        return sum(self.stack_of(p) for p in self.seating.where)

    @property
    def awaiting_players(self) -> frozenset[str]:
        return frozenset(a.player_id for a in self.awaiting_rebuy)

    @property
    def players_with_chips(self) -> int:
        """Players left, less those busted and waiting to rebuy: what the average divides by."""
        return self.seating.players - len(self.awaiting_rebuy)

    def rebuys_expired(self, at: float) -> tuple[RebuyAwaited, ...]:
        """Busted players whose time to rebuy has passed: all once rebuys have closed; at
        physical tables after `rebuy_grace_s`; at a service table that cannot deal (fewer than
        two players with chips) after `rebuy_grace_s` too (no next hand ends the wait)."""
        if not self.awaiting_rebuy:
            return ()
        s = self._settings
        if not _rebuy_open(self, s, at):
            return self.awaiting_rebuy
        waiting = self.awaiting_players
        expired = []
        for awaited in self.awaiting_rebuy:
            if at < awaited.at + s.rebuy_grace_s:
                continue
            table = self.seating.where[awaited.player_id][0]
            holders = sum(1 for p in self.seating.table(table).seats if p is not None and p not in waiting)
            if s.tables == TABLES_PHYSICAL or holders < 2:
                expired.append(awaited)
        return tuple(expired)

    def pending_move_calls(self, now: float) -> tuple[MoveCall, ...]:
        """Physical tables: moves called out and not yet seated (confirmed, or time passed)."""
        s = self._settings
        if s.tables != TABLES_PHYSICAL:
            return ()
        return tuple(c for c in self.move_calls if c.seated_at is None and now < c.at + s.move_call_s)

    @property
    def chips_issued(self) -> int:
        """entries x starting stack + rebuys x rebuy chips + add-ons x add-on chips."""
        s = self._settings
        return self.entries * s.starting_stack + self.rebuys * s.rebuy_chips + self.add_ons * s.add_on_chips

    def pending_chip_changes(self, applied: Iterable[int]) -> tuple[ChipChange, ...]:
        done = set(applied)
        return tuple(c for c in self.chip_changes if c.change_id not in done)

    def colour_up_due(self, table: int, at: float) -> int | None:
        """The denomination table `table` must be raced to before its next hand, if any."""
        target = self._colour_up_target(at)
        if target is None:
            return None
        return target if target > self.smallest_chip.get(table, self._settings.denominations[0]) else None

    def _colour_up_target(self, at: float) -> int | None:
        s = self._settings
        reading = read_clock(self.clock, at)
        if not s.denominations or reading.period_index is None:
            return None
        scheduled = [p.colour_up for p in s.structure[: reading.period_index + 1] if p.colour_up]
        return max(scheduled) if scheduled else None

    def finishing_order(self) -> tuple[Elimination, ...]:
        """Places so far, best first: the players still in share the best place reached."""
        alive = tuple(Elimination(p, 1) for p in sorted(self.seating.where))
        return alive + tuple(sorted(self.standings, key=lambda e: e.place))

    def rating_result(self, result_id: str, game: str = "tournament") -> GameResult:
        return GameResult(result_id, game, tuple(Finish(e.player_id, e.place) for e in self.finishing_order()))


INITIAL = Tournament()
# How far ahead a tournament may be scheduled: ten years.
LATEST_START_AHEAD_S = 3653 * 86400


# The instants a date can show (years 1 to 9999, UTC): every instant a tournament's clock
# reaches lies between them.
FIRST_SHOWN_INSTANT = int(datetime(1, 1, 1, tzinfo=UTC).timestamp())
LAST_SHOWN_INSTANT = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())


def iso(epoch: float) -> str:
    """An instant as people read it: ISO 8601, UTC."""
    return datetime.fromtimestamp(int(epoch), UTC).isoformat().replace("+00:00", "Z")


def _iso_if_shown(epoch: int) -> str | int:
    """The instant in ISO 8601, or its seconds when it lies beyond the years ISO can write."""
    try:
        return iso(epoch)
    except (OverflowError, ValueError, OSError):
        return epoch


def _refuse(code: str, detail: str, **numbers: object) -> Violation:
    """A tournament refusal; it names a rule only where one applies (domain.rules.citations)."""
    return Violation(code, detail, numbers=numbers)


# --- decide ----------------------------------------------------------------------------

def decide(state: Tournament, command: object) -> list[object]:
    if isinstance(command, CreateTournament):
        return _create(state, command)
    settings = state._settings
    if isinstance(command, Register):
        return _register(state, settings, command)
    if isinstance(command, Unregister):
        if state.status != REGISTERING:
            raise _refuse("registration_closed", "players unregister only before the start")
        if command.player_id not in state.registered:
            raise _refuse("not_registered", f"player {command.player_id} is not registered")
        return [PlayerUnregistered(command.player_id)]
    if isinstance(command, StartTournament):
        return _start(state, settings, command)
    if state.status != RUNNING:
        raise _refuse("not_running", f"the tournament is {state.status}, not running", status=state.status)
    if isinstance(command, DealHand):
        return _deal(state, command)
    if isinstance(command, FinishHand):
        return _finish_hand(state, command)
    if isinstance(command, Eliminate):
        return _eliminate_reported(state, settings, command)
    if isinstance(command, ReportChipCounts):
        if settings.tables != TABLES_PHYSICAL:
            raise _refuse("service_tables", "the service deals this tournament's tables and knows their chips")
        return [_counted(state, command.counts, command.at)]
    if isinstance(command, RaceChips):
        return _race(state, settings, command)
    if isinstance(command, Disqualify):
        return _disqualify(state, command)
    if isinstance(command, MovePlayer):
        return _move(state, command)
    if isinstance(command, CancelMove):
        if not any(m.move_id == command.move_id for m in state.pending_moves):
            raise _refuse("unknown_move", f"no pending move {command.move_id}", move_id=command.move_id)
        return [MoveCancelled(command.move_id, "cancelled")]
    if isinstance(command, StartHandForHand):
        if state.hand_for_hand:
            raise _refuse("already_hand_for_hand", "hand-for-hand is already on")
        return [HandForHandStarted(command.at)]
    if isinstance(command, StopHandForHand):
        if not state.hand_for_hand:
            raise _refuse("not_hand_for_hand", "hand-for-hand is not on")
        # Players out in the unfinished round are placed together now.
        placed = _place_round(state, (), command.at, state.announcement_round)
        stopped = HandForHandStopped(command.at)
        events = [*placed, stopped]
        return events + _settle(reduce(evolve, events, state), command.at, command.seed)
    if isinstance(command, (PauseClock, ResumeClock, AdjustClock, StartLevel, SetLevel)):
        return _clock(state, command)
    if isinstance(command, (Rebuy, AddOn)):
        events = _rebuy_or_add_on(state, settings, command)
        if isinstance(command, Rebuy) and command.player_id in state.awaiting_players:
            # The seat kept for them no longer holds balancing and breaking back.
            events += _settle(reduce(evolve, events, state), command.at, command.seed)
        return events
    if isinstance(command, DeclineRebuy):
        awaited = next((a for a in state.awaiting_rebuy if a.player_id == command.player_id), None)
        if awaited is None:
            raise _refuse("not_awaiting_rebuy", f"player {command.player_id} is not waiting to rebuy",
                          player=command.player_id)
        declined = RebuyDeclined(command.player_id, command.at)
        return [declined, *_out_after_waiting(evolve(state, declined), (awaited,), command.at, command.seed)]
    if isinstance(command, ExpireRebuys):
        expired = state.rebuys_expired(command.at)
        if not expired:
            raise _refuse("nothing_expired", "no busted player's time to rebuy has passed")
        return _out_after_waiting(state, expired, command.at, command.seed)
    if isinstance(command, ConfirmSeated):
        call = next((c for c in state.move_calls if c.move_id == command.move_id), None)
        if call is None:
            raise _refuse("unknown_move", f"no move {command.move_id} among the recent moves", move_id=command.move_id)
        if call.seated_at is not None:
            raise _refuse("already_seated", f"move {command.move_id} was confirmed at {iso(call.seated_at)}",
                          move_id=command.move_id)
        return [MoveSeated(command.move_id, command.at)]
    if isinstance(command, Undo):
        return _undo(state, settings, command)
    if isinstance(command, RecordDeal):
        return _deal_agreed(state, command)
    raise _refuse("unknown_command", f"unknown command {type(command).__name__}")


def _create(state: Tournament, command: CreateTournament) -> list[object]:
    if state.settings is not None:
        raise _refuse("tournament_exists", f"tournament {state.tournament_id} already exists")
    s = command.settings
    structure = validate_structure(s.structure)
    _check_money(s)
    empty_seating(s.table_size)
    if command.at is not None and s.starts_at > command.at + LATEST_START_AHEAD_S:
        # Beyond this the clock's instants (each level's end) soon leave the years a
        # datetime can show; nobody schedules a tournament a decade ahead.
        raise _refuse("starts_too_late", f"the start is more than {LATEST_START_AHEAD_S // 86400} days "
                      f"from now ({iso(command.at)}): give an earlier time",
                      starts_at=_iso_if_shown(s.starts_at), latest=iso(command.at + LATEST_START_AHEAD_S))
    if command.at is not None and s.starts_at < command.at:
        raise _refuse("starts_in_past", f"the start {iso(s.starts_at)} is in the past (it is now "
                      f"{iso(command.at)}): give a later time, or \"now\"",
                      starts_at=iso(s.starts_at), now=iso(command.at))
    if s.starting_stack <= 0 or s.buy_in < 0 or s.rebuy_price < 0 or s.add_on_price < 0:
        raise _refuse("invalid_setting", "the starting stack is positive and prices are not negative")
    levels = sum(1 for p in structure if not p.is_break)
    if not 0 <= s.late_registration_until_level <= levels:
        raise _refuse(
            "invalid_setting",
            f"late registration until level {s.late_registration_until_level}: the structure has {levels}",
            late_registration_until_level=s.late_registration_until_level, levels=levels,
        )
    for what, price, chips, allowed, until in (
        ("rebuy", s.rebuy_price, s.rebuy_chips, s.rebuys_allowed, s.rebuy_until_level),
        ("add_on", s.add_on_price, s.add_on_chips, s.add_ons_allowed, s.add_on_until_level),
    ):
        offered = price > 0
        # Rebuys: 0 allowed is no limit (the house default); add-ons are counted.
        if offered and (chips <= 0 or allowed < (0 if what == "rebuy" else 1) or not 1 <= until <= levels):
            raise _refuse("invalid_setting", f"a {what.replace('_', '-')} offered gives chips (more than 0), "
                          f"at least one per player, until a level of the structure (1..{levels})",
                          **{f"{what}_chips": chips, f"{what}s_allowed": allowed, f"{what}_until_level": until,
                             "levels": levels})
        if not offered and (chips or allowed or until):
            raise _refuse("invalid_setting", f"{what.replace('_', '-')} chips, count and level need a "
                          f"{what.replace('_', '-')} price")
    if s.re_entries_allowed < 0 or s.balance_tolerance < 1:
        raise _refuse("invalid_setting", "re-entries are not negative and the tolerance is at least 1")
    if s.min_players < 2 or s.rebuy_at_or_below < 0 or s.rebuy_grace_s < 0 or s.move_call_s < 0 \
            or s.time_bank_s < 0 or (s.action_clock_s is not None and s.action_clock_s <= 0):
        raise _refuse("invalid_setting", "min_players is at least 2; rebuy_at_or_below, rebuy_grace_s, move_call_s "
                      "and time_bank_s are not negative; action_clock_s is positive (or none)",
                      min_players=s.min_players, action_clock_s=s.action_clock_s)
    if s.break_order not in (BREAK_PREDETERMINED, BREAK_RANDOM):
        raise _refuse("invalid_setting", f"unknown break order {s.break_order!r}")
    if s.bust_ranking not in (RANK_SHARED, RANK_BY_STARTING_STACK):
        raise _refuse("invalid_setting", f"unknown bust ranking {s.bust_ranking!r}")
    if s.tables not in (TABLES_SERVICE, TABLES_PHYSICAL):
        raise _refuse("invalid_setting", f"tables are \"service\" or \"physical\", not {s.tables!r}")
    _check_denominations(s, structure)
    return [TournamentCreated(command.tournament_id, replace(s, structure=structure))]


def _check_money(s: Settings) -> None:
    """Fees, guarantee, the payout table (exactly one kind) and bounties."""
    kinds = [kind for kind, given in (("payout_percentages", s.payout_percentages), ("payout_fixed", s.payout_fixed),
                                      ("payout_preset", s.payout_preset)) if given]
    if len(kinds) != 1:
        raise _refuse("invalid_payouts", "give one payout table: percentages, fixed amounts or the preset",
                      given=kinds)
    if s.payout_percentages:
        parse_percentages(s.payout_percentages)
    if s.payout_fixed:
        parse_fixed_amounts(s.payout_fixed)
    if s.payout_unit < 1:
        raise _refuse("invalid_payouts", f"the payout unit is at least 1, not {s.payout_unit}", payout_unit=s.payout_unit)
    if min(s.fee, s.rebuy_fee, s.add_on_fee, s.guarantee, s.bounty) < 0:
        raise _refuse("invalid_setting", "fees, the guarantee and the bounty are not negative")
    if (s.rebuy_fee and not s.rebuy_price) or (s.add_on_fee and not s.add_on_price):
        raise _refuse("invalid_setting", "a rebuy or add-on fee needs its price", rebuy_fee=s.rebuy_fee,
                      add_on_fee=s.add_on_fee)
    if s.bounty_kind not in ("", *BOUNTY_KINDS) or bool(s.bounty_kind) != (s.bounty > 0):
        raise _refuse("invalid_bounty", f"a bounty is \"fixed\" or \"progressive\" with an amount above 0 "
                      f"(kind {s.bounty_kind!r}, amount {s.bounty})", bounty_kind=s.bounty_kind, bounty=s.bounty)
    if not 0 <= s.bounty_cash_percent <= 100:
        raise _refuse("invalid_bounty", f"the eliminator's cash share is 0 to 100%, not {s.bounty_cash_percent}",
                      bounty_cash_percent=s.bounty_cash_percent)


def _check_denominations(s: Settings, structure: tuple[Period, ...]) -> None:
    chips = s.denominations
    colour_ups = [(i + 1, p.colour_up) for i, p in enumerate(structure) if p.colour_up]
    if not chips:
        if colour_ups:
            raise _refuse("invalid_setting", "a colour-up needs the chip denominations", period=colour_ups[0][0])
        return
    if any(c <= 0 for c in chips) or list(chips) != sorted(set(chips)):
        raise _refuse("invalid_setting", f"denominations go up from the smallest chip: {list(chips)}")
    smallest = chips[0]
    for name, amount in (("starting stack", s.starting_stack), ("rebuy chips", s.rebuy_chips),
                         ("add-on chips", s.add_on_chips)):
        if amount % smallest:
            raise _refuse("invalid_setting", f"the {name} {amount} is not made of {smallest} chips",
                          amount=amount, smallest_chip=smallest)
    for period, denomination in colour_ups:
        if denomination not in chips or denomination <= smallest or denomination % smallest:
            raise _refuse("invalid_setting", f"period {period} colours up to {denomination}: it must be a "
                          f"larger denomination in play, a multiple of {smallest}",
                          period=period, colour_up=denomination, smallest_chip=smallest)
        smallest = denomination


def _level_of(state: Tournament, at: float) -> int | None:
    """The number of the level in force at `at` (a break counts as the level before it)."""
    reading = read_clock(state.clock, at)
    if reading.level_in_force is None:
        return None
    return level_number(state._settings.structure, reading.level_in_force)


def _late_registration_open(state: Tournament, settings: Settings, at: float) -> bool:
    """Open through the last late level and the break that follows it, if any."""
    level = _level_of(state, at)
    return level is not None and level <= settings.late_registration_until_level


def _register(state: Tournament, settings: Settings, command: Register) -> list[object]:
    player = command.player_id
    if state.status == REGISTERING:
        if player in state.registered:
            raise _refuse("already_registered", f"player {player} is already registered", player=player)
        return [PlayerRegistered(player)]
    if state.status != RUNNING or not _late_registration_open(state, settings, command.at):
        raise _refuse("registration_closed", "registration is closed",
                      late_registration_until_level=settings.late_registration_until_level,
                      level=_level_of(state, command.at))
    if player in state.seating.where or any(b.player_id == player for b in state.round_busts):
        raise _refuse("already_registered", f"player {player} is still in the tournament", player=player)
    entries = state.entries_by_player.get(player, 0)
    if entries > settings.re_entries_allowed:
        raise _refuse(
            "re_entry_not_allowed",
            f"player {player} has entered {entries} times; {settings.re_entries_allowed} re-entries allowed",
            entries=entries, re_entries_allowed=settings.re_entries_allowed,
        )
    registered = PlayerRegistered(player, re_entry=entries > 0)
    _, seat = seat_late_entrant(state.seating, player, random.Random(command.seed))
    events: list[object] = [registered, PlayerSeated(seat, command.seed)]
    after = reduce(evolve, events, state)
    return events + _balance(after, command.seed, command.at)


def _start(state: Tournament, settings: Settings, command: StartTournament) -> list[object]:
    if state.status != REGISTERING:
        raise _refuse("already_started", "the tournament has already started")
    # The director starts it, early or late (starts_at is the published time); the clock
    # sweep does only with auto_start and min_players (service.application.tournaments).
    if len(state.registered) < 2:
        raise _refuse("not_enough_players", f"a tournament starts with at least 2 players, not "
                      f"{len(state.registered)}", registered=len(state.registered), min_players=2)
    seats, buttons = draw_seating(state.registered, settings.table_size, random.Random(command.seed))
    return [TournamentStarted(command.at, command.seed, seats, buttons), LevelStarted(0, command.at)]


def _deal(state: Tournament, command: DealHand) -> list[object]:
    table = state.seating.table(command.table)
    if command.table in state.hands_in_progress:
        raise _refuse("hand_in_progress", f"table {command.table} is already playing a hand", table=command.table)
    if state.hand_for_hand and command.table in state.dealt_this_round:
        raise _refuse("hand_for_hand", f"table {command.table} waits for every table to finish this hand",
                      table=command.table)
    reading = read_clock(state.clock, command.at)
    if reading.on_break or reading.paused:
        raise _refuse("clock_stopped", "no hand is dealt on a break or while the clock is paused",
                      on_break=reading.on_break, paused=reading.paused)
    due = state.colour_up_due(command.table, command.at)
    if due is not None:
        raise _refuse("colour_up_due", f"table {command.table} races off its chips below {due} before its next hand",
                      table=command.table, colour_up=due)
    for move in state.pending_moves:
        mover = state.seating.where.get(move.player_id)
        tables = {move.to_table, mover[0] if mover else move.to_table}
        if command.table in tables and tables & state.hands_in_progress:
            raise _refuse("move_pending", f"table {command.table} waits for the hand at table "
                          f"{min(tables & state.hands_in_progress)} to move {move.player_id}",
                          table=command.table, move_id=move.move_id)
    assert table.positions is not None and reading.period_index is not None
    # A busted player waiting to rebuy keeps the seat but has no chips to be dealt in.
    waiting = state.awaiting_players
    positions = next_positions(tuple(None if p in waiting else p for p in table.seats), table.positions)
    return [HandDealt(command.table, positions, reading.period_index, command.at)]


def _finish_hand(state: Tournament, command: FinishHand) -> list[object]:
    if command.table not in state.hands_in_progress:
        raise _refuse("no_hand_in_progress", f"table {command.table} has no hand in progress", table=command.table)
    for bust in (*command.busted, *command.stacks):
        if state.seating.where.get(bust.player_id, (None,))[0] != command.table:
            raise _refuse("not_seated", f"player {bust.player_id} is not at table {command.table}",
                          table=command.table, player=bust.player_id)
    # A player who rebought during the hand plays on with those chips.
    busted = tuple(replace(b, table=command.table) for b in command.busted
                   if not state.credits_in_hand.get(b.player_id))
    finished = HandFinished(command.table, command.at, command.stacks)
    after = evolve(state, finished)
    if not state.hand_for_hand:
        # Busted earlier and not rebought by the end of this, the next hand at their table.
        waited = tuple(a for a in after.awaiting_rebuy if a.player_id in after.dealt_since_bust
                       and after.seating.where[a.player_id][0] == command.table)
        events: list[object] = [finished, *_placed(after, _busts(after, waited), command.at, share_all=False)]
        after = reduce(evolve, events[1:], after)
        awaited, out = _split_rebuyers(after, busted, command.at)
        placed = [*awaited, *_placed(reduce(evolve, awaited, after), out, command.at, share_all=False)]
        events += placed
        after = reduce(evolve, placed, after)
        return events + _settle(after, command.at, command.seed)
    if after.dealt_this_round:
        # Hand-for-hand, other tables still play this round: out now, placed at its end;
        # nobody moves until then (a moved player could play the round's hand twice).
        return [finished, PlayersBusted(busted, command.at)] if busted else [finished]
    placed = _place_round(after, busted, command.at, state.announcement_round)
    events = [finished, *placed]
    return events + _settle(reduce(evolve, placed, after), command.at, command.seed)


def _placed(state: Tournament, busted: tuple[Bust, ...], at: float, share_all: bool) -> list[object]:
    """Players out together (one hand, or one hand-for-hand round), with their places."""
    if not busted:
        return []
    ordered = sorted(busted, key=lambda b: -b.starting_stack)
    ranking = RANK_SHARED if share_all else state._settings.bust_ranking
    places = places_for_round([(b.player_id, b.starting_stack, b.table) for b in ordered],
                              state.seating.players + len(state.round_busts), ranking)
    by = {b.player_id: b for b in busted}
    eliminated = PlayersEliminated(tuple(Elimination(p, place, by[p].busted_by, by[p].also_busted_by)
                                         for p, place in places), at)
    awards = _bounties_for(state, busted)
    return [eliminated, BountiesWon(awards, at)] if awards else [eliminated]


def _bounties_for(state: Tournament, busted: Iterable[Bust]) -> tuple[BountyAward, ...]:
    """The bounties of the players out, to the winners of the pots that busted them (in
    TDA 2024 20's order at the bust's table). A bust with nobody named leaves the bounty
    unclaimed (the cashier still holds it)."""
    s = state._settings
    if not s.bounty_kind:
        return ()
    awards: list[BountyAward] = []
    out = {b.player_id for b in busted}
    for bust in busted:
        winners = [w for w in dict.fromkeys(filter(None, (bust.busted_by, *bust.also_busted_by)))
                   if w in state.seating.where and w not in out]
        if not winners:
            continue
        table = state.seating.tables[bust.table - 1] if 0 < bust.table <= len(state.seating.tables) else None
        button = table.positions.button if table is not None and table.positions is not None else 0
        # The floor names split pots' winners at the bust's table only (_eliminate_reported).
        ordered = tda20_order(winners, {w: state.seating.where[w][1] for w in winners}, button, s.table_size)
        awards += bust_awards(s.bounty_kind, state.bounty_heads.get(bust.player_id, 0), bust.player_id, ordered,
                              s.bounty_cash_percent)
    return tuple(awards)


def _place_round(state: Tournament, busted: tuple[Bust, ...], at: float, share_all: bool) -> list[object]:
    """Everyone out in this hand-for-hand round, placed together (TDA 2024 RP-8-A)."""
    return _placed(state, state.round_busts + busted, at, share_all)


def _eliminate_reported(state: Tournament, settings: Settings, command: Eliminate) -> list[object]:
    """Busts reported by the floor: refused for anyone who still has chips (on the
    service's tables every bust is the table's own report, so a player there always has)."""
    if not command.busted:
        raise _refuse("nobody_busted", "an elimination names at least one player")
    names = [b.player_id for b in command.busted]
    if len(set(names)) != len(names):
        raise _refuse("duplicate_player", "a player is listed twice among the busted")
    for name in names:
        if name not in state.seating.where:
            raise _refuse("not_seated", f"player {name} is not in the tournament", player=name)
    for bust in command.busted:
        for winner in (bust.busted_by, *bust.also_busted_by):
            if winner is not None and (winner in names or winner not in state.seating.where):
                raise _refuse("invalid_busted_by", f"{winner} is not a player still in who could bust "
                              f"{bust.player_id}", player=bust.player_id, busted_by=winner)
        if bust.also_busted_by and any(state.seating.where[w][0] != state.seating.where[bust.player_id][0]
                                       for w in (bust.busted_by, *bust.also_busted_by) if w is not None):
            raise _refuse("invalid_busted_by", f"the winners of the pot that busted {bust.player_id} sit at "
                          "their table", player=bust.player_id)
        if settings.bounty_kind and settings.tables == TABLES_PHYSICAL and bust.busted_by is None:
            raise _refuse("busted_by_required", f"a bounty is on {bust.player_id}'s head: name who busted them",
                          player=bust.player_id)
    events: list[object] = []
    if command.counts:
        if settings.tables != TABLES_PHYSICAL:
            raise _refuse("service_tables", "the service deals this tournament's tables and knows their chips")
        events.append(_counted(state, command.counts, command.at))
        state = evolve(state, events[0])
    if settings.tables != TABLES_PHYSICAL:
        # A service table reports its own busts; the floor names only players it shows out.
        for name in names:
            if state.stack_of(name) > 0:
                raise _refuse("player_has_chips", f"player {name} still has {state.stack_of(name)} chips: "
                              "a player is out once they have none", player_id=name, stack=state.stack_of(name))
    for name in names:
        if name in state.awaiting_players:
            raise _refuse("awaiting_rebuy", f"player {name} is out of chips and may still rebuy: "
                          "decline the rebuy instead", player=name)
    if len(names) >= state.players_with_chips:
        raise _refuse("last_player", "the last player standing cannot be eliminated")
    # Physical tables: the floor's word is the fact; the player's chips went to someone at
    # the table and are counted when the floor next counts (chips in play stay exact).
    busted = tuple(replace(b, table=state.seating.where[b.player_id][0],
                           starting_stack=b.starting_stack or state.stack_of(b.player_id))
                   for b in command.busted)
    awaited, out = _split_rebuyers(state, busted, command.at)
    placed = [*awaited, *_placed(reduce(evolve, awaited, state), out, command.at, share_all=False)]
    return events + placed + _settle(reduce(evolve, placed, state), command.at, command.seed)


def _rebuy_open(state: Tournament, settings: Settings, at: float) -> bool:
    level = _level_of(state, at)
    return settings.rebuy_price > 0 and level is not None and level <= settings.rebuy_until_level


def _may_rebuy(state: Tournament, settings: Settings, player: str, at: float) -> bool:
    taken = state.rebuys_by_player.get(player, 0)
    return _rebuy_open(state, settings, at) and (settings.rebuys_allowed == 0 or taken < settings.rebuys_allowed)


def _split_rebuyers(state: Tournament, busted: tuple[Bust, ...], at: float) -> tuple[list[object], tuple[Bust, ...]]:
    """During the rebuy period a busted player who may still rebuy keeps the seat
    (RebuyAwaited); the others are out."""
    settings = state._settings
    awaited: list[object] = [RebuyAwaited(b.player_id, b.table, b.starting_stack, at, b.busted_by, b.also_busted_by)
                             for b in busted if _may_rebuy(state, settings, b.player_id, at)]
    waiting = {a.player_id for a in awaited}  # type: ignore[attr-defined]
    return awaited, tuple(b for b in busted if b.player_id not in waiting)


def _busts(state: Tournament, awaited: Iterable[RebuyAwaited]) -> tuple[Bust, ...]:
    return tuple(Bust(a.player_id, a.starting_stack, state.seating.where[a.player_id][0], a.busted_by,
                      a.also_busted_by) for a in awaited)


def _out_after_waiting(state: Tournament, awaited: tuple[RebuyAwaited, ...], at: float, seed: int) -> list[object]:
    """Busted players who did not rebuy: placed now (below everyone still in), then the
    tables are balanced as usual."""
    placed = _placed(state, _busts(state, awaited), at, share_all=False)
    return placed + _settle(reduce(evolve, placed, state), at, seed)


def _counted(state: Tournament, counts: tuple[ChipCount, ...], at: float) -> ChipsCounted:
    """Counts the floor has, for any players (a table, or a few stacks). Chips in play
    are known from the ledger, so the counts can never hold more; a whole table counted
    while every chip is accounted for (no bust's chips left uncounted) must hold exactly
    what it had."""
    names = [c.player_id for c in counts]
    if not counts or len(set(names)) != len(names):
        raise _refuse("invalid_counts", "a count names each player once")
    for count in counts:
        if count.player_id not in state.seating.where:
            raise _refuse("not_seated", f"player {count.player_id} is not in the tournament", player=count.player_id)
        if count.chips < 0:
            raise _refuse("invalid_counts", f"{count.player_id} cannot have {count.chips} chips")
    uncounted = state.chips_in_play - state.chips_known
    change = sum(c.chips - state.stack_of(c.player_id) for c in counts)
    if change > uncounted:
        raise _refuse("chips_not_conserved", f"the counts add {change} chips; only {max(uncounted, 0)} are in "
                      f"play and not yet counted ({state.chips_in_play} in play)",
                      counted=sum(c.chips for c in counts), expected=sum(state.stack_of(p) for p in names) + max(uncounted, 0),
                      chips_in_play=state.chips_in_play)
    tables = {state.seating.where[name][0] for name in names}
    if uncounted == 0 and len(tables) == 1:
        table = tables.pop()
        at_table = {p for p in state.seating.table(table).seats if p is not None}
        expected = sum(state.stack_of(p) for p in at_table)
        counted = sum(c.chips for c in counts) + sum(state.stack_of(p) for p in at_table - set(names))
        if set(names) == at_table and counted != expected:
            raise _refuse("chips_not_conserved", f"table {table} counts {counted} chips; it had {expected}",
                          table=table, counted=counted, expected=expected)
    return ChipsCounted(counts, at)


def _disqualify(state: Tournament, command: Disqualify) -> list[object]:
    if command.player_id not in state.seating.where:
        raise _refuse("not_seated", f"player {command.player_id} is not in the tournament",
                      player=command.player_id)
    if state.seating.players == 1:
        raise _refuse("last_player", "the last player standing cannot be disqualified")
    if state.seating.where[command.player_id][0] in state.hands_in_progress:
        if any(d.player_id == command.player_id for d in state.pending_disqualifications):
            raise _refuse("already_disqualified", f"player {command.player_id} is disqualified after this hand")
        return [DisqualificationQueued(command.player_id, command.reason, command.at)]
    event = _disqualified(state, command.player_id, command.reason, command.at)
    return [event, *_settle(evolve(state, event), command.at, command.seed)]


def _disqualified(state: Tournament, player: str, reason: str, at: float) -> PlayerDisqualified:
    return PlayerDisqualified(player, reason, state.seating.players, at, state.stack_of(player))


def _move(state: Tournament, command: MovePlayer) -> list[object]:
    if command.player_id in state.awaiting_players:
        raise _refuse("awaiting_rebuy", f"player {command.player_id} is out of chips and keeps the seat only to "
                      "rebuy: they move once they have", player=command.player_id)
    move = floor_move(state.seating, command.player_id, command.to_table, command.to_seat)
    for pending in state.pending_moves:
        if pending.player_id == command.player_id:
            raise _refuse("move_pending", f"player {command.player_id} already has move {pending.move_id} pending",
                          move_id=pending.move_id)
        if (pending.to_table, pending.to_seat) == (command.to_table, command.to_seat):
            raise _refuse("seat_reserved", f"seat {command.to_seat + 1} at table {command.to_table} is kept for "
                          f"move {pending.move_id}", move_id=pending.move_id, seat=command.to_seat + 1)
    if _may_move(state, move.from_table, move.to_table):
        return [PlayerMoved(move, seed=0, move_id=state.moves_queued + 1, at=command.at)]
    return [MoveQueued(state.moves_queued + 1, command.player_id, command.to_table, command.to_seat, command.at)]


def _may_move(state: Tournament, *tables: int) -> bool:
    """Players move between hands only, and not in an unfinished hand-for-hand round."""
    if state.hand_for_hand and (state.dealt_this_round or state.round_busts):
        return False
    return not set(tables) & state.hands_in_progress


def _settle(state: Tournament, at: float, seed: int) -> list[object]:
    """After players left or a hand ended: the tournament's end, or the queued
    disqualifications and moves, balancing and breaking, and hand-for-hand at the bubble."""
    if state.seating.players == 1:
        return _finishing(state, at)
    events: list[object] = []
    for pending in state.pending_disqualifications:
        if pending.player_id in state.seating.where and state.seating.players > 1 \
                and state.seating.where[pending.player_id][0] not in state.hands_in_progress:
            event = _disqualified(state, pending.player_id, pending.reason, at)
            events.append(event)
            state = evolve(state, event)
    if state.seating.players == 1:
        return [*events, *_finishing(state, at)]
    for pending in state.pending_moves:
        event = _queued_move(state, pending, at)
        if event is not None:
            events.append(event)
            state = evolve(state, event)
    balanced = _balance(state, seed, at)
    state = reduce(evolve, balanced, state)
    return events + balanced + _bubble(state, at)


def _queued_move(state: Tournament, pending: MoveQueued, at: float) -> object | None:
    if pending.player_id not in state.seating.where:
        return MoveCancelled(pending.move_id, "player_out")
    if pending.player_id in state.awaiting_players:
        return MoveCancelled(pending.move_id, "awaiting_rebuy")
    if not _may_move(state, state.seating.where[pending.player_id][0], pending.to_table):
        return None
    try:
        move = floor_move(state.seating, pending.player_id, pending.to_table, pending.to_seat)
    except Violation as refused:
        return MoveCancelled(pending.move_id, refused.code)
    return PlayerMoved(move, seed=0, move_id=pending.move_id, at=at)


def _bubble(state: Tournament, at: float) -> list[object]:
    """Hand-for-hand by itself: with the setting, on when the next bust is the bubble and
    off once it has burst; however it began, off once one table is left, where every hand
    is played hand for hand anyway (a round would only hold the deals back)."""
    if state.round_busts:
        return []
    if state.hand_for_hand and state.seating.open_tables <= 1:
        return [HandForHandStopped(at)]
    if not state._settings.hand_for_hand_at_bubble:
        return []
    paid = len(state.payout_table())
    if not state.hand_for_hand and state.seating.players == paid + 1 and state.seating.open_tables > 1:
        return [HandForHandStarted(at)]
    if state.hand_for_hand and state.seating.players <= paid:
        return [HandForHandStopped(at)]
    return []


def _balance(state: Tournament, seed: int, at: float) -> list[object]:
    settings = state._settings
    policy = BalancePolicy(settings.balance_tolerance, settings.break_order)
    # A table where a busted player waits to rebuy keeps its players until that is settled
    # (they count as seated; their seat is not given away).
    waiting = {state.seating.where[a.player_id][0] for a in state.awaiting_rebuy}
    result = rebalance(state.seating, random.Random(seed), policy, busy=state.hands_in_progress | waiting)
    events: list[object] = [PlayerMoved(m, seed, move_id=state.moves_queued + n, at=at)
                            for n, m in enumerate(result.moves, start=1)]
    events += [TableBroken(number, seed) for number in result.broken]
    if result.deferred != (state.balance_pending if not events else ()):
        events.append(BalancePending(result.deferred))
    if result.seating.open_tables == 1 and not state.final_table_reached:
        events.append(FinalTableReached(result.seating.open_table_numbers()[0], result.seating.players))
    return events


def _finishing(state: Tournament, at: float) -> list[object]:
    """The last player standing collects their own bounty, and the tournament is over."""
    winner = next(iter(state.seating.where))
    head = state.bounty_heads.get(winner, 0)
    own = [BountiesWon((BountyAward(winner, winner, head),), at)] if head else []
    return [*own, _finished(reduce(evolve, own, state), at)]


def _finished(state: Tournament, at: float) -> TournamentFinished:
    finished = replace(state, status=FINISHED)
    return TournamentFinished(winner=finished.finishing_order()[0].player_id, prize_pool=state.prize_pool,
                              prizes=finished.prizes(), at=at)


def _deal_agreed(state: Tournament, command: RecordDeal) -> list[object]:
    """A deal among the players left (running-events.md): every one of them named once,
    amounts and what is left to play for not negative, together the prize money still to pay."""
    if state.deal is not None:
        raise _refuse("deal_exists", "a deal was already recorded for this tournament")
    if state.awaiting_rebuy:
        raise _refuse("awaiting_rebuy", "a busted player may still rebuy: settle that before a deal",
                      players=sorted(state.awaiting_players))
    settings = state._settings
    level = _level_of(state, command.at)
    if _late_registration_open(state, settings, command.at) or _rebuy_open(state, settings, command.at) \
            or (settings.add_on_price > 0 and level is not None and level <= settings.add_on_until_level):
        # The pool could still grow: a deal shares out a pool that is settled.
        raise _refuse("entries_open", "late registration, rebuys or add-ons are still open: the prize pool is not "
                      "settled yet", level=level)
    named = [share.player_id for share in command.shares]
    left = sorted(state.seating.where)
    if sorted(named) != left:
        raise _refuse("deal_players", "a deal names every player left, once each",
                      named=sorted(named), players_left=left)
    if command.left_to_play_for < 0 or any(share.amount < 0 for share in command.shares):
        raise _refuse("invalid_deal", "deal amounts and what is left to play for are not negative")
    places = sorted(share.place for share in command.shares)
    if any(places) and places != list(range(1, len(places) + 1)):
        raise _refuse("deal_places", f"places agreed in a deal are none, or each of 1 to {len(places)} once",
                      places=places, players_left=len(places))
    remaining = state.remaining_pool
    agreed = sum(share.amount for share in command.shares) + command.left_to_play_for
    if agreed != remaining:
        raise _refuse("deal_does_not_add_up", f"the deal's amounts and what is left to play for come to {agreed}, "
                      f"the prize money still to pay is {remaining}", agreed=agreed, remaining_pool=remaining)
    return [DealRecorded(command.shares, command.left_to_play_for, remaining, command.at)]


def _clock(state: Tournament, command: object) -> list[object]:
    clock = state.clock
    if isinstance(command, PauseClock):
        if clock.paused:
            raise _refuse("clock_paused", "the clock is already paused")
        return [ClockPaused(command.at)]
    if isinstance(command, ResumeClock):
        if not clock.paused:
            raise _refuse("clock_running", "the clock is not paused")
        return [ClockResumed(command.at)]
    if isinstance(command, AdjustClock):
        check_adjustment(clock, int(command.seconds), command.at)
        reading = read_clock(clock, command.at)
        assert reading.period_index is not None
        length = clock.periods[reading.period_index].length_s
        after = int(reading.remaining_s) + int(command.seconds)
        if command.seconds > 0 and after > length and not command.confirm:
            # +6000 s on a 20-minute level is a typo more often than a decision.
            raise _refuse("adjust_past_level_length", f"adding {int(command.seconds)} s leaves {after} s in a "
                          f"period of {length} s: confirm it to go past the level's length",
                          seconds=int(command.seconds), remaining_s=int(reading.remaining_s), length_s=length,
                          would_leave_s=after, period=reading.period_index + 1, level=reading.level)
        return [ClockAdjusted(command.seconds, command.at)]
    if not 0 <= command.period_index < len(clock.periods):  # type: ignore[attr-defined]
        raise _refuse("unknown_level", f"the structure has no period {command.period_index + 1}",  # type: ignore[attr-defined]
                      period=command.period_index + 1, periods=len(clock.periods))  # type: ignore[attr-defined]
    if isinstance(command, SetLevel):
        full = clock.periods[command.period_index].length_s
        # Back to a period the clock left early (a mistaken "next"): the time it had then
        # (TDA practice restores the level as it was); forward, or never left: its full time.
        left_with = state.left_periods.get(command.period_index)
        remaining = command.remaining_s if command.remaining_s is not None else left_with or full
        if not 0 < remaining <= full:
            raise _refuse("invalid_remaining", f"a period of {full} s can have 1 to {full} s left, not {remaining}",
                          remaining_s=remaining, length_s=full)
        return [LevelSet(command.period_index, remaining, command.at)]
    assert isinstance(command, StartLevel)
    return [LevelStarted(command.period_index, command.at)]


def _rebuy_or_add_on(state: Tournament, settings: Settings, command: Rebuy | AddOn) -> list[object]:
    rebuy = isinstance(command, Rebuy)
    what, code = ("rebuy", "rebuy") if rebuy else ("add-on", "add_on")
    price = settings.rebuy_price if rebuy else settings.add_on_price
    if price == 0:
        raise _refuse(f"{code}_not_offered", f"this tournament offers no {what}")
    player = command.player_id
    if player not in state.seating.where:
        raise _refuse("not_seated", f"player {player} is not in the tournament", player=player)
    if not rebuy and player in state.awaiting_players:
        raise _refuse("awaiting_rebuy", f"player {player} is out of chips: a rebuy comes before an add-on",
                      player=player)
    until = settings.rebuy_until_level if rebuy else settings.add_on_until_level
    level = _level_of(state, command.at)
    if level is None or level > until:
        raise _refuse(f"{code}_closed", f"{what}s end with level {until} (and the break after it); "
                      f"this is level {level}", level=level, until_level=until)
    taken = (state.rebuys_by_player if rebuy else state.add_ons_by_player).get(player, 0)
    allowed = settings.rebuys_allowed if rebuy else settings.add_ons_allowed
    count = 2 if isinstance(command, Rebuy) and command.double else 1
    if count == 2 and not settings.double_rebuy:
        raise _refuse("double_rebuy_not_offered", "this tournament offers no double rebuy")
    if (allowed or not rebuy) and taken + count > allowed:  # rebuys: 0 allowed means no limit
        raise _refuse(f"{code}_limit", f"player {player} has taken {taken} {what}s of the {allowed} allowed",
                      taken=taken, allowed=allowed, asked=count)
    stack = state.stack_of(player)
    threshold = settings.rebuy_at_or_below or settings.starting_stack
    if rebuy and stack > threshold:
        raise _refuse("rebuy_above_starting_stack", f"player {player} has {chips_written(stack)} chips: a rebuy is taken at or "
                      f"below {chips_written(threshold)}", stack=stack, rebuy_at_or_below=threshold,
                      starting_stack=settings.starting_stack)
    chips = settings.rebuy_chips if rebuy else settings.add_on_chips
    return [RebuyTaken(player, chips * count, count) if rebuy else AddOnTaken(player, chips)]


def _undo(state: Tournament, settings: Settings, command: Undo) -> list[object]:
    """The last elimination, rebuy or clock change, reversed by compensating events, while
    nothing later depends on it (a move, a hand dealt, a count, a finish...)."""
    act = state.undoable
    if act is None:
        raise _refuse("nothing_to_undo", "there is no elimination, rebuy or clock change to undo")
    if state.undo_blocked_by is not None:
        raise _refuse("undo_blocked", f"the last {act.kind} cannot be undone: a {state.undo_blocked_by} "
                      "followed it", undoing=act.kind, depends=state.undo_blocked_by)
    if act.kind == "elimination":
        if settings.tables == TABLES_SERVICE:
            raise _refuse("undo_blocked", "a service table decided this elimination in its hand: it stands",
                          undoing=act.kind, depends="HandFinished")
        events: list[object] = [EliminationUndone(act.seats, command.at)]
        if act.bounties:
            events.append(BountiesReversed(act.bounties, command.at))
        return events + [replace(a, at=command.at) for a in act.awaiting
                         if a.player_id in {s.player_id for s in act.seats}]
    if act.kind == "rebuy":
        taken = act.event
        assert isinstance(taken, RebuyTaken)
        if state.stack_of(taken.player_id) < taken.chips:
            raise _refuse("undo_blocked", f"player {taken.player_id} no longer has the {taken.chips} chips of the "
                          "rebuy", undoing=act.kind, depends="chips")
        return [RebuyUndone(taken.player_id, taken.chips, taken.count, command.at), *act.awaiting]
    assert act.clock_before is not None
    before = read_clock(act.clock_before, command.at)
    now = read_clock(state.clock, command.at)
    events = []
    if before.paused and not now.paused:
        events.append(ClockPaused(command.at))
    elif now.paused and not before.paused:
        events.append(ClockResumed(command.at))
    assert before.period_index is not None
    events.append(LevelSet(before.period_index, max(1, int(before.remaining_s)), command.at))
    return [*events, ClockChangeUndone(type(act.event).__name__, command.at)]


def _race(state: Tournament, settings: Settings, command: RaceChips) -> list[object]:
    seating_table = state.seating.table(command.table)
    due = state.colour_up_due(command.table, command.at)
    if due is None:
        raise _refuse("no_colour_up_due", f"table {command.table} has no colour-up due", table=command.table)
    if command.table in state.hands_in_progress:
        raise _refuse("hand_in_progress", f"table {command.table} races its chips between hands", table=command.table)
    smallest = state.smallest_chip.get(command.table, settings.denominations[0])
    stacks = [(seat, p, state.stack_of(p)) for seat, p in enumerate(seating_table.seats) if p is not None]
    raced = chip_race(stacks, smallest, due, random.Random(command.seed))
    removed = sum(r.before - r.after for r in raced)
    return [ChipsRaced(command.table, smallest, due, raced, removed, command.seed, command.at)]


# --- evolve ----------------------------------------------------------------------------

def _plus(values: Mapping[str, int], key: str, amount: int) -> dict[str, int]:
    """For the small mappings (credits during a hand, rebuys and add-ons by player)."""
    changed = dict(values)
    changed[key] = changed.get(key, 0) + amount
    return changed


def _without(values: Mapping[str, int], keys: Iterable[str]) -> Mapping[str, int]:
    gone = set(keys)
    if not gone & set(values):
        return values
    return {k: v for k, v in values.items() if k not in gone}


def _changes(state: Tournament, *changes: tuple[str, int, str]) -> tuple[ChipChange, ...]:
    """Service tables apply chip changes between hands; physical tables need none."""
    if state._settings.tables != TABLES_SERVICE:
        return state.chip_changes
    start = len(state.chip_changes) + 1
    return state.chip_changes + tuple(ChipChange(start + i, p, amount, reason)
                                      for i, (p, amount, reason) in enumerate(c for c in changes if c[1]))


def _leaving(state: Tournament, players: Iterable[str]) -> Tournament:
    players = tuple(players)
    gone = set(players)
    return replace(
        state, stacks=state.stacks.updated(dict.fromkeys(players)),
        credits_in_hand=_without(state.credits_in_hand, players),
        awaiting_rebuy=tuple(a for a in state.awaiting_rebuy if a.player_id not in gone),
        dealt_since_bust=state.dealt_since_bust - gone,
        pending_disqualifications=tuple(d for d in state.pending_disqualifications if d.player_id not in players),
    )


def evolve(state: Tournament, event: object) -> Tournament:
    return _track_undo(state, _evolve(state, event), event)


def _track_undo(before: Tournament, after: Tournament, event: object) -> Tournament:
    """Remember the last elimination, rebuy or clock change, and what came after it."""
    if isinstance(event, PlayersEliminated):
        seats = tuple(RestoredSeat(e.player_id, *before.seating.where[e.player_id], before.stack_of(e.player_id), e.place)
                      for e in event.eliminations if e.player_id in before.seating.where)
        return replace(after, undoable=UndoableAct("elimination", event, seats=seats, awaiting=before.awaiting_rebuy),
                       undo_blocked_by=None)
    if isinstance(event, RebuyTaken):
        waited = tuple(a for a in before.awaiting_rebuy if a.player_id == event.player_id)
        return replace(after, undoable=UndoableAct("rebuy", event, awaiting=waited), undo_blocked_by=None)
    if isinstance(event, (ClockPaused, ClockResumed, ClockAdjusted, LevelSet)):
        return replace(after, undoable=UndoableAct("clock", event, clock_before=before.clock), undo_blocked_by=None)
    if isinstance(event, BountiesWon) and before.undoable is not None and before.undoable.kind == "elimination" \
            and before.undo_blocked_by is None:
        return replace(after, undoable=replace(before.undoable, bounties=before.undoable.bounties + event.awards))
    if isinstance(event, (EliminationUndone, RebuyUndone, ClockChangeUndone)):
        return replace(after, undoable=None, undo_blocked_by=None)
    if before.undoable is not None and before.undo_blocked_by is None \
            and type(event).__name__ not in UNDO_TRANSPARENT \
            and not (isinstance(event, RebuyAwaited) and before.undoable.kind != "clock"):
        return replace(after, undo_blocked_by=type(event).__name__)
    return after


def _evolve(state: Tournament, event: object) -> Tournament:
    if isinstance(event, TournamentCreated):
        s = event.settings
        ends = s.starts_at + sum(p.length_s for p in s.structure)
        if not FIRST_SHOWN_INSTANT <= s.starts_at <= ends <= LAST_SHOWN_INSTANT:
            # Only a tournament stored before the start was limited (CreateTournament
            # refuses it): its clock would reach instants no date shows.
            raise ValueError(f"starts_at {s.starts_at} and the structure's end {ends} lie outside "
                             f"years 1-9999 ({FIRST_SHOWN_INSTANT} to {LAST_SHOWN_INSTANT})")
        return replace(
            state, tournament_id=event.tournament_id, settings=s, status=REGISTERING,
            seating=empty_seating(s.table_size), clock=new_clock(s.structure),
        )
    if isinstance(event, PlayerRegistered):
        entries = dict(state.entries_by_player)
        entries[event.player_id] = entries.get(event.player_id, 0) + 1
        standings = tuple(e for e in state.standings if e.player_id != event.player_id)
        registered = state.registered if state.status == RUNNING else state.registered + (event.player_id,)
        return replace(
            state, registered=registered, entries_by_player=entries, standings=standings,
            re_entries=state.re_entries + event.re_entry,
            bounty_heads=_plus(state.bounty_heads, event.player_id, state._settings.bounty)
            if state._settings.bounty_kind else state.bounty_heads,
        )
    if isinstance(event, PlayerUnregistered):
        entries = dict(state.entries_by_player)
        entries.pop(event.player_id, None)
        return replace(
            state, registered=tuple(p for p in state.registered if p != event.player_id),
            entries_by_player=entries, bounty_heads=_without(state.bounty_heads, (event.player_id,)),
        )
    if isinstance(event, BountiesWon):
        heads = {**state.bounty_heads, **{a.busted: 0 for a in event.awards}}
        for award in event.awards:
            heads[award.winner] = heads.get(award.winner, 0) + award.head
        return replace(state, bounty_heads=heads, bounties_won=state.bounties_won + event.awards)
    if isinstance(event, BountiesReversed):
        heads = dict(state.bounty_heads)
        for award in event.awards:
            heads[award.winner] -= award.head
            heads[award.busted] = heads.get(award.busted, 0) + award.cash + award.head
        # Undone while nothing followed: its awards are the ledger's last.
        return replace(state, bounty_heads=heads, bounties_won=state.bounties_won[: -len(event.awards)])
    if isinstance(event, DealRecorded):
        return replace(state, deal=event)
    if isinstance(event, TournamentStarted):
        seating = seated(state._settings.table_size, event.seats, event.buttons)
        stack = state._settings.starting_stack
        return replace(state, status=RUNNING, seating=seating, final_table_reached=seating.open_tables == 1,
                       stacks=state.stacks.updated({seat.player_id: stack for seat in event.seats}))
    if isinstance(event, LevelSet):
        left = read_clock(state.clock, event.at)
        periods = dict(state.left_periods)
        if left.period_index is not None and left.period_index != event.period_index:
            periods[left.period_index] = int(left.remaining_s)
        periods.pop(event.period_index, None)
        return replace(state, clock=evolve_clock(state.clock, event), left_periods=periods)
    if isinstance(event, LevelStarted):
        return replace(state, clock=evolve_clock(state.clock, event),
                       left_periods=_without(state.left_periods, (event.period_index,)))  # type: ignore[arg-type]
    if isinstance(event, (ClockPaused, ClockResumed, ClockAdjusted)):
        return replace(state, clock=evolve_clock(state.clock, event))
    if isinstance(event, RebuyAwaited):
        return replace(state, awaiting_rebuy=state.awaiting_rebuy + (event,),
                       stacks=state.stacks.updated({event.player_id: 0}),
                       credits_in_hand=_without(state.credits_in_hand, (event.player_id,)))
    if isinstance(event, (RebuyDeclined, ClockChangeUndone)):
        return state
    if isinstance(event, MoveSeated):
        return replace(state, move_calls=tuple(replace(c, seated_at=event.at) if c.move_id == event.move_id else c
                                               for c in state.move_calls))
    if isinstance(event, EliminationUndone):
        seating = state.seating
        for restored in event.seats:
            seating = apply_seat(seating, Seat(restored.player_id, restored.table, restored.seat))
        back = {(r.player_id, r.place) for r in event.seats}
        return replace(state, seating=seating, standings=tuple(e for e in state.standings
                                                               if (e.player_id, e.place) not in back),
                       stacks=state.stacks.updated({r.player_id: r.chips for r in event.seats}))
    if isinstance(event, RebuyUndone):
        player = event.player_id
        in_hand = state.credits_in_hand.get(player, 0) >= event.chips
        return replace(
            state, rebuys=state.rebuys - event.count,
            rebuys_by_player=_plus(state.rebuys_by_player, player, -event.count),
            credits_in_hand=_plus(state.credits_in_hand, player, -event.chips) if in_hand else state.credits_in_hand,
            stacks=state.stacks if in_hand else state.stacks.updated({player: state.stacks.get(player, 0) - event.chips}),
            chip_changes=_changes(state, (player, -event.chips, "rebuy undone")),
        )
    if isinstance(event, PlayerSeated):
        return replace(state, seating=apply_seat(state.seating, event.seat),
                       stacks=state.stacks.updated({event.seat.player_id: state._settings.starting_stack}))
    if isinstance(event, HandDealt):
        waiting_here = {a.player_id for a in state.awaiting_rebuy if state.seating.where[a.player_id][0] == event.table}
        return replace(
            state, dealt_since_bust=state.dealt_since_bust | waiting_here,
            seating=apply_positions(state.seating, event.table, event.positions),
            hands_in_progress=state.hands_in_progress | {event.table},
            dealt_this_round=state.dealt_this_round | {event.table} if state.hand_for_hand else frozenset(),
        )
    if isinstance(event, HandFinished):
        # The table's chips after the hand; rebuys and add-ons taken during it are added
        # to the table before its next deal.
        # The table's own seats, not a scan of every player's (10,000 players, 9 seats).
        seats = state.seating.tables[event.table - 1] if 0 < event.table <= len(state.seating.tables) else None
        at_table = [] if seats is None else [p for p in seats.seats if p is not None]
        stacks: dict[str, int | None] = {c.player_id: c.chips for c in event.stacks}
        for player in at_table:
            chips = stacks[player] if player in stacks else state.stacks.get(player, 0)
            stacks[player] = (chips or 0) + state.credits_in_hand.get(player, 0)
        return _round_checked(replace(
            state, hands_in_progress=state.hands_in_progress - {event.table}, stacks=state.stacks.updated(stacks),
            credits_in_hand=_without(state.credits_in_hand, at_table),
        ))
    if isinstance(event, PlayersBusted):
        seating = state.seating
        for bust in event.busted:
            seating = remove_player(seating, bust.player_id)
        return _leaving(replace(state, seating=seating, round_busts=state.round_busts + event.busted),
                        (b.player_id for b in event.busted))
    if isinstance(event, PlayersEliminated):
        seating = state.seating
        for elimination in event.eliminations:
            if elimination.player_id in seating.where:  # round busts already left their seats
                seating = remove_player(seating, elimination.player_id)
        return _leaving(replace(state, seating=seating, standings=state.standings + event.eliminations,
                                round_busts=(), announcement_round=False),
                        (e.player_id for e in event.eliminations))
    if isinstance(event, PlayerDisqualified):
        return _leaving(replace(
            state, seating=remove_player(state.seating, event.player_id),
            standings=state.standings + (Elimination(event.player_id, event.place),),
            chips_removed=state.chips_removed + event.chips_removed,
        ), (event.player_id,))
    if isinstance(event, DisqualificationQueued):
        return replace(state, pending_disqualifications=state.pending_disqualifications + (event,))
    if isinstance(event, PlayerMoved):
        pending = state.balance_pending if event.move.reason == "floor" else ()
        m = event.move
        calls = state.move_calls
        if event.move_id:
            calls = (calls + (MoveCall(event.move_id, m.player_id, m.from_table, m.from_seat, m.to_table, m.to_seat,
                                       m.reason, event.at),))[-RECENT_MOVES:]
        return replace(state, seating=apply_move(state.seating, event.move), balance_pending=pending,
                       pending_moves=tuple(m for m in state.pending_moves if m.move_id != event.move_id),
                       move_calls=calls, moves_queued=max(state.moves_queued, event.move_id))
    if isinstance(event, MoveQueued):
        return replace(state, pending_moves=state.pending_moves + (event,), moves_queued=event.move_id)
    if isinstance(event, MoveCancelled):
        return replace(state, pending_moves=tuple(m for m in state.pending_moves if m.move_id != event.move_id))
    if isinstance(event, BalancePending):
        return replace(state, balance_pending=event.tables)
    if isinstance(event, TableBroken):
        return _round_checked(replace(
            state, seating=apply_break(state.seating, event.table),
            dealt_this_round=state.dealt_this_round - {event.table}, balance_pending=(),
        ))
    if isinstance(event, FinalTableReached):
        return replace(state, final_table_reached=True)
    if isinstance(event, HandForHandStarted):
        # The hands being played when it is announced are its first round (TDA 2024 RP-8-A).
        return replace(state, hand_for_hand=True, dealt_this_round=state.hands_in_progress,
                       announcement_round=bool(state.hands_in_progress))
    if isinstance(event, HandForHandStopped):
        return replace(state, hand_for_hand=False, dealt_this_round=frozenset(), announcement_round=False)
    if isinstance(event, (RebuyTaken, AddOnTaken)):
        rebuy = isinstance(event, RebuyTaken)
        player = event.player_id
        in_hand = state.seating.where[player][0] in state.hands_in_progress
        counts = dict(
            rebuys=state.rebuys + (event.count if isinstance(event, RebuyTaken) else 0), add_ons=state.add_ons + (not rebuy),
            rebuys_by_player=_plus(state.rebuys_by_player, player, event.count)
            if isinstance(event, RebuyTaken) else state.rebuys_by_player,
            add_ons_by_player=state.add_ons_by_player if rebuy else _plus(state.add_ons_by_player, player, 1),
            chip_changes=_changes(state, (player, event.chips, "rebuy" if rebuy else "add-on")),
        )
        if rebuy:
            counts.update(awaiting_rebuy=tuple(a for a in state.awaiting_rebuy if a.player_id != player),
                          dealt_since_bust=state.dealt_since_bust - {player})
        if in_hand:
            return replace(state, credits_in_hand=_plus(state.credits_in_hand, player, event.chips), **counts)
        return replace(state, stacks=state.stacks.updated({player: state.stacks.get(player, 0) + event.chips}),
                       **counts)
    if isinstance(event, ChipsCounted):
        return replace(state, stacks=state.stacks.updated({c.player_id: c.chips for c in event.counts}))
    if isinstance(event, ChipsRaced):
        return replace(
            state, stacks=state.stacks.updated({r.player_id: r.after for r in event.stacks}),
            chips_removed=state.chips_removed + event.removed,
            smallest_chip={**state.smallest_chip, event.table: event.smallest},
            chip_changes=_changes(state, *((r.player_id, r.after - r.before, "colour-up") for r in event.stacks)),
        )
    if isinstance(event, TournamentFinished):
        return replace(state, status=FINISHED, final_prizes=event.prizes)
    raise TypeError(f"unknown event {type(event).__name__}")


def _round_checked(state: Tournament) -> Tournament:
    """Hand-for-hand: once every table that can play has played this round's hand and
    none is still playing, the next round begins."""
    # Judged on the open tables only in a round (hand-for-hand) that no table still plays.
    if not state.dealt_this_round or state.hands_in_progress:
        return state
    playing = {n for n in state.seating.open_table_numbers() if state.seating.counts[n - 1] >= 2}
    if state.dealt_this_round >= playing:
        return replace(state, dealt_this_round=frozenset(), announcement_round=False)
    return state


def replay(events: Iterable[object]) -> Tournament:
    return reduce(evolve, events, INITIAL)
