"""Running an event as rooms do, through the API (issue 29, running-events.md): a bust
then a rebuy at the service's tables, a declined rebuy and one whose time passes, re-entry
only while late registration is open, moves called out and confirmed at physical tables,
undo, and the numbers every tournament answer counts from 1."""
from __future__ import annotations

import time

import pytest

from domain.live import table_commands, table_state
from service.application import commands, tournament_tables, tournaments
from tests import applications, playing
from tests.integration.conftest import ADMIN, assert_problem, key_for
from tests.integration.test_tournaments_http import running, view

pytestmark = pytest.mark.integration

STACK = 10000


def post(client, tournament_id: str, path: str, body: dict, headers: dict = ADMIN):
    return client.post(f"/v1/tournaments/{tournament_id}/{path}", json=body, headers=headers)


def advance(store, tournament_id: str) -> None:
    tournament_tables.advance(applications.of(store), tournament_id, time.time())


def live_table(store, tournament_id: str, number: int = 1) -> table_state.TableState:
    loaded = commands.load_table(applications.of(store), tournament_tables.table_id_for(tournament_id, number))
    assert loaded.state is not None
    return loaded.state


def play_hand(store, tournament_id: str, how: str) -> None:
    """The table's hand in progress, played to its end: everyone all in, or everyone folds
    to the big blind."""
    app = applications.of(store)
    table_id = tournament_tables.table_id_for(tournament_id, 1)
    for _ in range(100):
        loaded = commands.load_table(app, table_id)
        state = loaded.state
        if state is None or state.to_act is None:
            return
        if how == "shove":
            playing.shove(app, table_id)
            continue
        legal = table_state.game_rules(state.game).module.legal_actions(state.hand)
        act = table_commands.Act(state.to_act, "fold" if legal.call is not None else "check")
        commands.execute(app, table_id, loaded.version, act)
    raise AssertionError("the hand did not end")


def busted_at_a_service_table(client, store, players: int):
    """A rebuy event on one service table, hands played all in until someone busts."""
    tournament_id, names = running(client, players, tables="service", table_size=6, late_registration_until_level=1,
                                   rebuy_price=100, re_entries_allowed=1)
    for _ in range(30):
        advance(store, tournament_id)  # table created, hand dealt, or the last hand reported
        shown = view(client, tournament_id)
        if shown["awaiting_rebuy"]:
            return tournament_id, names, shown
        play_hand(store, tournament_id, "shove")
    raise AssertionError("nobody busted")


def test_a_player_busted_at_a_service_table_keeps_the_seat_and_rebuys(client, postgres_store):
    tournament_id, names, shown = busted_at_a_service_table(client, postgres_store, 4)
    busted = shown["awaiting_rebuy"][0]["player_id"]
    seated = {p["player_id"]: p for t in shown["tables"] for p in t["players"]}
    assert seated[busted]["awaiting_rebuy"] is True and seated[busted]["chips"] == 0
    assert shown["players_left"] == 4 and shown["standings"] == []  # not placed: the seat is kept
    rebought = post(client, tournament_id, "rebuys", {"player_id": busted}, key_for(client, "floor"))
    assert rebought.status_code == 201, rebought.get_data(as_text=True)
    # The hand after the bust may be under way (dealt without them): their chips reach the
    # table once it is over, and they are dealt into the one after.
    for _ in range(10):
        advance(postgres_store, tournament_id)
        live = live_table(postgres_store, tournament_id)
        seat = live.players.index(busted)
        if live.hand_in_progress and seat in live.hand_seats:
            break
        play_hand(postgres_store, tournament_id, "fold")
    assert live.hand_in_progress and seat in live.hand_seats and live.stacks[seat] <= STACK
    after = view(client, tournament_id)
    assert busted not in {a["player_id"] for a in after["awaiting_rebuy"]}
    assert after["chips"]["rebuys"] == 1 and after["prize_pool"] == 500


