"""The application layer for live tables: load a stream, rebuild its state, decide, append
with the expected version. HTTP views and Celery tasks both go through `execute`.

Order of checks on a write, so retries and races answer consistently:
1. an Idempotency-Key already recorded on the stream answers the first result (nothing new);
2. a stale expected version is a VersionConflict (409) before any rule is checked;
3. the domain decides (a Violation writes nothing);
4. the store appends at the version we decided on: a writer that got there first turns
   this into a VersionConflict, or, with the same key, into the first result.

The shuffle is drawn here (`SecretShuffle`, from `secrets`; a 32-byte `secrets` salt) and passed
in the command; the table's first event of the hand publishes the commitment.

The time is read here too (`now`, from the caller or the wall clock) and passed to the
domain, which dates action-clock deadlines with it. After an append that started a clock,
the registered clock scheduler (the Celery fast path, workers.clock_tasks) is told; if it
is missing or fails, the periodic sweep still finds the deadline in the log.
Events the computer played for a player carry `automatic: true` in their metadata.

Games that need randomness after the deal (a draw redeal, reshuffles, Palace Poker's palace
order, every dice roll) get it through `SecretDraws`, which draws with `secrets` as well.
When a ranked table finishes, its results are rated once (service.application.ratings.record_result,
result id = the table id); a failure there is logged and the results stay on the table's
TableFinished event for the rating worker.
"""
from __future__ import annotations

import functools
import logging
import math
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from domain.live import table
from domain.rules import deal_commitment
from domain.rules.cards import deck_texts
from domain.ratings import Finish, GameResult
from domain.records import from_record, to_record
from service.application import ratings, snapshots
from service.application.sealing import seal
from service.config import Config
from service.adapters.store import scope
from service.adapters.store.base import (
    EventStore, NewEvent, RecordedEvent, Reveal, Snapshot, VersionConflict,
)

log = logging.getLogger(__name__)

STREAM_PREFIX = "table-"
# Hand events whose cards only their own player (and the floor) may see: record type ->
# the field holding the seat. Palace Poker's private events name their players themselves
# (`visible_to`).
PRIVATE_CARD_EVENTS = {"HoleCardsDealt": "seat", "PlayerDrew": "seat", "OpenersSplit": "seat",
                       "CardsDealt": "seat", "CardsDiscarded": "seat"}  # the last two: mixed games
# A hand committed card by card (domain.rules.deal_commitment) never shows its whole deck, or
# the secret its per-card salts come from, to anyone but the floor and admin: the others
# get the openings of the cards they saw (service.application.views.deal_view). Five-card
# draw's reshuffle orders and reshuffled stubs hold the mucked discards, so they are the
# floor's too.
FLOOR_ONLY_SECRETS = {"HandOpened": ("salt",), "HandStarted": ("deck", "reshuffle_order"),
                      "Redealt": ("deck", "reshuffle_order"), "StubReshuffled": ("cards",)}
# Table events that belong to the current hand's history (the floor audits a timeout, or
# what was pushed and said, there).
HAND_TABLE_EVENTS = (table.HandOpened, table.HandClosed, table.ClockStarted, table.ClockExpired,
                     table.AutomaticAction, table.ChipsRuled)


def table_stream(table_id: str) -> str:
    return STREAM_PREFIX + table_id


ClockScheduler = Callable[[str, int, table.ClockStarted], None]
"""(table id, the version at which the clock is pending, the clock) -> schedule its expiry."""
_clock_schedulers: list[ClockScheduler] = []


def schedule_clocks_with(scheduler: ClockScheduler | None) -> None:
    """Who is told about each clock started (None: nobody; the sweep alone acts)."""
    _clock_schedulers[:] = [] if scheduler is None else [scheduler]


def now_ms(now: float | None = None) -> int:
    """`now` (seconds since the epoch, the wall clock if None) in whole milliseconds, the
    unit of deadlines in events (events hold no floats)."""
    return round((time.time() if now is None else now) * 1000)


@dataclass(frozen=True)
class LoadedTable:
    """A table's state at `version`, and the idempotency keys recorded on its stream."""
    table_id: str
    version: int
    state: table.TableState | None
    idempotency_keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    """key -> (first, last) version of the events appended with it."""


@dataclass(frozen=True)
class CommandResult:
    version: int
    events: tuple[dict[str, Any], ...]
    """{"version", "type", "data", "metadata"} of each event the command recorded."""
    state: table.TableState
    deduplicated: bool = False


