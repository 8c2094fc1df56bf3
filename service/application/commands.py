"""Live tables on the one handling path (service.application.handling): the table kind
of stream, and the commands HTTP views and Celery tasks send through `execute`.

The shuffle is drawn here (`SecretShuffle`, from `secrets`; a 32-byte `secrets` salt) and passed
in the command; the table's first event of the hand publishes the commitment.

The time is read here too (`now`, from the caller or the wall clock) and passed to the
domain, which dates action-clock deadlines with it. A deadline is acted on from the log
alone (the append's trigger keeps it in `open_clocks`, the workers' clock watch expires
it: workers.clock_tasks), so a write that starts a clock sends nothing anywhere.
Events the computer played for a player carry `automatic: true` in their metadata.

Games that need randomness besides the shuffle (a redeal, reshuffles, further orders, rolls:
each game's adapter in domain.live draws what it needs) get it through `SecretDraws`, which
draws with `secrets` as well.
When a ranked table finishes, its results are rated once (service.application.ratings.record_result,
result id = the table id); if that fails, a worker is asked to (the scheduler's
`rate_later`), and the results stay on the table's TableFinished event either way.
"""
from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from domain import secrecy
from domain.live import table, table_commands, table_events, table_records, table_state
from domain.ratings import Finish, GameResult
from domain.records import to_record
from domain.rules import deal_commitment
from domain.rules.cards import deck_texts
from domain.rules.declarations import ChipsRuled
from service.adapters.store.base import NewEvent, RecordedEvent, Reveal
from service.application import ratings
from service.application.handling import Decision, Handled, Loaded, SnapshotPolicy, StreamKind, UnknownEventType, folded
from service.application.parts import Application
from service.application.sealing import seal
from service.application.tournaments import RETRIES_WITHOUT_EXPECTED_VERSION

log = logging.getLogger(__name__)

STREAM_PREFIX = "table-"
CACHED_TABLES = 2048
"""Table states each process keeps by default (CARDROOM_TABLE_CACHE_SIZE): a 10,000-player
tournament plays on 1,112 tables at once; a state not kept loads from its snapshot."""
# Table events that belong to the current hand's history (the floor audits a timeout, or
# what was pushed and said, there).
HAND_TABLE_EVENTS = (table_events.HandOpened, table_events.HandClosed, table_events.ClockStarted, table_events.ClockExpired, table_events.TimeBankUsed,
                     table_events.AutomaticAction, ChipsRuled)
_WITHOUT_HAND_ID = frozenset(kind for kind in table_events.TABLE_EVENTS if not issubclass(kind, HAND_TABLE_EVENTS))
"""The table events that belong to no hand (every other event's metadata names its hand):
one set to look an event's type up in, rather than two tuples to go through."""

LoadedTable = Loaded["table_state.TableState | None"]


def table_stream(table_id: str) -> str:
    return STREAM_PREFIX + table_id


def now_ms(now: float | None = None) -> int:
    """`now` (seconds since the epoch, the wall clock if None) in whole milliseconds, the
    unit of deadlines in events (events hold no floats)."""
    return round((time.time() if now is None else now) * 1000)


TableStep = Callable[[table_state.TableState | None, RecordedEvent], table_state.TableState | None]


def record_step(state: table_state.TableState | None) -> TableStep:
    """The table's step from one stored record (read with every sealed field), for a fold
    starting at `state` (service.application.handling.evolved names a record it refuses):
    the game's record types are looked up once, from the state or the first record."""
    types = None if state is None else table.event_types(state.game)

    def step(state: table_state.TableState | None, record: RecordedEvent) -> table_state.TableState | None:
        nonlocal types
        if types is None:
            types = table.event_types(record.data["game"])
        if record.type not in types:
            raise UnknownEventType(record.type)
        return table_state.evolve(state, table_records.event_of(types, record.type, record.full_data()))
    return step


def fold_records(state: table_state.TableState | None, records: Sequence[RecordedEvent]) -> table_state.TableState | None:
    """The table's state after these records (read with every sealed field); a record this
    code cannot evolve raises UnreadableStream."""
    return folded(state, records, record_step(state))


TABLES: StreamKind[table_state.TableState | None] = StreamKind(
    STREAM_PREFIX, None, fold_records, reveal=Reveal.ALL, cached=CACHED_TABLES,
    retries=RETRIES_WITHOUT_EXPECTED_VERSION,
    snapshots=SnapshotPolicy(table_events.HandClosed.__name__))


def load_table(app: Application, table_id: str) -> LoadedTable:
    """The table's current state: the cached state plus whatever was appended since."""
    return app.tables.load(table_stream(table_id))


def load_table_for_write(app: Application, table_id: str, expected_version: int | None) -> LoadedTable:
    """The cached state when it is at the version the writer expects, without a read."""
    return app.tables.load_for_write(table_stream(table_id), expected_version)


def state_at(app: Application, table_id: str, version: int) -> table_state.TableState | None:
    """The table at `version` (for floor staff auditing a hand step by step): from the
    newest snapshot at or before it."""
    return app.tables.replay(table_stream(table_id), version).state


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


def draw_deal(with_joker: bool = False) -> table_commands.StartNextHand:
    """A fresh shuffle of the whole pack and a secret salt, both from `secrets`."""
    draws = SecretDraws()
    return table_commands.StartNextHand(draws.shuffled(deck_texts(with_joker)), draws.salt())


def create_table(app: Application, command: table_commands.CreateTable, *, actor: str | None = None,
                 idempotency_key: str | None = None) -> Handled[table_state.TableState | None]:
    return execute(app, command.table_id, 0, command, actor=actor, idempotency_key=idempotency_key)


