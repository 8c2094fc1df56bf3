"""An insider with the database's superuser cannot forge the log without `verify` saying
where, and no head kept in any host's files is needed for it (issue 31): the six forgeries
are done as that insider would, with the chain's SHA-256 hashes recomputed by the project's
own `chained_hash`, after the public log integrated the stream and signed its tree:

1. an edited event, every later hash recomputed (its MAC left: the insider lacks the key);
2. a removed tail (5 events -> 3);
3. an event inserted after the head, with a correct hash;
4. an event inserted into the middle, the later ones renumbered and rehashed;
5. two events swapped, rehashed;
6. a rewritten chain: the insider holds the chain key too, so every hash and MAC is right;
7. a stream deleted whole, its events and its listing.

Then the app host's data directory is deleted: a fresh app on the same database (its keys
from the configuration, as production gives them) answers `GET /v1/streams/{id}/verify`
with the forgery at its version, and a third party holding only the log's published key
finds each from the tree and its signed checkpoints (public data) alone.
"""
from __future__ import annotations

import secrets
import shutil
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from service import bootstrap, wiring
from service.adapters.integrity import chain_signer
from service.adapters.log_keys import new_signer
from service.adapters.row_macs import RowSigner
from service.adapters.store.base import ChainSigner, NewEvent, canonical_json, chained_hash, format_recorded_at
from service.adapters.store.postgres import PostgresEventStore, open_pool
from service.adapters.store.public_log import PostgresPublicLog
from service.adapters.store.trackings import PostgresTracking
from service.application import public_log
from service.application.application import application
from service.config import Config
from service.public_log_verifier import ED25519
from tests.integration.conftest import ADMIN, ADMIN_KEY

pytestmark = pytest.mark.integration

ORIGIN = "cardroom.test/forgeries"


