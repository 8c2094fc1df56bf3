"""Snapshots of table states (service.application.snapshots): a load from the newest
snapshot plus the events after it is the full replay, for random tables and any cut
point; a snapshot written by other code, or that does not decode, is ignored; no snapshot
holds a secret of a hand still being played; the encoding rebuilds every game's state.

Tables run through the application layer on the memory store, as the endpoints write them."""
from __future__ import annotations

import json
import random
import uuid
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.live import table, table_commands, table_state
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_texts
from service.adapters.store.base import Reveal, Snapshot, VersionConflict
from service.adapters.store.memory import InMemoryEventStore
from service.application import commands, snapshots, views
from service.application.application import application
from service.application.handling import REPLAY_WORTH_A_SNAPSHOT, Streams
from service.application.sealing import REVEAL_CLOSED_HANDS
from tests import applications
from tests.unit import test_table_mixed_properties as mixed_play
from tests.unit.test_table_games import SeededDraws, _play

NL = BettingStructure("no-limit", small_blind=5, big_blind=10)


def _act(state: table_state.TableState, rng: random.Random, all_in: bool) -> table_commands.Act:
    """A legal hold'em move for whoever is to act: bets and raises too, of several sizes
    up to all in (or only the smallest, so the table plays on)."""
    legal = views.legal_actions_view(state)["legal"]
    player = state.to_act
    moves = [table_commands.Act(player, a) for a in ("check", "call", "fold") if legal.get(a)]
    for name in ("bet", "raise"):
        if legal.get(name):
            low, high = legal[name]["min_to"], legal[name]["max_to"]
            sizes = {low, high, (low + high) // 2} if all_in else {low}
            moves += [table_commands.Act(player, name, to) for to in sizes]
    return rng.choice(moves)


def _table(store: InMemoryEventStore, players: int, stacks: list[int], seed: int, commands_: int,
           auto_deal: bool = False, all_in: bool = True) -> str:
    """A hold'em table after `commands_` commands (deals drawn from `seed`)."""
    rng, draws = random.Random(seed), SeededDraws(seed)
    table_id = f"t{uuid.uuid4().hex[:10]}"
    seats = tuple(table_commands.TableSeat(f"p{i}", stacks[i]) for i in range(players))
    commands.create_table(applications.of(store), table_commands.CreateTable(table_id, "holdem", {}, NL, seats, auto_deal=auto_deal))
    for _ in range(commands_):
        state = commands.load_table(applications.of(store), table_id).state
        if state.finished:
            break
        if state.hand_in_progress:
            commands.execute(applications.of(store), table_id, None, _act(state, rng, all_in))
        else:
            commands.execute(applications.of(store), table_id, None, table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt()))
    return table_id


def _replayed(store: InMemoryEventStore, table_id: str, version: int) -> commands.LoadedTable:
    """The table at `version` replayed from its first event, no snapshot."""
    unsnapshotted = Streams(store, replace(commands.TABLES, snapshots=None), cached=0)
    return unsnapshotted.replay(commands.table_stream(table_id), version)


def _cold(store: InMemoryEventStore) -> Streams:
    """The tables of another process over the same store: nothing cached."""
    return application(store).tables


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), stacks=st.lists(st.integers(20, 400), min_size=6, max_size=6),
       seed=st.integers(0, 2**32), length=st.integers(1, 160), cut=st.floats(0, 1))
def test_a_load_from_the_newest_snapshot_is_the_full_replay(players, stacks, seed, length, cut):
    store = InMemoryEventStore()
    table_id = _table(store, players, stacks, seed, length)
    head = store.stream_version(commands.table_stream(table_id))
    at = max(1, round(cut * head))

    stream = commands.table_stream(table_id)
    assert _cold(store).replay(stream, at) == _replayed(store, table_id, at)
    assert commands.state_at(applications.of(store), table_id, at) == _replayed(store, table_id, at).state
    assert _cold(store).load(stream) == _replayed(store, table_id, head)  # a cold load


