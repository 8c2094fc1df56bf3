"""The store contract for reads that stay flat as a stream ages, on the in-memory and the
PostgreSQL store alike: a hand read as its own range of the stream, ranged reads that keep
open hands sealed, and snapshots (newest at or before a version, under a schema tag, MAC'd)."""
from __future__ import annotations

import pytest

from service.adapters.store.base import ChainSigner, NewEvent, Reveal, Snapshot
from service.adapters.store.memory import InMemoryEventStore

CLOSED = Reveal.closed_by("HandClosed")
SCHEMA = "test-state/1"


def opened(hand: str, salt: str) -> NewEvent:
    return NewEvent("HandOpened", {"hand_id": hand, "salt": None}, metadata={"hand_id": hand},
                    sealed={"salt": salt})


def dealt(hand: str, deck: str) -> NewEvent:
    return NewEvent("HandStarted", {"deck": None}, metadata={"hand_id": hand}, sealed={"deck": deck})


def acted(hand: str, n: int) -> NewEvent:
    return NewEvent("BetPlaced", {"n": n}, metadata={"hand_id": hand})


def closed(hand: str) -> NewEvent:
    return NewEvent("HandClosed", {"hand_id": hand}, metadata={"hand_id": hand})


def seated(player: str) -> NewEvent:
    return NewEvent("PlayerSeatedAtTable", {"player_id": player})


def _three_hands(store, stream_id: str) -> None:
    """Hand t.1 and t.2 closed (t.1 with a table event between, and one of its own events
    after its close), t.3 still open."""
    store.append(stream_id, 0, [seated("ann"), opened("t.1", "salt-1"), dealt("t.1", "deck-1"),
                                acted("t.1", 1)])
    store.append(stream_id, 4, [seated("bob"), acted("t.1", 2), closed("t.1"),
                                NewEvent("ChipsRuled", {"n": 3}, metadata={"hand_id": "t.1"})])
    store.append(stream_id, 8, [opened("t.2", "salt-2"), dealt("t.2", "deck-2"), closed("t.2"),
                                seated("cat")])
    store.append(stream_id, 12, [opened("t.3", "salt-3"), dealt("t.3", "deck-3"), acted("t.3", 4)])


def test_a_hand_reads_as_its_own_events_from_its_opening_to_the_next(store, stream_id):
    _three_hands(store, stream_id)

    first = store.read_hand(stream_id, "t.1", opened_by="HandOpened")
    assert [(e.version, e.type) for e in first] == [
        (2, "HandOpened"), (3, "HandStarted"), (4, "BetPlaced"), (6, "BetPlaced"), (7, "HandClosed"),
        (8, "ChipsRuled")]
    assert [e.version for e in store.read_hand(stream_id, "t.2", opened_by="HandOpened")] == [9, 10, 11]
    assert [e.version for e in store.read_hand(stream_id, "t.3", opened_by="HandOpened")] == [13, 14, 15]
    assert store.read_hand(stream_id, "t.4", opened_by="HandOpened") == []
    assert store.read_hand(stream_id + "-none", "t.1", opened_by="HandOpened") == []


def test_a_hand_read_reveals_sealed_fields_only_of_a_closed_hand(store, stream_id):
    _three_hands(store, stream_id)

    done = store.read_hand(stream_id, "t.2", opened_by="HandOpened", reveal=CLOSED)
    assert [e.sealed for e in done] == [{"salt": "salt-2"}, {"deck": "deck-2"}, {}]
    live = store.read_hand(stream_id, "t.3", opened_by="HandOpened", reveal=CLOSED)
    assert [e.sealed for e in live] == [None, None, None]
    assert all("deck-3" not in str(e.full_data()) and "salt-3" not in str(e.full_data()) for e in live)
    unasked = store.read_hand(stream_id, "t.1", opened_by="HandOpened")
    assert all(e.sealed is None for e in unasked)
    assert "deck-1" not in str([e.full_data() for e in unasked])


def test_a_ranged_read_keeps_an_open_hand_sealed(store, stream_id):
    _three_hands(store, stream_id)

    ranged = store.read_stream(stream_id, 10, 14, reveal=CLOSED)
    assert [(e.version, e.sealed) for e in ranged] == [
        (11, {}), (12, None), (13, None), (14, None)]
    # Without a Reveal nothing sealed comes back, closed hand or not.
    assert all(e.sealed is None for e in store.read_stream(stream_id, 1, 3))
    assert [e.sealed for e in store.read_stream(stream_id, 11, 14, reveal=Reveal.ALL)] == [
        {}, {"salt": "salt-3"}, {"deck": "deck-3"}]


def test_the_newest_snapshot_at_or_before_a_version_under_its_schema(store, stream_id):
    assert store.newest_snapshot(stream_id, SCHEMA) is None
    for version in (7, 11, 3):
        store.save_snapshot(Snapshot(stream_id, version, SCHEMA, f'{{"at":{version}}}'))
    store.save_snapshot(Snapshot(stream_id, 20, "other-code/2", "{}"))

    assert store.newest_snapshot(stream_id, SCHEMA) == Snapshot(stream_id, 11, SCHEMA, '{"at":11}')
    assert store.newest_snapshot(stream_id, SCHEMA, 10).version == 7
    assert store.newest_snapshot(stream_id, SCHEMA, 7).version == 7
    assert store.newest_snapshot(stream_id, SCHEMA, 2) is None
    assert store.newest_snapshot(stream_id + "-other", SCHEMA) is None


