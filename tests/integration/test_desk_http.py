"""The organiser's desk prevents mistakes (issue 29), over HTTP on real PostgreSQL: what
cannot be taken back lightly is asked first with its consequence in words and nothing is
written until it is confirmed; what the rules refuse is refused at once, not asked about;
each form shows only while it applies; a bust, a rebuy, a decline, a seated move and an
undo go through the desk's forms; the results show once the event is over; seat cards and
the table draw print every seated player; find your seat answers only its listed fields."""
from __future__ import annotations

import time
from html import unescape

from service.application import screens, tournaments
from tests.integration.conftest import ADMIN, ADMIN_KEY
from tests.integration.test_pages_http import desk_form, new_tournament, sign_in, signed_out  # noqa: F401


def view(client, tournament_id: str) -> dict:
    return client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()


def post(client, tournament_id: str, action: str, **fields: str):
    return client.post(f"/floor/tournaments/{tournament_id}/{action}",
                       data={**desk_form(client, tournament_id), **fields})


def page(answer) -> str:
    return unescape(answer.get_data(as_text=True))


def test_an_elimination_is_asked_first_with_the_place_and_written_only_when_confirmed(client):
    tournament_id, players = new_tournament(client, ["Ask Ann", "Ask Bo", "Ask Cy"], tables="physical")
    sign_in(client, ADMIN_KEY)
    asked = post(client, tournament_id, "eliminate", player_id=players[0])
    assert asked.status_code == 200 and "Ask Ann (table 1, seat " in page(asked)
    assert "is out of the tournament, placed 3rd of 3 entries" in page(asked)
    assert 'name="confirmed" value="yes"' in page(asked) and 'name="busted_by"' in page(asked)
    assert view(client, tournament_id)["players_left"] == 3, "asking writes nothing"
    done = post(client, tournament_id, "eliminate", player_id=players[0], confirmed="yes", busted_by=players[1])
    assert done.status_code == 303
    assert [e["name"] for e in view(client, tournament_id)["standings"]] == ["Ask Ann"]
    state = tournaments.load_tournament(client.application.extensions["cardroom"].application, tournament_id).state
    assert state.standings[0].busted_by == players[1]
    disqualify = post(client, tournament_id, "disqualify", player_id=players[1], reason="abuse of the dealer")
    assert disqualify.status_code == 200 and "Ask Bo (table 1, seat " in page(disqualify)
    assert "is disqualified: out at once" in page(disqualify) and view(client, tournament_id)["players_left"] == 2
    # What the rules refuse is refused at once, not asked about.
    refused = post(client, tournament_id, "eliminate", player_id=players[0])
    assert refused.status_code == 422 and 'data-code="not_seated"' in page(refused)


def test_the_clock_asks_before_a_level_change_and_an_adjust_past_the_levels_length(client):
    tournament_id, _ = new_tournament(client, ["Clk A", "Clk B"])
    sign_in(client, ADMIN_KEY)
    asked = post(client, tournament_id, "adjust", seconds="6000")
    assert asked.status_code == 200 and "Adding 1:40:00 leaves " in page(asked) and "longer than the whole period" in page(asked)
    assert view(client, tournament_id)["clock"]["remaining_s"] <= 20 * 60
    for seconds in ("-120", "60"):
        assert post(client, tournament_id, "adjust", seconds=seconds).status_code == 303, "within the level: at once"
    confirmed = post(client, tournament_id, "adjust", seconds="6000", confirmed="yes")
    assert confirmed.status_code == 303 and view(client, tournament_id)["clock"]["remaining_s"] > 20 * 60
    assert post(client, tournament_id, "level", step="1").status_code == 200
    first_level = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert 'id="next-level"' in first_level and 'id="previous-level"' not in first_level
    before_the_first = post(client, tournament_id, "level", step="-1")
    assert before_the_first.status_code == 422 and 'data-code="no_such_level"' in page(before_the_first)
    assert view(client, tournament_id)["clock"]["level"] == 1


def test_an_early_start_is_asked_first(client):
    tournament_id, _ = new_tournament(client, ["Early A", "Early B"], start=False,
                                      starts_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600)))
    sign_in(client, ADMIN_KEY)
    asked = post(client, tournament_id, "start")
    assert asked.status_code == 200 and "The published start is" in page(asked)
    assert "Starting now draws the seats for the 2 players registered" in page(asked)
    assert view(client, tournament_id)["status"] == "registering"
    assert post(client, tournament_id, "start", confirmed="yes").status_code == 303
    assert view(client, tournament_id)["status"] == "running"


