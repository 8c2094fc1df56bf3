"""An insider with the database's superuser cannot forge the log without `verify` saying
where: the four forgeries of the trust issue, each done as that insider would, with the
chain's SHA-256 hashes recomputed by the project's own `chained_hash` (they lack only the
chain key, which the database never holds).

1. an edited event, every later hash recomputed;
2. a removed tail (5 events -> 3), caught by the heads checkpointed outside PostgreSQL;
3. an inserted event after the head, with a correct hash;
4. an event inserted into the middle, the later ones renumbered and rehashed.
"""
from __future__ import annotations

import secrets

import psycopg
import pytest
from psycopg.types.json import Jsonb

from service.adapters.store.base import ChainSigner, NewEvent, canonical_json, chained_hash, format_recorded_at
from service.adapters.store.checkpoints import HeadCheckpoints
from service.adapters.store.postgres import PostgresEventStore

pytestmark = pytest.mark.integration


@pytest.fixture
def keyed_store(postgres_pool, tmp_path):
    signer = ChainSigner(secrets.token_bytes(32))
    checkpoints = HeadCheckpoints(tmp_path / "checkpoints.sqlite3", signer)
    yield PostgresEventStore(postgres_pool, signer=signer, checkpoints=checkpoints)
    checkpoints.close()


@pytest.fixture
def written(keyed_store, stream_id):
    for n in range(1, 6):
        keyed_store.append(stream_id, n - 1, [NewEvent("ActionTaken", {"n": n}, sealed={"s": n})])
    assert keyed_store.verify_stream(stream_id).ok
    return stream_id