def test_a_read_from_the_newest_snapshot_gives_it_and_the_revealed_events_after_it(store, stream_id):
    _three_hands(store, stream_id)
    assert store.read_from_snapshot(stream_id, SCHEMA) == (None, store.read_stream(stream_id, reveal=Reveal.ALL))
    store.save_snapshot(Snapshot(stream_id, 7, SCHEMA, '"at 7"'))
    store.save_snapshot(Snapshot(stream_id, 11, SCHEMA, '"at 11"'))

    found, events = store.read_from_snapshot(stream_id, SCHEMA)
    assert found == Snapshot(stream_id, 11, SCHEMA, '"at 11"')
    assert [(e.version, e.sealed) for e in events] == [
        (12, {}), (13, {"salt": "salt-3"}), (14, {"deck": "deck-3"}), (15, {})]
    found, events = store.read_from_snapshot(stream_id, SCHEMA, 10)
    assert found.version == 7 and [e.version for e in events] == [8, 9, 10]
    assert store.read_from_snapshot(stream_id, SCHEMA, 11) == (Snapshot(stream_id, 11, SCHEMA, '"at 11"'), [])
    assert store.read_from_snapshot(stream_id + "-none", SCHEMA) == (None, [])


def test_snapshots_sent_with_one_commit_are_all_kept(store, stream_id):
    """Two hands closed in one transaction (bench.flat_costs writes its history so): both
    snapshots go with the COMMIT, their statement prepared once in that round trip
    (preparing it once a run failed: DuplicatePreparedStatement)."""
    store.append(stream_id, 0, [seated("ann"), seated("bob")])
    with store.transaction():
        store.append(stream_id, 2, [seated("cat")])
        store.save_snapshot(Snapshot(stream_id, 2, SCHEMA, '"at 2"'))
        store.save_snapshot(Snapshot(stream_id, 3, SCHEMA, '"at 3"'))
    assert store.newest_snapshot(stream_id, SCHEMA, 2).body == '"at 2"'
    assert store.newest_snapshot(stream_id, SCHEMA).body == '"at 3"'
    assert store.stream_version(stream_id) == 3


def test_a_second_snapshot_at_one_version_keeps_the_first(store, stream_id):
    store.save_snapshot(Snapshot(stream_id, 5, SCHEMA, '"first"'))
    store.save_snapshot(Snapshot(stream_id, 5, SCHEMA, '"second"'))
    assert store.newest_snapshot(stream_id, SCHEMA).body == '"first"'


def test_a_snapshot_signed_by_another_key_is_passed_over(postgres_pool, stream_id):
    from service.adapters.store.postgres import PostgresEventStore

    ours, theirs = ChainSigner(b"k" * 32), ChainSigner(b"x" * 32)
    store = PostgresEventStore(postgres_pool, signer=ours)
    store.save_snapshot(Snapshot(stream_id, 4, SCHEMA, '"true"'))
    PostgresEventStore(postgres_pool, signer=theirs).save_snapshot(Snapshot(stream_id, 9, SCHEMA, '"forged"'))
    PostgresEventStore(postgres_pool).save_snapshot(Snapshot(stream_id, 12, SCHEMA, '"unsigned"'))

    assert store.newest_snapshot(stream_id, SCHEMA) == Snapshot(stream_id, 4, SCHEMA, '"true"')
    assert store.read_from_snapshot(stream_id, SCHEMA)[0] == Snapshot(stream_id, 4, SCHEMA, '"true"')


def test_the_in_memory_store_passes_over_a_snapshot_it_did_not_sign(stream_id):
    store = InMemoryEventStore(signer=ChainSigner(b"k" * 32))
    store.save_snapshot(Snapshot(stream_id, 4, SCHEMA, '"true"'))
    forged = Snapshot(stream_id, 9, SCHEMA, '"forged"')
    store._snapshots[(stream_id, SCHEMA)].append((forged, "00" * 32))

    assert store.newest_snapshot(stream_id, SCHEMA).body == '"true"'


@pytest.mark.parametrize("statement", [
    "UPDATE snapshots SET body = '{}'",
    "DELETE FROM snapshots",
    "TRUNCATE snapshots",
])
def test_the_application_may_not_change_a_snapshot(database_url, statement):
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection, pytest.raises(psycopg.errors.InsufficientPrivilege):
        connection.execute(statement)


def test_a_hands_chain_check_reads_its_range_chained_from_the_event_before_it(store, stream_id):
    _three_hands(store, stream_id)

    checks = [store.verify_hand(stream_id, hand, opened_by="HandOpened") for hand in ("t.1", "t.2", "t.3")]
    assert all(check.verification.ok for check in checks)
    # Every event of the range counts, tagged with the hand or not (the seat taken at 5).
    assert [(c.first_version, c.last_version, c.chained_from, c.next_opening, c.verification.events)
            for c in checks] == [(2, 8, 1, 9, 7), (9, 12, 8, 13, 4), (13, 15, 12, None, 3)]
    assert store.verify_hand(stream_id, "t.4", opened_by="HandOpened") is None


def test_a_hand_opening_the_stream_is_chained_from_its_start(store, stream_id):
    store.append(stream_id, 0, [opened("t.1", "salt-1"), dealt("t.1", "deck-1"), closed("t.1")])

    check = store.verify_hand(stream_id, "t.1", opened_by="HandOpened")
    assert check.verification.ok and (check.chained_from, check.first_version, check.last_version) == (0, 1, 3)
