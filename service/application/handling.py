"""The one handling path every write takes, whatever the stream: load the stream's state
(the cached state plus the events appended since), let the domain decide, append what it
decided with the version it was decided on, and remember the new state.

Tables, tournaments, ratings and players differ only in what a `StreamKind` says: how
stored records fold into the state, whether sealed fields are read back, how many states
are cached, and how often a lost race is judged again on fresh state. HTTP views and the
Celery tasks both send their commands through `Streams.handle`.

Order of checks on a write, so retries and races answer consistently:
1. an idempotency key already recorded on the stream answers the first result (nothing new);
2. a stale expected version is a VersionConflict (409) before any rule is judged;
3. the domain decides (a Violation writes nothing; no events writes nothing);
4. the store appends at the version decided on: a writer that got there first turns this
   into a VersionConflict (judged again on fresh state while `retries` allow, when the
   caller expected no particular version), or, with the same key, into the first result.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from domain.frozen import made_at_once
from service.adapters.store import scope
from service.adapters.store.base import EventStore, IntegrityFailure, NewEvent, RecordedEvent, Reveal, Snapshot, UnreadableStream, VersionConflict
from service.application import snapshots

log = logging.getLogger(__name__)

S = TypeVar("S")


__all__ = ["IntegrityFailure", "UnreadableStream"]
"""Both are the store's (service.adapters.store.base): a stream this code cannot read, and
one whose log fails its check on read (the store checks every event it returns, so every
load, replay and batch here acts only on events it verified). Every reader here treats
them alike: refused with the stream and the version, never decided or dealt on."""


class UnknownEventType(LookupError):
    """A stored record of a type this code does not know (a kind's fold raises it for
    `evolved` to name)."""

    def __str__(self) -> str:
        return "an event type this code does not know"


def evolved(state: S, record: RecordedEvent, evolve_record: Callable[[S, RecordedEvent], S]) -> S:
    """The state after `record` (`evolve_record`: a kind's step from one stored record);
    a record the domain refuses, whatever it raises, makes the stream an UnreadableStream
    at that record's version, with the type and the reason."""
    try:
        return evolve_record(state, record)
    except UnreadableStream:
        raise
    except Exception as refused:  # noqa: BLE001 - whatever the domain refuses, the stream is unreadable
        raise UnreadableStream(record.stream_id, record.version,
                               f"{record.type}: {str(refused) or type(refused).__name__}") from refused


def folded(state: S, records: Sequence[RecordedEvent], evolve_record: Callable[[S, RecordedEvent], S]) -> S:
    """The state after every record in turn (`evolved`): what a kind's fold does."""
    for record in records:
        state = evolved(state, record, evolve_record)
    return state


@made_at_once
@dataclass(frozen=True)
class Loaded(Generic[S]):
    """A stream's state at `version`."""
    stream_id: str
    version: int
    state: S
    first_metadata: Mapping[str, Any] = field(default_factory=dict)
    """The metadata of the stream's first event (what the decider does not keep, e.g. a
    tournament's game)."""
    idempotency_keys: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """key -> (first, last) version of the events appended with it."""


@made_at_once
@dataclass(frozen=True)
class Decision(Generic[S]):
    """What the domain decided: the records to append, the state after them, and the
    domain's own events (for what the caller does once they are recorded)."""
    records: Sequence[NewEvent]
    state: S
    events: Sequence[Any] = ()
    remember: bool = True
    """False when the state after is known only from the stored records (ratings are
    dated by the store's clock): the next load folds them."""
    closed: tuple[int, S] | None = None
    """For a kind that keeps snapshots: the index of the last closing event among `events`
    and the state right after it, as the domain evolved it on the way; None when none closes."""


@made_at_once
@dataclass(frozen=True)
class Handled(Generic[S]):
    version: int
    events: tuple[dict[str, Any], ...]
    """{"version", "type", "data", "metadata"} of each event the command recorded."""
    state: S
    decided: Sequence[Any] = ()
    """The domain's events, as decided (empty when the first result was answered)."""
    deduplicated: bool = False


Decide = Callable[[Loaded[S]], Decision[S]]

REPLAY_WORTH_A_SNAPSHOT = 500
"""Events replayed past a snapshot (or from version 0) beyond which a load writes one."""


@dataclass(frozen=True)
class SnapshotPolicy(Generic[S]):
    """A kind of stream that keeps snapshots (service.application.snapshots): a cold load
    or a replay to a version starts from the newest one at or before it, so it costs the
    events since, not the stream's age."""
    closing_type: str
    """The record type after which the state is snapshotted (a table's HandClosed:
    between hands, so a snapshot never holds a hand still being played). A decision that
    closes names the state right after its last closing event (`Decision.closed`)."""


@dataclass(frozen=True)
class StreamKind(Generic[S]):
    """What differs from one kind of stream to another."""
    prefix: str
    initial: S
    fold: Callable[[S, Sequence[RecordedEvent]], S]
    """The state after these stored records (full data when `reveal` reads it)."""
    reveal: Reveal | None = None
    cached: int = 0
    """How many states to keep (least recently used dropped first); 0: none."""
    retries: int = 1
    """Attempts when the caller expects no particular version: a lost race is judged
    again on the fresh state, so nothing stale is written."""
    snapshots: SnapshotPolicy[S] | None = None

    def stream_id(self, name: str) -> str:
        return self.prefix + name


class StreamCache(Generic[S]):
    """The last state folded per stream, so a write reads only the events after it.
    States are immutable: threads share them; the lock guards the dict only."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[str, Loaded[S]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: str) -> Loaded[S] | None:
        with self._lock:
            entry = self._entries.get(stream_id)
            if entry is not None:
                self._entries.move_to_end(stream_id)
            return entry

    def put(self, loaded: Loaded[S]) -> None:
        with self._lock:
            current = self._entries.get(loaded.stream_id)
            if current is not None and current.version >= loaded.version:
                return
            self._entries[loaded.stream_id] = loaded
            self._entries.move_to_end(loaded.stream_id)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)


class Streams(Generic[S]):
    """The streams of one kind in one store, with their cache: the one handling path."""

    def __init__(self, store: EventStore, kind: StreamKind[S], cached: int | None = None) -> None:
        """`cached`: how many states to keep, if not the kind's own number."""
        self.store = store
        self.kind = kind
        capacity = kind.cached if cached is None else cached
        self._cache: StreamCache[S] | None = StreamCache(capacity) if capacity else None
        # stream id -> the refusal of the record this process found it cannot read: the
        # log only grows, so the stream stays unreadable until other code runs.
        self._unreadable: dict[str, UnreadableStream] = {}
        self._unreadable_lock = threading.Lock()

    def unreadable(self, stream_id: str) -> UnreadableStream | None:
        """Why this process found `stream_id` unreadable (None: it did not, or never read
        it): a caller that meets the same stream again (a sweep every second) may pass it
        over without a read, or a second line in the log."""
        with self._unreadable_lock:
            return self._unreadable.get(stream_id)

    def load(self, stream_id: str) -> Loaded[S]:
        """The stream's current state: the cached state plus whatever was appended since;
        not cached, from its newest snapshot when the kind keeps them. A stream found
        unreadable raises UnreadableStream again at once, without a read."""
        self._refuse_if_unreadable(stream_id, None)
        cached = self._cached(stream_id)
        if cached is None and self.kind.snapshots is not None:
            loaded = self.replay(stream_id, None)
            if loaded.version:
                self._remember(loaded)
            return loaded
        cached = cached or Loaded(stream_id, 0, self.kind.initial)
        records = self.store.read_stream(stream_id, after_version=cached.version, reveal=self.kind.reveal)
        if not records:
            return cached
        loaded = self._folded(cached, records)
        self._remember(loaded)
        return loaded

    def held_or_load(self, stream_id: str) -> Loaded[S]:
        """The cached state without a read when there is one, else `load`: for a caller
        that read the stream in the transaction it is in and writes at the versions it
        decided on (what it wrote is cached; another writer's append makes its next
        append a VersionConflict)."""
        self._refuse_if_failed(stream_id)
        return self._cached(stream_id) or self.load(stream_id)

    def load_for_write(self, stream_id: str, expected_version: int | None) -> Loaded[S]:
        """The cached state when it is at the version the writer expects, without a read:
        the append still checks that version atomically, and an idempotency key recorded
        meanwhile by another process comes back from the store as the first result."""
        self._refuse_if_failed(stream_id)
        cached = self._cached(stream_id)
        if cached is not None and expected_version is not None and cached.version == expected_version:
            return cached
        return self.load(stream_id)

    def _refuse_if_failed(self, stream_id: str) -> None:
        """Verify before acting, where the cache spares the read: a stream this process
        found failing its integrity check (on any read) is refused before its cached
        state is used. A write decided on the cached (verified) state appends at the next
        version, where an event written behind the store's back stands: the append's
        conflict reads it, and the check refuses it (handle)."""
        self.store.refuse_failed(stream_id)

    def replay(self, stream_id: str, up_to_version: int | None) -> Loaded[S]:
        """The stream's state at `up_to_version` (None: its head; not cached): from the
        newest snapshot at or before it when the kind keeps them, else from the start.
        Before the record found unreadable, a stream still replays (its earlier hands)."""
        self._refuse_if_unreadable(stream_id, up_to_version)
        start: Loaded[S] = Loaded(stream_id, 0, self.kind.initial)
        policy = self.kind.snapshots
        if policy is None:
            records = self.store.read_stream(stream_id, up_to_version=up_to_version, reveal=self.kind.reveal)
            return self._folded(start, records) if records else start
        found, records = self.store.read_from_snapshot(stream_id, snapshots.SCHEMA, up_to_version)
        decoded = None if found is None else self._decoded(found)
        if decoded is not None:
            start = decoded
        elif found is not None:  # it does not decode: from the first event after all
            records = self.store.read_stream(stream_id, up_to_version=up_to_version, reveal=self.kind.reveal)
        if not records:
            return start
        closed_at = None
        if len(records) > REPLAY_WORTH_A_SNAPSHOT:
            closed_at = next((i for i in range(len(records) - 1, -1, -1)
                              if records[i].type == policy.closing_type), None)
        if closed_at is None:
            return self._folded(start, records)
        # A long replay (a stream older than snapshots, or snapshots of other code after a
        # deploy) leaves one at the last close it passed, so the next load there is short.
        at_close = self._folded(start, records[:closed_at + 1])
        self._save_snapshot(at_close)
        rest = records[closed_at + 1:]
        return self._folded(at_close, rest) if rest else at_close

    def _decoded(self, found: Snapshot) -> Loaded[S] | None:
        try:
            state, keys, first_metadata = snapshots.decode(found.body)
        except (ValueError, TypeError, KeyError):
            log.warning("%s: the snapshot at version %s does not decode; replaying instead",
                        found.stream_id, found.version, exc_info=True)
            return None
        return Loaded(found.stream_id, found.version, state, first_metadata, keys)

    def _save_snapshot(self, loaded: Loaded[S]) -> None:
        try:
            body = snapshots.encode(loaded.state, loaded.idempotency_keys, loaded.first_metadata)
        except snapshots.NotSnapshottable:
            log.warning("%s: no snapshot at version %s", loaded.stream_id, loaded.version, exc_info=True)
            return
        self.store.save_snapshot(Snapshot(loaded.stream_id, loaded.version, snapshots.SCHEMA, body))

    def _snapshot_closed(self, before: Loaded[S], decision: Decision[S], first_version: int,
                         keys: Mapping[str, tuple[int, int]], first_metadata: Mapping[str, Any]) -> None:
        """After an append that closed (a hand): the state right after its closing event
        (an auto-deal table's next deal follows in the same append, and stays out)."""
        if self.kind.snapshots is None or decision.closed is None:
            return
        index, state = decision.closed
        version = first_version + index
        kept = {key: (first, min(last, version)) for key, (first, last) in keys.items() if first <= version}
        self._save_snapshot(Loaded(before.stream_id, version, state, first_metadata, kept))

    def handle(self, stream_id: str, decide: Decide[S], *, expected_version: int | None = None,
               idempotency_key: str | None = None, actor: str | None = None,
               loaded: Loaded[S] | None = None) -> Handled[S]:
        """Decide on the stream's state (`loaded` if the caller has it) and append what was
        decided. `expected_version` None means "whatever the current version is"."""
        attempts = 1 if expected_version is not None else self.kind.retries
        for attempt in range(attempts):
            current = loaded if loaded is not None and attempt == 0 else self.load(stream_id)
            if idempotency_key is not None and idempotency_key in current.idempotency_keys:
                return self._first_result(stream_id, current.idempotency_keys[idempotency_key])
            if expected_version is not None and expected_version != current.version:
                raise VersionConflict(stream_id, expected_version, current.version)
            decision = decide(current)
            if not decision.records:
                return Handled(current.version, (), decision.state, decision.events)
            try:
                result = self.store.append(stream_id, current.version, decision.records,
                                           idempotency_key=idempotency_key, actor=actor)
            except VersionConflict:
                if attempt + 1 == attempts:
                    # What got there first is read and checked: an event written behind the
                    # store's back answers as the IntegrityFailure it is, not a lost race.
                    self._check_newer(stream_id, current.version)
                    raise
                continue
            if result.deduplicated:
                return self._first_result(stream_id, (result.first_version, result.last_version))
            keys = dict(current.idempotency_keys)
            if idempotency_key is not None:
                keys[idempotency_key] = (result.first_version, result.last_version)
            first_metadata = current.first_metadata if current.version else dict(decision.records[0].metadata)
            if decision.remember:
                self._remember(Loaded(stream_id, result.last_version, decision.state, first_metadata, keys))
                self._snapshot_closed(current, decision, result.first_version, keys, first_metadata)
            recorded = tuple(
                {"version": version, "type": new.type, "data": new.data, "metadata": dict(new.metadata)}
                for version, new in zip(range(result.first_version, result.last_version + 1),
                                        decision.records))
            return Handled(result.last_version, recorded, decision.state, decision.events)
        raise AssertionError("unreachable: the last attempt raises or returns")

    def _check_newer(self, stream_id: str, version: int) -> None:
        """Read (and so check) the events after `version`: raises IntegrityFailure when one
        fails its check."""
        self.store.read_stream(stream_id, after_version=version, reveal=self.kind.reveal)

    def _first_result(self, stream_id: str, versions: tuple[int, int]) -> Handled[S]:
        """What the command that first used the key recorded, and the state it left."""
        first, last = versions
        records = self.store.read_stream(stream_id, after_version=first - 1, up_to_version=last)
        recorded = tuple({"version": r.version, "type": r.type, "data": dict(r.data),
                          "metadata": dict(r.metadata)} for r in records)
        return Handled(last, recorded, self.replay(stream_id, last).state, deduplicated=True)

    def _folded(self, loaded: Loaded[S], records: list[RecordedEvent]) -> Loaded[S]:
        keys = dict(loaded.idempotency_keys)
        for record in records:
            key = record.metadata.get("idempotency_key")
            if key is not None:
                keys[key] = (keys.get(key, (record.version,))[0], record.version)
        first_metadata = loaded.first_metadata if loaded.version else dict(records[0].metadata)
        try:
            state = self.kind.fold(loaded.state, records)
        except UnreadableStream as refused:
            self._note_unreadable(loaded.stream_id, refused)
            raise
        return Loaded(loaded.stream_id, records[-1].version, state, first_metadata, keys)

    def _refuse_if_unreadable(self, stream_id: str, up_to_version: int | None) -> None:
        found = self.unreadable(stream_id)
        if found is not None and (up_to_version is None or found.version is None or up_to_version >= found.version):
            raise found

    def _note_unreadable(self, stream_id: str, refused: UnreadableStream) -> None:
        with self._unreadable_lock:
            self._unreadable.setdefault(stream_id, refused)
        # A record appended in a transaction that rolls back was never in the log.
        opened = scope.current()
        if opened is not None:
            opened.forget_on_rollback(self._forget_unreadable)

    def _forget_unreadable(self, stream_id: str) -> None:
        with self._unreadable_lock:
            self._unreadable.pop(stream_id, None)

    def _cached(self, stream_id: str) -> Loaded[S] | None:
        if self._cache is None:
            return None
        opened = scope.current()
        mine = None if opened is None else opened.uncommitted.get((self, stream_id))
        return mine if mine is not None else self._cache.get(stream_id)

    def _remember(self, loaded: Loaded[S]) -> None:
        """Cache `loaded`; inside a transaction, for that transaction alone until it
        commits. Shared at once, a state decided there would be ahead of the log if the
        transaction rolled back or its COMMIT refused the write (an idempotent write's
        append is checked only there: service.adapters.store.held_back), and a request
        that read it meanwhile would act on events that never were."""
        if self._cache is None:
            return
        opened = scope.current()
        if opened is None or opened.store is None:  # its appends have committed
            self._cache.put(loaded)
            return
        opened.uncommitted[self, loaded.stream_id] = loaded
        cache = self._cache
        opened.after_commit(lambda: cache.put(loaded))
