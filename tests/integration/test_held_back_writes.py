"""An idempotent write in one round trip (service.adapters.store.held_back): the claim and
the first append held back and sent with the record and the COMMIT, refused by the server
itself when the write must not commit (migration 0023), and sent early when anything else
needs the transaction's connection."""
from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from service.adapters.store import libpq_pipeline
from service.adapters.store.base import ChainSigner, NewEvent
from service.adapters.store.idempotency import Answer, AnsweredBefore, Fingerprint, HeldBackRefused, IdempotencyRecord, KeyInUse
from service.adapters.store.postgres import PostgresEventStore

pytestmark = pytest.mark.integration

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FIRST = Fingerprint.of("POST", "/v1/tables/t/actions", b'{"action":"check"}')
ANSWER = Answer(201, b'{"version":1}\n', (("Content-Type", "application/json"), ("ETag", '"1"')))
LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s || chr(10) || %s, 0))"


def record(owner: str, key: str, now: datetime = NOW, window_s: int = 3600) -> IdempotencyRecord:
    return IdempotencyRecord(owner, key, FIRST, ANSWER, now, now + timedelta(seconds=window_s))


@pytest.fixture
def owner() -> str:
    return "key-" + uuid.uuid4().hex


@pytest.fixture
def store(postgres_pool) -> PostgresEventStore:
    return PostgresEventStore(postgres_pool, signer=ChainSigner(b"h" * 32))


@pytest.fixture
def trips(monkeypatch) -> list[list[bytes]]:
    """Each round trip's commands (BEGIN, COMMIT...; a run as b'run')."""
    sent = libpq_pipeline._pipelined
    seen: list[list[bytes]] = []

    def counted(pgconn, items):
        seen.append([item if isinstance(item, bytes) else b"run" for item in items])
        return sent(pgconn, items)
    monkeypatch.setattr(libpq_pipeline, "_pipelined", counted)
    return seen


def held_back_write(store: PostgresEventStore, owner: str, key: str, stream_id: str, version: int,
                    n: int = 1, *, events: int = 1) -> None:
    with store.transaction():
        store.claim_key_later(owner, key, NOW, with_commit=True)
        result = store.append(stream_id, version, [NewEvent("A", {"n": n, "i": i}) for i in range(events)])
        assert (result.first_version, result.last_version) == (version + 1, version + events)
        assert store.settled_claim() is None
        store.record_answer(record(owner, key))


def recorded(store: PostgresEventStore, owner: str, key: str) -> IdempotencyRecord | None:
    with store.transaction():
        return store.claim_key(owner, key, NOW)


@pytest.mark.parametrize("events", [1, 3])
def test_a_held_back_write_is_one_round_trip_and_commits_events_and_record(store, stream_id, owner, trips, events):
    held_back_write(store, owner, "k", stream_id, 0, events=events)
    assert trips == [[b"BEGIN", b"run", b"run", b"run", b"COMMIT"]]  # the claim, the append, the record
    assert [e.version for e in store.read_stream(stream_id)] == list(range(1, events + 1))
    assert recorded(store, owner, "k").answer == ANSWER
    assert store.verify_stream(stream_id).ok


def test_the_receipt_and_the_next_append_follow_the_held_back_one(store, stream_id, owner):
    with store.transaction() as opened:
        store.claim_key_later(owner, "k1", NOW, with_commit=True)
        store.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        store.record_answer(record(owner, "k1"))
    head = opened.heads[stream_id]
    assert store.verify_stream(stream_id, [head]).ok  # the receipt made before the commit holds
    held_back_write(store, owner, "k2", stream_id, 1)  # chained from the head remembered after the commit
    assert store.stream_version(stream_id) == 2


def test_a_key_in_use_is_refused_at_the_commit_and_nothing_commits(store, postgres_pool, stream_id, owner):
    with postgres_pool.connection() as holder, holder.transaction(force_rollback=True):
        holder.execute(LOCK, (owner, "busy"))  # another request's transaction holds the key
        with pytest.raises(KeyInUse):
            held_back_write(store, owner, "busy", stream_id, 0)
    assert store.stream_version(stream_id) == 0
    assert recorded(store, owner, "busy") is None


