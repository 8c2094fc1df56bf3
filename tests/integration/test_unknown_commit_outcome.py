"""A write whose COMMIT's outcome the app cannot know (the connection dropped while the
COMMIT was under way, as it does when the primary dies or is demoted mid-commit): it is
answered 503 `database_unavailable` with Retry-After, never a 500 and never a success. Its
retry with the same Idempotency-Key answers the first outcome if the COMMIT took effect,
or performs the write once if it did not; without a key, the blind retry of a write that
did take effect is refused by its If-Match (409).

Both outcomes are made on real PostgreSQL: "not committed" by terminating the app's
backend while its COMMIT waits (a deferred constraint trigger, created in this module's own
database, blocks the COMMIT on an advisory lock the test holds); "committed, answer lost"
by closing the connection right after the server answered the COMMIT, before the app reads
the answer (the error psycopg raises when the server's reply never arrives)."""
from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from psycopg import sql

from service.adapters.migrate import roles_for
from service.adapters.store import libpq_pipeline, scope
from service.adapters.store import postgres as postgres_store
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, with_the_apps_keys
from tests.integration.test_tables_http import new_player, new_table, version_of

pytestmark = pytest.mark.integration

HOLD_LOCK = 0x686F6C64  # "hold": the advisory lock the deferred trigger waits on
WAIT_S = 10


@pytest.fixture(scope="module")
def client(own_database: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=own_database[1], admin_key=ADMIN_KEY,
                             data_dir=with_the_apps_keys(tmp_path_factory.mktemp("data")))).test_client()


@pytest.fixture
def seated(client: Any) -> tuple[str, list[tuple[str, dict]]]:
    players = [new_player(client, name) for name in ("Ann", "Bob")]
    table_id = new_table(client, [p for p, _ in players])
    dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert dealt.status_code == 201, dealt.get_data(as_text=True)
    return table_id, players


def actions_in_log(admin_url: str, table_id: str) -> int:
    with psycopg.connect(admin_url) as connection:
        return connection.execute("SELECT count(*) FROM events WHERE stream_id = %s AND type = 'ActionTaken'",
                                  (f"table-{table_id}",)).fetchone()[0]


@contextmanager
def commit_held(admin_url: str, stream_id: str) -> Iterator[psycopg.Connection]:
    """Every COMMIT of an append to `stream_id` waits on HOLD_LOCK, which the yielded
    connection holds until it unlocks it or the block ends (trigger and function dropped)."""
    trigger = f"hold_commit_{secrets.token_hex(4)}"
    with psycopg.connect(admin_url, autocommit=True) as ddl:
        ddl.execute(f"""
            CREATE FUNCTION {trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock({HOLD_LOCK}); RETURN NULL; END $$""")
        ddl.execute(sql.SQL("""
            CREATE CONSTRAINT TRIGGER {} AFTER INSERT ON events
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
            WHEN (NEW.stream_id = {}) EXECUTE FUNCTION {}()""").format(
            sql.Identifier(trigger), sql.Literal(stream_id), sql.Identifier(trigger)))
        try:
            with psycopg.connect(admin_url, autocommit=True) as holder:
                holder.execute("SELECT pg_advisory_lock(%s)", (HOLD_LOCK,))
                yield holder
        finally:
            ddl.execute(f"DROP TRIGGER {trigger} ON events")
            ddl.execute(f"DROP FUNCTION {trigger}()")


@pytest.fixture
def held_commit(own_database: tuple[str, str], seated: tuple[str, list]) -> Iterator[psycopg.Connection]:
    with commit_held(own_database[0], f"table-{seated[0]}") as holder:
        yield holder


def backend_waiting_in_commit(admin_url: str) -> int:
    """The pid of the backend whose COMMIT waits on HOLD_LOCK."""
    deadline = time.monotonic() + WAIT_S
    with psycopg.connect(admin_url, autocommit=True) as watcher:
        while time.monotonic() < deadline:
            row = watcher.execute(
                "SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND NOT l.granted"
                " AND l.objid = %s", (HOLD_LOCK,)).fetchone()
            if row:
                return int(row[0])
            time.sleep(0.02)
    raise AssertionError("no COMMIT came to wait on the held lock")