def test_a_cold_load_reads_only_the_events_after_the_newest_snapshot():
    store = InMemoryEventStore()
    table_id = _table(store, 3, [1000, 1000, 1000], 7, 200)
    stream = commands.table_stream(table_id)
    newest = store.newest_snapshot(stream, snapshots.SCHEMA)
    assert newest is not None and newest.version > 20
    reads = []
    read_stream = store.read_stream
    store.read_stream = lambda *a, **k: reads.append(read_stream(*a, **k)) or reads[-1]  # type: ignore[method-assign]

    loaded = _cold(store).load(stream)
    assert loaded.version == store.stream_version(stream)
    assert [e.version for e in reads[0]] == list(range(newest.version + 1, loaded.version + 1))


def test_every_closed_hand_leaves_a_snapshot_between_hands():
    store = InMemoryEventStore()
    table_id = _table(store, 3, [300, 300, 300], 3, 150, auto_deal=True)
    stream = commands.table_stream(table_id)
    closes = [e.version for e in store.read_stream(stream) if e.type == "HandClosed"]
    assert len(closes) >= 3
    for version in closes:
        found = store.newest_snapshot(stream, snapshots.SCHEMA, version)
        assert found.version == version
        state, _, _ = snapshots.decode(found.body)
        assert not state.hand_in_progress


def test_a_snapshot_never_holds_the_secrets_of_a_hand_still_dealt():
    """On an auto-deal table the action that closes a hand deals the next in the same
    write: the snapshot of the close has none of the next hand's deck, salt or cards."""
    store = InMemoryEventStore()
    table_id = _table(store, 2, [400, 400], 5, 80, auto_deal=True)
    stream = commands.table_stream(table_id)
    records = store.read_stream(stream, reveal=Reveal.ALL)
    opened = {r.metadata["hand_id"]: r for r in records if r.type == "HandOpened"}
    started = {r.metadata["hand_id"]: r for r in records if r.type == "HandStarted"}
    for record in records:
        if record.type != "HandClosed":
            continue
        number = int(record.metadata["hand_id"].rpartition(".")[2])
        following = f"{table_id}.{number + 1}"
        if following not in opened:
            continue
        body = store.newest_snapshot(stream, snapshots.SCHEMA, record.version).body
        assert opened[following].sealed["salt"] not in body
        assert opened[following].version > record.version
        state, _, _ = snapshots.decode(body)
        assert state.hand_id == record.metadata["hand_id"] and not state.hand_in_progress
        assert json.dumps(started[following].sealed["deck"]) not in body


def test_the_hand_read_reveals_an_open_hand_no_more_than_the_full_read_did():
    store = InMemoryEventStore()
    table_id = _table(store, 3, [5000, 5000, 5000], 11, 61, auto_deal=True, all_in=False)
    stream = commands.table_stream(table_id)
    state = commands.load_table(applications.of(store), table_id).state
    assert state.hand_in_progress
    for number in range(1, state.hands_played + 1):
        hand_id = f"{table_id}.{number}"
        by_range = store.read_hand(stream, hand_id, opened_by="HandOpened", reveal=REVEAL_CLOSED_HANDS)
        by_scan = [r for r in store.read_stream(stream, reveal=REVEAL_CLOSED_HANDS)
                   if r.metadata.get("hand_id") == hand_id]
        assert by_range == by_scan
    live = store.read_hand(stream, state.hand_id, opened_by="HandOpened", reveal=REVEAL_CLOSED_HANDS)
    assert live and all(r.sealed is None for r in live)


def test_a_snapshot_of_other_code_or_that_does_not_decode_is_ignored_and_the_stream_replayed():
    store = InMemoryEventStore()
    table_id = _table(store, 2, [300, 300], 1, 60)
    stream = commands.table_stream(table_id)
    head = store.stream_version(stream)
    replayed = _replayed(store, table_id, head)
    newest = store.newest_snapshot(stream, snapshots.SCHEMA)
    # Were either used, the load would be the table as it was created.
    created = snapshots.encode(_replayed(store, table_id, 1).state, {})
    store.save_snapshot(Snapshot(stream, head, "table-state/0/older-code", created))
    store.save_snapshot(Snapshot(stream, newest.version + 1, snapshots.SCHEMA,
                                 '{"state":{"@":"os:system"},"idempotency_keys":{}}'))

    assert _cold(store).load(stream) == replayed


def test_the_encoding_builds_only_domain_dataclasses():
    for tag in ("os:system", "builtins:object", "service.config:Config", "domain.live.table:re"):
        with pytest.raises(ValueError):
            snapshots.decode(json.dumps({"state": {"@": tag}, "idempotency_keys": {}}))


