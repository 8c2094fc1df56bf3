"""Rulings on the record (domain.rulings.on_record) on the one handling path: stream
`rulings-<table id>` for a table's hands, `rulings-hand-<uuid>` for an imported hand's.

A ruling names its hand; the hand must be the table's (played or being played) or the
imported hand itself, and it sits at the hand's stream version when it was made (its step
in the replayer). Read back, each ruling says who ruled and when (the store's recorded
time); the cards it names are the floor's alone while its hand is running.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from functools import reduce
from typing import Any

from domain import secrecy
from domain.live import table_events, table_state
from domain.rules.violations import Violation
from domain.rulings import on_record
from service.adapters.store.base import NewEvent, RecordedEvent, format_recorded_at
from service.application import commands
from service.application.handling import Decision, Loaded, StreamKind, UnreadableStream
from service.application.parts import Application
from service.application.replay import IMPORTED_HAND_PREFIX
from service.application.tournament_tables import table_id_for
from service.application.tournaments import load_tournament
from service.application.views import Viewer

STREAM_PREFIX = "rulings-"
HAND_OPENED = table_events.HandOpened.__name__
FLOOR_ONLY_WHILE_RUNNING = secrecy.secrets_of(on_record.FloorRuled).owner_only


def stream_id(subject: str) -> str:
    return STREAM_PREFIX + subject


def _fold(state: on_record.RulingsLog, records: Sequence[RecordedEvent]) -> on_record.RulingsLog:
    return reduce(on_record.evolve, (on_record.EVENT_TYPES[r.type](**r.data) for r in records), state)


# Read whole for every listing and appended to rarely: nothing worth caching.
RULINGS: StreamKind[on_record.RulingsLog] = StreamKind(STREAM_PREFIX, on_record.INITIAL, _fold)


class UnknownHand(LookupError):
    """The ruling names a hand that is not this table's, or no stored hand."""


def subject_of(hand: str) -> str | None:
    """Whose rulings log holds a ruling on `hand`: its table's, or the stored hand's own."""
    if hand.startswith(IMPORTED_HAND_PREFIX):
        return hand
    located = table_state.table_id_of_hand(hand)
    return None if located is None else located[0]


def _table_hand_version(app: Application, table_id: str, hand: str) -> int:
    """The last version of `hand` so far, a hand of this table (the table's version while
    it runs, its last event once closed); else UnknownHand."""
    located = table_state.table_id_of_hand(hand)
    loaded = commands.load_table(app, table_id)
    state = loaded.state
    if located is None or located[0] != table_id or state is None or not 1 <= located[1] <= state.hands_played:
        raise UnknownHand(f"{hand} is not a hand of table {table_id}")
    if state.hand_id == hand:
        return loaded.version
    return app.store.read_hand(commands.table_stream(table_id), hand, opened_by=HAND_OPENED)[-1].version


def _imported_hand_version(app: Application, hand: str) -> int:
    records = app.store.read_stream(hand) if hand.startswith(IMPORTED_HAND_PREFIX) else []
    if not records:
        raise UnknownHand(f"no stored hand {hand}")
    return records[-1].version


def record_ruling(app: Application, command: on_record.RecordRuling, *, actor: str | None = None,
                  idempotency_key: str | None = None) -> dict[str, Any]:
    """Record the ruling on its subject's log (a table id, or an imported hand's id, which
    is then the ruling's hand), at the hand's last step so far unless it names one; the
    ruling as the floor reads it back."""
    subject = command.subject
    if subject.startswith(IMPORTED_HAND_PREFIX):
        if command.hand != subject:
            raise UnknownHand(f"{command.hand} is not the stored hand {subject}")
        last = _imported_hand_version(app, subject)
    else:
        last = _table_hand_version(app, subject, command.hand)
    at_version = last if command.at_version is None else command.at_version
    if not 1 <= at_version <= last:
        raise Violation("invalid_ruling", f"a ruling sits at a step of its hand's stream, 1 to {last:,}, "
                        f"not {at_version:,}", numbers={"at_version": at_version, "last_version": last})
    command = dataclasses.replace(command, at_version=at_version)

    def decide(loaded: Loaded[on_record.RulingsLog]) -> Decision[on_record.RulingsLog]:
        events = on_record.decide(loaded.state, command)
        return Decision([NewEvent(type(e).__name__, dataclasses.asdict(e)) for e in events],
                        reduce(on_record.evolve, events, loaded.state), events)

    handled = app.rulings.handle(stream_id(subject), decide, actor=actor, idempotency_key=idempotency_key)
    record = app.store.read_stream(stream_id(subject), after_version=handled.version - 1)[-1]
    return _shown(record, Viewer(command.role))