def test_a_busted_player_who_does_not_rebuy_is_out_at_the_end_of_the_next_hand(client, postgres_store):
    tournament_id, names, shown = busted_at_a_service_table(client, postgres_store, 4)
    waiting = [a["player_id"] for a in shown["awaiting_rebuy"]]
    for other in waiting[1:]:  # the others rebuy: the table deals on
        assert post(client, tournament_id, "rebuys", {"player_id": other}).status_code == 201
    assert_problem(post(client, tournament_id, "rebuys/decline", {"player_id": "ghost"}), 422, "not_awaiting_rebuy")
    for _ in range(2 + len(waiting)):
        advance(postgres_store, tournament_id)
    live = live_table(postgres_store, tournament_id)
    assert live.hand_in_progress and live.players.index(waiting[0]) not in live.hand_seats  # no chips, not dealt in
    play_hand(postgres_store, tournament_id, "fold")
    advance(postgres_store, tournament_id)
    after = view(client, tournament_id)
    placed = {s["player_id"]: s["place"] for s in after["standings"]}
    assert waiting[0] in placed and waiting[0] not in {a["player_id"] for a in after["awaiting_rebuy"]}


def test_re_entry_is_allowed_only_while_late_registration_is_open(client):
    tournament_id, names = running(client, 4, late_registration_until_level=1, re_entries_allowed=1)
    assert post(client, tournament_id, "eliminations", {"player_id": names[0]}).status_code == 201
    again = post(client, tournament_id, "registrations", {"player_id": names[0]})
    assert again.status_code == 201 and again.get_json()["events"][0]["data"]["re_entry"] is True
    assert post(client, tournament_id, "eliminations", {"player_id": names[1]}).status_code == 201
    assert post(client, tournament_id, "clock/level", {"level": 2}).status_code == 201
    closed = post(client, tournament_id, "registrations", {"player_id": names[1]})
    assert assert_problem(closed, 422, "registration_closed")["numbers"]["late_registration_until_level"] == 1


def test_a_physical_bust_in_the_rebuy_period_waits_and_the_floor_rebuys_or_the_grace_ends_it(client, postgres_store):
    tournament_id, names = running(client, 4, late_registration_until_level=1, rebuy_price=100, rebuy_grace_s=60)
    out = post(client, tournament_id, "eliminations", {"player_id": names[0]})
    assert [e["type"] for e in out.get_json()["events"]] == ["RebuyAwaited"]
    shown = view(client, tournament_id)
    assert shown["awaiting_rebuy"][0]["player_id"] == names[0] and shown["chips"]["average_stack"] == 40000 // 3
    assert post(client, tournament_id, "rebuys", {"player_id": names[0]}).status_code == 201
    post(client, tournament_id, "eliminations", {"player_id": names[2]})
    declined = post(client, tournament_id, "rebuys/decline", {"player_id": names[2]})
    assert [e["type"] for e in declined.get_json()["events"]] == ["RebuyDeclined", "PlayersEliminated"]
    post(client, tournament_id, "eliminations", {"player_id": names[1]})
    app = applications.of(postgres_store)
    assert tournaments.act_on_deadlines(app, tournament_id, int(time.time()) + 30) == []
    expired = tournaments.act_on_deadlines(app, tournament_id, int(time.time()) + 61)
    assert [e["type"] for o in expired for e in o.events] == ["PlayersEliminated"]
    assert view(client, tournament_id)["standings"] == [{"player_id": names[1], "name": "P1", "place": 3},
                                                        {"player_id": names[2], "name": "P2", "place": 4}]