class _TableCache:
    """The last rebuilt state per table, so a write reads only the events after it.

    States are immutable, so threads share them freely; the lock guards the dict only.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[str, LoadedTable] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, table_id: str) -> LoadedTable | None:
        with self._lock:
            entry = self._entries.get(table_id)
            if entry is not None:
                self._entries.move_to_end(table_id)
            return entry

    def put(self, loaded: LoadedTable) -> None:
        with self._lock:
            current = self._entries.get(loaded.table_id)
            if current is not None and current.version >= loaded.version:
                return
            self._entries[loaded.table_id] = loaded
            self._entries.move_to_end(loaded.table_id)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)

    def forget(self, table_id: str) -> None:
        with self._lock:
            self._entries.pop(table_id, None)

    def resize(self, capacity: int) -> None:
        with self._lock:
            self._capacity = capacity
            while len(self._entries) > capacity:
                self._entries.popitem(last=False)


_cache = _TableCache(Config.table_cache_size)


def keep_tables(capacity: int) -> None:
    """How many table states this process keeps (Config.table_cache_size)."""
    _cache.resize(capacity)


@scope.forget_on_rollback
def _forget_table(store: EventStore, stream_id: str) -> None:
    """A table state cached inside a transaction that rolled back is ahead of the log."""
    if stream_id.startswith(STREAM_PREFIX):
        _cache.forget(stream_id[len(STREAM_PREFIX):])


def load_table(store: EventStore, table_id: str) -> LoadedTable:
    """The table's current state: the cached state plus whatever was appended since; not
    cached, its newest snapshot plus what came after it (load_table_state)."""
    cached = _cache.get(table_id)
    if cached is None:
        loaded = load_table_state(store, table_id)
    else:
        records = store.read_stream(table_stream(table_id), after_version=cached.version,
                                    reveal=Reveal.ALL)
        if not records:
            return cached
        loaded = fold_records(cached, records)
    if loaded.version:
        _cache.put(loaded)
    return loaded


def load_table_state(store: EventStore, table_id: str, up_to_version: int | None = None) -> LoadedTable:
    """The table at `up_to_version` (default: its head) from the newest snapshot at or
    before it, plus the events after that: the cost of the newest hand, not the table's
    age. Without a usable snapshot (none yet, or written by other code), from version 0."""
    stream = table_stream(table_id)
    found, records = store.read_from_snapshot(stream, snapshots.SCHEMA, up_to_version)
    start = None if found is None else _decoded(found)
    if start is None:
        start = LoadedTable(table_id, 0, None)
        if found is not None:  # it does not decode: from the first event after all
            records = store.read_stream(stream, up_to_version=up_to_version, reveal=Reveal.ALL)
    if not records:
        return start
    closed_at = _last_close(records) if len(records) > REPLAY_WORTH_A_SNAPSHOT else None
    if closed_at is None:
        return fold_records(start, records)
    # A long replay (a table older than snapshots, or snapshots of other code after a
    # deploy) leaves one at the last close it passed, so the next load or hand read there
    # is short.
    at_close = fold_records(start, records[:closed_at + 1])
    _save_snapshot(store, at_close)
    rest = records[closed_at + 1:]
    return fold_records(at_close, rest) if rest else at_close


REPLAY_WORTH_A_SNAPSHOT = 500
"""Events replayed past a snapshot (or from version 0) beyond which a load writes one."""


def _last_close(records: list[RecordedEvent]) -> int | None:
    return next((i for i in range(len(records) - 1, -1, -1) if records[i].type == _HAND_CLOSED), None)


_HAND_CLOSED = table.HandClosed.__name__


def _decoded(found: Snapshot) -> LoadedTable | None:
    table_id = found.stream_id[len(STREAM_PREFIX):]
    try:
        state, keys = snapshots.decode(found.body)
    except (ValueError, TypeError, KeyError):
        log.warning("table %s: the snapshot at version %s does not decode; replaying instead",
                    table_id, found.version, exc_info=True)
        return None
    return LoadedTable(table_id, found.version, state, keys)


def _snapshot_closed_hand(store: EventStore, loaded: LoadedTable, events: list[Any],
                          first_version: int, keys: dict[str, tuple[int, int]]) -> None:
    """After an append that closed a hand: the table's state right after its HandClosed
    (an auto-deal table's next deal follows in the same append, and stays out)."""
    closed_at = next((i for i in range(len(events) - 1, -1, -1)
                      if type(events[i]) is table.HandClosed), None)
    if closed_at is None:
        return
    state = functools.reduce(table.evolve, events[:closed_at + 1], loaded.state)
    version = first_version + closed_at
    kept = {key: (first, min(last, version)) for key, (first, last) in keys.items() if first <= version}
    _save_snapshot(store, LoadedTable(loaded.table_id, version, state, kept))


def _save_snapshot(store: EventStore, loaded: LoadedTable) -> None:
    try:
        body = snapshots.encode(loaded.state, loaded.idempotency_keys)
    except snapshots.NotSnapshottable:
        log.warning("table %s: no snapshot at version %s", loaded.table_id, loaded.version, exc_info=True)
        return
    store.save_snapshot(Snapshot(table_stream(loaded.table_id), loaded.version, snapshots.SCHEMA, body))


def load_table_for_write(store: EventStore, table_id: str, expected_version: int | None) -> LoadedTable:
    """The cached state when it is at the version the writer expects, without a read: the
    append still checks that version atomically, and an Idempotency-Key recorded meanwhile
    by another process comes back from the store as the first result."""
    cached = _cache.get(table_id)
    if cached is not None and expected_version is not None and cached.version == expected_version:
        return cached
    return load_table(store, table_id)


def fold_records(loaded: LoadedTable, records: list[RecordedEvent]) -> LoadedTable:
    state = loaded.state
    keys = dict(loaded.idempotency_keys)
    types = None if state is None else table.event_types(state.game)
    for record in records:
        if types is None:
            types = table.event_types(record.data["game"])
        state = table.evolve(state, from_record(types, record.type, record.full_data()))
        key = record.metadata.get("idempotency_key")
        if key is not None:
            first, _ = keys.get(key, (record.version, record.version))
            keys[key] = (first, record.version)
    return LoadedTable(loaded.table_id, records[-1].version, state, keys)


def state_at(store: EventStore, table_id: str, version: int) -> table.TableState | None:
    """The table at `version` (for floor staff auditing a hand step by step): from the
    newest snapshot at or before it."""
    return load_table_state(store, table_id, version).state


class SecretShuffle:
    """Shuffles with one draw from `secrets` per deck instead of one per card.

    A number drawn uniformly below n! (`secrets.randbits`, redrawn when too large) is read
    as the mixed-radix digits Fisher-Yates needs (a digit below n, then below n - 1, ...),
    each uniform and independent of the others, so every order of the deck is equally
    likely, exactly as with `secrets.SystemRandom().shuffle`, which asks the operating
    system once per card.
    """

    def shuffle(self, items: list[Any]) -> None:
        permutations = math.factorial(len(items))
        bits = permutations.bit_length()
        number = secrets.randbits(bits)
        while number >= permutations:  # accepted at least half the time
            number = secrets.randbits(bits)
        for i in range(len(items) - 1, 0, -1):
            number, j = divmod(number, i + 1)
            items[i], items[j] = items[j], items[i]


class SecretDraws:
    """Fresh randomness for the games, from the operating system's CSPRNG."""

    def shuffled(self, cards: tuple[str, ...]) -> tuple[str, ...]:
        order = list(cards)
        SecretShuffle().shuffle(order)
        return tuple(order)

    def salt(self) -> str:
        return secrets.token_bytes(32).hex()

    def die(self) -> int:
        return secrets.randbelow(6) + 1


def draw_deal(with_joker: bool = False) -> table.StartNextHand:
    """A fresh shuffle of the whole pack and a secret salt, both from `secrets`."""
    draws = SecretDraws()
    return table.StartNextHand(draws.shuffled(deck_texts(with_joker)), draws.salt())


def create_table(store: EventStore, command: table.CreateTable, *, actor: str | None = None,
                 idempotency_key: str | None = None) -> CommandResult:
    return execute(store, command.table_id, 0, command, actor=actor, idempotency_key=idempotency_key)


def start_next_hand(store: EventStore, table_id: str, expected_version: int | None, *,
                    actor: str | None = None, idempotency_key: str | None = None,
                    loaded: LoadedTable | None = None) -> CommandResult:
    loaded = loaded or load_table_for_write(store, table_id, expected_version)
    # No table: any deal will do, `execute` answers that the table is not found.
    deal = draw_deal() if loaded.state is None else table.fresh_deal(loaded.state, SecretDraws())
    return execute(store, table_id, expected_version, deal, actor=actor,
                   idempotency_key=idempotency_key, loaded=loaded)


def execute(store: EventStore, table_id: str, expected_version: int | None, command: table.Command,
            *, actor: str | None = None, idempotency_key: str | None = None,
            loaded: LoadedTable | None = None, now: float | None = None) -> CommandResult:
    """Decide `command` on the table and record the events. `expected_version` None means
    "whatever the current version is" (the domain still refuses what the state forbids).
    `now`: seconds since the epoch (default: the wall clock)."""
    loaded = loaded or load_table(store, table_id)
    stream = table_stream(table_id)
    if idempotency_key is not None and idempotency_key in loaded.idempotency_keys:
        return _first_result(store, table_id, loaded.idempotency_keys[idempotency_key])
    if expected_version is not None and expected_version != loaded.version:
        raise VersionConflict(stream, expected_version, loaded.version)
    events, state = table.handle(loaded.state, command, now_ms(now), SecretDraws())
    new_events = _new_events(loaded.state, state, events)
    result = store.append(stream, loaded.version, new_events, idempotency_key=idempotency_key,
                          actor=actor)
    if result.deduplicated:
        return _first_result(store, table_id, (result.first_version, result.last_version))
    keys = dict(loaded.idempotency_keys)
    if idempotency_key is not None:
        keys[idempotency_key] = (result.first_version, result.last_version)
    _cache.put(LoadedTable(table_id, result.last_version, state, keys))
    _snapshot_closed_hand(store, loaded, events, result.first_version, keys)
    recorded = tuple(
        {"version": version, "type": new.type, "data": new.data, "metadata": dict(new.metadata)}
        for version, new in zip(range(result.first_version, result.last_version + 1), new_events))
    _schedule_clocks(table_id, result.last_version, events)
    _rate_if_finished(store, state, events, actor)
    return CommandResult(result.last_version, recorded, state)


def _rate_if_finished(store: EventStore, state: table.TableState, events: list[Any], actor: str | None) -> None:
    finished = next((e for e in events if isinstance(e, table.TableFinished)), None)
    if finished is None or not state.ranked or not finished.results:
        return
    result = GameResult(state.table_id, state.game,
                        tuple(Finish(r.player_id, r.place) for r in finished.results))
    try:
        ratings.record_result(store, result, actor=actor)
    except Exception:  # noqa: BLE001 - the table is finished either way; the results stay on its event
        log.warning("could not rate table %s; its results are on TableFinished", state.table_id, exc_info=True)


def _schedule_clocks(table_id: str, version: int, events: list[Any]) -> None:
    for event in events:
        if not isinstance(event, table.ClockStarted):
            continue
        for scheduler in _clock_schedulers:
            try:
                scheduler(table_id, version, event)
            except Exception:  # noqa: BLE001 - the write is done; the sweep covers the deadline
                log.warning("could not schedule the clock of table %s at version %s; the sweep will act on it",
                            table_id, version, exc_info=True)


CLOCK_ACTOR = "clock"


def expire_clock(store: EventStore, table_id: str, expected_version: int | None, hand_id: str,
                 seat: int, deadline_at_ms: int, *, now: float | None = None) -> CommandResult:
    """Act for the player whose clock (the one of `seat` in `hand_id` ending at
    `deadline_at_ms`) ran out. Refused (Violation) unless that very clock is still running
    and has passed; a stale `expected_version` is a VersionConflict."""
    command = table.ExpireClock(hand_id, seat, deadline_at_ms)
    return execute(store, table_id, expected_version, command, actor=CLOCK_ACTOR, now=now)


def _new_events(before: table.TableState | None, after: table.TableState,
                events: list[Any]) -> list[NewEvent]:
    """The store records, with metadata that lets views redact one event on its own: the
    hand it belongs to and, for private cards, the player who may see them. One command
    may close a hand and open the next (auto_deal), so both are followed event by event."""
    hand_id = None if before is None else before.hand_id
    hand_seats = () if before is None else before.hand_seats
    per_card = before is not None and before.deal_scheme == deal_commitment.SCHEME
    records = []
    for event, automatic in zip(events, table.automatic_flags(events)):
        if type(event) is table.HandOpened:
            hand_id, hand_seats = event.hand_id, event.seats
            per_card = event.scheme == deal_commitment.SCHEME
        type_name, data = to_record(event)
        metadata: dict[str, Any] = {}
        if per_card and type_name in FLOOR_ONLY_SECRETS:
            metadata["floor_only"] = [name for name in FLOOR_ONLY_SECRETS[type_name] if name in data]
        if automatic:
            metadata["automatic"] = True
        if type(event) not in table.TABLE_EVENTS or isinstance(event, HAND_TABLE_EVENTS):
            metadata["hand_id"] = hand_id
        seat_field = PRIVATE_CARD_EVENTS.get(type_name)
        if seat_field is not None:
            metadata["visible_to"] = after.players[hand_seats[data[seat_field]]]
        elif data.get("visible_to"):
            metadata["visible_to"] = list(data["visible_to"])
        public, sealed = seal(type_name, data)
        records.append(NewEvent(type_name, public, metadata=metadata, sealed=sealed))
    return records


def _first_result(store: EventStore, table_id: str, versions: tuple[int, int]) -> CommandResult:
    first, last = versions
    records = store.read_stream(table_stream(table_id), after_version=first - 1, up_to_version=last)
    state = state_at(store, table_id, last)
    assert state is not None
    recorded = tuple({"version": r.version, "type": r.type, "data": dict(r.data),
                      "metadata": dict(r.metadata)} for r in records)
    return CommandResult(last, recorded, state, deduplicated=True)
