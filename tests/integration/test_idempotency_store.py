"""The idempotency records' contract (service.adapters.store.idempotency), run against the in-memory
and the PostgreSQL store alike, and what only PostgreSQL can promise: a record commits with
the events it answers for, or neither does."""
from __future__ import annotations

import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from psycopg import pq

from service.adapters.store import scope
from service.adapters.store.base import ChainSigner, NewEvent
from service.adapters.store.idempotency import Answer, AnsweredBefore, Fingerprint, IdempotencyRecord, KeyInUse
from service.adapters.store.memory import InMemoryEventStore
from service.adapters.store.postgres import PostgresEventStore

pytestmark = pytest.mark.integration

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FIRST = Fingerprint.of("POST", "/v1/tables/t/actions", b'{"action":"check"}')
ANSWER = Answer(201, b'{"version":7}\n', (("Content-Type", "application/json"), ("ETag", '"7"')))


def record(owner: str, key: str, now: datetime = NOW, window_s: int = 3600) -> IdempotencyRecord:
    return IdempotencyRecord(owner, key, FIRST, ANSWER, now, now + timedelta(seconds=window_s))


@pytest.fixture
def owner() -> str:
    return "key-" + uuid.uuid4().hex


def test_a_key_never_used_has_no_record_and_a_recorded_one_answers_its_first_answer(store, owner):
    with store.transaction():
        assert store.claim_key(owner, "k1", NOW) is None
        store.record_answer(record(owner, "k1"))
    with store.transaction():
        found = store.claim_key(owner, "k1", NOW + timedelta(seconds=1))
    assert (found.fingerprint, found.answer, found.owner, found.key) == (FIRST, ANSWER, owner, "k1")


def test_keys_belong_to_their_owner(store, owner):
    with store.transaction():
        store.claim_key(owner, "shared", NOW)
        store.record_answer(record(owner, "shared"))
    with store.transaction():
        assert store.claim_key(owner + "-other", "shared", NOW) is None


def test_a_key_held_by_a_running_transaction_is_in_use_until_it_ends(store, owner):
    held, release = threading.Event(), threading.Event()

    def first_request() -> None:
        with store.transaction():
            store.claim_key(owner, "busy", NOW)
            held.set()
            release.wait(10)
            store.record_answer(record(owner, "busy"))

    runner = threading.Thread(target=first_request)
    runner.start()
    assert held.wait(10)
    try:
        with pytest.raises(KeyInUse), store.transaction():
            store.claim_key(owner, "busy", NOW)
    finally:
        release.set()
        runner.join(10)
    with store.transaction():
        assert store.claim_key(owner, "busy", NOW).answer == ANSWER


def test_an_expired_record_is_gone_and_the_key_may_be_used_again(store, owner):
    with store.transaction():
        store.claim_key(owner, "old", NOW)
        store.record_answer(record(owner, "old", window_s=60))
    later = NOW + timedelta(seconds=61)
    again = IdempotencyRecord(owner, "old", Fingerprint.of("DELETE", "/v1/keys/x", b""),
                              Answer(200, b"{}", ()), later, later + timedelta(seconds=60))
    with store.transaction():
        assert store.claim_key(owner, "old", later) is None
        store.record_answer(again)
    with store.transaction():
        assert store.claim_key(owner, "old", later).fingerprint.method == "DELETE"


def test_records_are_kept_inside_a_transaction_only(store, owner):
    with pytest.raises(RuntimeError):
        store.claim_key(owner, "k", NOW)


def test_a_write_gathers_the_signed_head_of_each_stream_it_appended_to(stream_id):
    signer = ChainSigner(b"k" * 32)
    store = InMemoryEventStore(signer=signer)
    with scope.gathering() as gathered:
        store.append(stream_id, 0, [NewEvent("A", {"n": 1}), NewEvent("A", {"n": 2})])
        store.append(stream_id + "-b", 0, [NewEvent("A", {"n": 3})])
    head = gathered.heads[stream_id]
    assert (head.version, head.hash) == (2, store.read_stream(stream_id)[-1].hash)
    assert signer.valid(stream_id, 2, head.hash, head.mac)
    assert set(gathered.heads) == {stream_id, stream_id + "-b"}


