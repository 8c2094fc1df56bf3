"""Issue 15 item 8: in a table's stream `seat` is the table seat in every event, the hand's
`position` beside it, and HandEnded and HandClosed list stacks the same way
({seat, player_id, stack}); streams recorded before that (schema version 1) still replay,
converted on read by the upcaster (service.adapters.store.upcasting), their stored text
unchanged.

`recorded/table_streams_schema_1.json` holds four tournament tables (hold'em, five-card
draw, stud, Palace Poker; seats 1 and 4 empty, seat 1 taken before the third hand) as the
code before the table form recorded them (commit 4205fcf), with each table's floor view."""
from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.live import table, table_commands, table_events, table_records, table_state
from domain.live.table_records import HandSeating
from domain.rules.betting import KINDS, BettingStructure
from domain.rules.violations import Violation
from service.adapters.store.base import NewEvent, Reveal
from service.adapters.store.memory import InMemoryEventStore
from service.adapters.store.upcasting import UpcastingStore
from service.application import commands, views
from service.application.application import application
from service.application.replay import IMPORTED_HAND_PREFIX
from service.application.sealing import REVEAL_CLOSED_HANDS

RECORDED = json.loads((Path(__file__).parent / "recorded" / "table_streams_schema_1.json").read_text())
FLOOR = views.Viewer("floor")
GAMES = {
    "holdem": ({}, BettingStructure("no-limit", small_blind=5, big_blind=10)),
    "five-card-draw": ({"ante": 5}, BettingStructure()),
    "stud": ({"ante": 2, "bring_in": 3, "small_bet": 10, "big_bet": 20}, BettingStructure()),
    "palace": ({"small_bet": 10, "big_bet": 20}, BettingStructure()),
}


def recorded_store(game: str) -> tuple[InMemoryEventStore, str]:
    """The recorded stream of `game`'s table appended as it was (schema version 1)."""
    return stored(RECORDED[game]["records"])


def stored(records: list[dict[str, Any]]) -> tuple[InMemoryEventStore, str]:
    """A store holding one table's recorded records, appended as they were, and the table's id."""
    store = InMemoryEventStore()
    table_id = records[0]["data"]["table_id"]
    store.append(commands.table_stream(table_id), 0, [
        NewEvent(r["type"], r["data"], r["schema_version"], metadata=r["metadata"], sealed=r["sealed"])
        for r in records])
    return store, table_id


def view_as_recorded(state: table_state.TableState, version: int) -> dict[str, Any]:
    """The floor's view of the table as it was recorded: `betting` came after the recording
    (README "Changelog"), and every one of these games bets; so did `name`, and a table
    recorded before names reads as unnamed."""
    shown = views.table_view(state, version, FLOOR)
    assert shown.pop("betting")["structure"] in KINDS
    assert shown.pop("name") is None
    return shown


def upcasting(store: InMemoryEventStore) -> UpcastingStore:
    return UpcastingStore(store, commands.STREAM_PREFIX, IMPORTED_HAND_PREFIX)


def served(store: Any, table_id: str, after: int = 0) -> list[Any]:
    return store.read_stream(commands.table_stream(table_id), after_version=after, reveal=Reveal.ALL)


def assert_table_form(records: list[Any]) -> None:
    """Every record in the table form: a table event's `seat` is its player's, a hand
    event's the table seat its `position` sits at in the hand; HandEnded's and
    HandClosed's stacks are entries that agree, each naming the player at its seat."""
    seats: tuple[int, ...] = ()
    players: dict[int, str] = {}
    ended: dict[int, tuple[str, int]] = {}
    for record in records:
        data = record.data
        assert record.schema_version == table_records.POSITIONS_NAMED
        if record.type == "HandOpened":
            seats, ended = tuple(data["seats"]), {}
        if record.type in ("HandStarted", "GameStarted"):
            players = {seats[position]: player for position, player in enumerate(data["players"])}
        if record.type in table_events.TABLE_EVENT_TYPES:
            if "seat" in data and data.get("player_id") and data["seat"] in players:
                assert players[data["seat"]] == data["player_id"], (record.type, data)
        elif "seat" in data:
            assert data["seat"] == seats[data["position"]], (record.type, data)
        for name, positions in (("target", "target_position"), ("button", "button_position"),
                                ("eligible", "eligible_positions"), ("winners", "winner_positions")):
            if positions in data:
                expected = [seats[p] for p in data[positions]] if isinstance(data[positions], list) \
                    else seats[data[positions]]
                assert data[name] == expected, (record.type, data)
        if record.type == "HandEnded":
            for entry in data["stacks"]:
                assert entry["seat"] == seats[entry["position"]] and players[entry["seat"]] == entry["player_id"]
                ended[entry["seat"]] = (entry["player_id"], entry["stack"])
        if record.type == "HandClosed":
            closed = {e["seat"]: (e["player_id"], e["stack"]) for e in data["stacks"]}
            assert sorted(closed) == sorted(seats)
            assert all(closed[seat][0] == players[seat] for seat in seats)
            if ended:  # Palace Poker, five-card draw, hold'em and stud end their hands so
                assert closed == ended


