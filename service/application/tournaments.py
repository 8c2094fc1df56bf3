"""Tournaments as a service: the application functions HTTP views and Celery tasks share.

Stream `tournament-<id>`. Every write loads the stream, folds the domain's `evolve`,
lets `decide` judge the command and appends with the expected version (and the caller's
idempotency key). Randomness (the seat draw, balancing ties) is drawn here with
`secrets` and travels in the command, so the event records it and replay never draws.
Times are whole seconds since the epoch: the store refuses floats in events.

Deadlines (the start time, level ends) are facts derivable from the log; `due_commands`
says what a clock sweep should record at `now`, and acting twice changes nothing because
each command is decided on the state at the version it read.
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Callable, Mapping
from weakref import WeakKeyDictionary

from domain.records import from_record, to_record
from domain.tournaments import tournament
from domain.tournaments.clock import read_clock, roll_forward
from domain.tournaments.payouts import payout_amounts, prizes_for_places
from domain.tournaments.structure import level_number
from domain.rules.violations import Violation
from service.application import ratings
from service.adapters.store import scope
from service.adapters.store.base import EventStore, NewEvent, VersionConflict

STREAM_PREFIX = "tournament-"
TOURNAMENT_RATING_GAME = "tournament"
CACHED_STREAMS = 256
# Without an expected version from the caller a lost race is retried on fresh state:
# the command is judged again, so nothing stale is written.
RETRIES_WITHOUT_EXPECTED_VERSION = 5
SEED_BITS = 32  # small enough to survive any JSON client as a number

Decide = Callable[[Any, Any], list[Any]]
Evolve = Callable[[Any, Any], Any]


# --- the generic application step (merge into service.application.commands when it grows one) -----

@dataclass(frozen=True)
class Loaded:
    stream_id: str
    version: int
    state: Any
    first_metadata: Mapping[str, Any] = field(default_factory=dict)
    idempotency_keys: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    version: int
    events: tuple[dict[str, Any], ...]  # {"version", "type", "data"} of each recorded event
    state: Any
    deduplicated: bool = False


class _StreamCache:
    """The last folded state per stream, so a write reads only the events after it.
    States are immutable: threads share them; the lock guards the dict only."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: str) -> Loaded | None:
        with self._lock:
            return self._entries.get(stream_id)

    def put(self, loaded: Loaded) -> None:
        with self._lock:
            current = self._entries.get(loaded.stream_id)
            if current is not None and current.version >= loaded.version:
                return
            self._entries[loaded.stream_id] = loaded
            self._entries.move_to_end(loaded.stream_id)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)

    def forget(self, stream_id: str) -> None:
        with self._lock:
            self._entries.pop(stream_id, None)


# One cache per store: two stores (a test's in-memory one beside PostgreSQL) may hold
# streams of the same name.
_caches: WeakKeyDictionary[Any, _StreamCache] = WeakKeyDictionary()
_caches_lock = threading.Lock()


def _cache_of(store: EventStore) -> _StreamCache:
    with _caches_lock:
        cache = _caches.get(store)
        if cache is None:
            cache = _caches[store] = _StreamCache(CACHED_STREAMS)
        return cache


@scope.forget_on_rollback
def _forget_stream(store: EventStore, stream_id: str) -> None:
    """A state cached inside a transaction that rolled back is ahead of the log."""
    _cache_of(store).forget(stream_id)


def load(store: EventStore, stream_id: str, evolve: Evolve, initial: Any,
         event_types: Mapping[str, type]) -> Loaded:
    cache = _cache_of(store)
    cached = cache.get(stream_id) or Loaded(stream_id, 0, initial)
    records = store.read_stream(stream_id, after_version=cached.version)
    if not records:
        return cached
    state = cached.state
    keys = dict(cached.idempotency_keys)
    for record in records:
        state = evolve(state, from_record(event_types, record.type, record.data))
        key = record.metadata.get("idempotency_key")
        if key is not None:
            keys[key] = (keys.get(key, (record.version,))[0], record.version)
    first_metadata = cached.first_metadata if cached.version else dict(records[0].metadata)
    loaded = Loaded(stream_id, records[-1].version, state, first_metadata, keys)
    cache.put(loaded)
    return loaded