# --- PostgreSQL: one transaction ------------------------------------------------------

@pytest.fixture
def keyed_postgres(postgres_pool) -> PostgresEventStore:
    return PostgresEventStore(postgres_pool, signer=ChainSigner(b"p" * 32))


def test_events_and_their_record_commit_together(keyed_postgres, stream_id, owner):
    with keyed_postgres.transaction() as opened:
        keyed_postgres.claim_key(owner, "k", NOW)
        keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        assert keyed_postgres.read_stream(stream_id)[0].data == {"n": 1}  # it reads its own write
        keyed_postgres.record_answer(record(owner, "k"))
    assert keyed_postgres.stream_version(stream_id) == 1
    assert opened.heads[stream_id].version == 1
    assert keyed_postgres.verify_stream(stream_id, list(opened.heads.values())).ok


def test_a_crash_before_the_commit_leaves_neither_events_nor_record(keyed_postgres, stream_id, owner):
    with pytest.raises(ZeroDivisionError), keyed_postgres.transaction():
        keyed_postgres.claim_key(owner, "k", NOW)
        keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        keyed_postgres.record_answer(record(owner, "k"))
        1 / 0  # noqa: B018 - fails on purpose, inside the transaction
    assert keyed_postgres.stream_version(stream_id) == 0
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "k", NOW) is None
    # The head this process remembered of the rolled-back append is forgotten: appending
    # at version 0 works at once.
    keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 2})])
    assert keyed_postgres.verify_stream(stream_id).ok


def test_a_lost_race_inside_the_transaction_undoes_that_append_only(keyed_postgres, stream_id, owner):
    keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
    with keyed_postgres.transaction():
        keyed_postgres.claim_key(owner, "k", NOW)
        with pytest.raises(Exception, match="version"):
            keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 99})])
        keyed_postgres.append(stream_id, 1, [NewEvent("A", {"n": 2})])
        keyed_postgres.record_answer(record(owner, "k"))
    assert [e.data["n"] for e in keyed_postgres.read_stream(stream_id)] == [1, 2]


def test_statements_the_session_lost_inside_a_transaction_are_prepared_again(database_url, stream_id, owner):
    """psycopg deallocates every prepared statement of a session after a rollback it sees:
    the store's statements inside its transaction find theirs gone, undo their savepoint,
    prepare again and run, and the transaction commits whole."""
    from service.adapters.store.postgres import open_pool

    pool = open_pool(database_url, max_size=1)  # one session: the statements prepared below are the lost ones
    try:
        store = PostgresEventStore(pool)
        with store.transaction():
            store.claim_key(owner, "first", NOW)
            store.append(stream_id, 0, [NewEvent("A", {"n": 1})])
            store.record_answer(record(owner, "first"))
        with store.transaction() as opened:
            opened.connection.execute("DEALLOCATE ALL")
            assert store.claim_key(owner, "second", NOW) is None
            store.append(stream_id, 1, [NewEvent("A", {"n": 2})])
            store.record_answer(record(owner, "second"))
        with store.transaction():
            assert store.claim_key(owner, "second", NOW).answer == ANSWER
        assert [e.data["n"] for e in store.read_stream(stream_id)] == [1, 2]
    finally:
        pool.close()


def test_statements_lost_before_a_transaction_are_prepared_again_in_its_first_round_trip(
        database_url, stream_id, owner):
    """The claim's round trip opens the transaction (BEGIN in its pipeline) and holds no
    savepoint: statements the session lost between transactions make it roll back and
    send it again, and the transaction goes on and commits whole."""
    from service.adapters.store.postgres import open_pool

    pool = open_pool(database_url, max_size=1)
    try:
        store = PostgresEventStore(pool)
        with store.transaction():
            store.claim_key(owner, "first", NOW)
            store.append(stream_id, 0, [NewEvent("A", {"n": 1})])
            store.record_answer(record(owner, "first"))
        with pool.connection() as connection:
            connection.execute("DEALLOCATE ALL")
        with store.transaction() as opened:
            assert store.claim_key(owner, "second", NOW) is None
            store.append(stream_id, 1, [NewEvent("A", {"n": 2})])
            store.record_answer(record(owner, "second"))
            assert opened.connection.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0] >= 2
        with store.transaction():
            assert store.claim_key(owner, "second", NOW).answer == ANSWER
        assert [e.data["n"] for e in store.read_stream(stream_id)] == [1, 2]
    finally:
        pool.close()


