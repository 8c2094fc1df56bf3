"""The tournament decider: registration, the draw, hands dealt with the level in force
(TDA 23) and a dead button (TDA 32), eliminations with balancing and breaking (TDA 10,
11), hand-for-hand, the level clock, floor moves, disqualification, finishing order and
prizes.

Players leave a table between hands only: balancing and breaking (after every hand's end,
elimination, disqualification or late entry) never take a player from a table with a hand
in progress; what must wait is recorded (BalancePending) and done when that table's
FinishHand arrives. Hand-for-hand, players out on the tables' hands of one round are
placed together when the round is over (TDA RP-8, or by starting stack as set).

Every random draw (seats, balancing ties, broken tables' seats) uses a seed carried by
the command and recorded in the events; replay applies the recorded seats and never
draws again. Times are seconds since the epoch, carried by the commands.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from functools import reduce
from typing import Iterable, Mapping

from domain.ratings import Finish, GameResult
from domain.tournaments.clock import (
    CLOCK_EVENT_TYPES,
    Clock,
    ClockAdjusted,
    ClockPaused,
    ClockResumed,
    LevelStarted,
    evolve_clock,
    new_clock,
    read_clock,
)
from domain.tournaments.payouts import (
    RANK_BY_STARTING_STACK,
    RANK_SHARED,
    parse_percentages,
    payout_amounts,
    places_for_bust,
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
from domain.tournaments.structure import Period, validate_structure
from domain.violations import Violation

REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"


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
    bust_ranking: str = RANK_SHARED


@dataclass(frozen=True)
class Bust:
    player_id: str
    starting_stack: int  # the player's stack when the hand started


@dataclass(frozen=True)
class CreateTournament:
    tournament_id: str
    settings: Settings


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


@dataclass(frozen=True)
class Eliminate:
    """Players out on one hand, reported without hand tracking (floor or a table service
    that does not deal through the tournament)."""

    busted: tuple[Bust, ...]
    at: float
    seed: int = 0


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
    period_index: int  # the level this hand plays to its end (TDA 23)
    at: float


@dataclass(frozen=True)
class HandFinished:
    table: int
    at: float


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


@dataclass(frozen=True)
class PlayersBusted:
    """Hand-for-hand: players out on a table's hand of a round that other tables are
    still playing. They are placed together when the round is over (TDA RP-8)."""

    busted: tuple[Bust, ...]
    at: float


@dataclass(frozen=True)
class PlayerMoved:
    move: Move
    seed: int


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


@dataclass(frozen=True)
class AddOnTaken:
    player_id: str


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
            HandForHandStopped, RebuyTaken, AddOnTaken, TournamentFinished,
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

    def finishing_order(self) -> tuple[Elimination, ...]:
        """Places so far, best first: the players still in share the best place reached."""
        alive = tuple(Elimination(p, 1) for p in sorted(self.seating.where))
        return alive + tuple(sorted(self.standings, key=lambda e: e.place))

    def rating_result(self, result_id: str, game: str = "tournament") -> GameResult:
        return GameResult(result_id, game, tuple(Finish(e.player_id, e.place) for e in self.finishing_order()))


INITIAL = Tournament()


# --- decide ----------------------------------------------------------------------------

def decide(state: Tournament, command: object) -> list[object]:
    if isinstance(command, CreateTournament):
        return _create(state, command)
    settings = state._settings
    if isinstance(command, Register):
        return _register(state, settings, command)
    if isinstance(command, Unregister):
        if state.status != REGISTERING:
            raise Violation("registration_closed", "players unregister only before the start")
        if command.player_id not in state.registered:
            raise Violation("not_registered", f"player {command.player_id} is not registered")
        return [PlayerUnregistered(command.player_id)]
    if isinstance(command, StartTournament):
        return _start(state, settings, command)
    if state.status != RUNNING:
        raise Violation("not_running", f"the tournament is {state.status}, not running")
    if isinstance(command, DealHand):
        return _deal(state, command)
    if isinstance(command, FinishHand):
        if command.table not in state.hands_in_progress:
            raise Violation("no_hand_in_progress", f"table {command.table} has no hand in progress")
        for bust in command.busted:
            if state.seating.where.get(bust.player_id, (None,))[0] != command.table:
                raise Violation("not_seated", f"player {bust.player_id} is not at table {command.table}")
        return _finish_hand(state, command)
    if isinstance(command, Eliminate):
        return _eliminate(state, command.busted, command.at, command.seed)
    if isinstance(command, Disqualify):
        return _disqualify(state, command)
    if isinstance(command, MovePlayer):
        move = floor_move(state.seating, command.player_id, command.to_table, command.to_seat)
        for table in (move.from_table, move.to_table):
            _require_between_hands(state, table)
        return [PlayerMoved(move, seed=0)]
    if isinstance(command, StartHandForHand):
        if state.hand_for_hand:
            raise Violation("already_hand_for_hand", "hand-for-hand is already on")
        return [HandForHandStarted(command.at)]
    if isinstance(command, StopHandForHand):
        if not state.hand_for_hand:
            raise Violation("not_hand_for_hand", "hand-for-hand is not on")
        # Players out in the unfinished round are placed together now.
        placed = _place_round(state, (), command.at)
        stopped = HandForHandStopped(command.at)
        events = [*placed, stopped]
        return events + _after_leaving(reduce(evolve, events, state), command.at, command.seed)
    if isinstance(command, (PauseClock, ResumeClock, AdjustClock, StartLevel)):
        return _clock(state, command)
    if isinstance(command, (Rebuy, AddOn)):
        return _rebuy_or_add_on(state, settings, command)
    raise Violation("unknown_command", f"unknown command {type(command).__name__}")


def _create(state: Tournament, command: CreateTournament) -> list[object]:
    if state.settings is not None:
        raise Violation("tournament_exists", f"tournament {state.tournament_id} already exists")
    s = command.settings
    structure = validate_structure(s.structure)
    parse_percentages(s.payout_percentages)
    empty_seating(s.table_size)
    if s.starting_stack <= 0 or s.buy_in < 0 or s.rebuy_price < 0 or s.add_on_price < 0:
        raise Violation("invalid_setting", "the starting stack is positive and prices are not negative")
    levels = sum(1 for p in structure if not p.is_break)
    if not 0 <= s.late_registration_until_level <= levels:
        raise Violation(
            "invalid_setting",
            f"late registration until level {s.late_registration_until_level}: the structure has {levels}",
        )
    if s.re_entries_allowed < 0 or s.balance_tolerance < 1:
        raise Violation("invalid_setting", "re-entries are not negative and the tolerance is at least 1")
    if s.break_order not in (BREAK_PREDETERMINED, BREAK_RANDOM):
        raise Violation("invalid_setting", f"unknown break order {s.break_order!r}")
    if s.bust_ranking not in (RANK_SHARED, RANK_BY_STARTING_STACK):
        raise Violation("invalid_setting", f"unknown bust ranking {s.bust_ranking!r}")
    return [TournamentCreated(command.tournament_id, replace(s, structure=structure))]


def _late_registration_open(state: Tournament, settings: Settings, at: float) -> bool:
    """Open through the last late level and the break that follows it, if any."""
    reading = read_clock(state.clock, at)
    if reading.level_in_force is None:
        return False
    level = sum(1 for p in settings.structure[: reading.level_in_force + 1] if not p.is_break)
    return level <= settings.late_registration_until_level


def _register(state: Tournament, settings: Settings, command: Register) -> list[object]:
    player = command.player_id
    if state.status == REGISTERING:
        if player in state.registered:
            raise Violation("already_registered", f"player {player} is already registered")
        return [PlayerRegistered(player)]
    if state.status != RUNNING or not _late_registration_open(state, settings, command.at):
        raise Violation("registration_closed", "registration is closed")
    if player in state.seating.where or any(b.player_id == player for b in state.round_busts):
        raise Violation("already_registered", f"player {player} is still in the tournament")
    entries = state.entries_by_player.get(player, 0)
    if entries > settings.re_entries_allowed:
        raise Violation(
            "re_entry_not_allowed",
            f"player {player} has entered {entries} times; {settings.re_entries_allowed} re-entries allowed",
            numbers={"entries": entries, "re_entries_allowed": settings.re_entries_allowed},
        )
    registered = PlayerRegistered(player, re_entry=entries > 0)
    _, seat = seat_late_entrant(state.seating, player, random.Random(command.seed))
    events: list[object] = [registered, PlayerSeated(seat, command.seed)]
    after = reduce(evolve, events, state)
    return events + _balance(after, command.seed)


def _start(state: Tournament, settings: Settings, command: StartTournament) -> list[object]:
    if state.status != REGISTERING:
        raise Violation("already_started", "the tournament has already started")
    if command.at < settings.starts_at:
        raise Violation("too_early", f"the tournament starts at {settings.starts_at}, not before")
    seats, buttons = draw_seating(state.registered, settings.table_size, random.Random(command.seed))
    return [TournamentStarted(command.at, command.seed, seats, buttons), LevelStarted(0, command.at)]


def _require_between_hands(state: Tournament, table: int) -> None:
    # Moves happen between hands only: a table mid-hand finishes its hand first.
    if table in state.hands_in_progress:
        raise Violation("hand_in_progress", f"table {table} is playing a hand")


def _deal(state: Tournament, command: DealHand) -> list[object]:
    table = state.seating.table(command.table)
    if command.table in state.hands_in_progress:
        raise Violation("hand_in_progress", f"table {command.table} is already playing a hand")
    if state.hand_for_hand and command.table in state.dealt_this_round:
        raise Violation(
            "hand_for_hand", f"table {command.table} waits for every table to finish this hand",
            rule="TDA RP-8",
        )
    reading = read_clock(state.clock, command.at)
    if reading.on_break or reading.paused:
        raise Violation("clock_stopped", "no hand is dealt on a break or while the clock is paused")
    assert table.positions is not None and reading.period_index is not None
    positions = next_positions(table.seats, table.positions)
    return [HandDealt(command.table, positions, reading.period_index, command.at)]


def _finish_hand(state: Tournament, command: FinishHand) -> list[object]:
    if command.table not in state.hands_in_progress:
        raise Violation("no_hand_in_progress", f"table {command.table} has no hand in progress")
    for bust in command.busted:
        if state.seating.where.get(bust.player_id, (None,))[0] != command.table:
            raise Violation("not_seated", f"player {bust.player_id} is not at table {command.table}")
    finished = HandFinished(command.table, command.at)
    after = evolve(state, finished)
    if not state.hand_for_hand:
        return [finished, *_eliminate(after, command.busted, command.at, command.seed)]
    if after.dealt_this_round:
        # Hand-for-hand, other tables still play this round: out now, placed at its end;
        # nobody moves until then (a moved player could play the round's hand twice).
        return [finished, PlayersBusted(command.busted, command.at)] if command.busted else [finished]
    placed = _place_round(after, command.busted, command.at)
    events = [finished, *placed]
    after = reduce(evolve, placed, after)
    if after.seating.players == 1:
        return [*events, _finished(after, command.at)]
    return events + _balance(after, command.seed)


def _place_round(state: Tournament, busted: tuple[Bust, ...], at: float) -> list[object]:
    """Everyone out in this hand-for-hand round, placed as if busted on one hand."""
    out = state.round_busts + busted
    if not out:
        return []
    ordered = sorted(out, key=lambda b: -b.starting_stack)
    places = places_for_bust([(b.player_id, b.starting_stack) for b in ordered],
                             state.seating.players + len(state.round_busts), state._settings.bust_ranking)
    return [PlayersEliminated(tuple(Elimination(p, place) for p, place in places), at)]


def _eliminate(state: Tournament, busted: tuple[Bust, ...], at: float, seed: int) -> list[object]:
    if not busted:
        return _balance(state, seed)
    names = [b.player_id for b in busted]
    if len(set(names)) != len(names):
        raise Violation("duplicate_player", "a player is listed twice among the busted")
    for name in names:
        if name not in state.seating.where:
            raise Violation("not_seated", f"player {name} is not in the tournament")
    if len(busted) == state.seating.players:
        raise Violation("last_player", "the last player standing cannot be eliminated")
    # Larger starting stack first: it places higher, and takes a shared place's odd chip.
    ordered = sorted(busted, key=lambda b: -b.starting_stack)
    places = places_for_bust(
        [(b.player_id, b.starting_stack) for b in ordered], state.seating.players, state._settings.bust_ranking
    )
    eliminated = PlayersEliminated(tuple(Elimination(p, place) for p, place in places), at)
    return [eliminated, *_after_leaving(evolve(state, eliminated), at, seed)]


def _disqualify(state: Tournament, command: Disqualify) -> list[object]:
    if command.player_id not in state.seating.where:
        raise Violation("not_seated", f"player {command.player_id} is not in the tournament")
    if state.seating.players == 1:
        raise Violation("last_player", "the last player standing cannot be disqualified")
    event = PlayerDisqualified(command.player_id, command.reason, state.seating.players, command.at)
    return [event, *_after_leaving(evolve(state, event), command.at, command.seed)]


def _after_leaving(state: Tournament, at: float, seed: int) -> list[object]:
    if state.seating.players == 1:
        return [_finished(state, at)]
    return _balance(state, seed)


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
            raise Violation("clock_paused", "the clock is already paused")
        return [ClockPaused(command.at)]
    if isinstance(command, ResumeClock):
        if not clock.paused:
            raise Violation("clock_running", "the clock is not paused")
        return [ClockResumed(command.at)]
    if isinstance(command, AdjustClock):
        return [ClockAdjusted(command.seconds, command.at)]
    assert isinstance(command, StartLevel)
    if not 0 <= command.period_index < len(clock.periods):
        raise Violation("unknown_level", f"the structure has no period {command.period_index}")
    return [LevelStarted(command.period_index, command.at)]


def _rebuy_or_add_on(state: Tournament, settings: Settings, command: Rebuy | AddOn) -> list[object]:
    price = settings.rebuy_price if isinstance(command, Rebuy) else settings.add_on_price
    what = "rebuy" if isinstance(command, Rebuy) else "add-on"
    if price == 0:
        raise Violation(f"{what.replace('-', '_')}_not_offered", f"this tournament offers no {what}")
    if command.player_id not in state.seating.where:
        raise Violation("not_seated", f"player {command.player_id} is not in the tournament")
    if not _late_registration_open(state, settings, command.at):
        raise Violation(f"{what.replace('-', '_')}_closed", f"the {what} period is over")
    return [RebuyTaken(command.player_id) if isinstance(command, Rebuy) else AddOnTaken(command.player_id)]


# --- evolve ----------------------------------------------------------------------------

def evolve(state: Tournament, event: object) -> Tournament:
    if isinstance(event, TournamentCreated):
        s = event.settings
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
        return replace(state, status=RUNNING, seating=seating, final_table_reached=seating.open_tables == 1)
    if isinstance(event, (LevelStarted, ClockPaused, ClockResumed, ClockAdjusted)):
        return replace(state, clock=evolve_clock(state.clock, event))
    if isinstance(event, PlayerSeated):
        return replace(state, seating=apply_seat(state.seating, event.seat))
    if isinstance(event, HandDealt):
        return replace(
            state,
            seating=apply_positions(state.seating, event.table, event.positions),
            hands_in_progress=state.hands_in_progress | {event.table},
            dealt_this_round=state.dealt_this_round | {event.table} if state.hand_for_hand else frozenset(),
        )
    if isinstance(event, HandFinished):
        return _round_checked(replace(state, hands_in_progress=state.hands_in_progress - {event.table}))
    if isinstance(event, PlayersBusted):
        seating = state.seating
        for bust in event.busted:
            seating = remove_player(seating, bust.player_id)
        return replace(state, seating=seating, round_busts=state.round_busts + event.busted)
    if isinstance(event, PlayersEliminated):
        seating = state.seating
        for elimination in event.eliminations:
            if elimination.player_id in seating.where:  # round busts already left their seats
                seating = remove_player(seating, elimination.player_id)
        return replace(state, seating=seating, standings=state.standings + event.eliminations, round_busts=())
    if isinstance(event, PlayerDisqualified):
        return replace(
            state, seating=remove_player(state.seating, event.player_id),
            standings=state.standings + (Elimination(event.player_id, event.place),),
        )
    if isinstance(event, PlayerMoved):
        pending = state.balance_pending if event.move.reason == "floor" else ()
        return replace(state, seating=apply_move(state.seating, event.move), balance_pending=pending)
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
        return replace(state, hand_for_hand=True, dealt_this_round=frozenset())
    if isinstance(event, HandForHandStopped):
        return replace(state, hand_for_hand=False, dealt_this_round=frozenset())
    if isinstance(event, RebuyTaken):
        return replace(state, rebuys=state.rebuys + 1)
    if isinstance(event, AddOnTaken):
        return replace(state, add_ons=state.add_ons + 1)
    if isinstance(event, TournamentFinished):
        return replace(state, status=FINISHED)
    raise TypeError(f"unknown event {type(event).__name__}")


def _round_checked(state: Tournament) -> Tournament:
    """Hand-for-hand: once every table that can play has played this round's hand and
    none is still playing, the next round begins."""
    playing = {n for n in state.seating.open_table_numbers() if state.seating.counts[n - 1] >= 2}
    if state.dealt_this_round and not state.hands_in_progress and state.dealt_this_round >= playing:
        return replace(state, dealt_this_round=frozenset())
    return state


def replay(events: Iterable[object]) -> Tournament:
    return reduce(evolve, events, INITIAL)