def execute(store: EventStore, stream_id: str, decide: Decide, evolve: Evolve, initial: Any,
            event_types: Mapping[str, type], command: Any, expected_version: int | None = None,
            idempotency_key: str | None = None, actor: str | None = None,
            metadata: Mapping[str, Any] | None = None) -> Outcome:
    """Decide `command` on the stream's state and append what it decided.

    A known idempotency key answers the first outcome; a stale `expected_version` is a
    VersionConflict before any rule is judged; `None` means "the current version", and a
    race lost then is retried on the fresh state. `metadata` goes on every event."""
    attempts = 1 if expected_version is not None else RETRIES_WITHOUT_EXPECTED_VERSION
    for attempt in range(attempts):
        loaded = load(store, stream_id, evolve, initial, event_types)
        if idempotency_key is not None and idempotency_key in loaded.idempotency_keys:
            return _first_outcome(store, loaded, loaded.idempotency_keys[idempotency_key])
        if expected_version is not None and expected_version != loaded.version:
            raise VersionConflict(stream_id, expected_version, loaded.version)
        events = decide(loaded.state, command)
        if not events:
            return Outcome(loaded.version, (), loaded.state)
        state = reduce(evolve, events, loaded.state)
        new_events = [NewEvent(*to_record(event), metadata=dict(metadata or {})) for event in events]
        try:
            result = store.append(stream_id, loaded.version, new_events,
                                  idempotency_key=idempotency_key, actor=actor)
        except VersionConflict:
            if attempt + 1 == attempts:
                raise
            continue
        if result.deduplicated:
            fresh = load(store, stream_id, evolve, initial, event_types)
            return _first_outcome(store, fresh, (result.first_version, result.last_version))
        recorded = tuple(
            {"version": version, "type": new.type, "data": new.data}
            for version, new in zip(range(result.first_version, result.last_version + 1), new_events)
        )
        return Outcome(result.last_version, recorded, state)
    raise AssertionError("unreachable: the last attempt raises or returns")


def _first_outcome(store: EventStore, loaded: Loaded, versions: tuple[int, int]) -> Outcome:
    first, last = versions
    records = store.read_stream(loaded.stream_id, after_version=first - 1, up_to_version=last)
    events = tuple({"version": r.version, "type": r.type, "data": dict(r.data)} for r in records)
    return Outcome(last, events, loaded.state, deduplicated=True)


# --- tournaments -----------------------------------------------------------------------

def stream_id(tournament_id: str) -> str:
    return STREAM_PREFIX + tournament_id


def new_seed() -> int:
    return secrets.randbits(SEED_BITS)


@dataclass(frozen=True)
class LoadedTournament:
    tournament_id: str
    version: int
    state: tournament.Tournament
    game: str
    betting: str

    @property
    def exists(self) -> bool:
        return self.version > 0


def load_tournament(store: EventStore, tournament_id: str) -> LoadedTournament:
    loaded = load(store, stream_id(tournament_id), tournament.evolve, tournament.INITIAL,
                  tournament.EVENT_TYPES)
    # The game and betting kind are the tables' business, not the tournament decider's:
    # they ride in the creation event's metadata.
    return LoadedTournament(tournament_id, loaded.version, loaded.state,
                            str(loaded.first_metadata.get("game", "")),
                            str(loaded.first_metadata.get("betting", "")))


def idempotency_keys(store: EventStore, tournament_id: str) -> Mapping[str, tuple[int, int]]:
    """Keys recorded on the tournament's stream -> (first, last) version they wrote."""
    return load(store, stream_id(tournament_id), tournament.evolve, tournament.INITIAL,
                tournament.EVENT_TYPES).idempotency_keys


