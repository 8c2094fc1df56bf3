"""The tournament decider: registration, the draw, hands dealt with the level in force
(TDA 2024 23) and a dead button (TDA 2024 32), eliminations with balancing and breaking (TDA 2024 10,
11), hand-for-hand, the level clock, floor moves, disqualification, rebuys, add-ons and
colour-ups, finishing order and prizes.

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

Every random draw (seats, balancing ties, broken tables' seats, chip races) uses a seed
carried by the command and recorded in the events; replay applies the recorded seats and
never draws again. Times are seconds since the epoch, carried by the commands; problems
speak of them as ISO 8601 instants.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import reduce
from typing import Iterable, Mapping

from domain.ratings import Finish, GameResult
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
    parse_percentages,
    payout_amounts,
    places_for_round,
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
from domain.tournaments.by_player import ByPlayer
from domain.tournaments.chips import RacedStack, chip_race
from domain.tournaments.structure import Period, level_number, validate_structure
from domain.rules.violations import Violation

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


@dataclass(frozen=True)
class Bust:
    player_id: str
    starting_stack: int  # the player's stack when the hand started
    table: int = 0  # where they busted (set by the decider)


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


@dataclass(frozen=True)
class AddOn:
    player_id: str
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
    move_id: int = 0  # the queued floor move it carries out, if any


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
            ChipsCounted, ChipsRaced, MoveQueued, MoveCancelled,
        )
    },
}


# --- state -----------------------------------------------------------------------------

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

    @property
    def entries(self) -> int:
        return sum(self.entries_by_player.values())

    @property
    def prize_pool(self) -> int:
        s = self._settings
        return prize_pool(
            s.buy_in, self.entries - self.re_entries, self.re_entries,
            self.rebuys, s.rebuy_price, self.add_ons, s.add_on_price,
        )

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
        return sum(self.stack_of(p) for p in self.seating.where)

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
FIRST_SHOWN_INSTANT = int(datetime(1, 1, 1, tzinfo=timezone.utc).timestamp())
LAST_SHOWN_INSTANT = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc).timestamp())


def iso(epoch: float) -> str:
    """An instant as people read it: ISO 8601, UTC."""
    return datetime.fromtimestamp(int(epoch), timezone.utc).isoformat().replace("+00:00", "Z")


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
        return _rebuy_or_add_on(state, settings, command)
    raise _refuse("unknown_command", f"unknown command {type(command).__name__}")


def _create(state: Tournament, command: CreateTournament) -> list[object]:
    if state.settings is not None:
        raise _refuse("tournament_exists", f"tournament {state.tournament_id} already exists")
    s = command.settings
    structure = validate_structure(s.structure)
    parse_percentages(s.payout_percentages)
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
        if offered and (chips <= 0 or allowed <= 0 or not 1 <= until <= levels):
            raise _refuse("invalid_setting", f"a {what.replace('_', '-')} offered gives chips (more than 0), "
                          f"at least one per player, until a level of the structure (1..{levels})",
                          **{f"{what}_chips": chips, f"{what}s_allowed": allowed, f"{what}_until_level": until,
                             "levels": levels})
        if not offered and (chips or allowed or until):
            raise _refuse("invalid_setting", f"{what.replace('_', '-')} chips, count and level need a "
                          f"{what.replace('_', '-')} price")
    if s.re_entries_allowed < 0 or s.balance_tolerance < 1:
        raise _refuse("invalid_setting", "re-entries are not negative and the tolerance is at least 1")
    if s.break_order not in (BREAK_PREDETERMINED, BREAK_RANDOM):
        raise _refuse("invalid_setting", f"unknown break order {s.break_order!r}")
    if s.bust_ranking not in (RANK_SHARED, RANK_BY_STARTING_STACK):
        raise _refuse("invalid_setting", f"unknown bust ranking {s.bust_ranking!r}")
    if s.tables not in (TABLES_SERVICE, TABLES_PHYSICAL):
        raise _refuse("invalid_setting", f"tables are \"service\" or \"physical\", not {s.tables!r}")
    _check_denominations(s, structure)
    return [TournamentCreated(command.tournament_id, replace(s, structure=structure))]


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
    return events + _balance(after, command.seed)


def _start(state: Tournament, settings: Settings, command: StartTournament) -> list[object]:
    if state.status != REGISTERING:
        raise _refuse("already_started", "the tournament has already started")
    if command.at < settings.starts_at:
        raise _refuse("too_early", f"the tournament starts at {iso(settings.starts_at)}, not before "
                      f"(it is {iso(command.at)})", starts_at=iso(settings.starts_at), now=iso(command.at),
                      starts_in_s=int(settings.starts_at - command.at))
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
    positions = next_positions(table.seats, table.positions)
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
        events: list[object] = [finished, *_placed(after, busted, command.at, share_all=False)]
        after = reduce(evolve, events[1:], after)
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
    return [PlayersEliminated(tuple(Elimination(p, place) for p, place in places), at)]


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
    events: list[object] = []
    if command.counts:
        if settings.tables != TABLES_PHYSICAL:
            raise _refuse("service_tables", "the service deals this tournament's tables and knows their chips")
        events.append(_counted(state, command.counts, command.at))
        state = evolve(state, events[0])
    for name in names:
        if state.stack_of(name) > 0:
            raise _refuse("player_has_chips", f"player {name} still has {state.stack_of(name)} chips: "
                          "a player is out once they have none", player_id=name, stack=state.stack_of(name))
    if len(names) == state.seating.players:
        raise _refuse("last_player", "the last player standing cannot be eliminated")
    busted = tuple(replace(b, table=state.seating.where[b.player_id][0]) for b in command.busted)
    placed = _placed(state, busted, command.at, share_all=False)
    return events + placed + _settle(reduce(evolve, placed, state), command.at, command.seed)


def _counted(state: Tournament, counts: tuple[ChipCount, ...], at: float) -> ChipsCounted:
    """One table's chip counts: every player at it, chips conserved."""
    names = [c.player_id for c in counts]
    if not counts or len(set(names)) != len(names):
        raise _refuse("invalid_counts", "a count names each player of one table once")
    for count in counts:
        if count.player_id not in state.seating.where:
            raise _refuse("not_seated", f"player {count.player_id} is not in the tournament", player=count.player_id)
        if count.chips < 0:
            raise _refuse("invalid_counts", f"{count.player_id} cannot have {count.chips} chips")
    table = state.seating.where[names[0]][0]
    at_table = {p for p in state.seating.table(table).seats if p is not None}
    if set(names) != at_table:
        raise _refuse("invalid_counts", f"a count covers every player of table {table}, and only them",
                      table=table, missing=sorted(at_table - set(names)), others=sorted(set(names) - at_table))
    expected = sum(state.stack_of(p) for p in at_table)
    counted = sum(c.chips for c in counts)
    if counted != expected:
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
    move = floor_move(state.seating, command.player_id, command.to_table, command.to_seat)
    for pending in state.pending_moves:
        if pending.player_id == command.player_id:
            raise _refuse("move_pending", f"player {command.player_id} already has move {pending.move_id} pending",
                          move_id=pending.move_id)
        if (pending.to_table, pending.to_seat) == (command.to_table, command.to_seat):
            raise _refuse("seat_reserved", f"seat {command.to_seat} at table {command.to_table} is kept for "
                          f"move {pending.move_id}", move_id=pending.move_id)
    if _may_move(state, move.from_table, move.to_table):
        return [PlayerMoved(move, seed=0)]
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
        return [_finished(state, at)]
    events: list[object] = []
    for pending in state.pending_disqualifications:
        if pending.player_id in state.seating.where and state.seating.players > 1 \
                and state.seating.where[pending.player_id][0] not in state.hands_in_progress:
            event = _disqualified(state, pending.player_id, pending.reason, at)
            events.append(event)
            state = evolve(state, event)
    if state.seating.players == 1:
        return [*events, _finished(state, at)]
    for pending in state.pending_moves:
        event = _queued_move(state, pending)
        if event is not None:
            events.append(event)
            state = evolve(state, event)
    balanced = _balance(state, seed)
    state = reduce(evolve, balanced, state)
    return events + balanced + _bubble(state, at)