def test_each_form_shows_only_while_it_applies_and_the_finished_event_shows_its_results(client):
    tournament_id, players = new_tournament(client, ["Fin A", "Fin B", "Fin C"], start=False, tables="physical")
    sign_in(client, ADMIN_KEY)
    before = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert 'id="start"' in before and 'id="register"' in before and 'id="pause"' not in before
    assert post(client, tournament_id, "start", confirmed="yes").status_code == 303
    running = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert 'id="pause"' in running and 'id="start"' not in running
    assert 'id="register"' not in running, "no late registration in this event"
    assert 'data-action="rebuy"' not in running, "no rebuys in this event"
    assert 'id="player-search"' in running and "<select" not in running, "players by name, nothing preselected"
    for player in players[:2]:
        assert post(client, tournament_id, "eliminate", player_id=player, confirmed="yes").status_code == 303
    finished = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert view(client, tournament_id)["status"] == "finished"
    for form in ('id="pause"', 'id="register"', 'data-action="eliminate"', 'id="adjust"', 'id="undo"'):
        assert form not in finished, form
    assert '<tr data-place="1"><td class="num">1</td><td class="player">Fin C</td>' in finished
    assert "results.csv" in finished and "standings.csv" not in finished


def test_a_bust_in_the_rebuy_period_rebuys_or_declines_from_the_desk_and_undo_takes_a_bust_back(client):
    tournament_id, players = new_tournament(client, ["Reb A", "Reb B", "Reb C", "Reb D"], tables="physical",
                                            rebuy_price=20, rebuy_chips=5000, rebuys_allowed=1, rebuy_until_level=1)
    sign_in(client, ADMIN_KEY)
    asked = post(client, tournament_id, "eliminate", player_id=players[0])
    assert "is out of chips. In the rebuy period they keep the seat" in page(asked)
    assert post(client, tournament_id, "eliminate", player_id=players[0], confirmed="yes").status_code == 303
    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert f'data-awaiting="{players[0]}"' in desk and "Reb A</strong> (table 1, seat" in desk
    assert post(client, tournament_id, "rebuy", player_id=players[0]).status_code == 303
    assert view(client, tournament_id)["chips"]["rebuys"] == 1
    # One rebuy each: Reb A is offered no other, Reb C (never busted) still is.
    offered = page(client.get(f"/floor/tournaments/{tournament_id}"))
    button = '<input type="hidden" name="player_id" value="{}"><button type="submit" class="" data-action="rebuy">'
    assert button.format(players[0]) not in offered and button.format(players[2]) in offered
    assert post(client, tournament_id, "eliminate", player_id=players[1], confirmed="yes").status_code == 303
    declined = post(client, tournament_id, "decline", player_id=players[1])
    assert "declines the rebuy and is out of the tournament, placed 4th of 4 entries" in page(declined)
    assert post(client, tournament_id, "decline", player_id=players[1], confirmed="yes").status_code == 303
    assert [e["name"] for e in view(client, tournament_id)["standings"]] == ["Reb B"]
    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert "Undo the elimination of Reb B" in desk
    assert post(client, tournament_id, "undo").status_code == 303
    assert view(client, tournament_id)["standings"] == []


def test_a_move_is_called_out_by_name_and_confirmed_seated_from_the_desk(client):
    names = [f"Mov {n}" for n in "ABCDEFGH"]
    tournament_id, players = new_tournament(client, names, tables="physical", table_size=4)
    sign_in(client, ADMIN_KEY)
    tables = view(client, tournament_id)["tables"]
    for player in [p["player_id"] for p in tables[0]["players"]][:2]:
        assert post(client, tournament_id, "eliminate", player_id=player, confirmed="yes").status_code == 303
    desk = page(client.get(f"/floor/tournaments/{tournament_id}"))
    assert 'data-state="pending"' in desk and 'data-action="seated"' in desk
    assert "can no longer be undone: a move depends on it" in desk and 'id="undo"' not in desk
    seating = page(client.get(f"/screens/tournaments/{tournament_id}/seating"))
    assert "→ table 1 seat" in seating and "data-move " in seating
    loaded = tournaments.load_tournament(client.application.extensions["cardroom"].application, tournament_id)
    moves = screens.seating_screen(loaded, dict(zip(players, names)), time.time())["moves"]
    assert len(moves) == 1 and tuple(moves[0]) == screens.MOVE_FIELDS and moves[0]["name"] in names
    state = tournaments.load_tournament(client.application.extensions["cardroom"].application, tournament_id).state
    (call,) = state.pending_move_calls(time.time())
    assert post(client, tournament_id, "seated", move_id=str(call.move_id)).status_code == 303
    assert 'data-state="pending"' not in page(client.get(f"/floor/tournaments/{tournament_id}"))