def start_next_hand(app: Application, table_id: str, expected_version: int | None, *,
                    actor: str | None = None, idempotency_key: str | None = None,
                    loaded: LoadedTable | None = None) -> Handled[table_state.TableState | None]:
    loaded = loaded or load_table_for_write(app, table_id, expected_version)
    # No table: any deal will do, `execute` answers that the table is not found.
    deal = draw_deal() if loaded.state is None else table.fresh_deal(loaded.state, SecretDraws())
    return execute(app, table_id, expected_version, deal, actor=actor,
                   idempotency_key=idempotency_key, loaded=loaded)


def execute(app: Application, table_id: str, expected_version: int | None, command: table_commands.Command,
            *, actor: str | None = None, idempotency_key: str | None = None,
            loaded: LoadedTable | None = None, now: float | None = None) -> Handled[table_state.TableState | None]:
    """Decide `command` on the table and record the events. `expected_version` None means
    "whatever the current version is" (the domain still refuses what the state forbids):
    a race lost then is decided again on the fresh state (TABLES.retries), as tournaments
    do, so two players taking one seat hear `seat_taken`, not a conflict with a version
    they never sent. `now`: seconds since the epoch (default: the wall clock)."""
    handled = app.tables.handle(table_stream(table_id), partial(_decide, command, now_ms(now)),
                                expected_version=expected_version, idempotency_key=idempotency_key,
                                actor=actor, loaded=loaded)
    if not handled.deduplicated:
        _rate_if_finished(app, handled.state, handled.decided, actor)
    return handled


def _decide(command: table_commands.Command, now: int, loaded: LoadedTable) -> Decision[table_state.TableState | None]:
    events, state, closed = table.decided(loaded.state, command, now, SecretDraws())
    return Decision(_new_events(loaded.state, events), state, events, closed=closed)


def _rate_if_finished(app: Application, state: table_state.TableState | None, events: Sequence[Any], actor: str | None) -> None:
    finished = next((e for e in events if isinstance(e, table_events.TableFinished)), None)
    if finished is None or state is None or not state.ranked or not finished.results:
        return
    result = GameResult(state.table_id, state.game,
                        tuple(Finish(r.player_id, r.place) for r in finished.results))
    try:
        ratings.record_result(app, result, actor=actor)
    except Exception:  # noqa: BLE001 - the table is finished either way; the results stay on its event
        log.warning("could not rate table %s; a worker is asked to (its results are on TableFinished)",
                    state.table_id, exc_info=True)
        try:
            app.scheduler.rate_later(result)
        except Exception:  # noqa: BLE001 - the broker is down too: the results stay on the event
            log.warning("could not ask a worker to rate table %s", state.table_id, exc_info=True)


CLOCK_ACTOR = "clock"


def expire_clock(app: Application, table_id: str, expected_version: int | None, hand_id: str,
                 seat: int, deadline_at_ms: int, *, now: float | None = None) -> Handled[table_state.TableState | None]:
    """Act for the player whose clock (the one of `seat` in `hand_id` ending at
    `deadline_at_ms`) ran out. Refused (Violation) unless that very clock is still running
    and has passed; a stale `expected_version` is a VersionConflict."""
    command = table_commands.ExpireClock(hand_id, seat, deadline_at_ms)
    return execute(app, table_id, expected_version, command, actor=CLOCK_ACTOR, now=now)


def _new_events(before: table_state.TableState | None, events: list[Any]) -> list[NewEvent]:
    """The store records, in the table form (domain.live.table_records: `seat` is the
    table seat), with metadata that lets views redact one event on its own: the hand it
    belongs to and, for private cards, the player who may see them (the fields the event
    declares owner-only, domain.secrecy, name them by `position` or `visible_to`). A hand
    committed card by card (domain.rules.deal_commitment) never shows its sealed fields (its
    deck, the secret its per-card salts come from, reshuffle orders holding mucked cards and
    discards) to anyone but the floor and admin (metadata `floor_only`): the others get the
    openings of the cards they saw (service.application.views.deal_view). One command may close
    a hand and open the next (auto_deal), so both are followed event by event (the
    players of a hand as its start event names them: a player who leaves when it ends is
    still the one its cards were dealt to)."""
    hand_id = None if before is None else before.hand_id
    seating = None if before is None or before.hand_id is None else \
        table_records.HandSeating(before.hand_seats, tuple(map(before.players.__getitem__, before.hand_seats)))
    per_card = before is not None and before.deal_scheme == deal_commitment.SCHEME
    records = []
    for event, automatic in zip(events, table.automatic_flags(events)):
        if type(event) is table_events.HandOpened:
            hand_id = event.hand_id
            per_card = event.scheme == deal_commitment.SCHEME
        type_name, game_form = to_record(event)
        seating = table_records.seating_after(seating, type_name, game_form)
        data = table_records.at_table(type_name, game_form, seating)
        declared = secrecy.secrets_of(type(event))
        metadata: dict[str, Any] = {}
        if per_card and declared.sealed:
            metadata["floor_only"] = [name for name in declared.sealed if name in data]
        if automatic:
            metadata["automatic"] = True
        if type(event) not in _WITHOUT_HAND_ID:
            metadata["hand_id"] = hand_id
        if declared.owner == secrecy.OWNER_BY_POSITION:
            metadata["visible_to"] = seating.players[data["position"]]  # type: ignore[union-attr]
        elif data.get("visible_to"):
            metadata["visible_to"] = list(data["visible_to"])
        # `data` is this record's own (at_table made it): only an event with sealed fields needs
        # seal's copy of it.
        public, sealed = seal(type_name, data) if secrecy.secrets_named(type_name).sealed else (data, {})
        records.append(NewEvent(type_name, public, table_records.POSITIONS_NAMED, metadata=metadata, sealed=sealed))
    return records