def create_tournament(store: EventStore, tournament_id: str, settings: tournament.Settings,
                      game: str, betting: str, *, actor: str | None = None,
                      idempotency_key: str | None = None, now: float | None = None) -> Outcome:
    """`now`: a start before it is refused (None: not checked, for replaying old schedules)."""
    return execute(store, stream_id(tournament_id), tournament.decide, tournament.evolve,
                   tournament.INITIAL, tournament.EVENT_TYPES,
                   tournament.CreateTournament(tournament_id, settings, now), expected_version=0,
                   idempotency_key=idempotency_key, actor=actor,
                   metadata={"game": game, "betting": betting})


def send(store: EventStore, tournament_id: str, command: Any, *, expected_version: int | None = None,
         actor: str | None = None, idempotency_key: str | None = None) -> Outcome:
    """Any tournament command on an existing tournament. A command that finishes the
    tournament also rates it (idempotent: the clock sweep retries if this is lost)."""
    if not load_tournament(store, tournament_id).exists:
        raise Violation("unknown_tournament", f"there is no tournament {tournament_id}")
    outcome = execute(store, stream_id(tournament_id), tournament.decide, tournament.evolve,
                      tournament.INITIAL, tournament.EVENT_TYPES, command,
                      expected_version=expected_version, idempotency_key=idempotency_key, actor=actor)
    if outcome.state.status == tournament.FINISHED:
        rate_finished(store, tournament_id, outcome.state)
    return outcome


def rating_result_id(tournament_id: str) -> str:
    return STREAM_PREFIX + tournament_id


def rate_finished(store: EventStore, tournament_id: str, state: tournament.Tournament) -> None:
    ratings.record_result(store, state.rating_result(rating_result_id(tournament_id), TOURNAMENT_RATING_GAME),
                          actor="tournament")


def due_commands(state: tournament.Tournament, now: int) -> list[Any]:
    """What the clock sweep records at `now`: the start once its time has come, and each
    level that began by itself since the last recorded one, stamped with the moment it
    began (so recording it leaves the derived clock exactly as it was)."""
    settings = state.settings
    if settings is None:
        return []
    if state.status == tournament.REGISTERING:
        if now >= settings.starts_at and len(state.registered) >= 2:
            return [tournament.StartTournament(at=now, seed=new_seed())]
        return []
    clock = state.clock
    if state.status != tournament.RUNNING or clock.period_index is None or clock.paused:
        return []
    rolled = roll_forward(clock, now)
    commands: list[Any] = []
    began = clock.ends_at
    assert rolled.period_index is not None
    for index in range(clock.period_index + 1, rolled.period_index + 1):
        commands.append(tournament.StartLevel(index, at=int(began)))
        began += clock.periods[index].length_s
    return commands


def act_on_deadlines(store: EventStore, tournament_id: str, now: int, *,
                     actor: str = "clock") -> list[Outcome]:
    """Record whatever is due, each at the version it was decided on; a conflict means
    someone else acted first and the next sweep looks again."""
    outcomes = []
    loaded = load_tournament(store, tournament_id)
    if loaded.state.status == tournament.FINISHED:
        rate_finished(store, tournament_id, loaded.state)
        return []
    version = loaded.version
    for command in due_commands(loaded.state, now):
        outcome = send(store, tournament_id, command, expected_version=version, actor=actor)
        outcomes.append(outcome)
        version = outcome.version
    return outcomes


def tournament_ids(store: EventStore) -> list[str]:
    return [s[len(STREAM_PREFIX):] for s in store.list_streams(STREAM_PREFIX)]


# --- the read view ---------------------------------------------------------------------

