"""The process manager between a tournament and its live tables.

It reads the tournament stream and each of its table streams and sends whichever command
brings them closer together. Called without table states it reads every table stream
first, so a retried, duplicated or concurrent `advance` finds the same facts and sends
nothing twice; the follower of the log (service.application.process_managers) passes the
table states it keeps current from the log instead (`Tables`), and a step looks only at
the tables that may have something due, so it costs the tables it changes, not the
tournament's size:
- started tournament, table stream missing: create it (expected version 0) with the
  tournament table's players who have not sat at another table, with the starting stack
  (players moved in from elsewhere are seated with their own chips by the next rule);
- a table's hand k closed while the tournament still has it in progress: FinishHand with
  its busted players (idempotency key `<table>.<k>:finish`, expected tournament version);
  its moves and broken tables are then applied by the rules below;
- between hands, a table stream whose players differ from the tournament's seating:
  RemovePlayer (moved away, busted, table broken) and SeatPlayer (moved in) with the
  chips the player took from the table they left, found on that table's PlayerLeftTable,
  or the starting stack for a late entrant or re-entry (TDA 2024 8-A: the tournament drew a
  seat from which they are dealt in);
- between hands, a chip change the tournament recorded (a rebuy, an add-on, a colour-up
  race's result) for a player sitting at the table and not yet applied at any table:
  AdjustChips (the table refuses a change id twice), before anyone moves, so the chips
  travel with the player;
- a table in sync, between hands, with a colour-up due (TDA 2024 24): RaceChips on the
  tournament, whose result the previous rule then applies;
- between hands, a table the tournament broke and everyone has left, or any table once
  the tournament is over: FinishTournamentTable (its TableFinished lists it as finished);
- a table in sync, between hands, clock running: DealHand on the tournament (key
  `<table>.<k+1>:deal`), then StartNextHand on the table with the HandDealt's positions
  and the betting of the level it records (TDA 2024 23).
Every write carries the version it was decided on; a VersionConflict means another
worker got there first, and the next call looks again.

The tournament never moves a player off a table playing a hand (it balances, breaks or
makes the floor's queued moves when that table reports its hand over), so a player
always busts at the table the tournament has them at, and every bust travels with its
hand's FinishHand, beside the chips each player there ended the hand with.

Only tournaments on the service's tables (`tables: "service"`) are driven; physical
tables report to the tournament through the floor.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from itertools import compress, count
from operator import is_not
from typing import Any

from domain.live import table, table_commands, table_events, table_names
from domain.live.table_state import EMPTY_SEAT, TableState
from domain.records import from_record
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import events as tournament_events
from domain.tournaments import tournament
from domain.tournaments.clock import read_clock
from domain.tournaments.seating import Table as SeatingTable
from service.adapters.store.base import VersionConflict
from service.application import commands, tournaments
from service.application.handling import Handled
from service.application.parts import Application

log = logging.getLogger(__name__)

ACTOR = "tournament"


def table_id_for(tournament_id: str, number: int) -> str:
    """The stream id of the tournament's table `number` (no dot: hand ids split on it)."""
    return f"{tournament_id}-table-{number}"


