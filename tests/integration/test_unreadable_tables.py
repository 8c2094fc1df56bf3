"""A table stream this code cannot read is reported, never a crash of its reader, as a
tournament's is (test_unreadable_tournaments): one holding an event type the domain does
not know (in its second hand, its clock running) and one holding a well-formed chip
change for a seat the table does not have, each written straight into the store as the
domain would never write it.

Every read and write of such a table answers the 409 problem `unreadable_stream` naming
the stream and the version (the table, its legal actions, its log, its live feed, its
actions, hands and absences, the floor's live page and replayer), never a traceback; a
hand played before the unreadable record still reads, and the chain check still runs.
`/v1/status` and `cardroom status` list it under `unreadable` with the reason, the home
page and the replayer's picker show it as unreadable; the clock watch and the clock sweep
pass it over (logged once) and expire the other tables' clocks; the tournament follower
parks a tournament whose table it cannot read and goes on with the others.

On a database of its own: the shared test database's status, home page and followers
would meet these streams."""
from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from domain.live import table_commands, table_records
from domain.rules.betting import BettingStructure
from domain.tournaments import commands as tournament_commands
from domain.tournaments.structure import Period
from service.adapters.store import trackings
from service.adapters.store.base import START, NewEvent
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.application import commands, process_managers, tournament_tables, tournaments
from service.application.application import application
from service.application.parts import Application
from service.config import Config
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, key_for, printed_status
from tests.integration.test_floor_pages_http import sign_in
from workers import clock_tasks

pytestmark = pytest.mark.integration

READABLE = "readable"
FLASHED = "flashed"  # hand 1 played, hand 2 opened (its clock running), then a hand event of a type this code does not know
BAD_SEAT = "bad-seat"  # a chip change for seat 9 of a two-seat table
BROKEN_TOURNAMENT = "tb-broken"  # its table 1 holds the chip change for seat 9
GOING_ON = "tb-going-on"
NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SEATS = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))
UNKNOWN_TYPE = "CardFlashed: an event type this code does not know"
NO_SUCH_SEAT = "ChipsAdjusted: tuple index out of range"


def forge(store: PostgresEventStore, table_id: str, event_type: str, data: dict[str, Any],
          metadata: dict[str, Any] | None = None) -> int:
    """`event_type` appended at the table's head as the code of today writes records (the
    table form; a hand's event tagged with its hand, with its MAC), but past the domain:
    the version it is at."""
    stream = commands.table_stream(table_id)
    return store.append(stream, store.stream_version(stream),
                        [NewEvent(event_type, data, table_records.POSITIONS_NAMED, metadata or {})]).last_version


def clock_passed(app: Application, table_id: str) -> None:
    """The table's next hand, dealt as if ten seconds ago: its one-second clock has passed."""
    loaded = commands.load_table(app, table_id)
    handled = commands.execute(app, table_id, loaded.version, commands.draw_deal(), now=time.time() - 10)
    assert handled.state.clock is not None


def fold_hand(app: Application, table_id: str) -> None:
    loaded = commands.load_table(app, table_id)
    commands.execute(app, table_id, loaded.version, table_commands.Act(loaded.state.to_act, "fold"))


def new_tournament(app: Application, tournament_id: str) -> None:
    """Three players on the service's tables, started: the follower (or `advance`) opens
    its table."""
    settings = tournament_commands.Settings(name=tournament_id, structure=(Period.level(25, 50, 20),), starts_at=0,
                                            starting_stack=1000, buy_in=10, payout_percentages=("100",))
    tournaments.create_tournament(app, tournament_id, settings, "holdem", "no-limit")
    for player in ("ann", "bob", "cat"):
        tournaments.send(app, tournament_id, tournament_commands.Register(f"{tournament_id}-{player}", at=0))
    tournaments.send(app, tournament_id, tournament_commands.StartTournament(at=int(time.time()), seed=5))


@pytest.fixture(scope="module")
def client(own_database: tuple[str, str], own_store: PostgresEventStore) -> Any:
    from service.bootstrap import create_app

    app = application(own_store)
    for table_id in (READABLE, BAD_SEAT):
        commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, SEATS))
    commands.start_next_hand(app, READABLE, 1)
    commands.create_table(app, table_commands.CreateTable(FLASHED, "holdem", {}, NL, SEATS, action_clock_s=1))
    clock_passed(app, FLASHED)
    fold_hand(app, FLASHED)
    clock_passed(app, FLASHED)
    forge(own_store, FLASHED, "CardFlashed", {"seat": 0, "position": 1, "card": "As"},
          {"hand_id": f"{FLASHED}.2"})
    forge(own_store, BAD_SEAT, "ChipsAdjusted", {"seat": 9, "player_id": "ann", "amount": 100, "change_id": 1,
                                             "reason": "forged"})
    # Two tournaments on the service's tables, their tables opened and dealt; one table of
    # the first holds the forged chip change; the second's tables are not yet opened.
    new_tournament(app, BROKEN_TOURNAMENT)
    tournament_tables.advance(app, BROKEN_TOURNAMENT, time.time())
    forge(own_store, tournament_tables.table_id_for(BROKEN_TOURNAMENT, 1), "ChipsAdjusted",
          {"seat": 9, "player_id": "ann", "amount": 100, "change_id": 1, "reason": "forged"})
    new_tournament(app, GOING_ON)
    return create_app(Config(database_url=own_database[1], admin_key=ADMIN_KEY)).test_client()