def test_a_clock_ahead_of_the_databases_never_removes_a_live_record_nor_fails_the_write(
        keyed_postgres, stream_id, owner):
    """Records are insert-only for the application: the owner's function removes a record
    only when the database's clock too says it expired. A process whose clock runs ahead
    writes its events; the first record stays."""
    now = datetime.now(UTC)
    with keyed_postgres.transaction():
        keyed_postgres.claim_key(owner, "skew", now)
        keyed_postgres.record_answer(record(owner, "skew", now, window_s=60))
    ahead = now + timedelta(seconds=61)
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "skew", ahead) is None
        keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        keyed_postgres.record_answer(IdempotencyRecord(owner, "skew", Fingerprint.of("DELETE", "/x", b""),
                                                       Answer(200, b"{}", ()), ahead, ahead + timedelta(seconds=60)))
    assert keyed_postgres.stream_version(stream_id) == 1
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "skew", now + timedelta(seconds=1)).fingerprint == FIRST



def test_expired_records_go_in_bulk_with_one_write_in_removed_every(keyed_postgres, postgres_pool, owner, monkeypatch):
    """No write pays a removal statement of its own unless its key's expired record is
    there; one in REMOVED_EVERY removes up to PURGED_PER_WRITE for each write, anyone's."""
    from service.adapters.store import idempotency

    def records() -> int:
        with postgres_pool.connection() as connection:
            return connection.execute("SELECT count(*) FROM idempotency_records WHERE owner = %s",
                                      (owner,)).fetchone()[0]

    monkeypatch.setattr(idempotency, "REMOVED_EVERY", 4)
    long_ago = NOW - timedelta(days=1)  # past by the database's clock too, and older than other tests' records
    for n in range(3):
        with keyed_postgres.transaction():
            keyed_postgres.claim_key(owner, f"old-{n}", long_ago)
            keyed_postgres.record_answer(record(owner, f"old-{n}", long_ago, window_s=1))
    assert records() == 3
    live = datetime.now(UTC)
    with keyed_postgres.transaction():
        keyed_postgres.claim_key(owner, "live", live)
        keyed_postgres.record_answer(record(owner, "live", live))  # the fourth write
    assert records() == 1

# --- PostgreSQL: the claim in the first append's round trip ---------------------------

def _counting_trips(monkeypatch) -> list[int]:
    from service.adapters.store import libpq_pipeline
    trips: list[int] = []
    sent = libpq_pipeline._pipelined

    def counted(*args, **kwargs):
        trips.append(1)
        return sent(*args, **kwargs)
    monkeypatch.setattr(libpq_pipeline, "_pipelined", counted)
    return trips


def test_a_claimed_write_costs_the_appends_trip_and_the_commits(keyed_postgres, stream_id, owner, monkeypatch):
    trips = _counting_trips(monkeypatch)
    with keyed_postgres.transaction():
        keyed_postgres.claim_key_later(owner, "k", NOW)
        keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        assert keyed_postgres.settled_claim() is None
        keyed_postgres.record_answer(record(owner, "k"))
    assert len(trips) == 2  # the claim and the append; the record and the COMMIT
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "k", NOW).answer == ANSWER
    assert keyed_postgres.stream_version(stream_id) == 1


def test_an_append_whose_claim_finds_the_key_in_use_writes_nothing(keyed_postgres, postgres_pool, stream_id, owner):
    with postgres_pool.connection() as holder, holder.transaction(force_rollback=True):
        # another request's transaction holds the key
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s || chr(10) || %s, 0))", (owner, "busy"))
        with pytest.raises(KeyInUse), keyed_postgres.transaction():
            keyed_postgres.claim_key_later(owner, "busy", NOW)
            keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
    assert keyed_postgres.stream_version(stream_id) == 0