class Tables:
    """A tournament's table streams by table number, as last read or written (`advance`
    keeps it current with what it writes, the follower with what it reads in the log).

    What a step asks across every table is kept current as each state is put, so a step
    costs the tables that changed, not the tournament's size: who sits at which table
    stream, each player's last departure with chips, which table applied each chip
    change. And the tables to look at again: a table whose state changed, the table a
    player who just left one is seated at next (they sit down there once they have left),
    and the tables the tournament's own changes concern (`to_look_at`). A table looked at
    with nothing due is not looked at again until one of those changes."""

    def __init__(self) -> None:
        self._loaded: dict[int, commands.LoadedTable] = {}
        self._seated: dict[str, set[int]] = {}  # player -> the table streams they sit at
        self._departures: dict[str, dict[int, table_events.PlayerLeftTable]] = {}  # player -> table -> departure
        self._applied: dict[int, int] = {}  # chip change id -> the table that applied it
        self._changed: set[int] = set()
        self._left: set[str] = set()  # players who left a table since the last look
        self._seen: tournament.Tournament | None = None  # the tournament state last looked at
        self.dealt: dict[str, tournament_events.HandDealt] = {}
        """Deal key -> the HandDealt this process recorded with it: the table's StartNextHand
        follows in the next step without reading it back from the tournament stream."""

    def __contains__(self, number: object) -> bool:
        return number in self._loaded

    def __getitem__(self, number: int) -> commands.LoadedTable:
        return self._loaded[number]

    def __len__(self) -> int:
        return len(self._loaded)

    def get(self, number: int) -> commands.LoadedTable | None:
        return self._loaded.get(number)

    def items(self) -> list[tuple[int, commands.LoadedTable]]:
        return sorted(self._loaded.items())

    def put(self, number: int, loaded: commands.LoadedTable) -> None:
        """The table's state, newer than the one held: the indexes follow it."""
        after = loaded.state
        assert after is not None
        held = self._loaded.get(number)
        before = None if held is None else held.state
        self._loaded[number] = loaded
        self._changed.add(number)
        was = set() if before is None else set(before.players) - {EMPTY_SEAT}
        now = set(after.players) - {EMPTY_SEAT}
        for player in was - now:
            self._seated[player].discard(number)
            if not self._seated[player]:
                del self._seated[player]
            self._left.add(player)
        for player in now - was:
            self._seated.setdefault(player, set()).add(number)
        departed_before = () if before is None else before.departures
        if departed_before is not after.departures:
            for departure in set(departed_before) - set(after.departures):
                by_table = self._departures[departure.player_id]
                del by_table[number]
                if not by_table:
                    del self._departures[departure.player_id]
            for departure in set(after.departures) - set(departed_before):
                self._departures.setdefault(departure.player_id, {})[number] = departure
        applied_before = () if before is None else before.chip_changes
        if applied_before is not after.chip_changes:
            for change in set(applied_before) - set(after.chip_changes):
                self._applied.pop(change, None)
            for change in set(after.chip_changes) - set(applied_before):
                self._applied[change] = number

    def seated(self, player: str) -> bool:
        """The player sits at one of the tournament's table streams."""
        return player in self._seated

    def players_seated(self) -> set[str]:
        return set(self._seated)

    def latest_departure(self, player: str) -> table_events.PlayerLeftTable | None:
        """The player's last departure with chips, across the tournament's tables."""
        by_table = self._departures.get(player)
        return None if not by_table else max(by_table.values(), key=lambda d: d.tournament_version)

    def departed(self) -> dict[str, table_events.PlayerLeftTable]:
        """Each player's last departure with chips, across the tournament's tables."""
        return {player: departure for player in self._departures
                if (departure := self.latest_departure(player)) is not None}

    def never_seated(self, player: str) -> bool:
        return player not in self._seated and player not in self._departures

    def applied_changes(self) -> set[int]:
        """The ids of the tournament's chip changes some table applied."""
        return set(self._applied)

    def to_look_at(self, state: tournament.Tournament) -> list[int]:
        """The numbers of the tables that may have something due, given the tournament's
        state now: those changed since the last look, and those the tournament's changes
        since the state it was last looked at concern."""
        concerned = tables_concerned(self._seen, state)
        self._changed |= set(self._loaded) if concerned is None else concerned
        self._seen = state
        where = state.seating.where
        for player in self._left:
            if player in where:
                self._changed.add(where[player][0])
        self._left.clear()
        return sorted(number for number in self._changed if number in self._loaded)

    def looked_at(self) -> None:
        """Every table `to_look_at` gave had nothing due."""
        self._changed.clear()