def flashed_at(store: PostgresEventStore) -> int:
    """The version of the record this code cannot read: the table's head."""
    return store.stream_version(commands.table_stream(FLASHED))


def assert_unreadable(response: Any, table_id: str, version: int, reason: str) -> None:
    problem = assert_problem(response, 409, "unreadable_stream")
    assert problem["numbers"] == {"stream": commands.table_stream(table_id), "version": version}
    assert reason in problem["detail"]


def test_every_read_and_write_of_the_table_is_the_problem_unreadable_stream(client, own_store):
    version = flashed_at(own_store)
    player = {"player_id": "ann"}
    for method, path, body in [
            ("GET", f"/v1/tables/{FLASHED}", None),
            ("GET", f"/v1/tables/{FLASHED}/legal-actions", None),
            ("GET", f"/v1/tables/{FLASHED}/events", None),
            ("GET", f"/v1/tables/{FLASHED}/events?after=1&limit=2", None),
            ("GET", f"/v1/tables/{FLASHED}/stream", None),
            ("GET", f"/v1/tables/{FLASHED}/stream?view=public", None),
            ("POST", f"/v1/tables/{FLASHED}/actions", {"action": "fold", "expected_version": version, **player}),
            ("POST", f"/v1/tables/{FLASHED}/hands", {}),
            ("POST", f"/v1/tables/{FLASHED}/absences", player),
            ("POST", f"/v1/tables/{FLASHED}/close", {}),
            ("GET", f"/v1/hands/{FLASHED}.2", None),
            ("GET", f"/v1/hands/{FLASHED}.2/state", None),
            ("GET", f"/v1/hands/{FLASHED}.2/state?at={version - 1}", None),
            ("GET", f"/v1/hands/{FLASHED}.2/phh", None)]:
        headers = {} if path.endswith("view=public") else ADMIN
        response = client.open(path, method=method, headers=headers, json=body)
        assert_unreadable(response, FLASHED, version, UNKNOWN_TYPE)
    assert_unreadable(client.get(f"/v1/tables/{BAD_SEAT}", headers=ADMIN), BAD_SEAT, 2, NO_SUCH_SEAT)
    assert_unreadable(client.post(f"/v1/tables/{BAD_SEAT}/hands", headers=ADMIN, json={}), BAD_SEAT, 2,
                      NO_SUCH_SEAT)


def test_the_readable_table_and_the_hand_before_the_unreadable_record_read_as_before(client, own_store):
    assert client.get(f"/v1/tables/{READABLE}", headers=ADMIN).status_code == 200
    assert client.get(f"/v1/tables/{READABLE}/events", headers=ADMIN).status_code == 200
    first_hand = client.get(f"/v1/hands/{FLASHED}.1", headers=ADMIN)
    assert first_hand.status_code == 200 and first_hand.get_json()["over"]
    # The chain check reads the stored records, not the table: the auditor can still run it
    # (it finds no MAC here: this test's store writes without the chain key).
    checked = client.get(f"/v1/hands/{FLASHED}.2/verify", headers=ADMIN)
    assert checked.status_code == 200 and checked.get_json()["last_version"] == flashed_at(own_store)


def test_the_floors_pages_for_it_are_the_problem_and_the_room_lists_it_as_unreadable(client):
    browser = client.application.test_client()
    sign_in(browser, key_for(client, "floor"))
    for path in (f"/floor/tables/{FLASHED}", f"/floor/tables/{FLASHED}/live", f"/floor/hands/{FLASHED}.2",
                 f"/floor/hand-histories?table={FLASHED}"):
        page = browser.get(path)
        text = page.get_data(as_text=True)
        assert page.status_code == 409 and "unreadable_stream" in text and UNKNOWN_TYPE in text, (path, text[:500])
    assert browser.get(f"/floor/hands/{FLASHED}.1").status_code == 200
    assert browser.get(f"/floor/tables/{READABLE}").status_code == 200
    picker = browser.get("/floor/hand-histories")
    assert picker.status_code == 200
    listed = picker.get_data(as_text=True)
    assert "<td>unreadable</td>" in _row(listed, f'?table={FLASHED}"')
    assert "<td>unreadable</td>" not in _row(listed, f'?table={READABLE}"')
    home = client.get("/")
    assert home.status_code == 200
    shown = home.get_data(as_text=True)
    assert ">unreadable<" in _row(shown, f'data-table="{FLASHED}"')
    assert ">unreadable<" not in _row(shown, f'data-table="{READABLE}"')