def _queued_move(state: Tournament, pending: MoveQueued) -> object | None:
    if pending.player_id not in state.seating.where:
        return MoveCancelled(pending.move_id, "player_out")
    if not _may_move(state, state.seating.where[pending.player_id][0], pending.to_table):
        return None
    try:
        move = floor_move(state.seating, pending.player_id, pending.to_table, pending.to_seat)
    except Violation as refused:
        return MoveCancelled(pending.move_id, refused.code)
    return PlayerMoved(move, seed=0, move_id=pending.move_id)


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
    paid = len(state._settings.payout_percentages)
    if not state.hand_for_hand and state.seating.players == paid + 1 and state.seating.open_tables > 1:
        return [HandForHandStarted(at)]
    if state.hand_for_hand and state.seating.players <= paid:
        return [HandForHandStopped(at)]
    return []


def _balance(state: Tournament, seed: int) -> list[object]:
    settings = state._settings
    policy = BalancePolicy(settings.balance_tolerance, settings.break_order)
    result = rebalance(state.seating, random.Random(seed), policy, busy=state.hands_in_progress)
    events: list[object] = [PlayerMoved(m, seed) for m in result.moves]
    events += [TableBroken(number, seed) for number in result.broken]
    if result.deferred != (state.balance_pending if not events else ()):
        events.append(BalancePending(result.deferred))
    if result.seating.open_tables == 1 and not state.final_table_reached:
        events.append(FinalTableReached(result.seating.open_table_numbers()[0], result.seating.players))
    return events


