"""Process managers that follow the log: the tournament manager.

`TournamentFollower` reads the global log (service.adapters.store: commit-safe order, no
event skipped when a lower position commits late) from its tracking record and, for each
batch, sends what the batch calls for: a table's hand over -> the tournament's FinishHand,
then the seatings, removals, chip changes, colour-ups and next deals that follow
(service.application.tournament_tables), and whatever a tournament's clock has due by now
(its start, level changes; service.application.tournaments.act_on_deadlines).

Exactly once: a batch is one store transaction. It locks the tracking record first
(`Tracking.claim`: a second follower of the same name waits until the first commits, then
starts at the checkpoint that one committed), sends its commands inside it and moves the
checkpoint last; a crash anywhere rolls all of it back, and the next batch, by this or
another follower, handles the same events again from the same checkpoint.

Nothing is read twice: the follower keeps each running tournament's table states, folded
from the log as it reads it (and from its own writes), so a hand's end at one table of a
1,112-table tournament costs that table, not a read of every table stream. They are a
cache of the log: dropped when a batch rolls back, caught up from the log when another
follower moved the checkpoint meanwhile, and read from the store when a version is missing.

A tournament that is over finishes its tables (tournament_tables: FinishTournamentTable,
between hands). One finished before that rule came left its tables open, listed as
waiting for a hand that never comes: a follower that starts asks the listings, in its
first batch, for the open tables of tournaments on the service's tables, and drives each
finished tournament among them until its tables are finished, a batch's budget at a
time. The log is append-only: what is missing is appended (the outcome the tournament
manager of today would have recorded), exactly once like every other command, at the
table's version, and a finished table is neither listed open nor finished again.

The caller (workers.tournament_tasks) runs `handle_batch` whenever the append trigger's
notification names a tournament or one of its tables, when `next_deadline` comes, and
after a long silence in case a notification was lost.
"""
from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol, cast

from domain.rules.violations import Violation
from domain.tournaments import commands as tournament_commands
from domain.tournaments import tournament
from service.adapters.store import scope
from service.adapters.store.base import Checkpoint, EventStore, RecordedEvent, VersionConflict
from service.application import commands, listings, tournament_tables, tournaments
from service.application.handling import UnreadableStream
from service.application.parts import Application

log = logging.getLogger(__name__)

TOURNAMENT_MANAGER = "tournaments"
"""The tracking record's name: every tournament follower shares it, so they take turns."""
BATCH_EVENTS = 1000
COMMANDS_PER_BATCH = 200
"""A batch commits after this many commands (a 10,000-player start opens 1,112 tables:
its players see them a batch at a time, not after one long transaction); a tournament
with more to do is due again at once."""
OVERDUE_RETRY_S = 1.0
START_RETRY_S = 5.0
TABLE_MARK = "-table-"  # tournament_tables.table_id_for: "<tournament id>-table-<number>"


class Tracking(Protocol):
    """Where a follower stands, kept in the store transaction that is open."""

    def claim(self, name: str) -> Checkpoint:
        """The checkpoint, locked against other followers of `name` until the transaction ends."""

    def move(self, name: str, checkpoint: Checkpoint) -> None: ...


class TransactionalStore(EventStore, Protocol):
    def transaction(self) -> AbstractContextManager[Any]:
        """One transaction every append and read in the block joins."""


@dataclass(frozen=True)
class Batch:
    events: int
    """Events read from the log."""
    recorded: int
    """Commands the batch recorded (an append each)."""
    full: bool
    """The log had more than one batch: call again at once."""
    held_back: bool = False
    """Events past the checkpoint were committed, but the log's gap-safe order does not
    reach them yet: a transaction that began before they did (anywhere on the server)
    still runs. Nothing will notify again when it ends: look again soon."""


def open_tables_listed() -> list[str]:
    """The ids of the tables the listings do not show finished, read in the batch's own
    transaction (PostgreSQL: the listings read model, one query)."""
    connection = scope.current_connection()
    return [] if connection is None else listings.open_tables(connection)


# One probe of the log's (transaction_id, position) index.
_EVENTS_PAST = "SELECT EXISTS (SELECT FROM events WHERE (transaction_id, position) > (%s::text::xid8, %s))"