def test_moves_at_physical_tables_are_called_out_by_name_and_confirmed_seated(client):
    tournament_id, names = running(client, 9, table_size=6)  # tables of 5 and 4
    shown = view(client, tournament_id)
    five = next(t for t in shown["tables"] if len(t["players"]) == 5)
    four = next(t for t in shown["tables"] if len(t["players"]) == 4)
    for player in [p["player_id"] for p in four["players"]][:2]:
        assert post(client, tournament_id, "eliminations", {"player_id": player}).status_code == 201
    moves = client.get(f"/v1/tournaments/{tournament_id}/moves", headers=ADMIN).get_json()
    assert len(moves["pending"]) == 1
    move = moves["pending"][0]
    assert (move["from_table"], move["to_table"], move["reason"]) == (five["number"], four["number"], "balance")
    assert 1 <= move["from_seat"] <= 6 and 1 <= move["to_seat"] <= 6 and move["name"].startswith("P")
    seated = {p["player_id"]: p["seat"] for t in view(client, tournament_id)["tables"] for p in t["players"]}
    assert seated[move["player_id"]] == move["to_seat"]  # the same seat numbers everywhere
    floor = key_for(client, "floor")
    assert post(client, tournament_id, f"moves/{move['move_id']}/seated", {}, floor).status_code == 201
    moves = client.get(f"/v1/tournaments/{tournament_id}/moves", headers=ADMIN).get_json()
    assert moves["pending"] == [] and moves["recent"][0]["seated_at"] is not None
    assert_problem(post(client, tournament_id, f"moves/{move['move_id']}/seated", {}, floor), 422, "already_seated")
    occupied = next(p for t in view(client, tournament_id)["tables"] if t["number"] == move["from_table"]
                    for p in t["players"])
    taken = assert_problem(post(client, tournament_id, "moves", {"player_id": move["player_id"],
                                                                 "to_table": move["from_table"],
                                                                 "to_seat": occupied["seat"]}, floor), 422, "seat_taken")
    assert taken["numbers"] == {"table": move["from_table"], "seat": occupied["seat"]}  # seats from 1 here too


def test_the_last_elimination_is_undone_and_a_later_fact_blocks_undo_with_409(client):
    tournament_id, names = running(client, 6)
    version = view(client, tournament_id)["version"]
    assert post(client, tournament_id, "eliminations", {"player_id": names[0]}).status_code == 201
    undone = post(client, tournament_id, "undo", {}, key_for(client, "floor"))
    assert undone.status_code == 201 and [e["type"] for e in undone.get_json()["events"]] == ["EliminationUndone"]
    shown = view(client, tournament_id)
    assert shown["version"] == version + 2 and shown["standings"] == [] and shown["players_left"] == 6
    assert_problem(post(client, tournament_id, "undo", {}), 409, "nothing_to_undo")
    post(client, tournament_id, "eliminations", {"player_id": names[0]})
    post(client, tournament_id, "chip-counts", {"counts": [{"player_id": names[1], "chips": 20000}]})
    blocked = assert_problem(post(client, tournament_id, "undo", {}), 409, "undo_blocked")
    assert blocked["numbers"] == {"undoing": "elimination", "depends": "ChipsCounted"}


def test_a_clock_change_is_undone_and_an_adjust_past_the_level_needs_confirm(client):
    tournament_id, _ = running(client, 2)
    before = view(client, tournament_id)["clock"]
    refused = assert_problem(post(client, tournament_id, "clock/adjust", {"seconds": 6000}), 422,
                             "adjust_past_level_length")
    assert refused["numbers"]["length_s"] == 1200 and refused["numbers"]["seconds"] == 6000
    assert post(client, tournament_id, "clock/adjust", {"seconds": 6000, "confirm": True}).status_code == 201
    assert view(client, tournament_id)["clock"]["remaining_s"] > 6000
    undone = post(client, tournament_id, "undo", {})
    assert [e["type"] for e in undone.get_json()["events"]] == ["LevelSet", "ClockChangeUndone"]
    assert abs(view(client, tournament_id)["clock"]["remaining_s"] - before["remaining_s"]) <= 3


def test_previous_level_after_a_mistaken_next_gives_back_the_time_the_level_had(client):
    tournament_id, _ = running(client, 2)
    post(client, tournament_id, "clock/adjust", {"seconds": -600})  # 10 of 20 minutes left
    assert post(client, tournament_id, "clock/level", {"step": 1}).status_code == 201
    assert post(client, tournament_id, "clock/level", {"step": -1}).status_code == 201
    clock = view(client, tournament_id)["clock"]
    assert (clock["level"], clock["period"]) == (1, 1) and 590 <= clock["remaining_s"] <= 600



def test_away_is_for_service_tables_where_the_service_deals(client):
    tournament_id, names = running(client, 2)
    assert_problem(post(client, tournament_id, "absences", {"player_id": names[0]}), 422, "physical_tables")
