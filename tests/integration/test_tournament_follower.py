"""The tournament manager follows the log on PostgreSQL, exactly once: a follower killed in
the middle of a batch (some of the batch's commands already sent in its transaction)
leaves nothing of that batch behind, not even its checkpoint, and the follower started
after it handles every event once; two followers sharing one tracking record take turns
and never handle the same position. Either way the tournament plays to its end with every
player eliminated once, every hand reported once, nobody seated at two tables and the
chips conserved."""
from __future__ import annotations

import random
import threading
import time
import uuid
from typing import Any

import pytest

from domain.tournaments import tournament
from service.adapters.store import trackings
from service.adapters.store.base import START, Checkpoint, VersionConflict
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import commands, process_managers, tournament_tables, tournaments
from service.application.application import application
from service.config import Config
from tests import applications
from tests.integration.test_tournament_tables import STACK, new_tournament, shove
from tests.stores import store_as_the_apps

pytestmark = pytest.mark.integration

PLAYERS = 10
TABLE_SIZE = 5


@pytest.fixture(scope="module")
def store(database_url):
    pool = open_pool(database_url, max_size=4)
    yield store_as_the_apps(pool, Config())
    pool.close()


class Killed(BaseException):
    """The follower's process dies here: its transaction never commits."""


class DyingStore:
    """The store, for a follower that dies at its `appends_left`-th append from now (None:
    never), and that notes the positions each of its batches read."""

    def __init__(self, store: PostgresEventStore) -> None:
        self._store = store
        self.appends_left: int | None = None
        self.read: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def append(self, *args: Any, **kwargs: Any) -> Any:
        if self.appends_left is not None:
            if self.appends_left == 0:
                raise Killed
            self.appends_left -= 1
        return self._store.append(*args, **kwargs)

    def read_all(self, after: Checkpoint | None = None, limit: int = 1000, **until: Any) -> Any:
        records, checkpoint = self._store.read_all(after, limit, **until)
        if not until:  # a batch's read (a catch-up only folds what another follower handled)
            self.read.extend(r.position for r in records)
        return records, checkpoint