@pytest.fixture(scope="module")
def config(own_database: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Config:
    """The app host's configuration: its keys given (as production's secret store does),
    its data directory one the tests delete."""
    return Config(database_url=own_database[1], admin_key=ADMIN_KEY, chain_key=secrets.token_hex(32),
                  log_origin=ORIGIN, log_key=new_signer(ORIGIN, ED25519).text(),
                  data_dir=tmp_path_factory.mktemp("app-host") / "data")


@pytest.fixture(scope="module")
def admin_url(own_database: tuple[str, str]) -> str:
    """The database owner's: the insider."""
    return own_database[0]


@pytest.fixture(scope="module")
def pool(config: Config) -> Iterator[ConnectionPool]:
    assert config.database_url is not None
    with open_pool(config.database_url, max_size=3) as opened:
        yield opened


@pytest.fixture(scope="module")
def keyed_store(pool: ConnectionPool, config: Config) -> PostgresEventStore:
    return PostgresEventStore(pool, signer=chain_signer(config))


@pytest.fixture(scope="module")
def integrator(pool: ConnectionPool, keyed_store: PostgresEventStore, config: Config) -> public_log.Integrator:
    return integrator_of(pool, config, keyed_store)


def integrator_of(pool: ConnectionPool, config: Config, store: Any) -> public_log.Integrator:
    """The integrator as the worker wires it, over `store`."""
    return public_log.Integrator(application(store), PostgresTracking(RowSigner(chain_signer(config),
                                 "process_trackings")), PostgresPublicLog(pool), wiring.public_log_signer(config))


def integrate(integrator: public_log.Integrator) -> None:
    """Until the log is integrated to its end (as the worker does, looking again while an
    open transaction holds the global order back)."""
    deadline = time.monotonic() + 30
    while (batch := integrator.handle_batch()).full or batch.held_back:
        assert time.monotonic() < deadline, "the integrator never reached the log's end"


@pytest.fixture
def written(keyed_store: PostgresEventStore, integrator: public_log.Integrator, stream_id: str) -> str:
    for n in range(1, 6):
        keyed_store.append(stream_id, n - 1, [NewEvent("ActionTaken", {"n": n})])
    integrate(integrator)
    assert keyed_store.verify_stream(stream_id).ok
    return stream_id


def after_the_data_directory_is_deleted(config: Config, stream_id: str) -> dict[str, Any]:
    """`GET /v1/streams/{id}/verify` from a fresh app on the same database, the app host's
    data directory (and every file a host kept) deleted first."""
    shutil.rmtree(config.data_dir, ignore_errors=True)
    answered = bootstrap.create_app(config).test_client().get(f"/v1/streams/{stream_id}/verify", headers=ADMIN)
    assert answered.status_code == 200, answered.get_data(as_text=True)
    return answered.get_json()


def from_public_data(pool: ConnectionPool, config: Config, stream_id: str) -> tuple[int, str] | None:
    """Where a third party holding only the log's published key finds the stream differing
    from the signed tree: the stream's events as they are now (as its public feed serves
    them), the tree and its checkpoints; no chain key, no host's files."""
    published = wiring.public_log_signer(config)(False).verifier
    seen = PostgresEventStore(pool).read_stream(stream_id, checked=False)  # no chain key
    return public_log.PublicLog(PostgresPublicLog(pool), published, [], 0).first_difference(stream_id, seen)


def as_insider(admin_url: str, *statements: tuple[str, tuple[Any, ...]]) -> None:
    """As the database's owner (the superuser), with the append-only triggers off."""
    with psycopg.connect(admin_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        for sql, parameters in statements:
            intruder.execute(sql, parameters)


def _rewrite(admin_url: str, stream_id: str, rows: list[tuple[int, str, dict]],
             signer: ChainSigner | None = None) -> None:
    """As the superuser, with the triggers off: delete the stream's events from the first
    row's version and write `rows` (version, type, data) in their place, each hash chained
    by chained_hash from the first row's predecessor, as a forger who knows the format
    would. With `signer` (the forger holds the chain key) every MAC is made too, and the
    rows are changed where they stand (their global positions kept, so nothing new appears
    in the global log for the integrator to meet)."""
    with psycopg.connect(admin_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        kept = intruder.execute("SELECT version, recorded_at, encode(hash, 'hex') FROM events"
                                " WHERE stream_id = %s ORDER BY version", (stream_id,)).fetchall()
        first = rows[0][0]
        previous = next((r[2] for r in kept if r[0] == first - 1), "0" * 64)
        if signer is None:
            intruder.execute("DELETE FROM events WHERE stream_id = %s AND version >= %s", (stream_id, first))
        for version, type_, data in rows:
            moment = kept[0][1]
            previous = chained_hash(stream_id, version, type_, 1, canonical_json(data), canonical_json({}),
                                    previous, format_recorded_at(moment))
            if signer is None:
                intruder.execute(
                    "INSERT INTO events (stream_id, version, type, data, metadata, recorded_at, hash)"
                    " VALUES (%s, %s, %s, %s, '{}', %s, decode(%s, 'hex'))",
                    (stream_id, version, type_, Jsonb(data), moment, previous))
            else:
                intruder.execute(
                    "UPDATE events SET type = %s, data = %s, metadata = '{}', recorded_at = %s,"
                    " hash = decode(%s, 'hex'), mac = decode(%s, 'hex') WHERE stream_id = %s AND version = %s",
                    (type_, Jsonb(data), moment, previous, signer.sign(stream_id, version, previous),
                     stream_id, version))


def _caught(config: Config, pool: ConnectionPool, admin_url: str, stream_id: str, version: int, *,
            public_reason: str) -> dict[str, Any]:
    verified = after_the_data_directory_is_deleted(config, stream_id)
    assert (verified["ok"], verified["first_bad_version"]) == (False, version), verified
    found = from_public_data(pool, config, stream_id)
    assert found is not None and found[0] == version and public_reason in found[1], found
    return verified


def test_an_edited_event_with_its_chain_recomputed_is_caught_at_its_version(
        config, pool, written, admin_url):
    _rewrite(admin_url, written, [(3, "ActionTaken", {"n": 300}), (4, "ActionTaken", {"n": 4}),
                                 (5, "ActionTaken", {"n": 5})])
    verified = _caught(config, pool, admin_url, written, 3, public_reason="rewritten")
    assert "MAC" in verified["reason"]


def test_a_removed_tail_is_caught_by_the_signed_tree(config, pool, written, admin_url):
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s AND version > 3", (written,)))
    verified = _caught(config, pool, admin_url, written, 4, public_reason="removed")
    assert verified["events"] == 3 and "removed" in verified["reason"]


def test_an_event_inserted_after_the_head_is_caught_and_never_enters_the_tree(
        config, pool, written, integrator, admin_url):
    _rewrite(admin_url, written, [(6, "ActionTaken", {"n": 6, "forged": 1})])
    integrate(integrator)  # it reads the forged event, finds no MAC, and leaves it out
    verified = after_the_data_directory_is_deleted(config, written)
    assert (verified["ok"], verified["events"], verified["first_bad_version"]) == (False, 6, 6)
    assert "no MAC" in verified["reason"]
    assert PostgresPublicLog(pool).leaf_of(written, 6) is None  # no proof will ever vouch for it
    assert from_public_data(pool, config, written) is None  # 1..5 as signed


def test_an_event_inserted_in_the_middle_is_caught_where_it_goes(config, pool, written, admin_url):
    _rewrite(admin_url, written, [(3, "ActionTaken", {"n": 99}), (4, "ActionTaken", {"n": 3}),
                                 (5, "ActionTaken", {"n": 4}), (6, "ActionTaken", {"n": 5})])
    _caught(config, pool, admin_url, written, 3, public_reason="rewritten")


def test_two_events_swapped_are_caught_at_the_first(config, pool, written, admin_url):
    _rewrite(admin_url, written, [(3, "ActionTaken", {"n": 4}), (4, "ActionTaken", {"n": 3}),
                                 (5, "ActionTaken", {"n": 5})])
    _caught(config, pool, admin_url, written, 3, public_reason="rewritten")


def test_a_chain_rewritten_with_the_chain_key_is_caught_by_the_signed_tree(
        config, pool, keyed_store, written, admin_url):
    _rewrite(admin_url, written, [(3, "ActionTaken", {"n": 300}), (4, "ActionTaken", {"n": 4}),
                                 (5, "ActionTaken", {"n": 5})], signer=keyed_store.signer)
    assert keyed_store.verify_stream(written).ok  # hashes and MACs alone cannot tell
    verified = _caught(config, pool, admin_url, written, 3, public_reason="rewritten")
    assert "rewritten" in verified["reason"]


def test_a_stream_deleted_whole_is_listed_and_caught(config, pool, written, admin_url):
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s", (written,)),
               ("DELETE FROM listings WHERE stream_id = %s", (written,)))
    verified = _caught(config, pool, admin_url, written, 1, public_reason="removed")
    assert verified["events"] == 0
    listed = bootstrap.create_app(config).test_client().get(f"/v1/streams?prefix={written}", headers=ADMIN)
    assert listed.get_json()["streams"] == [written]  # so `cardroom verify` checks it


def test_a_receipt_proves_a_head_the_log_no_longer_reaches(keyed_store, written, admin_url):
    head = keyed_store.read_stream(written)[-1]
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s AND version = 5", (written,)))
    from service.adapters.store.base import Head

    receipt = Head(written, head.version, head.hash, head.mac)
    assert keyed_store.verify_stream(written).ok  # the SHA-256 and MAC chain alone cannot tell
    assert keyed_store.verify_stream(written, [receipt]).first_bad_version == 5


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


def test_an_edited_event_inside_a_hand_is_caught_by_the_hands_own_check(keyed_store, stream_id, admin_url):
    _hands(keyed_store, stream_id)
    edit_and_rehash(admin_url, stream_id, 5)

    def check(hand: str):
        return keyed_store.verify_hand(stream_id, hand, opened_by="HandOpened").verification

    edited = check("t.2")
    assert (edited.ok, edited.first_bad_version) == (False, 5) and "MAC" in edited.reason
    # The next hand continues from a hash the forger recomputed: its MAC is not the key's.
    assert (check("t.3").ok, check("t.3").first_bad_version) == (False, 6)
    # The hand before reads only up to the next opening, which was left as it was.
    assert check("t.1").ok
    assert keyed_store.verify_stream(stream_id).first_bad_version == 5


def test_a_hands_removed_tail_is_caught_by_the_signed_tree(
        config, pool, keyed_store, integrator, stream_id, admin_url):
    _hands(keyed_store, stream_id)
    integrate(integrator)
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s AND version > 8", (stream_id,)))

    cut = keyed_store.verify_hand(stream_id, "t.3", opened_by="HandOpened")
    assert (cut.verification.ok, cut.last_version, cut.next_opening) == (True, 8, None)  # the chain alone
    records = keyed_store.read_stream(stream_id, after_version=6, checked=False)
    found = wiring.public_log_reader(pool, config).first_difference(stream_id, records, from_version=7)
    assert found is not None and found[0] == 9 and "removed" in found[1]