def tables_concerned(before: tournament.Tournament | None, after: tournament.Tournament) -> set[int] | None:
    """The tables whose due commands a change of the tournament from `before` to `after`
    may have changed (None: any table): those whose seats or positions changed, that
    began or ended a hand, that hold a player with a new chip change or a queued move
    made, asked or cancelled, or raced their chips. A clock change (a level, a break, a
    pause), a new status and hand-for-hand's rounds concern every table."""
    if before is None or before.clock is not after.clock or before.status != after.status \
            or before.hand_for_hand != after.hand_for_hand or before.settings is not after.settings \
            or (after.hand_for_hand and before.dealt_this_round and not after.dealt_this_round):
        return None
    concerned: set[int] = set()
    old, new = before.seating.tables, after.seating.tables
    if old is not new:
        # Seatings share the Table of every table a change did not touch: an identity test each.
        concerned.update(compress(count(1), map(is_not, old, new)))
        concerned.update(range(len(old) + 1, len(new) + 1))
    concerned |= before.hands_in_progress ^ after.hands_in_progress
    where, where_before = after.seating.where, before.seating.where
    for change in after.chip_changes[len(before.chip_changes):]:
        if change.player_id in where:
            concerned.add(where[change.player_id][0])
    if before.smallest_chip is not after.smallest_chip:
        concerned.update(number for number, chip in after.smallest_chip.items()
                         if before.smallest_chip.get(number) != chip)
    if before.pending_moves != after.pending_moves:
        for move in set(before.pending_moves) ^ set(after.pending_moves):
            concerned.add(move.to_table)
            concerned.update(seats[move.player_id][0] for seats in (where, where_before) if move.player_id in seats)
    return concerned


@dataclass(frozen=True)
class TableChips:
    table_id: str
    number: int
    chips: int
    players: dict[str, int]


def table_states(app: Application, tournament_id: str,
                 state: tournament.Tournament) -> Tables:
    """Every table stream of the tournament that exists, by table number."""
    found = Tables()
    for number in range(1, len(state.seating.tables) + 1):
        loaded = commands.load_table(app, table_id_for(tournament_id, number))
        if loaded.state is not None:
            found.put(number, loaded)
    return found


def chips_in_play(app: Application, tournament_id: str) -> tuple[int, list[TableChips]]:
    """Chips of the players still in: on the tournament's tables (a hand in progress
    counted as it began), those
    of players between two tables, and chip changes recorded but not yet applied at a
    table (for players still in); and each table's share."""
    loaded = tournaments.load_tournament(app, tournament_id)
    state = loaded.state
    tables = table_states(app, tournament_id, state)
    # A player the tournament no longer has (disqualified: their chips are out of play)
    # may sit at a table until it removes them between hands.
    shares = [TableChips(t.state.table_id, n, sum(s for p, s in zip(t.state.players, t.state.stacks) if p in state.seating.where),
                         {p: s for p, s in zip(t.state.players, t.state.stacks) if p in state.seating.where})
              for n, t in tables.items()]
    seated = {p for share in shares for p in share.players}
    departures = tables.departed()
    # A late entrant on the way to a first seat holds what the tournament gave them
    # (their chip changes included); anyone else's unapplied changes are counted apart.
    arriving = {p for p in state.seating.where if p not in seated and tables.never_seated(p)}
    in_transit = sum(d.stack for d in departures.values()
                     if d.player_id not in seated and d.player_id in state.seating.where and d.player_id not in arriving)
    pending = sum(c.amount for c in state.pending_chip_changes(tables.applied_changes())
                  if c.player_id in state.seating.where and c.player_id not in arriving)
    entering = sum(state.stack_of(p) for p in arriving)
    return sum(s.chips for s in shares) + in_transit + pending + entering, shares