def follower_at_the_head(store: PostgresEventStore) -> str:
    """A tracking record of its own, moved past everything other tests wrote."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    at = START
    while True:
        records, at_next = store.read_all(at, 5000)
        if not records:
            break
        at = at_next
    with store.transaction():
        trackings.PostgresTracking().claim(name)
        trackings.PostgresTracking().move(name, at)
    return name


def checkpoint_of(store: PostgresEventStore, name: str) -> Checkpoint:
    with store.transaction():
        return trackings.PostgresTracking().claim(name)


def play_all_tables(store: PostgresEventStore, tournament_id: str) -> None:
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    for number in range(1, len(state.seating.tables) + 1):
        try:
            while shove(store, tournament_tables.table_id_for(tournament_id, number)):
                pass
        except VersionConflict:
            # The table cache is the process's: it may show a follower's table writes
            # before its batch commits. The append refused; the player acts again later.
            pass


def finished(store: PostgresEventStore, tournament_id: str) -> bool:
    return tournaments.load_tournament(applications.of(store), tournament_id).state.status == tournament.FINISHED


def streams_of(store: PostgresEventStore, tournament_id: str) -> list[str]:
    return [tournaments.stream_id(tournament_id),
            *(s for s in store.list_streams(commands.table_stream(f"{tournament_id}-table-")))]


def assert_played_once(store: PostgresEventStore, tournament_id: str, handled: list[int]) -> None:
    """Every event of the tournament and its tables handled once; every player out once,
    every hand reported once, nobody at two tables at once, no chip made or lost."""
    positions = [r.position for s in streams_of(store, tournament_id) for r in store.read_stream(s)]
    assert len(handled) == len(set(handled)), "a position was handled twice"
    assert set(positions) <= set(handled)
    state = tournaments.load_tournament(applications.of(store), tournament_id).state
    order = state.finishing_order()
    assert len(order) == PLAYERS and len({e.player_id for e in order}) == PLAYERS
    assert [e.place for e in order].count(1) == 1
    tournament_log = store.read_stream(tournaments.stream_id(tournament_id))
    reports = [r.metadata["idempotency_key"] for r in tournament_log if r.type == "HandFinished"]
    assert len(reports) == len(set(reports))
    hands = sum(commands.load_table(applications.of(store), table_id[len(commands.STREAM_PREFIX):]).state.hands_played
                for table_id in streams_of(store, tournament_id)[1:])
    assert len(reports) == hands
    seated_at: dict[str, str] = {}
    for record in sorted((r for s in streams_of(store, tournament_id)[1:] for r in store.read_stream(s)),
                         key=lambda r: r.position):
        if record.type == "TableCreated":
            for seat in record.data["seats"]:
                if seat["player_id"]:
                    assert seat["player_id"] not in seated_at
                    seated_at[seat["player_id"]] = record.stream_id
        elif record.type == "PlayerSeatedAtTable":
            assert record.data["player_id"] not in seated_at, "seated at two tables"
            seated_at[record.data["player_id"]] = record.stream_id
        elif record.type == "PlayerLeftTable":
            assert seated_at.pop(record.data["player_id"]) == record.stream_id
    assert sum(e.type == "TournamentFinished" for e in tournament_log) == 1
    assert state.chips_in_play == PLAYERS * STACK


def test_a_follower_killed_mid_batch_leaves_nothing_and_the_next_one_handles_each_event_once(store):
    name = follower_at_the_head(store)
    tournament_id = new_tournament(store, PLAYERS, table_size=TABLE_SIZE)
    dice = random.Random(18)
    dying = DyingStore(store)
    follower = process_managers.TournamentFollower(application(dying), trackings.PostgresTracking(), name=name)
    handled: list[int] = []
    kills = 0
    for _ in range(3000):
        if finished(store, tournament_id):
            break
        dying.appends_left = dice.randrange(1, 4) if dice.random() < 0.7 else None
        version = tournaments.load_tournament(applications.of(store), tournament_id).version
        checkpoint = checkpoint_of(store, name)
        dying.read.clear()
        try:
            batch = follower.handle_batch()
        except Killed:
            kills += 1
            # Nothing of the batch is left: not its tournament commands, not its checkpoint.
            assert tournaments.load_tournament(applications.of(store), tournament_id).version == version
            assert checkpoint_of(store, name) == checkpoint
            follower = process_managers.TournamentFollower(application(dying), trackings.PostgresTracking(), name=name)
            continue
        handled.extend(dying.read)
        if not batch.recorded and not batch.full:
            play_all_tables(store, tournament_id)
    assert finished(store, tournament_id)
    assert kills >= 3
    dying.appends_left = None
    dying.read.clear()
    follower.handle_batch()  # the tournament's last events
    handled.extend(dying.read)
    assert_played_once(store, tournament_id, handled)


def test_two_followers_on_one_tracking_record_take_turns_and_never_handle_a_position_twice(store):
    name = follower_at_the_head(store)
    tournament_id = new_tournament(store, PLAYERS, table_size=TABLE_SIZE)
    handled: dict[int, list[int]] = {0: [], 1: []}
    stop = threading.Event()
    failures: list[BaseException] = []

    def follow(index: int) -> None:
        watched = DyingStore(store)
        follower = process_managers.TournamentFollower(application(watched), trackings.PostgresTracking(), name=name)
        try:
            while not stop.is_set():
                watched.read.clear()
                follower.handle_batch()
                handled[index].extend(watched.read)
                time.sleep(0.001)
        except BaseException as failure:  # noqa: BLE001 - the test thread reports it
            failures.append(failure)

    threads = [threading.Thread(target=follow, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 120
        while not finished(store, tournament_id):
            assert time.monotonic() < deadline and not failures, failures
            play_all_tables(store, tournament_id)
            time.sleep(0.01)
        time.sleep(0.3)  # the followers read the last events
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not failures, failures
    assert handled[0] and handled[1], "both followers handled batches"
    assert not set(handled[0]) & set(handled[1])
    assert_played_once(store, tournament_id, handled[0] + handled[1])
