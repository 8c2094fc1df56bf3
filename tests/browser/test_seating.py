"""The seating screen in Chromium (pages.md): tables and seats by name; a move waiting for
a hand to end shows where to go; the hand's end (the move made, a table broken) reaches
the screen within a second."""
from __future__ import annotations

from tests.browser import room
from tests.browser.pages import all_shown, following, shown, within_a_second


def test_the_seating_shows_a_pending_move_and_follows_a_table_break(server, base, browser, database_url):
    names = [f"Seat {n}" for n in "ABCDEF"]
    entrants = room.players(server, names)
    tournament_id = room.tournament(server, "Seating test", entrants, table_size=4)
    tables = room.read(server, tournament_id)["tables"]
    assert [len(t["players"]) for t in tables] == [3, 3]
    browser.get(f"{base}/screens/tournaments/{tournament_id}/seating")
    following(browser)
    assert all_shown(browser, "[data-table] h2") == ["Table 1", "Table 2"]
    assert sorted(all_shown(browser, "[data-table] .player")) == names

    # A hand at table 1: a move from there waits for its end, and the screen says where to go.
    room.deal_hand(database_url, tournament_id, 1)
    mover = tables[0]["players"][0]
    open_seat = next(s for s in range(1, 5) if s not in {p["seat"] for p in tables[1]["players"]})  # from 1
    queued = room.write(server, tournament_id, "moves", {"player_id": mover["player_id"], "to_table": 2,
                                                           "to_seat": open_seat})
    assert "move" in queued
    mover_name = names[entrants.index(mover["player_id"])]
    within_a_second(browser, lambda b: (shown(b, "[data-move]") or "").startswith(mover_name), "the move")
    assert shown(browser, "[data-move]") == f"{mover_name}: table 1 seat {mover['seat']} → table 2 seat {open_seat}"

    # The hand ends: the mover wins it, the other two at table 1 are out; the move is made,
    # and four players left fit one table: the other breaks (TDA 2024 11).
    others = [p["player_id"] for p in tables[0]["players"][1:]]
    room.finish_hand(database_url, tournament_id, 1, {mover["player_id"]: 3 * room.STARTING_STACK,
                                                      **{p: 0 for p in others}})
    after = room.read(server, tournament_id)["tables"]
    assert len(after) == 1 and len(after[0]["players"]) == 4
    left = f"Table {after[0]['number']}"
    within_a_second(browser, lambda b: all_shown(b, "[data-table] h2") == [left], "the table break")
    assert mover_name in all_shown(browser, "[data-table] .player")
    # The moves made are called out a while (at the service's tables, a notice), each
    # player's last: all go to the table left, the mover's too (balanced there, then back).
    moves = all_shown(browser, "[data-move]")
    assert moves and all(f"→ table {after[0]['number']} seat " in move for move in moves), moves