def test_seat_cards_and_the_table_draw_print_every_seated_player_for_the_desk_only(client):
    names = ["Card <b>A</b>", "Card B", "Card C", "Card D", "Card E"]
    tournament_id, players = new_tournament(client, names, table_size=3)
    for sheet in ("seat-cards", "table-draw"):
        assert client.get(f"/floor/tournaments/{tournament_id}/print/{sheet}").status_code == 302, "signed out"
    sign_in(client, ADMIN_KEY)
    seated = {p["player_id"]: (t["number"], p["seat"]) for t in view(client, tournament_id)["tables"] for p in t["players"]}  # from 1
    cards = client.get(f"/floor/tournaments/{tournament_id}/print/seat-cards").get_data(as_text=True)
    assert cards.count('class="seat-card"') == 5 and "Card &lt;b&gt;A&lt;/b&gt;" in cards and "<b>A</b>" not in cards
    draw = client.get(f"/floor/tournaments/{tournament_id}/print/table-draw").get_data(as_text=True)
    assert draw.count('class="draw-table"') == 2
    for player, name in zip(players, ["Card &lt;b&gt;A&lt;/b&gt;", *names[1:]]):
        table, seat = seated[player]
        assert f'<td class="player">{name}</td><td class="num">{table}</td><td class="num">{seat}</td>' in draw


def test_find_your_seat_answers_only_its_listed_fields(client):
    tournament_id, players = new_tournament(client, ["Seek Ánn", "Seek Bo", "Other Cy"])
    loaded = tournaments.load_tournament(client.application.extensions["cardroom"].application, tournament_id)
    seating = screens.seating_screen(loaded, dict(zip(players, ["Seek Ánn", "Seek Bo", "Other Cy"])), time.time())
    found = screens.find_seats(seating, "seek ann")
    assert [f["name"] for f in found] == ["Seek Ánn"] and all(tuple(f) == screens.FOUND_FIELDS for f in found)
    assert screens.find_seats(seating, "s") == [], "two letters at least"
    answer = client.get(f"/screens/tournaments/{tournament_id}/seating?name=SEEK").get_data(as_text=True)
    assert answer.count("<li><strong>Seek") == 2 and not any(player in answer for player in players)


def test_undo_takes_back_a_clock_change_for_the_organisers_only(client):
    from tests.integration.test_pages_http import issue

    tournament_id, _ = new_tournament(client, ["Und A", "Und B"])
    sign_in(client, ADMIN_KEY)
    assert post(client, tournament_id, "pause").status_code == 303
    assert "Undo the clock change (pause)" in page(client.get(f"/floor/tournaments/{tournament_id}"))
    sign_in(client, issue(client, "floor")["key"])
    assert post(client, tournament_id, "undo").status_code == 403, "the clock is the organisers'"
    assert view(client, tournament_id)["clock"]["paused"]
    sign_in(client, ADMIN_KEY)
    assert post(client, tournament_id, "undo").status_code == 303
    assert not view(client, tournament_id)["clock"]["paused"]


def test_the_desk_and_the_api_give_undo_of_a_clock_change_the_clocks_own_roles(client):
    """Who may pause the clock may take the pause back, by the desk or the API alike: the
    floor may do neither, an organiser both; the floor still undoes what it may do."""
    from tests.integration.test_pages_http import issue

    tournament_id, _ = new_tournament(client, ["Rol A", "Rol B"])
    api = f"/v1/tournaments/{tournament_id}"
    floor = {"Authorization": f"Bearer {issue(client, 'floor')['key']}"}
    organiser = {"Authorization": f"Bearer {issue(client, 'organiser')['key']}"}
    assert client.post(f"{api}/clock/pause", json={}, headers=floor).status_code == 403, "the clock's roles"
    assert client.post(f"{api}/clock/pause", json={}, headers=organiser).status_code == 201
    refused = client.post(f"{api}/undo", json={}, headers=floor)
    assert refused.status_code == 403 and refused.get_json()["code"] == "forbidden", refused.get_data(as_text=True)
    assert "the clock is the organisers'" in refused.get_json()["detail"]
    sign_in(client, issue(client, "floor")["key"])
    assert post(client, tournament_id, "undo").status_code == 403
    assert view(client, tournament_id)["clock"]["paused"], "neither way wrote anything"
    undone = client.post(f"{api}/undo", json={}, headers=organiser)
    assert undone.status_code == 201 and undone.get_json()["events"][-1]["type"] == "ClockChangeUndone"
    assert not view(client, tournament_id)["clock"]["paused"]
    sign_in(client, ADMIN_KEY)
    assert post(client, tournament_id, "pause").status_code == 303
    sign_in(client, issue(client, "organiser")["key"])
    assert post(client, tournament_id, "undo").status_code == 303, "an organiser undoes from the desk too"
    assert not view(client, tournament_id)["clock"]["paused"]