def _shown(record: RecordedEvent, viewer: Viewer, running: bool = False) -> dict[str, Any]:
    data = dict(record.data)
    if running and not viewer.sees_cards_of(tuple(data.get(secrecy.OWNER_BY_LIST) or ())):
        for name in FLOOR_ONLY_WHILE_RUNNING:
            data[name] = None
    data.pop(secrecy.OWNER_BY_LIST, None)
    return {"version": record.version, **data, "cards": None if data["cards"] is None else list(data["cards"]),
            "recorded_at": format_recorded_at(record.recorded_at)}


def rulings_of(app: Application, subjects: Iterable[str], viewer: Viewer, *,
               ruled_by: str | None = None, hand: str | None = None) -> list[dict[str, Any]]:
    """The rulings on these tables' (or imported hands') logs, oldest first within each,
    as `viewer` may read them; only those of floor person `ruled_by` and of `hand` if given."""
    shown: list[dict[str, Any]] = []
    for subject in subjects:
        records = [record for record in app.store.read_stream(stream_id(subject))
                   if (ruled_by is None or record.data["ruled_by"] == ruled_by)
                   and (hand is None or record.data["hand"] == hand)]
        if not records:
            continue  # the table is not read for nothing: it may be one no code here reads
        running = _running_hand(app, subject)
        shown += [_shown(record, viewer, running=running is _UNKNOWN or record.data["hand"] == running)
                  for record in records]
    return shown


_UNKNOWN = object()
"""The running hand of a table that cannot be read: every ruling's cards stay floor-only."""


def _running_hand(app: Application, subject: str) -> object:
    """The hand running at the table (None: none, or an imported hand), or _UNKNOWN for a
    table that cannot be read (its rulings are still shown, their cards kept back)."""
    if subject.startswith(IMPORTED_HAND_PREFIX):
        return None
    try:
        state = commands.load_table(app, subject).state
    except UnreadableStream:
        return _UNKNOWN
    return state.hand_id if state is not None and state.hand_in_progress else None


def tournament_rulings(app: Application, tournament_id: str, viewer: Viewer, *,
                       ruled_by: str | None = None, hand: str | None = None) -> list[dict[str, Any]] | None:
    """The rulings at every table of the tournament, table by table (None: no such tournament)."""
    loaded = load_tournament(app, tournament_id)
    if not loaded.exists:
        return None
    tables = [table_id_for(tournament_id, number) for number in range(1, len(loaded.state.seating.tables) + 1)]
    return rulings_of(app, tables, viewer, ruled_by=ruled_by, hand=hand)


PHH_FIELDS = ("at_version", "question", "decision", "rule", "note", "cards", "ruled_by", "role", "recorded_at")


def hand_rulings_for_phh(app: Application, hand: str, viewer: Viewer) -> list[dict[str, Any]]:
    """The rulings on `hand` as its PHH export writes them (domain.history.phh.with_floor_rulings)."""
    subject = subject_of(hand)
    if subject is None:
        return []
    return [{name: ruling[name] for name in PHH_FIELDS}
            for ruling in rulings_of(app, [subject], viewer, hand=hand)]


def at_steps(rulings: Sequence[dict[str, Any]], step_versions: Sequence[int]) -> list[dict[str, Any]]:
    """Each ruling with `step`: the index of the replayer's last step at or before the
    version it was made at (the first step for one made before any)."""
    placed = []
    for ruling in rulings:
        before = [index for index, version in enumerate(step_versions) if version <= ruling["at_version"]]
        placed.append({**ruling, "step": before[-1] if before else 0})
    return placed
