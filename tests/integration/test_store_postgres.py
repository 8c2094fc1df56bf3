"""What only the PostgreSQL store can show: the database itself guards the log, and a
global reader does not skip a transaction that commits after a later one."""
from __future__ import annotations

import time

import psycopg
import pytest

from service.adapters.store import libpq_pipeline, scope
from service.adapters.store.base import NewEvent, VersionConflict
from service.adapters.store.postgres import PostgresEventStore, open_pool
from tests.integration.test_store_contract import drain, follow_until


@pytest.fixture
def postgres_store(postgres_pool) -> PostgresEventStore:
    return PostgresEventStore(postgres_pool)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET type = 'Forged' WHERE stream_id = %s",
        "DELETE FROM events WHERE stream_id = %s",
    ],
)
def test_the_database_refuses_to_change_or_delete_events(
    postgres_store, admin_database_url, stream_id, statement
):
    """Even for the owner or a superuser (the application may not try at all:
    test_database_privileges)."""
    postgres_store.append(stream_id, 0, [NewEvent("PlayerSeated", {"seat": 0})])

    with psycopg.connect(admin_database_url) as connection, pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        connection.execute(statement, (stream_id,))

    assert [e.type for e in postgres_store.read_stream(stream_id)] == ["PlayerSeated"]


def test_the_database_refuses_to_truncate_events(postgres_store, admin_database_url, stream_id):
    postgres_store.append(stream_id, 0, [NewEvent("PlayerSeated", {"seat": 0})])

    with psycopg.connect(admin_database_url) as connection, pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        connection.execute("TRUNCATE events")

    assert postgres_store.stream_version(stream_id) == 1


def test_a_transaction_that_commits_late_is_not_skipped_by_the_global_reader(
    postgres_store, database_url, stream_id
):
    _, checkpoint = drain(postgres_store, None)
    with psycopg.connect(database_url) as late:
        # The late writer takes the earlier position, then holds its transaction open...
        slow = postgres_store.append_on(late, f"{stream_id}-slow", 0, [NewEvent("Late", {})])
        # ...while another writer takes a later position and commits first.
        fast = postgres_store.append(f"{stream_id}-fast", 0, [NewEvent("Early", {})])
        assert slow.positions[0] < fast.positions[0]

        seen_while_open, checkpoint = drain(postgres_store, checkpoint)
        late.commit()
    ours = {f"{stream_id}-slow", f"{stream_id}-fast"}
    seen_while_open = [e for e in seen_while_open if e.stream_id in ours]
    seen_after = follow_until(postgres_store, checkpoint, ours, 2 - len(seen_while_open))

    # A reader checkpointing on position alone would have taken "Early" and then
    # stepped over "Late", whose position is lower.
    assert sorted(e.type for e in seen_while_open + seen_after) == [
        "Early",
        "Late",
    ]


def test_a_rolled_back_append_leaves_only_a_gap(postgres_store, database_url, stream_id):
    _, checkpoint = drain(postgres_store, None)
    with psycopg.connect(database_url) as aborted:
        postgres_store.append_on(aborted, stream_id, 0, [NewEvent("Abandoned", {})])
        aborted.rollback()
    kept = postgres_store.append(stream_id, 0, [NewEvent("Kept", {})])

    # Follow until the kept event arrives (a loaded server can take seconds), then 0.3 s
    # more: nothing of the abandoned append may come, before it or after.
    seen, kept_seen_at = [], None
    deadline = time.monotonic() + 20
    while time.monotonic() < (deadline if kept_seen_at is None else kept_seen_at + 0.3):
        page, checkpoint = postgres_store.read_all(checkpoint, limit=50)
        seen += [e for e in page if e.stream_id == stream_id]
        if kept_seen_at is None and seen:
            kept_seen_at = time.monotonic()
        if not page:
            time.sleep(0.01)
    assert [(e.type, e.version) for e in seen] == [("Kept", 1)]
    assert kept.first_version == 1


def test_an_append_survives_psycopg_deallocating_every_prepared_statement(database_url, stream_id):
    # psycopg sends DEALLOCATE ALL after a rollback once it has prepared statements of its
    # own: the store's append statement goes too and must be prepared again, not fail.
    pool = open_pool(database_url, min_size=1, max_size=1)
    try:
        store = PostgresEventStore(pool)
        store.append(stream_id, 0, [NewEvent("Before", {})])
        with pool.connection() as connection:
            connection.execute("DEALLOCATE ALL")
        store.append(stream_id, 1, [NewEvent("After", {})])
        store.append(stream_id, 2, [NewEvent("Batch", {}), NewEvent("Batch", {})])
        with pool.connection() as connection:
            connection.execute("DEALLOCATE ALL")
            with connection.transaction():  # inside a transaction a failed statement would abort it
                store.append_on(connection, stream_id, 4, [NewEvent("InTransaction", {})])

        assert [e.type for e in store.read_stream(stream_id)] == [
            "Before", "After", "Batch", "Batch", "InTransaction"]
    finally:
        pool.close()