def advance(app: Application, tournament_id: str, now: float, tables: Tables | None = None,
            limit: int | None = None, *, read: bool = True) -> int:
    """Send every command the tournament and its tables are due, or the first `limit` of
    them; returns how many were recorded. Stops at the first lost race (the next call
    looks again). `tables`: the table states to decide on (read from the store when None).
    `read` False: the caller has just read the tournament, the first step need not."""
    recorded = 0
    if tables is None:
        tables = table_states(app, tournament_id, tournaments.load_tournament(app, tournament_id).state)
    try:
        # The first step reads the tournament; the next ones decide on what this one wrote.
        while (limit is None or recorded < limit) and _step(app, tournament_id, int(now), tables,
                                                            read=read and recorded == 0):
            recorded += 1
    except VersionConflict as lost:
        log.info("tournament %s: another worker acted first (%s)", tournament_id, lost)
    except Violation as refused:
        # Decided on a state that moved on meanwhile (a table read before another worker's
        # write): the next call judges the fresh state.
        log.info("tournament %s: a command was refused: %s", tournament_id, refused)
    return recorded


def _step(app: Application, tournament_id: str, now: int, tables: Tables, *, read: bool = True) -> bool:
    """One command that brings the tournament and a table closer; False when none is due.
    Only tables that may have something due are looked at (Tables.to_look_at): a hand's
    end at one table of 1,112 costs that table and the few its balancing touches."""
    loaded = tournaments.load_tournament(app, tournament_id, read=read)
    state = loaded.state
    if state.required_settings.tables != tournament_commands.TABLES_SERVICE or state.status == tournament.REGISTERING:
        return False
    if state.status == tournament.FINISHED:
        return _finish_tables(app, loaded, tables)
    if len(tables) < len(state.seating.tables):  # a table stream for every table is the usual case
        for number, seating_table in enumerate(state.seating.tables, start=1):
            if seating_table is not None and number not in tables:
                _create_table(app, loaded, seating_table, tables)
                return True
    numbers = tables.to_look_at(state)
    for number in numbers:
        if _report_hand(app, loaded, number, tables[number], now):
            return True
    pending = state.pending_chip_changes(tables.applied_changes()) if state.chip_changes else ()
    for number in numbers:
        if pending and _apply_chip_changes(app, loaded, number, tables[number], tables, pending):
            return True
    for number in numbers:
        if _between_hands_out_of_sync(state, number, tables[number]) \
                and _sync_seats(app, loaded, number, tables[number], tables):
            return True
    for number in numbers:
        if _finish_if_done(app, loaded, number, tables[number], tables):
            return True
    for number in numbers:
        if _race(app, loaded, number, tables[number], now):
            return True
    for number in numbers:
        if _deal(app, loaded, number, tables[number], tables, now):
            return True
    tables.looked_at()
    return False


def _finish_tables(app: Application, loaded: tournaments.LoadedTournament, tables: Tables) -> bool:
    """The tournament is over: its tables still open finish, one a step."""
    for number in tables.to_look_at(loaded.state):
        if _finish_if_done(app, loaded, number, tables[number], tables):
            return True
    tables.looked_at()
    return False


def _finish_if_done(app: Application, loaded: tournaments.LoadedTournament, number: int,
                    loaded_table: commands.LoadedTable, tables: Tables) -> bool:
    """Between hands, a table the tournament is done with finishes: broken and left by
    everyone, or every table once the tournament is over (else they would list as waiting
    for a hand that never comes)."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    if table_state.finished or table_state.hand_in_progress or number in state.hands_in_progress:
        return False
    broken_and_empty = state.seating.tables[number - 1] is None \
        and all(player == EMPTY_SEAT for player in table_state.players)
    if state.status != tournament.FINISHED and not broken_and_empty:
        return False
    _send_to_table(app, tables, number, loaded_table, table_commands.FinishTournamentTable(loaded.version))
    return True


def _send_to_table(app: Application, tables: Tables, number: int, loaded_table: commands.LoadedTable,
                   command: table_commands.Command) -> None:
    """`command` decided on the state we hold, appended at its version (a table that moved
    on meanwhile is a VersionConflict); the table's new state is kept in `tables`."""
    assert loaded_table.state is not None
    handled = commands.execute(app, loaded_table.state.table_id, loaded_table.version, command, actor=ACTOR,
                               loaded=loaded_table)
    tables.put(number, replace(loaded_table, version=handled.version, state=handled.state))