def test_an_append_whose_claim_finds_the_first_answer_stops_and_writes_nothing(keyed_postgres, stream_id, owner):
    with keyed_postgres.transaction():
        keyed_postgres.claim_key(owner, "k", NOW)
        keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        keyed_postgres.record_answer(record(owner, "k"))
    with pytest.raises(AnsweredBefore) as answered, keyed_postgres.transaction():
        keyed_postgres.claim_key_later(owner, "k", NOW)
        keyed_postgres.append(stream_id + "-b", 0, [NewEvent("A", {"n": 2})])
    assert answered.value.record.answer == ANSWER
    assert keyed_postgres.stream_version(stream_id + "-b") == 0


def test_after_a_read_opened_the_transaction_the_claim_is_settled_before_the_append(
        keyed_postgres, postgres_pool, stream_id, owner):
    with postgres_pool.connection() as holder, holder.transaction(force_rollback=True):
        holder.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s || chr(10) || %s, 0))", (owner, "busy"))
        with pytest.raises(KeyInUse), keyed_postgres.transaction() as opened:
            keyed_postgres.claim_key_later(owner, "busy", NOW)
            keyed_postgres.read_stream(stream_id)  # the transaction's first statement
            assert opened.connection.pgconn.transaction_status == pq.TransactionStatus.INTRANS
            with pytest.raises(KeyInUse):
                keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
            assert not opened.heads  # the append never ran
            raise KeyInUse("busy")
    assert keyed_postgres.stream_version(stream_id) == 0


def test_a_lost_race_in_the_claims_trip_keeps_the_claim_and_the_transaction_goes_on(
        keyed_postgres, postgres_pool, stream_id, owner):
    """The trip that opens the transaction holds no savepoint: an append that loses its race
    there rolls the transaction back and takes the claim again in the same round trip, so
    the key stays this transaction's and its retry commits with the record."""
    keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 1})])
    with keyed_postgres.transaction() as opened:
        keyed_postgres.claim_key_later(owner, "k", NOW)
        with pytest.raises(Exception, match="version"):
            keyed_postgres.append(stream_id, 0, [NewEvent("A", {"n": 99})])
        assert opened.connection.pgconn.transaction_status == pq.TransactionStatus.INTRANS
        with postgres_pool.connection() as other, other.transaction(force_rollback=True):
            assert other.execute("SELECT pg_try_advisory_xact_lock(hashtextextended(%s || chr(10) || %s, 0))",
                                 (owner, "k")).fetchone()[0] is False  # still held
        keyed_postgres.append(stream_id, 1, [NewEvent("A", {"n": 2})])
        assert keyed_postgres.settled_claim() is None
        keyed_postgres.record_answer(record(owner, "k"))
    assert [e.data["n"] for e in keyed_postgres.read_stream(stream_id)] == [1, 2]
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "k", NOW).answer == ANSWER


def test_a_claimed_write_on_a_session_that_has_its_statements_sends_no_savepoint(
        keyed_postgres, stream_id, owner, monkeypatch):
    """BEGIN, the claim and the append; the record and the COMMIT: a savepoint is only for
    statements the session may have lost (prepared before anything proved them there)."""
    from service.adapters.store import libpq_pipeline
    commands: list[bytes] = []
    sent = libpq_pipeline._pipelined

    def recorded(pgconn, items):
        commands.extend(item for item in items if isinstance(item, bytes))
        return sent(pgconn, items)

    for n in range(2):  # the first prepares the statements
        commands.clear()
        monkeypatch.setattr(libpq_pipeline, "_pipelined", recorded)
        with keyed_postgres.transaction():
            keyed_postgres.claim_key_later(owner, f"k{n}", NOW)
            keyed_postgres.append(stream_id, n, [NewEvent("A", {"n": n})])
            assert keyed_postgres.settled_claim() is None
            keyed_postgres.record_answer(record(owner, f"k{n}"))
    assert [command.split()[0] for command in commands] == [b"BEGIN", b"COMMIT"]
    with keyed_postgres.transaction():
        assert keyed_postgres.claim_key(owner, "k1", NOW).answer == ANSWER