def _finished(state: Tournament, at: float) -> TournamentFinished:
    order = state.finishing_order()
    pool = state.prize_pool
    amounts = payout_amounts(pool, state._settings.payout_percentages)
    prizes = prizes_for_places(amounts, [e.place for e in order])
    return TournamentFinished(
        winner=order[0].player_id,
        prize_pool=pool,
        prizes=tuple(Prize(e.player_id, e.place, amount) for e, amount in zip(order, prizes) if amount),
        at=at,
    )


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
        return [ClockAdjusted(command.seconds, command.at)]
    if not 0 <= command.period_index < len(clock.periods):  # type: ignore[attr-defined]
        raise _refuse("unknown_level", f"the structure has no period {command.period_index + 1}",  # type: ignore[attr-defined]
                      period=command.period_index + 1, periods=len(clock.periods))  # type: ignore[attr-defined]
    if isinstance(command, SetLevel):
        full = clock.periods[command.period_index].length_s
        remaining = full if command.remaining_s is None else command.remaining_s
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
    until = settings.rebuy_until_level if rebuy else settings.add_on_until_level
    level = _level_of(state, command.at)
    if level is None or level > until:
        raise _refuse(f"{code}_closed", f"{what}s end with level {until} (and the break after it); "
                      f"this is level {level}", level=level, until_level=until)
    taken = (state.rebuys_by_player if rebuy else state.add_ons_by_player).get(player, 0)
    allowed = settings.rebuys_allowed if rebuy else settings.add_ons_allowed
    if taken >= allowed:
        raise _refuse(f"{code}_limit", f"player {player} has taken {taken} {what}s of the {allowed} allowed",
                      taken=taken, allowed=allowed)
    stack = state.stack_of(player)
    if rebuy and stack > settings.starting_stack:
        raise _refuse("rebuy_above_starting_stack", f"player {player} has {stack} chips: a rebuy is taken at or "
                      f"below the starting stack of {settings.starting_stack}",
                      stack=stack, starting_stack=settings.starting_stack)
    chips = settings.rebuy_chips if rebuy else settings.add_on_chips
    return [RebuyTaken(player, chips) if rebuy else AddOnTaken(player, chips)]


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
    return replace(
        state, stacks=state.stacks.updated(dict.fromkeys(players)),
        credits_in_hand=_without(state.credits_in_hand, players),
        pending_disqualifications=tuple(d for d in state.pending_disqualifications if d.player_id not in players),
    )


def evolve(state: Tournament, event: object) -> Tournament:
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
        )
    if isinstance(event, PlayerUnregistered):
        entries = dict(state.entries_by_player)
        entries.pop(event.player_id, None)
        return replace(
            state, registered=tuple(p for p in state.registered if p != event.player_id),
            entries_by_player=entries,
        )
    if isinstance(event, TournamentStarted):
        seating = seated(state._settings.table_size, event.seats, event.buttons)
        stack = state._settings.starting_stack
        return replace(state, status=RUNNING, seating=seating, final_table_reached=seating.open_tables == 1,
                       stacks=state.stacks.updated({seat.player_id: stack for seat in event.seats}))
    if isinstance(event, (LevelStarted, ClockPaused, ClockResumed, ClockAdjusted, LevelSet)):
        return replace(state, clock=evolve_clock(state.clock, event))
    if isinstance(event, PlayerSeated):
        return replace(state, seating=apply_seat(state.seating, event.seat),
                       stacks=state.stacks.updated({event.seat.player_id: state._settings.starting_stack}))
    if isinstance(event, HandDealt):
        return replace(
            state,
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
        return replace(state, seating=apply_move(state.seating, event.move), balance_pending=pending,
                       pending_moves=tuple(m for m in state.pending_moves if m.move_id != event.move_id))
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
            rebuys=state.rebuys + rebuy, add_ons=state.add_ons + (not rebuy),
            rebuys_by_player=_plus(state.rebuys_by_player, player, 1) if rebuy else state.rebuys_by_player,
            add_ons_by_player=state.add_ons_by_player if rebuy else _plus(state.add_ons_by_player, player, 1),
            chip_changes=_changes(state, (player, event.chips, "rebuy" if rebuy else "add-on")),
        )
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
        return replace(state, status=FINISHED)
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