def _apply_chip_changes(app: Application, loaded: tournaments.LoadedTournament, number: int,
                        loaded_table: commands.LoadedTable, tables: Tables,
                        pending: tuple[tournament_events.ChipChange, ...]) -> bool:
    """Between hands: the first chip change not applied anywhere for a player seated here."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    if table_state.hand_in_progress or number in state.hands_in_progress:
        return False
    for change in pending:
        # Applied where the player sits now, before a move takes them (and their chips) on.
        if change.player_id not in state.seating.where or change.player_id not in table_state.players:
            continue
        _send_to_table(app, tables, number, loaded_table,
                       table_commands.AdjustChips(change.player_id, change.amount, change.change_id, change.reason))
        return True
    return False


def _race(app: Application, loaded: tournaments.LoadedTournament, number: int,
          loaded_table: commands.LoadedTable, now: int) -> bool:
    """A colour-up due at a table in sync between hands: the race, on the tournament."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    if table_state.hand_in_progress or number in state.hands_in_progress or not _in_sync(state, number, table_state):
        return False
    if state.colour_up_due(number, now) is None:
        return False
    tournaments.send(app, loaded.tournament_id, tournament_commands.RaceChips(number, at=now, seed=tournaments.new_seed()),
                     expected_version=loaded.version, actor=ACTOR)
    return True


def _create_table(app: Application, loaded: tournaments.LoadedTournament, seating_table: SeatingTable,
                  tables: Tables) -> None:
    state = loaded.state
    settings = state.settings
    assert settings is not None
    stack = settings.starting_stack
    # A table opened after the start (a late entrant found every table full) may already
    # hold players balanced in from live tables: they arrive with their own chips.
    elsewhere = set(tables.departed()) | tables.players_seated()
    seats = tuple(table_commands.TableSeat(player, stack) if player is not None and player not in elsewhere
                  else table_commands.TableSeat(EMPTY_SEAT, 0)
                  for player in seating_table.seats)
    first_level = next(p for p in settings.structure if not p.is_break)
    command = table_commands.CreateTable(table_id_for(loaded.tournament_id, seating_table.number), loaded.game or "holdem",
                                         {}, _betting(loaded, first_level), seats, tournament_id=loaded.tournament_id,
                                         action_clock_s=_action_clock_s(settings, first_level) or None,
                                         time_bank_s=settings.time_bank_s if _action_clock_s(settings, first_level) else 0,
                                         name=table_names.tournament_table(settings.name, seating_table.number))
    handled = commands.create_table(app, command, actor=ACTOR)
    tables.put(seating_table.number,
               commands.LoadedTable(commands.table_stream(command.table_id), handled.version, handled.state))


def _action_clock_s(settings: tournament_commands.Settings, period: Any) -> int:
    """The level's action clock, else the tournament's; 0: none."""
    return period.action_clock_s or settings.action_clock_s or 0


def _betting(loaded: tournaments.LoadedTournament, period: Any) -> BettingStructure:
    return BettingStructure.from_dict({**period.betting(), "structure": loaded.betting or "no-limit"})