# ------------------------------------------------------------------ the upcaster


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_a_stream_recorded_before_the_table_form_replays_to_the_same_table(game):
    store, table_id = recorded_store(game)
    reading = upcasting(store)
    loaded = commands.load_table(application(reading), table_id)
    assert view_as_recorded(loaded.state, loaded.version) == RECORDED[game]["table_view"]


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_an_old_stream_is_read_in_the_table_form_and_its_stored_text_never_changes(game):
    store, table_id = recorded_store(game)
    reading = upcasting(store)
    records = served(reading, table_id)
    assert_table_form(records)
    # Positions differ from seats in the first two hands (seat 1 is empty).
    assert any(r.data.get("position") != r.data.get("seat") for r in records)
    stored = served(store, table_id)
    assert [(r.schema_version, dict(r.data)) for r in stored] == \
        [(r["schema_version"], r["data"]) for r in RECORDED[game]["records"]]
    assert [r.hash for r in records] == [r.hash for r in stored]
    assert reading.verify_stream(commands.table_stream(table_id)).ok


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_a_read_that_begins_inside_an_old_hand_finds_the_hands_seating(game):
    store, table_id = recorded_store(game)
    reading = upcasting(store)
    whole = served(reading, table_id)
    for after in range(0, len(whole), 7):
        assert served(reading, table_id, after) == whole[after:]
    hand_id = next(r.data["hand_id"] for r in whole if r.type == "HandOpened")
    assert reading.read_hand(commands.table_stream(table_id), hand_id, opened_by="HandOpened",
                             reveal=Reveal.ALL) == \
        [r for r in whole if r.metadata.get("hand_id") == hand_id]


def test_the_global_log_is_read_in_the_table_form_too():
    store, table_id = recorded_store("holdem")
    reading = upcasting(store)
    records, _ = reading.read_all(limit=10_000)
    assert records == served(reading, table_id)


def test_an_old_imported_hands_records_name_the_position_it_called_seat():
    store = InMemoryEventStore()
    store.append("hand-imported", 0, [NewEvent("ActionTaken", {"seat": 1, "action": "fold", "to": 0, "adds": 0},
                                               metadata={"hand_id": "hand-imported"})])
    [record] = upcasting(store).read_stream("hand-imported")
    assert (record.schema_version, record.data) == \
        (table_records.POSITIONS_NAMED, {"position": 1, "action": "fold", "to": 0, "adds": 0})


def test_a_record_not_in_the_old_shape_is_read_as_stored_and_the_reading_goes_on():
    store, table_id = recorded_store("holdem")
    stream = commands.table_stream(table_id)
    forged = NewEvent("ActionTaken", {"forged": 1}, metadata={"hand_id": f"{table_id}.4"})
    store.append(stream, store.stream_version(stream), [forged])
    records, _ = upcasting(store).read_all(limit=10_000)
    assert records[-1] == store.read_all(limit=10_000)[0][-1]
    assert_table_form(records[:-1])


def test_records_written_now_and_other_streams_pass_untouched():
    store = InMemoryEventStore()
    store.append("tournament-1", 0, [NewEvent("PlayerSeated", {"seat": {"player_id": "A", "table": 1, "seat": 2}})])
    reading = upcasting(store)
    assert reading.read_stream("tournament-1") == store.read_stream("tournament-1")
    table_id = str(uuid.uuid4())
    play_table(application(reading), table_id, "holdem", (0, 2, 3), random.Random(1))
    assert served(reading, table_id) == served(store, table_id)


# ------------------------------------------------------------- the table form