def raise_with_ready_answer(table_id: str, player: dict, headers: dict, client: Any,
                            admin_url: str, held: psycopg.Connection) -> Any:
    """Sends a raise while the COMMIT is held, terminates the backend waiting in it."""
    version = version_of(client, table_id)
    with ThreadPoolExecutor(1) as background:
        sent = background.submit(client.post, f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                                 headers={**player, **headers, "If-Match": f'"{version}"'})
        pid = backend_waiting_in_commit(admin_url)
        held.execute("SELECT pg_terminate_backend(%s, %s)", (pid, WAIT_S * 1000))
        return sent.result(timeout=WAIT_S)


def assert_unknown_outcome(answer: Any) -> None:
    body = assert_problem(answer, 503, "database_unavailable")
    assert answer.headers["Retry-After"].isdigit(), body
    assert "Cardroom-Receipt" not in answer.headers


def test_a_commit_cut_off_before_it_took_effect_is_a_503_and_its_keyed_retry_performs_it_once(
        client, own_database, seated, held_commit):
    admin_url = own_database[0]
    table_id, players = seated
    key = {"Idempotency-Key": "k-" + secrets.token_hex(8)}
    before = actions_in_log(admin_url, table_id)

    assert_unknown_outcome(raise_with_ready_answer(table_id, players[0][1], key, client, admin_url, held_commit))
    assert actions_in_log(admin_url, table_id) == before  # the terminated COMMIT rolled back

    held_commit.execute("SELECT pg_advisory_unlock(%s)", (HOLD_LOCK,))
    retried = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                          headers={**players[0][1], **key, "If-Match": f'"{version_of(client, table_id)}"'})
    assert retried.status_code == 201, retried.get_data(as_text=True)
    assert "Idempotent-Replayed" not in retried.headers
    assert actions_in_log(admin_url, table_id) == before + 1
    again = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                        headers={**players[0][1], **key, "If-Match": retried.headers["ETag"]})
    assert again.headers["Idempotent-Replayed"] == "true"
    assert actions_in_log(admin_url, table_id) == before + 1


@pytest.fixture
def answers_lost_after_commit(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """While set, the next write the store makes takes effect on the server (a transaction's
    COMMIT, or an append outside a transaction, committed on its own), then the connection
    is closed before the app reads the answer: what the app sees when the primary dies
    between committing and replying."""
    armed = threading.Event()
    in_savepoint, one_trip = libpq_pipeline.in_savepoint, libpq_pipeline.one_trip
    insert = postgres_store.PostgresEventStore._insert

    def lose(connection: psycopg.Connection) -> None:
        armed.clear()
        connection.close()
        raise psycopg.OperationalError("consuming input failed: server closed the connection unexpectedly")

    def committing_in_savepoint(connection: psycopg.Connection, runs: Any, *, commit: bool = False) -> Any:
        results = in_savepoint(connection, runs, commit=commit)
        if commit and armed.is_set():
            lose(connection)
        return results

    def committing_in_one_trip(connection: psycopg.Connection, runs: Any) -> None:
        one_trip(connection, runs)  # an idempotent write's claim, append, record and COMMIT
        if armed.is_set():
            lose(connection)

    def inserting_on_its_own(store: Any, connection: psycopg.Connection, *args: Any) -> Any:
        appended = insert(store, connection, *args)
        opened = scope.current()
        held_back = opened is not None and opened.held_back is not None  # nothing sent yet
        if appended is not None and armed.is_set() and postgres_store._outside_transaction(connection) \
                and not held_back:
            lose(connection)
        return appended

    monkeypatch.setattr(libpq_pipeline, "in_savepoint", committing_in_savepoint)
    monkeypatch.setattr(libpq_pipeline, "one_trip", committing_in_one_trip)
    monkeypatch.setattr(postgres_store.PostgresEventStore, "_insert", inserting_on_its_own)
    return armed


def test_a_commit_whose_answer_was_lost_is_a_503_and_its_keyed_retry_answers_the_first_outcome(
        client, own_database, seated, answers_lost_after_commit):
    admin_url = own_database[0]
    table_id, players = seated
    version = version_of(client, table_id)
    headers = {**players[0][1], "Idempotency-Key": "k-" + secrets.token_hex(8), "If-Match": f'"{version}"'}
    before = actions_in_log(admin_url, table_id)

    answers_lost_after_commit.set()
    lost = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300}, headers=headers)
    assert_unknown_outcome(lost)
    assert actions_in_log(admin_url, table_id) == before + 1  # it did commit

    retried = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300}, headers=headers)
    assert retried.status_code == 201, retried.get_data(as_text=True)
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert retried.get_json()["version"] == version + 1
    assert retried.headers.getlist("Cardroom-Receipt")
    assert actions_in_log(admin_url, table_id) == before + 1
    assert version_of(client, table_id) == version + 1