def _report_hand(app: Application, loaded: tournaments.LoadedTournament, number: int,
                 loaded_table: commands.LoadedTable, now: int) -> bool:
    """The table's last hand is over: tell the tournament who busted on it."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    k = table_state.hands_played
    if k == 0 or table_state.hand_in_progress or number not in state.hands_in_progress:
        return False
    if _deal_key(table_state.table_id, k + 1) in _keys(app, loaded):
        return False  # hand k was reported and k + 1 dealt: the table starts it (_deal)
    by = {named.player_id: named.winners for named in table_state.last_busted_by}
    here = tuple(tournament_commands.Bust(seat.player_id, seat.stack, busted_by=next(iter(by.get(seat.player_id, ())), None),
                                          also_busted_by=by.get(seat.player_id, ())[1:])
                 for seat in table_state.last_busted if state.seating.where.get(seat.player_id, (None,))[0] == number)
    stacks = tuple(tournament_commands.ChipCount(player, chips) for player, chips in zip(table_state.players, table_state.stacks)
                   if player != EMPTY_SEAT and state.seating.where.get(player, (None,))[0] == number)
    tournaments.send(app, loaded.tournament_id,
                     tournament_commands.FinishHand(number, at=now, busted=here, seed=tournaments.new_seed(), stacks=stacks),
                     expected_version=loaded.version, actor=ACTOR,
                     idempotency_key=f"{table_state.table_id}.{k}:finish")
    return True


def _between_hands_out_of_sync(state: tournament.Tournament, number: int,
                               loaded_table: commands.LoadedTable) -> bool:
    table_state = loaded_table.state
    assert table_state is not None
    if table_state.hand_in_progress or number in state.hands_in_progress:
        return False
    seating_table = state.seating.tables[number - 1]
    if seating_table is None:  # broken: in sync once everyone has left
        return any(player != EMPTY_SEAT for player in table_state.players)
    return tuple(p or EMPTY_SEAT for p in seating_table.seats) != table_state.players


def _sync_seats(app: Application, loaded: tournaments.LoadedTournament, number: int,
                loaded_table: commands.LoadedTable, tables: Tables) -> bool:
    """Between hands: one removal or seating that brings the table stream to the
    tournament's seating."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    seating_table = state.seating.tables[number - 1]
    wanted = {} if seating_table is None else \
        {player: seat for seat, player in enumerate(seating_table.seats) if player is not None}
    for seat, player in enumerate(table_state.players):
        if player == EMPTY_SEAT or wanted.get(player) == seat:
            continue
        _send_to_table(app, tables, number, loaded_table, table_commands.RemovePlayer(player, loaded.version))
        return True
    for player, seat in wanted.items():
        if table_state.players[seat] == player:
            continue
        if tables.seated(player):
            continue  # still at the table they leave: removed there first, once its hand is over
        stack = _chips_brought(app, loaded, player, tables.latest_departure(player))
        if stack is None:
            continue
        re_entry = state.entries_by_player.get(player, 0) > 1
        _send_to_table(app, tables, number, loaded_table,
                       table_commands.SeatPlayer(player, seat, stack, loaded.version, re_entry=re_entry))
        return True
    return False


def _chips_brought(app: Application, loaded: tournaments.LoadedTournament, player: str,
                   departure: table_events.PlayerLeftTable | None) -> int | None:
    """What a player takes to their new seat: the chips they left their last table with,
    or the starting stack if they entered (late, or again) since; None while in transit
    (still to be removed from the table they leave)."""
    state = loaded.state
    assert state.settings is not None
    entered_while_running = player not in state.registered or state.entries_by_player.get(player, 0) > 1
    if not entered_while_running:
        return None if departure is None else departure.stack
    if departure is not None and departure.tournament_version > _last_entry_version(app, loaded, player):
        return departure.stack
    return state.settings.starting_stack


def _last_entry_version(app: Application, loaded: tournaments.LoadedTournament, player: str) -> int:
    """The tournament version that last seated `player` as an entrant (PlayerSeated).
    Read from the log only for late entrants on their way to a seat: rare and short."""
    version = 0
    for record in app.store.read_stream(tournaments.stream_id(loaded.tournament_id)):
        if record.type == "PlayerSeated" and record.data["seat"]["player_id"] == player:
            version = record.version
    return version


def _in_sync(state: tournament.Tournament, number: int, table_state: TableState) -> bool:
    seating_table = state.seating.tables[number - 1]
    if seating_table is None:
        return False
    return tuple(p or EMPTY_SEAT for p in seating_table.seats) == table_state.players