def play_table(app: Any, table_id: str, game: str, taken: tuple[int, ...], rng: random.Random,
               hands: int = 3, seat_count: int = 5) -> None:
    """A tournament table of `game` with players in the `taken` seats only; each turn the
    player to act checks, calls, bets, raises, folds, stands pat or shows at random (the
    computer plays what none of those is)."""
    seats = tuple(table_commands.TableSeat(f"P{seat}", 400) if seat in taken else table_commands.TableSeat(table_state.EMPTY_SEAT, 0)
                  for seat in range(seat_count))
    settings_, betting = GAMES[game]
    commands.create_table(app, table_commands.CreateTable(table_id, game, settings_, betting, seats, tournament_id="t"))
    for _ in range(hands):
        if len(table.seats_dealt_in(commands.load_table(app, table_id).state)) < table.MIN_SEATS:
            return
        commands.start_next_hand(app, table_id, None)
        for _ in range(400):
            state = commands.load_table(app, table_id).state
            if not state.hand_in_progress or state.to_act is None:
                break
            _play_turn(app, table_id, state, rng)


def _play_turn(app: Any, table_id: str, state: table_state.TableState, rng: random.Random) -> None:
    legal = views.legal_actions_view(state)["legal"] or {}
    tries = [("check", None)] * bool(legal.get("check")) + [("call", None)] * bool(legal.get("call"))
    tries += [("bet", legal["bet"]["min_to"])] if legal.get("bet") else []
    tries += [("raise", legal["raise"]["min_to"])] if legal.get("raise") else []
    tries += [("fold", None)] * bool(legal.get("fold")) + [("discard", None)] * ("discard" in legal)
    tries += [("show", None)] * bool(legal.get("show"))
    rng.shuffle(tries)
    for action, to in tries:
        try:
            commands.execute(app, table_id, None, table_commands.Act(state.to_act, action, to,  # type: ignore[arg-type]
                                                           discard=() if action == "discard" else None))
            return
        except Violation:
            continue
    commands.execute(app, table_id, None, table_commands.SitOut(state.to_act))  # type: ignore[arg-type]
    commands.execute(app, table_id, None, table_commands.ReturnToSeat(state.to_act))  # type: ignore[arg-type]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(sorted(GAMES)),
       taken=st.sets(st.integers(0, 5), min_size=2, max_size=5).map(lambda s: tuple(sorted(s))),
       seed=st.integers(0, 2**32 - 1))
def test_every_event_of_a_table_stream_says_seat_for_the_table_seat(game, taken, seed):
    store = InMemoryEventStore()
    app = application(store)
    table_id = str(uuid.uuid4())
    play_table(app, table_id, game, taken, random.Random(seed), seat_count=6)
    records = served(store, table_id)
    assert_table_form(records)
    # As served: redaction hides cards, never a seat or a position.
    shown = views.redact_records(store.read_stream(commands.table_stream(table_id), reveal=REVEAL_CLOSED_HANDS),
                                 views.Viewer("spectator"))
    assert [(e["type"], e["data"].get("seat"), e["data"].get("position")) for e in shown] == \
        [(r.type, r.data.get("seat"), r.data.get("position")) for r in records]
    # The game's form comes back whole from the table form: the table replays from its
    # records to the state it decided.
    loaded = commands.load_table(app, table_id)
    rebuilt = commands.fold_records(None, records)
    assert views.table_view(rebuilt, loaded.version, FLOOR) == views.table_view(loaded.state, loaded.version, FLOOR)


def test_the_game_form_comes_back_from_the_table_form():
    seating = HandSeating((0, 2, 5), ("A", "C", "F"))
    for type_name, data in [
        ("ActionTaken", {"position": 2, "action": "call", "to": 10, "adds": 10}),
        ("ShowAsked", {"position": 1, "target": 2}),
        ("PotAwarded", {"amount": 30, "eligible": [0, 1, 2], "winners": [2], "shares": [30]}),
        ("SecondRoundBegan", {"first_to_act": None}),
        ("HandStarted", {"players": ["A", "C", "F"], "button": 2, "stacks": [1, 2, 3]}),
        ("HandEnded", {"stacks": [10, 0, 20], "points": [0, 0, 1], "showdown": True}),
        ("HandEnded", {"stacks": [10, 0, 20], "showdown": False}),
    ]:
        assert table_records.in_hand(type_name, table_records.at_table(type_name, data, seating)) == data
    assert table_records.at_table("ShowAsked", {"position": 1, "target": 2}, seating) == \
        {"seat": 2, "position": 1, "target": 5, "target_position": 2}
    assert table_records.at_table("HandEnded", {"stacks": [10, 0, 20], "showdown": False}, seating)["stacks"] == [
        {"seat": 0, "position": 0, "player_id": "A", "stack": 10, "points": None},
        {"seat": 2, "position": 1, "player_id": "C", "stack": 0, "points": None},
        {"seat": 5, "position": 2, "player_id": "F", "stack": 20, "points": None}]