def test_a_key_answered_meanwhile_is_refused_at_the_commit_and_nothing_commits(store, stream_id, owner):
    held_back_write(store, owner, "k", stream_id, 0)
    with pytest.raises(HeldBackRefused):
        held_back_write(store, owner, "k", stream_id + "-b", 0, n=2)
    assert store.stream_version(stream_id + "-b") == 0


def test_an_expired_record_of_the_key_is_replaced_in_the_same_trip(store, stream_id, owner, trips):
    with store.transaction():
        store.claim_key(owner, "old", NOW - timedelta(hours=2))
        store.record_answer(record(owner, "old", NOW - timedelta(hours=2), window_s=60))
    trips.clear()
    held_back_write(store, owner, "old", stream_id, 0)
    assert len(trips) == 1
    assert recorded(store, owner, "old").created_at == NOW


def test_a_version_taken_by_another_writer_commits_nothing(store, postgres_pool, stream_id, owner):
    store.append(stream_id, 0, [NewEvent("A", {"n": 0})])
    other = PostgresEventStore(postgres_pool, signer=ChainSigner(b"h" * 32))
    other.append(stream_id, 1, [NewEvent("A", {"n": "other"})])
    with pytest.raises(HeldBackRefused):  # this store's head is version 1: the INSERT meets version 2
        held_back_write(store, owner, "k", stream_id, 1)
    assert [e.data["n"] for e in store.read_stream(stream_id)] == [0, "other"]
    assert recorded(store, owner, "k") is None


def test_an_append_that_writes_nothing_fails_so_the_commit_behind_it_commits_nothing(store, stream_id, owner):
    store.append(stream_id, 0, [NewEvent("A", {"n": 0})])
    store._heads.remember(stream_id, 1, "0" * 64)  # a stale hint: not the hash at version 1
    with pytest.raises(HeldBackRefused):
        held_back_write(store, owner, "k", stream_id, 1)
    assert store.stream_version(stream_id) == 1
    assert recorded(store, owner, "k") is None


def test_a_read_after_a_held_back_append_sends_it_first(store, stream_id, owner, trips):
    with store.transaction():
        store.claim_key_later(owner, "k", NOW, with_commit=True)
        store.append(stream_id, 0, [NewEvent("A", {"n": 1})])
        assert not trips
        assert [e.data for e in store.read_stream(stream_id)] == [{"n": 1}]  # it reads its own write
        assert trips[0][0] == b"BEGIN"  # the claim's lock and read, then the append
        store.record_answer(record(owner, "k"))
    assert store.stream_version(stream_id) == 1
    assert recorded(store, owner, "k").answer == ANSWER


def test_a_refusal_sent_early_cannot_be_caught_into_a_commit(store, stream_id, owner):
    held_back_write(store, owner, "k", stream_id, 0)
    with pytest.raises(AnsweredBefore), store.transaction():
        store.claim_key_later(owner, "k", NOW, with_commit=True)
        store.append(stream_id + "-b", 0, [NewEvent("A", {"n": 2})])
        with contextlib.suppress(AnsweredBefore):  # a caller that swallows it
            store.append(stream_id + "-c", 0, [NewEvent("A", {"n": 3})])  # sends the first one
        store.append(stream_id + "-d", 0, [NewEvent("A", {"n": 4})])
    assert [store.stream_version(stream_id + s) for s in ("-b", "-c", "-d")] == [0, 0, 0]


def test_a_failed_write_sends_its_claim_alone_and_finds_the_first_answer(store, stream_id, owner, trips):
    held_back_write(store, owner, "k", stream_id, 0)
    trips.clear()
    with pytest.raises(RuntimeError), store.transaction():
        store.claim_key_later(owner, "k", NOW, with_commit=True)
        store.append(stream_id + "-b", 0, [NewEvent("A", {"n": 2})])
        assert store.settled_claim(write_failed=True).answer == ANSWER
        raise RuntimeError("the write failed after its append")
    assert len(trips) == 1 and b"run" in trips[0]  # the claim, without the append
    assert store.stream_version(stream_id + "-b") == 0