def tournament_view(loaded: LoadedTournament, now: float) -> dict[str, Any]:
    """Status, level and clock derived from the events and `now`, tables, standings and
    payouts: what `GET /v1/tournaments/{id}` answers."""
    state = loaded.state
    settings = state.settings
    assert settings is not None
    view: dict[str, Any] = {
        "id": loaded.tournament_id,
        "version": loaded.version,
        "name": settings.name,
        "game": loaded.game,
        "betting": loaded.betting,
        "status": state.status,
        "starts_at": tournament.iso(settings.starts_at),
        "starting_stack": settings.starting_stack,
        "buy_in": settings.buy_in,
        "table_size": settings.table_size,
        "late_registration_until_level": settings.late_registration_until_level,
        "hand_for_hand": state.hand_for_hand,
        "registered": list(state.registered) if state.status == tournament.REGISTERING else [],
        "entries": state.entries,
        "players_left": state.seating.players if state.status != tournament.REGISTERING else len(state.registered),
        "clock": _clock_view(state, now),
        "tables": _tables_view(loaded.tournament_id, state),
        "standings": _standings_view(state),
        "prize_pool": state.prize_pool,
        "payouts": [{"place": place, "amount": amount} for place, amount in
                    enumerate(payout_amounts(state.prize_pool, settings.payout_percentages), start=1)],
        "prizes": _prizes_view(state),
        "chips": _chips_view(state),
        "pending_moves": [{"move_id": m.move_id, "player_id": m.player_id, "to_table": m.to_table,
                           "to_seat": m.to_seat, "asked_at": tournament.iso(m.at)} for m in state.pending_moves],
    }
    return view


def _chips_view(state: tournament.Tournament) -> dict[str, Any]:
    """The chip ledger: chips in play = issued - removed."""
    if state.status == tournament.REGISTERING:
        return {}
    return {"in_play": state.chips_in_play, "issued": state.chips_issued, "removed": state.chips_removed,
            "rebuys": state.rebuys, "add_ons": state.add_ons}


def _clock_view(state: tournament.Tournament, now: float) -> dict[str, Any]:
    reading = read_clock(state.clock, now)
    periods = state.clock.periods
    view: dict[str, Any] = {
        "started": reading.started, "period": reading.period_index, "level": reading.level,
        "on_break": reading.on_break, "paused": reading.paused,
        "remaining_s": int(reading.remaining_s), "blinds": None, "next": None,
        "ends_at": None if not reading.started or reading.paused else tournament.iso(now + reading.remaining_s),
    }
    if reading.level_in_force is not None:
        view["blinds"] = _blinds(periods[reading.level_in_force])
    if reading.period_index is not None and reading.period_index + 1 < len(periods):
        following = periods[reading.period_index + 1]
        view["next"] = ({"break": True, "minutes": following.minutes, "seconds": following.seconds}
                        if following.is_break else
                        {"break": False, "level": level_number(periods, reading.period_index + 1),
                         **_blinds(following)})
    return view


def _blinds(period: Any) -> dict[str, Any]:
    return {"small_blind": period.small_blind, "big_blind": period.big_blind, "ante": period.ante,
            "big_blind_ante": period.big_blind_ante}


def _tables_view(tournament_id: str, state: tournament.Tournament) -> list[dict[str, Any]]:
    shown = []
    for table in state.seating.tables:
        if table is None:
            continue
        shown.append({
            "number": table.number,
            # The live table's id (service.application.tournament_tables.table_id_for), where its players act.
            "table_id": f"{tournament_id}-table-{table.number}",
            "players": [{"seat": seat, "player_id": player, "chips": state.stack_of(player)}
                        for seat, player in enumerate(table.seats) if player is not None],
            "playing_hand": table.number in state.hands_in_progress,
        })
    return shown


def _standings_view(state: tournament.Tournament) -> list[dict[str, Any]]:
    order = state.finishing_order() if state.status == tournament.FINISHED else \
        sorted(state.standings, key=lambda e: e.place)
    return [{"player_id": e.player_id, "place": e.place} for e in order]


def _prizes_view(state: tournament.Tournament) -> list[dict[str, Any]]:
    if state.status != tournament.FINISHED or state.settings is None:
        return []
    order = state.finishing_order()
    amounts = payout_amounts(state.prize_pool, state.settings.payout_percentages)
    prizes = prizes_for_places(amounts, [e.place for e in order])
    return [{"player_id": e.player_id, "place": e.place, "amount": amount}
            for e, amount in zip(order, prizes) if amount]