def _row(page: str, anchor: str) -> str:
    """The row of `page`'s table that holds `anchor`."""
    at = page.index(anchor)
    return page[page.rindex("<tr", 0, at):page.index("</tr>", at)]


def test_the_status_lists_the_tables_it_cannot_read_with_the_reason(client, own_store):
    response = client.get("/v1/status", headers=ADMIN)
    assert response.status_code == 200
    refused = {(t["kind"], t["id"]): t for t in response.get_json()["unreadable"]}
    broken_table = tournament_tables.table_id_for(BROKEN_TOURNAMENT, 1)
    assert set(refused) == {("table", FLASHED), ("table", BAD_SEAT), ("table", broken_table)}
    assert refused["table", FLASHED] == {"kind": "table", "id": FLASHED, "version": flashed_at(own_store),
                                         "reason": UNKNOWN_TYPE}
    assert refused["table", BAD_SEAT]["version"] == 2 and refused["table", BAD_SEAT]["reason"] == NO_SUCH_SEAT


def test_the_command_line_prints_them(client, own_store, own_database, tmp_path, monkeypatch):
    printed = printed_status(own_database[1], tmp_path, monkeypatch)
    assert f"unreadable: table {FLASHED} at version {flashed_at(own_store)}: CardFlashed" in printed
    assert f"unreadable: table {BAD_SEAT} at version 2: ChipsAdjusted" in printed


def expired(store: PostgresEventStore, table_id: str) -> int:
    return sum(r.type == "ClockExpired" for r in store.read_stream(commands.table_stream(table_id)))


def test_the_clock_sweep_passes_the_table_over_once_logged_and_expires_the_others(client, own_store, own_database,
                                                                                   caplog):
    app = application(own_store)
    commands.create_table(app, table_commands.CreateTable("swept", "holdem", {}, NL, SEATS, action_clock_s=1))
    clock_passed(app, "swept")
    pool = open_pool(own_database[1], max_size=2)
    try:
        with caplog.at_level(logging.INFO, logger=clock_tasks.__name__):
            assert clock_tasks.sweep(app, pool, commands.now_ms()) == 1
            logged = [r.getMessage() for r in caplog.records if FLASHED in r.getMessage()]
            assert len(logged) == 1 and "cannot be read" in logged[0] and UNKNOWN_TYPE in logged[0]
            assert clock_tasks.sweep(app, pool, commands.now_ms()) == 0  # nothing new, nothing said again
            assert len([r for r in caplog.records if FLASHED in r.getMessage()]) == 1
    finally:
        pool.close()
    assert expired(own_store, "swept") == 1 and expired(own_store, FLASHED) == 0


def test_the_clock_watch_passes_the_table_over_and_expires_the_others(client, own_store, own_database, caplog):
    app = application(own_store)
    commands.create_table(app, table_commands.CreateTable("watched", "holdem", {}, NL, SEATS, action_clock_s=1))
    clock_passed(app, "watched")
    watch = clock_tasks.ClockWatch(Config(database_url=own_database[1]))
    with caplog.at_level(logging.INFO, logger=clock_tasks.__name__):
        watch.start()
        try:
            deadline = time.monotonic() + 10
            while expired(own_store, "watched") == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            watch.stop()
    assert expired(own_store, "watched") == 1 and expired(own_store, FLASHED) == 0
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert f"table {FLASHED}: clock of seat" in logged and "cannot be read" in logged


def test_the_follower_parks_a_tournament_whose_table_it_cannot_read_and_goes_on(client, own_store, caplog):
    name = "unreadable-tables-test"
    with own_store.transaction():
        trackings.PostgresTracking().claim(name)
        trackings.PostgresTracking().move(name, START)
    app = application(own_store)
    follower = process_managers.TournamentFollower(app, trackings.PostgresTracking(), name=name)
    with caplog.at_level(logging.ERROR, logger=process_managers.__name__):
        follower.handle_batch()
    broken_table = commands.table_stream(tournament_tables.table_id_for(BROKEN_TOURNAMENT, 1))
    assert set(follower.unreadable) == {BROKEN_TOURNAMENT}
    assert f"{broken_table} cannot be read at version" in follower.unreadable[BROKEN_TOURNAMENT]
    assert f"tournament {BROKEN_TOURNAMENT}: parked" in " ".join(r.getMessage() for r in caplog.records)
    # The other tournament's table was opened and its first hand dealt in the same batch.
    going_on = commands.load_table(app, tournament_tables.table_id_for(GOING_ON, 1)).state
    assert going_on is not None and going_on.hands_played == 1
    follower.handle_batch()  # its own writes: followed, the parked one left alone
    assert set(follower.unreadable) == {BROKEN_TOURNAMENT}
