"""A tournament's state (what its events have made it) and what is read from it: the
money, the chips, the finishing order; the refusals the deciders share.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from domain.ratings import Finish, GameResult
from domain.rules.violations import Violation
from domain.tournaments.bounties import BountyAward
from domain.tournaments.by_player import ByPlayer
from domain.tournaments.clock import Clock, new_clock, read_clock
from domain.tournaments.commands import TABLES_PHYSICAL, Bust, Settings
from domain.tournaments.events import ChipChange, DealRecorded, DisqualificationQueued, Elimination, MoveQueued, Prize, RebuyAwaited, RestoredSeat
from domain.tournaments.payouts import fixed_payout_amounts, payout_amounts, preset_percentages, prize_pool, prizes_for_places
from domain.tournaments.seating import Seating, empty_seating
from domain.tournaments.structure import level_number

REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"
RECENT_MOVES = 30  # moves kept for the screens: "Ann Duke: table 3 seat 4 -> table 1 seat 2"


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
        s = self.required_settings
        return prize_pool(
            s.buy_in, self.entries - self.re_entries, self.re_entries,
            self.rebuys, s.rebuy_price, self.add_ons, s.add_on_price,
        )

    @property
    def fees(self) -> int:
        s = self.required_settings
        return self.entries * s.fee + self.rebuys * s.rebuy_fee + self.add_ons * s.add_on_fee

    @property
    def bounties_collected(self) -> int:
        return self.entries * self.required_settings.bounty if self.required_settings.bounty_kind else 0

    @property
    def prize_pool(self) -> int:
        """The contributions, at least the guarantee (fixed payouts guarantee their sum)."""
        s = self.required_settings
        return max(self.contributions, s.guarantee, sum(s.payout_fixed))

    @property
    def overlay(self) -> int:
        """What the house adds to reach the guarantee."""
        return self.prize_pool - self.contributions

    def payout_table(self) -> tuple[int, ...]:
        """The amounts by place for the prize pool so far (percentages, fixed or preset)."""
        s = self.required_settings
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
    def required_settings(self) -> Settings:
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
        s = self.required_settings
        if not rebuy_open(self, s, at):
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
        s = self.required_settings
        if s.tables != TABLES_PHYSICAL:
            return ()
        return tuple(c for c in self.move_calls if c.seated_at is None and now < c.at + s.move_call_s)

    @property
    def chips_issued(self) -> int:
        """entries x starting stack + rebuys x rebuy chips + add-ons x add-on chips."""
        s = self.required_settings
        return self.entries * s.starting_stack + self.rebuys * s.rebuy_chips + self.add_ons * s.add_on_chips

    def pending_chip_changes(self, applied: Iterable[int]) -> tuple[ChipChange, ...]:
        done = set(applied)
        return tuple(c for c in self.chip_changes if c.change_id not in done)

    def colour_up_due(self, table: int, at: float) -> int | None:
        """The denomination table `table` must be raced to before its next hand, if any."""
        target = self._colour_up_target(at)
        if target is None:
            return None
        return target if target > self.smallest_chip.get(table, self.required_settings.denominations[0]) else None

    def _colour_up_target(self, at: float) -> int | None:
        s = self.required_settings
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


def iso(epoch: float) -> str:
    """An instant as people read it: ISO 8601, UTC."""
    return datetime.fromtimestamp(int(epoch), UTC).isoformat().replace("+00:00", "Z")


def refuse(code: str, detail: str, **numbers: object) -> Violation:
    """A tournament refusal; it names a rule only where one applies (domain.rules.citations)."""
    return Violation(code, detail, numbers=numbers)


def level_of(state: Tournament, at: float) -> int | None:
    """The number of the level in force at `at` (a break counts as the level before it)."""
    reading = read_clock(state.clock, at)
    if reading.level_in_force is None:
        return None
    return level_number(state.required_settings.structure, reading.level_in_force)


def late_registration_open(state: Tournament, settings: Settings, at: float) -> bool:
    """Open through the last late level and the break that follows it, if any."""
    level = level_of(state, at)
    return level is not None and level <= settings.late_registration_until_level


def rebuy_open(state: Tournament, settings: Settings, at: float) -> bool:
    level = level_of(state, at)
    return settings.rebuy_price > 0 and level is not None and level <= settings.rebuy_until_level