def test_a_write_without_a_key_whose_answer_was_lost_is_a_503_and_its_blind_retry_is_refused_by_if_match(
        client, own_database, seated, answers_lost_after_commit):
    admin_url = own_database[0]
    table_id, players = seated
    version = version_of(client, table_id)
    headers = {**players[0][1], "If-Match": f'"{version}"'}
    before = actions_in_log(admin_url, table_id)

    answers_lost_after_commit.set()
    assert_unknown_outcome(client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                                       headers=headers))
    retried = client.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300}, headers=headers)
    assert_problem(retried, 409, "version_conflict")
    assert actions_in_log(admin_url, table_id) == before + 1
    assert version_of(client, table_id) == version + 1


@pytest.fixture
def login_with_a_statement_timeout(own_database: tuple[str, str]) -> Iterator[str]:
    """A login of this test's own, a writer, with a statement_timeout and a
    client_connection_check_interval of 50 ms as its server-side defaults."""
    role = f"cardroom_test_timeout_{secrets.token_hex(4)}"
    with psycopg.connect(own_database[0], autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'pw' IN ROLE {}").format(
            sql.Identifier(role), sql.Identifier(roles_for(own_database[0]).writer)))
        for setting in ("statement_timeout", "client_connection_check_interval"):
            admin.execute(sql.SQL("ALTER ROLE {} SET {} = '50ms'").format(sql.Identifier(role), sql.Identifier(setting)))
        try:
            yield psycopg.conninfo.make_conninfo(own_database[1], user=role, password="pw")
        finally:
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_a_statement_timeout_on_the_server_cancels_no_commit_held_past_it(
        own_database, seated, held_commit, login_with_a_statement_timeout, tmp_path):
    """PostgreSQL stops a statement's timer before it commits (the COMMIT, its deferred
    triggers and its wait for a synchronous standby run after it), so a timeout set for the
    login does not cancel a COMMIT; the app sets none of its own."""
    from service.bootstrap import create_app
    from service.config import Config

    admin_url = own_database[0]
    table_id, players = seated
    client = create_app(Config(database_url=login_with_a_statement_timeout, admin_key=ADMIN_KEY,
                               data_dir=with_the_apps_keys(tmp_path))).test_client()
    before = actions_in_log(admin_url, table_id)
    version = version_of(client, table_id)
    with ThreadPoolExecutor(1) as background:
        sent = background.submit(client.post, f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                                 headers={**players[0][1], "If-Match": f'"{version}"',
                                          "Idempotency-Key": "k-" + secrets.token_hex(8)})
        backend_waiting_in_commit(admin_url)
        time.sleep(0.5)  # ten times the login's statement_timeout
        held_commit.execute("SELECT pg_advisory_unlock(%s)", (HOLD_LOCK,))
        answer = sent.result(timeout=WAIT_S)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert actions_in_log(admin_url, table_id) == before + 1