def log_held_back(after: Checkpoint) -> bool:
    """Whether the log holds committed events past `after`, read in the batch's own
    transaction once the batch read all the gap-safe order gave (PostgreSQL; in memory
    the order never holds anything back)."""
    connection = scope.current_connection()
    if connection is None:
        return False
    row = connection.execute(_EVENTS_PAST, (str(after.transaction_id), after.position)).fetchone()
    return bool(row and row[0])


def tournament_of_table(table_id: str) -> tuple[str, int] | None:
    """(tournament id, table number) of a tournament's table stream id, else None."""
    tournament_id, mark, number = table_id.rpartition(TABLE_MARK)
    return (tournament_id, int(number)) if mark and tournament_id and number.isdigit() else None


def _tournament_of_stream(stream_id: str) -> str | None:
    """The tournament a tournament's or a tournament table's stream belongs to, else None."""
    if stream_id.startswith(tournaments.STREAM_PREFIX):
        return stream_id[len(tournaments.STREAM_PREFIX):]
    if stream_id.startswith(commands.STREAM_PREFIX):
        found = tournament_of_table(stream_id[len(commands.STREAM_PREFIX):])
        return None if found is None else found[0]
    return None


def next_deadline(state: tournament.Tournament, now: float) -> float | None:
    """When the tournament's clock next has something to record, if ever: its start, or
    the end of the recorded period when another follows (a paused clock waits for the
    floor's resume, an event), or a busted player's time to rebuy. Only with `auto_start`
    is a start a deadline: otherwise the director starts it. A start that is due but cannot happen yet (fewer than two
    registered) is looked at again every START_RETRY_S, as the clock sweep did: the
    registrations themselves do not start it, so a field registering just after its
    start time (`"starts_at": "now"`, then the floor's start) is not cut at two. Any
    other deadline overdue (its command refused or lost in a race) is tried again
    OVERDUE_RETRY_S later."""
    settings = state.settings
    if settings is None:
        return None
    if state.status == tournament.REGISTERING:
        if not settings.auto_start:
            return None  # the director starts it
        return settings.starts_at if settings.starts_at > now else now + START_RETRY_S
    if state.status != tournament.RUNNING:
        return None
    # A busted player's time to rebuy (physical tables, or a table that cannot deal).
    candidates = [a.at + settings.rebuy_grace_s for a in state.awaiting_rebuy]
    clock = state.clock
    if clock.period_index is not None and not clock.paused and clock.period_index + 1 < len(clock.periods):
        candidates.append(clock.ends_at)
    if not candidates:
        return None
    deadline = min(candidates)
    return now + OVERDUE_RETRY_S if deadline <= now else deadline