@pytest.mark.parametrize("game, settings_, stacks", [
    ("five-card-draw", {"hands": 4, "ante": 5, "opening": "jacks_or_better"}, (500, 500, 500)),
    ("palace", {"small_bet": 10, "big_bet": 20}, (200, 200, 200)),
    ("dice", {}, (0, 0)),
])
def test_every_state_of_the_other_games_encodes_and_decodes_to_itself(game, settings_, stacks):
    draws, rng = SeededDraws(4), random.Random(4)
    seats = tuple(table_commands.TableSeat(f"p{i}", s) for i, s in enumerate(stacks))
    _, state = table.handle(None, table_commands.CreateTable("t", game, settings_, BettingStructure(), seats))
    for _ in range(300):
        if state.finished:
            break
        if state.hand_in_progress:
            state = _play(state, rng, draws)[1]
        else:
            deck = draws.shuffled(deck_texts(table_state.game_rules(game).uses_joker(settings_)))
            state = table.handle(state, table_commands.StartNextHand(deck, draws.salt()), 0, draws)[1]
        assert snapshots.decode(snapshots.encode(state, {}))[0] == state


def test_the_mixed_games_states_encode_and_decode_to_themselves(monkeypatch):
    seen = []
    evolve = table_state.evolve
    monkeypatch.setattr(table_state, "replay", lambda events: seen.append(None) or _replay_checked(events, evolve))
    mixed_play._play("horse", [100, 100, 100], 3)
    assert seen


def _replay_checked(events, evolve) -> table_state.TableState:
    state = None
    for event in events:
        state = evolve(state, event)
        assert snapshots.decode(snapshots.encode(state, {}))[0] == state
    return state


def test_the_table_cache_keeps_as_many_tables_as_configured():
    store = InMemoryEventStore()
    tables = application(store, table_cache_size=2).tables
    streams = [commands.table_stream(_table(store, 2, [100, 100], n, 3)) for n in range(3)]
    for stream in streams:
        tables.load(stream)
    assert tables._cached(streams[0]) is None and tables._cached(streams[2]) is not None


def test_a_write_that_lost_a_race_retries_from_the_cached_state_not_from_version_zero():
    store = InMemoryEventStore()
    table_id = _table(store, 2, [5000, 5000], 2, 40, all_in=False)
    stream = commands.table_stream(table_id)
    here = application(store)  # this process; another one writes meanwhile
    stale = commands.load_table(here, table_id)
    draws = SeededDraws(5)
    move = (_act(stale.state, random.Random(1), False) if stale.state.hand_in_progress
            else table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt()))
    commands.execute(applications.of(store), table_id, stale.version, move)
    reads = []
    read_stream = store.read_stream
    store.read_stream = lambda *a, **k: reads.append(read_stream(*a, **k)) or reads[-1]  # type: ignore[method-assign]
    with pytest.raises(VersionConflict):
        commands.execute(here, table_id, stale.version, move)

    assert reads[0][0].version == stale.version + 1 and reads[0][-1].version == store.stream_version(stream)
    assert commands.load_table(here, table_id) == _replayed(store, table_id, store.stream_version(stream))


def test_a_long_replay_leaves_a_snapshot_at_the_last_close_it_passed(monkeypatch):
    """A table older than snapshots, or after a deploy of other domain code: the first
    cold load replays from version 0 and keeps a snapshot; the next one starts there."""
    store = InMemoryEventStore()
    table_id = _table(store, 3, [5000, 5000, 5000], 8, 400, all_in=False)
    stream = commands.table_stream(table_id)
    monkeypatch.setattr(snapshots, "SCHEMA", "table-state/1/the-next-deploy")
    assert store.newest_snapshot(stream, snapshots.SCHEMA) is None
    head = store.stream_version(stream)
    assert head > REPLAY_WORTH_A_SNAPSHOT

    assert _cold(store).load(stream) == _replayed(store, table_id, head)
    kept = store.newest_snapshot(stream, snapshots.SCHEMA)
    last_close = max(e.version for e in store.read_stream(stream) if e.type == "HandClosed")
    assert kept.version == last_close
    assert _cold(store).replay(stream, None) == _replayed(store, table_id, head)