def _rewrite(admin_url: str, stream_id: str, rows: list[tuple[int, str, dict, dict]]) -> None:
    """As the superuser, with the triggers off: delete the stream's events and write `rows`
    (version, type, data, sealed) in their place, each hash chained by chained_hash from the
    first row's predecessor, as a forger who knows the format would."""
    with psycopg.connect(admin_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        kept = intruder.execute(
            "SELECT version, type, data, metadata, recorded_at, encode(hash, 'hex'), sealed, mac"
            " FROM events WHERE stream_id = %s ORDER BY version", (stream_id,)).fetchall()
        first = rows[0][0]
        previous = next((r[5] for r in kept if r[0] == first - 1), "0" * 64)
        intruder.execute("DELETE FROM events WHERE stream_id = %s AND version >= %s", (stream_id, first))
        for version, type_, data, sealed in rows:
            moment = kept[0][4]
            previous = chained_hash(stream_id, version, type_, 1, canonical_json(data), canonical_json({}),
                                    previous, format_recorded_at(moment),
                                    canonical_json(sealed) if sealed else None)
            intruder.execute(
                "INSERT INTO events (stream_id, version, type, data, metadata, recorded_at, hash, sealed)"
                " VALUES (%s, %s, %s, %s, '{}', %s, decode(%s, 'hex'), %s)",
                (stream_id, version, type_, Jsonb(data), moment, previous, Jsonb(sealed)))


def test_an_edited_event_with_its_chain_recomputed_is_caught_at_its_version(
        keyed_store, written, admin_database_url):
    _rewrite(admin_database_url, written, [(3, "ActionTaken", {"n": 300}, {"s": 3}),
                                           (4, "ActionTaken", {"n": 4}, {"s": 4}),
                                           (5, "ActionTaken", {"n": 5}, {"s": 5})])
    verification = keyed_store.verify_stream(written)
    assert (verification.ok, verification.first_bad_version) == (False, 3)
    assert "MAC" in verification.reason


def test_a_removed_tail_is_caught_by_the_checkpointed_head(keyed_store, written, admin_database_url):
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("DELETE FROM events WHERE stream_id = %s AND version > 3", (written,))
    verification = keyed_store.verify_stream(written)
    assert (verification.ok, verification.events, verification.first_bad_version) == (False, 3, 4)
    assert "version 5 was recorded" in verification.reason


def test_an_event_inserted_after_the_head_is_caught(keyed_store, written, admin_database_url):
    _rewrite(admin_database_url, written, [(6, "ActionTaken", {"n": 6, "forged": 1}, {})])
    verification = keyed_store.verify_stream(written)
    assert (verification.ok, verification.events, verification.first_bad_version) == (False, 6, 6)
    assert "no MAC" in verification.reason


def test_an_event_inserted_in_the_middle_is_caught_where_it_goes(keyed_store, written, admin_database_url):
    _rewrite(admin_database_url, written, [(3, "ActionTaken", {"n": 99}, {}),
                                           (4, "ActionTaken", {"n": 3}, {"s": 3}),
                                           (5, "ActionTaken", {"n": 4}, {"s": 4}),
                                           (6, "ActionTaken", {"n": 5}, {"s": 5})])
    verification = keyed_store.verify_stream(written)
    assert (verification.ok, verification.first_bad_version) == (False, 3)


def test_a_receipt_proves_a_head_the_log_no_longer_reaches(keyed_store, written, admin_database_url, tmp_path):
    head = keyed_store.read_stream(written)[-1]
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("DELETE FROM events WHERE stream_id = %s AND version = 5", (written,))
    from service.adapters.store.base import Head

    forgetful = PostgresEventStore(keyed_store._pool, signer=keyed_store.signer)  # no checkpoints
    receipt = Head(written, head.version, head.hash, head.mac)
    assert forgetful.verify_stream(written).ok  # the SHA-256 and MAC chain alone cannot tell
    assert forgetful.verify_stream(written, [receipt]).first_bad_version == 5


def edit_and_rehash(admin_url: str, stream_id: str, version: int) -> None:
    """As the superuser, triggers off: mark the event at `version` as forged (in its
    metadata, so the event still reads as its type) and recompute its hash and every later
    one (MACs untouched, as a forger without the chain key must leave them)."""
    with psycopg.connect(admin_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        rows = intruder.execute(
            "SELECT version, type, schema_version, data, metadata, recorded_at, sealed FROM events"
            " WHERE stream_id = %s AND version >= %s ORDER BY version", (stream_id, version - 1)).fetchall()
        previous = intruder.execute("SELECT encode(hash, 'hex') FROM events WHERE stream_id = %s AND version = %s",
                                    (stream_id, version - 1)).fetchone()[0]
        for at, type_, schema_version, data, metadata, recorded_at, sealed in rows[1:]:
            if at == version:
                metadata = {**metadata, "forged": True}
                intruder.execute("UPDATE events SET metadata = %s WHERE stream_id = %s AND version = %s",
                                 (Jsonb(metadata), stream_id, at))
            previous = chained_hash(stream_id, at, type_, schema_version, canonical_json(data), canonical_json(metadata),
                                    previous, format_recorded_at(recorded_at),
                                    canonical_json(sealed) if sealed else None)
            intruder.execute("UPDATE events SET hash = decode(%s, 'hex') WHERE stream_id = %s AND version = %s",
                             (previous, stream_id, at))


def _hands(store, stream_id: str) -> None:
    """Three hands of three events each: versions 1-3, 4-6, 7-9."""
    for number in (1, 2, 3):
        hand = f"t.{number}"
        store.append(stream_id, 3 * (number - 1), [
            NewEvent("HandOpened", {"hand_id": hand}, metadata={"hand_id": hand}),
            NewEvent("ActionTaken", {"n": number}, metadata={"hand_id": hand}),
            NewEvent("HandClosed", {"hand_id": hand}, metadata={"hand_id": hand})])


def test_an_edited_event_inside_a_hand_is_caught_by_the_hands_own_check(keyed_store, stream_id, admin_database_url):
    _hands(keyed_store, stream_id)
    edit_and_rehash(admin_database_url, stream_id, 5)

    def check(hand: str):
        return keyed_store.verify_hand(stream_id, hand, opened_by="HandOpened").verification

    edited = check("t.2")
    assert (edited.ok, edited.first_bad_version) == (False, 5) and "MAC" in edited.reason
    # The next hand continues from a hash the forger recomputed: its MAC is not the key's.
    assert (check("t.3").ok, check("t.3").first_bad_version) == (False, 6)
    # The hand before reads only up to the next opening, which was left as it was.
    assert check("t.1").ok
    assert keyed_store.verify_stream(stream_id).first_bad_version == 5


def test_a_hands_removed_tail_is_caught_by_the_checkpointed_head(keyed_store, stream_id, admin_database_url):
    _hands(keyed_store, stream_id)
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("DELETE FROM events WHERE stream_id = %s AND version > 8", (stream_id,))

    cut = keyed_store.verify_hand(stream_id, "t.3", opened_by="HandOpened")
    assert (cut.verification.ok, cut.last_version, cut.next_opening) == (False, 8, None)
    assert "version 9 was recorded" in cut.verification.reason
