"""The metadata the application layer writes on each table event, which redaction relies
on: the hand it belongs to and who may see its private cards."""
from __future__ import annotations

from dataclasses import replace

from domain.games.draw.events import HandStarted, HoleCardsDealt, PlayerDrew
from domain.games.draw_settings import DrawSettings
from domain.live.table import handle
from domain.live.table_commands import CreateTable, TableSeat
from domain.live.table_events import AutomaticAction, HandClosed, HandOpened, SeatStack
from domain.rules.betting import BettingStructure
from service.application.commands import _new_events


def _three_seat_table():
    seats = (TableSeat("A", 1000), TableSeat("B", 1000), TableSeat("C", 1000))
    return handle(None, CreateTable("t", "five-card-draw", {"ante": 5}, BettingStructure(), seats))[1]


def test_a_command_spanning_two_hands_tags_each_event_with_its_own_hand_and_owner():
    # B busts in hand 1; hand 2 deals table seats 0 and 2, so position 1 is now C.
    before = replace(_three_seat_table(), hand_id="t.1", hand_seats=(0, 1, 2))
    settings = DrawSettings.from_dict({"ante": 5})
    events = [PlayerDrew(1, 2, "2c3d", "4h5s"),
              HandClosed("t.1", (SeatStack(0, "A", 2000), SeatStack(1, "B", 0), SeatStack(2, "C", 1000)), ("B",)),
              HandOpened("t.2", 2, 2, (0, 2), "c" * 64, "ab" * 32),
              HandStarted(("A", "C"), (2000, 1000), 1, settings, None, None, None),
              HoleCardsDealt(1, "AsKsQsJsTs")]
    records = _new_events(before, events)
    assert [r.metadata.get("hand_id") for r in records] == ["t.1", "t.1", "t.2", "t.2", "t.2"]
    assert records[0].metadata["visible_to"] == "B"  # B's draw in the hand that ended
    assert records[4].metadata["visible_to"] == "C"  # position 1 of the new hand
    assert (records[4].data["seat"], records[4].data["position"]) == (2, 1)
    assert (records[3].data["button"], records[3].data["button_position"]) == (2, 1)


def test_events_the_computer_played_are_marked_and_table_events_carry_no_hand_but_their_own():
    state = replace(_three_seat_table(), hand_id="t.1", hand_seats=(0, 1, 2))
    events = [AutomaticAction("t.1", 1, "B", "sitting_out"), PlayerDrew(1, 0, "", "")]
    records = _new_events(state, events)
    assert [r.metadata.get("automatic") for r in records] == [None, True]
    assert [r.metadata["hand_id"] for r in records] == ["t.1", "t.1"]
    created = handle(None, CreateTable("u", "holdem", {}, BettingStructure("no-limit", 1, 2),
                                       (TableSeat("A", 10), TableSeat("B", 10))))[0]
    assert "hand_id" not in _new_events(None, created)[0].metadata