def test_an_append_in_a_transaction_survives_a_deallocation_inside_it_in_one_round_trip(
        database_url, stream_id, monkeypatch):
    # Inside store.transaction() each append runs under the store's savepoint: its prepared
    # INSERT is run without asking the server first whether the session still holds it;
    # a session that lost it (a rollback in the same transaction) rolls back to the
    # savepoint and prepares it again, and the transaction goes on.
    asked = []
    monkeypatch.setattr(libpq_pipeline.PreparedStatement, "_on_server", lambda statement, connection: asked.append(1))
    pool = open_pool(database_url, min_size=1, max_size=1)
    try:
        store = PostgresEventStore(pool)
        store.append(stream_id, 0, [NewEvent("Before", {})])
        with store.transaction():
            store.append(stream_id, 1, [NewEvent("Prepared", {})])
            scope.joined_transaction(store).execute("DEALLOCATE ALL")
            store.append(stream_id, 2, [NewEvent("PreparedAgain", {})])
        assert not asked
        assert [e.type for e in store.read_stream(stream_id)] == ["Before", "Prepared", "PreparedAgain"]
    finally:
        pool.close()


# The store chains hashes from the head it last saw (a hint kept per process); the
# database checks that hash, so a stale or wrong hint costs a read, never a broken chain.

def test_a_second_store_continues_the_chain_another_process_wrote(postgres_pool, stream_id):
    first, second = PostgresEventStore(postgres_pool), PostgresEventStore(postgres_pool)
    first.append(stream_id, 0, [NewEvent("One", {})])
    second.append(stream_id, 1, [NewEvent("Two", {}), NewEvent("Three", {})])
    first.append(stream_id, 3, [NewEvent("Four", {})])

    assert [e.type for e in second.read_stream(stream_id)] == ["One", "Two", "Three", "Four"]
    assert second.verify_stream(stream_id).ok


def test_a_store_whose_head_is_stale_gets_the_conflict_and_writes_nothing(postgres_pool, stream_id):
    stale, current = PostgresEventStore(postgres_pool), PostgresEventStore(postgres_pool)
    stale.append(stream_id, 0, [NewEvent("One", {})])
    current.append(stream_id, 1, [NewEvent("Two", {})])

    with pytest.raises(VersionConflict) as conflict:
        stale.append(stream_id, 1, [NewEvent("Late", {})])
    assert (conflict.value.expected, conflict.value.actual) == (1, 2)
    with pytest.raises(VersionConflict) as ahead:
        stale.append(stream_id, 5, [NewEvent("Ahead", {})])
    assert (ahead.value.expected, ahead.value.actual) == (5, 2)
    assert [e.type for e in current.read_stream(stream_id)] == ["One", "Two"]


def test_a_wrong_head_hint_costs_a_read_not_a_broken_chain(postgres_store, stream_id):
    postgres_store.append(stream_id, 0, [NewEvent("One", {})])
    postgres_store._heads.remember(stream_id, 1, "ab" * 32)

    postgres_store.append(stream_id, 1, [NewEvent("Two", {}), NewEvent("Three", {})])

    assert postgres_store.verify_stream(stream_id).ok
    assert postgres_store.stream_version(stream_id) == 3


def test_a_rolled_back_append_leaves_no_head_to_chain_from(postgres_store, postgres_pool, stream_id):
    postgres_store.append(stream_id, 0, [NewEvent("One", {})])
    with postgres_pool.connection() as connection, pytest.raises(RuntimeError), connection.transaction():
        postgres_store.append_on(connection, stream_id, 1, [NewEvent("RolledBack", {})])
        raise RuntimeError("the caller's read model failed")

    postgres_store.append(stream_id, 1, [NewEvent("Two", {})])

    assert [e.type for e in postgres_store.read_stream(stream_id)] == ["One", "Two"]
    assert postgres_store.verify_stream(stream_id).ok


def test_a_retry_ahead_of_the_stream_still_answers_the_first_result(postgres_pool, stream_id):
    writer, retrier = PostgresEventStore(postgres_pool), PostgresEventStore(postgres_pool)
    first = writer.append(stream_id, 0, [NewEvent("One", {}), NewEvent("Two", {})], idempotency_key="k")

    again = retrier.append(stream_id, 7, [NewEvent("One", {})], idempotency_key="k")

    assert again == first and again.deduplicated
    assert writer.stream_version(stream_id) == 2


def test_a_head_hint_ahead_of_the_database_does_not_refuse_the_true_head(postgres_store, stream_id):
    postgres_store.append(stream_id, 0, [NewEvent("One", {})])
    postgres_store._heads.remember(stream_id, 5, "cd" * 32)  # e.g. a database restored from a backup

    postgres_store.append(stream_id, 1, [NewEvent("Two", {})])

    assert postgres_store.verify_stream(stream_id).ok
    with pytest.raises(VersionConflict) as conflict:
        postgres_store.append(stream_id, 1, [NewEvent("Stale", {})])
    assert (conflict.value.expected, conflict.value.actual) == (1, 2)