def _deal(app: Application, loaded: tournaments.LoadedTournament, number: int,
          loaded_table: commands.LoadedTable, tables: Tables, now: int) -> bool:
    """Deal the table's next hand on the tournament (its positions and level), then on
    the table. The tournament deals a table in sync with its seating; players it seats
    there after that (a break, a balancing move: a table playing a hand may receive
    players) sit down once this hand is over, so the table starts it as it was dealt."""
    state, table_state = loaded.state, loaded_table.state
    assert table_state is not None
    if table_state.hand_in_progress:
        return False
    k = table_state.hands_played
    key = _deal_key(table_state.table_id, k + 1)
    if number not in state.hands_in_progress:
        if not _in_sync(state, number, table_state):
            return False
        reading = read_clock(state.clock, now)
        if reading.on_break or reading.paused or state.seating.table(number).count < 2 \
                or table.everyone_away(table_state):
            return False
        try:
            outcome = tournaments.send(app, loaded.tournament_id, tournament_commands.DealHand(number, at=now),
                                       expected_version=loaded.version, actor=ACTOR, idempotency_key=key)
        except Violation as refused:
            log.info("tournament %s table %s: not dealt: %s", loaded.tournament_id, number, refused)
            return False
        for recorded in outcome.events:
            if recorded["type"] == tournament_events.HandDealt.__name__:
                tables.dealt[key] = from_record(tournament_events.EVENT_TYPES, recorded["type"], recorded["data"])
        return True
    keys = _keys(app, loaded)
    if key not in keys:
        return False
    dealt = tables.dealt.pop(key, None) or _recorded_deal(app, loaded.tournament_id, keys[key])
    period = state.clock.periods[dealt.period_index]
    positions = dealt.positions
    deal = commands.draw_deal()
    assert state.settings is not None
    command = table_commands.StartNextHand(deal.deck, deal.salt, button=positions.button,
                                           small_blind=positions.small_blind, big_blind=positions.big_blind,
                                           betting=_betting(loaded, period),
                                           action_clock_s=_action_clock_s(state.settings, period))
    _send_to_table(app, tables, number, loaded_table, command)
    return True


def _deal_key(table_id: str, hand_number: int) -> str:
    return f"{table_id}.{hand_number}:deal"


def _keys(app: Application, loaded: tournaments.LoadedTournament) -> Any:
    return loaded.idempotency_keys


def _recorded_deal(app: Application, tournament_id: str, versions: tuple[int, int]) -> tournament_events.HandDealt:
    first, last = versions
    for record in app.store.read_stream(tournaments.stream_id(tournament_id), after_version=first - 1,
                                        up_to_version=last):
        if record.type == "HandDealt":
            event = from_record(tournament_events.EVENT_TYPES, record.type, record.data)
            assert isinstance(event, tournament_events.HandDealt)
            return event
    raise AssertionError(f"no HandDealt at versions {first}..{last} of tournament {tournament_id}")


def mark_away(app: Application, tournament_id: str, player_id: str, away: bool, *,
              actor: str | None = None) -> Handled[TableState | None]:
    """The floor marks a player at a service table away (or back): the table deals them in
    and posts their blinds and antes, and kills their hand at once (TDA 2024 30)."""
    state = tournaments.load_tournament(app, tournament_id).state
    if state.settings is None:
        raise Violation("unknown_tournament", f"there is no tournament {tournament_id}")
    if state.settings.tables != tournament_commands.TABLES_SERVICE:
        raise Violation("physical_tables", "at physical tables the dealer kills an absent player's hand")
    seat = state.seating.where.get(player_id)
    if seat is None:
        raise Violation("not_seated", f"player {player_id} is not in the tournament", numbers={"player": player_id})
    command: table_commands.Command = table_commands.SitOut(player_id) if away else table_commands.ReturnToSeat(player_id)
    return commands.execute(app, table_id_for(tournament_id, seat[0]), None, command, actor=actor)