class TournamentFollower:
    def __init__(self, app: Application, tracking: Tracking, *, name: str = TOURNAMENT_MANAGER,
                 clock: Callable[[], float] = time.time, batch_events: int = BATCH_EVENTS,
                 open_tables: Callable[[], Iterable[str]] = open_tables_listed) -> None:
        """`open_tables`: the ids of the tables not finished, asked once a follower starts
        (in its batch's transaction)."""
        self._app = app
        self._open_tables = open_tables
        # The PostgreSQL store (or one wrapping it): batches are its transactions.
        self._store = cast(TransactionalStore, app.store)
        self._tracking = tracking
        self._name = name
        self._clock = clock
        self._batch_events = batch_events
        self._tournaments: set[str] | None = None  # every tournament id; None: not listed yet
        self._tables: dict[str, tournament_tables.Tables] = {}
        self._deadlines: dict[str, float] = {}
        self._unreadable: dict[str, str] = {}  # tournament id -> why it (or a table of it) cannot be read
        self._finishing: set[str] = set()  # tournaments over with tables left to finish
        self._left_at: Checkpoint | None = None  # the checkpoint this follower last committed

    def next_deadline(self) -> float | None:
        return min(self._deadlines.values(), default=None)

    @property
    def unreadable(self) -> Mapping[str, str]:
        """Tournaments parked because this code cannot read their stream or one of their
        tables' streams, with the reason: the others go on; a follower that starts (a
        deploy with a fix) looks again."""
        return dict(self._unreadable)

    def handle_batch(self) -> Batch:
        """Read the next batch of the log and send what it (and the clock) calls for, in
        one transaction with the tracking record."""
        try:
            with self._store.transaction():
                checkpoint = self._tracking.claim(self._name)
                self._catch_up(checkpoint)
                records, after = self._store.read_all(checkpoint, self._batch_events)
                touched = self._observe(records)
                self._park_failed()
                now = self._clock()
                due = {t for t, at in self._deadlines.items() if at <= now}
                recorded = 0
                for tournament_id in sorted((touched | due) - set(self._unreadable)):
                    if recorded >= COMMANDS_PER_BATCH:
                        self._deadlines[tournament_id] = now  # the next batch, at once
                        continue
                    with self._parked_if_unreadable(tournament_id):
                        recorded += self._handle(tournament_id, now, tournament_id in due,
                                                 COMMANDS_PER_BATCH - recorded)
                full = len(records) == self._batch_events
                held_back = not full and log_held_back(after)
                self._tracking.move(self._name, after)
        except BaseException:
            self._forget()
            raise
        self._left_at = after
        return Batch(len(records), recorded, full, held_back)

    @contextmanager
    def _parked_if_unreadable(self, tournament_id: str) -> Iterator[None]:
        """A tournament whose stream, or one of whose table streams, this code cannot read
        is parked (logged, not followed) instead of stopping the follower: the batch goes
        on with the others. Its reads raise before anything is decided on them, so what
        the batch wrote stands. A table cannot be left out of a tournament's steps (who
        sits where, the chips, which tables break): the floor takes it from there."""
        try:
            yield
        except UnreadableStream as refused:
            self._park(tournament_id, refused)

    def _park(self, tournament_id: str, refused: UnreadableStream) -> None:
        log.error("tournament %s: parked, a stream it needs cannot be read: %s", tournament_id, refused)
        self._unreadable[tournament_id] = str(refused)
        self._deadlines.pop(tournament_id, None)
        self._tables.pop(tournament_id, None)
        self._finishing.discard(tournament_id)

    def _park_failed(self) -> None:
        """The tournaments followed whose stream, or a table's, failed its integrity check
        on a read (the global log's batches leave a failing stream's events out): parked
        now, not when next due."""
        assert self._tournaments is not None
        for failed in self._store.integrity_failures():
            tournament_id = _tournament_of_stream(failed.stream_id)
            if tournament_id in self._tournaments and tournament_id not in self._unreadable:
                self._park(tournament_id, failed)

    def _forget(self) -> None:
        """What this follower holds may be ahead of the log: start afresh from the store."""
        self._tournaments = None
        self._tables.clear()
        self._deadlines.clear()
        self._left_at = None

    def _catch_up(self, checkpoint: Checkpoint) -> None:
        """Fold the events another follower handled since this one's last batch (they
        moved the checkpoint to `checkpoint`); a first batch lists the tournaments."""
        if self._left_at is None or self._tournaments is None:
            self._start(self._clock())
            return
        at = self._left_at
        while at < checkpoint:
            records, at = self._store.read_all(at, self._batch_events, until=checkpoint)
            if not records:
                break
            for tournament_id in self._observe(records) - set(self._unreadable):
                with self._parked_if_unreadable(tournament_id):
                    self._schedule(tournament_id, tournaments.load_tournament(self._app, tournament_id).state,
                                   self._clock())

    def _start(self, now: float) -> None:
        """Every tournament not finished is looked at in this first batch: a follower
        that starts (a new worker, a restart) does whatever is due at once, even where
        nothing new was appended since the checkpoint."""
        self._tables.clear()
        self._deadlines.clear()
        self._unreadable.clear()
        self._finishing.clear()
        self._tournaments = set(tournaments.tournament_ids(self._app))
        with_open_tables = {found[0] for found in map(tournament_of_table, self._open_tables()) if found}
        for tournament_id in self._tournaments:
            with self._parked_if_unreadable(tournament_id):
                state = tournaments.load_tournament(self._app, tournament_id).state
                if state.status == tournament.RUNNING:
                    self._deadlines[tournament_id] = now
                elif state.status == tournament.FINISHED and tournament_id in with_open_tables \
                        and state.settings is not None and state.settings.tables == tournament_commands.TABLES_SERVICE:
                    self._finishing.add(tournament_id)  # over before its tables were finished
                    self._deadlines[tournament_id] = now
                else:
                    self._schedule(tournament_id, state, now)

    def _observe(self, records: list[RecordedEvent]) -> set[str]:
        """The tournaments these events concern; their tables' states folded in."""
        assert self._tournaments is not None
        touched: set[str] = set()
        at_tables: dict[tuple[str, int], list[RecordedEvent]] = defaultdict(list)
        for record in records:
            if record.stream_id.startswith(tournaments.STREAM_PREFIX):
                tournament_id = record.stream_id[len(tournaments.STREAM_PREFIX):]
                self._tournaments.add(tournament_id)
                touched.add(tournament_id)
            elif record.stream_id.startswith(commands.STREAM_PREFIX):
                found = tournament_of_table(record.stream_id[len(commands.STREAM_PREFIX):])
                if found is not None and found[0] in self._tournaments:
                    touched.add(found[0])
                    at_tables[found].append(record)
        for (tournament_id, number), table_records in at_tables.items():
            with self._parked_if_unreadable(tournament_id):
                self._fold(tournament_id, number, table_records)
        return touched

    def _fold(self, tournament_id: str, number: int, records: list[RecordedEvent]) -> None:
        tables = self._tables.get(tournament_id)
        if tables is None:
            return  # not followed yet: read from the store when first needed
        table_id = tournament_tables.table_id_for(tournament_id, number)
        known = tables.get(number) or commands.LoadedTable(commands.table_stream(table_id), 0, None)
        fresh = [r for r in records if r.version > known.version]
        if not fresh:
            return  # this follower wrote them, or read them from the store already
        if fresh[0].version != known.version + 1:  # some were missed: the store has them
            tables.put(number, commands.load_table(self._app, table_id))
        else:
            tables.put(number, replace(known, version=fresh[-1].version,
                                       state=commands.fold_records(known.state, fresh)))

    def _handle(self, tournament_id: str, now: float, clock_due: bool, budget: int) -> int:
        """Record what the tournament's clock has due (a start only when its deadline
        came, see next_deadline), then drive its tables."""
        recorded = 0
        state = tournaments.load_tournament(self._app, tournament_id).state
        # Judged here first (pure), so a hand's end costs no second read of the tournament.
        due = state.status == tournament.FINISHED or bool(tournaments.due_commands(state, int(now)))
        try:
            if due and (clock_due or state.status != tournament.REGISTERING):
                recorded += len(tournaments.act_on_deadlines(self._app, tournament_id, int(now)))
        except VersionConflict as lost:
            log.info("tournament %s: someone acted first (%s); its next event looks again", tournament_id, lost)
        except Violation as refused:
            log.warning("tournament %s: a due command was refused: %s", tournament_id, refused)
        loaded = tournaments.load_tournament(self._app, tournament_id, read=False)  # read above, or written
        settings = loaded.state.settings
        status = loaded.state.status
        if (status == tournament.RUNNING or tournament_id in self._finishing) and settings is not None \
                and settings.tables == tournament_commands.TABLES_SERVICE:
            tables = self._tables.get(tournament_id)
            if tables is None:
                tables = self._tables[tournament_id] = tournament_tables.table_states(
                    self._app, tournament_id, loaded.state)
            allowed = max(1, budget - recorded)
            advanced = tournament_tables.advance(self._app, tournament_id, now, tables, allowed, read=False)
            recorded += advanced
            loaded = tournaments.load_tournament(self._app, tournament_id, read=False)  # as advance left it
            self._schedule(tournament_id, loaded.state, now)
            stopped_by_budget = advanced == allowed
            if stopped_by_budget:  # more may be due, in the next batch
                self._deadlines[tournament_id] = now
            # Over (in this batch or before): its tables finish, a batch's budget at a time.
            if loaded.state.status == tournament.FINISHED and stopped_by_budget:
                self._finishing.add(tournament_id)
            else:
                self._finishing.discard(tournament_id)
            return recorded
        self._schedule(tournament_id, loaded.state, now)
        return recorded

    def _schedule(self, tournament_id: str, state: tournament.Tournament, now: float) -> None:
        deadline = next_deadline(state, now)
        if deadline is None:
            self._deadlines.pop(tournament_id, None)
        else:
            self._deadlines[tournament_id] = deadline
        if state.status == tournament.FINISHED:
            self._tables.pop(tournament_id, None)
