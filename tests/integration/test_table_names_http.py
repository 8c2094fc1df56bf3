"""A table's name over HTTP: given at creation (POST /v1/tables `name`), in the table's
view, in the floor's table page and as the replayer's hand heading ("<name> · hand N ·
<time>"); a name that does not read as one is a 4xx problem and creates nothing; a
tournament's tables are named after it ("<tournament> table 1")."""
from __future__ import annotations

import time
from html import unescape
from typing import Any

import pytest

from service.application import tournament_tables
from tests import applications
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players
from tests.integration.test_floor_pages_http import sign_in
from tests.integration.test_pages_http import new_tournament

pytestmark = pytest.mark.integration


def new_table(client: Any, **fields: Any) -> Any:
    ann, bob = register_players(client, "Ann", "Bob")
    return client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
        "seats": [{"player_id": ann, "stack": 200}, {"player_id": bob, "stack": 200}], **fields})


def test_a_named_table_is_named_in_its_view_its_page_and_its_hands_headings(client):
    created = new_table(client, name="Feature table 7")
    assert created.status_code == 201, created.get_json()
    table_id = created.get_json()["id"]
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["name"] == "Feature table 7"
    assert client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={}).status_code == 201
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    table_page = unescape(floor.get(f"/floor/tables/{table_id}").get_data(as_text=True))
    assert "<h1><bdi>Feature table 7</bdi></h1>" in table_page and f"table {table_id}" in table_page
    replayer = unescape(floor.get(f"/floor/hands/{table_id}.1").get_data(as_text=True))
    heading = replayer[replayer.index("<h1>") + 4:replayer.index("</h1>")]
    assert heading.startswith("Feature table 7 · hand 1 · ") and heading.endswith(" UTC")


def test_an_unnamed_table_reads_as_before(client):
    created = new_table(client)
    table_id = created.get_json()["id"]
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["name"] is None
    assert client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={}).status_code == 201
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    replayer = unescape(floor.get(f"/floor/hands/{table_id}.1").get_data(as_text=True))
    assert "<h1>Hand 1 · holdem · Ann, Bob</h1>" in replayer


@pytest.mark.parametrize("name, status, code", [
    ("x" * 61, 400, "validation_error"),
    ("", 400, "validation_error"),
    (7, 400, "validation_error"),
    ("Table\u202e7", 422, "invalid_table_name"),
    (" padded", 422, "invalid_table_name"),
    ("<b>bold</b>", 422, "invalid_table_name"),
])
def test_a_name_that_does_not_read_as_one_is_a_problem(client, name, status, code):
    problem = assert_problem(new_table(client, name=name), status, code)
    if code == "invalid_table_name":
        assert problem["numbers"]["max_length"] == 60
    else:
        assert "name" in str(problem)


def test_a_tournaments_tables_are_named_after_it(client, postgres_store):
    tournament_id, _ = new_tournament(client, ["Dee", "Eve", "Fay", "Gus"], name="Sunday Million")
    tournament_tables.advance(applications.of(postgres_store), tournament_id, time.time())
    table_id = tournament_tables.table_id_for(tournament_id, 1)
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["name"] == "Sunday Million table 1"


def test_the_floor_opens_a_named_cash_table_from_its_page(client):
    from tests.integration.test_floor_pages_http import csrf
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    form = floor.get("/floor/tables/new")
    assert form.status_code == 200 and 'name="name"' in form.get_data(as_text=True)
    fields = {"csrf_token": csrf(form), "name": "Rail table 2", "game": "holdem", "structure": "no-limit",
              "small_blind": "25", "big_blind": "50", "seats": "6", "min_buy_in": "2000", "max_buy_in": "5000",
              "auto_deal": "true"}
    opened = floor.post("/floor/tables/new", data=fields)
    assert opened.status_code == 303, opened.get_data(as_text=True)[:2000]
    table_id = opened.headers["Location"].rsplit("/", 1)[1]
    shown = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert shown["name"] == "Rail table 2" and shown["cash"] == {"min_buy_in": 2000, "max_buy_in": 5000}
    assert len(shown["seats"]) == 6 and shown["betting"]["big_blind"] == 50 and shown["auto_deal"] is True
    assert "<bdi>Rail table 2</bdi>" in floor.get(f"/floor/tables/{table_id}").get_data(as_text=True)
    for change, says in (({"name": "Rail\u202etable"}, "invalid_table_name"), ({"seats": "11"}, "invalid_table"),
                         ({"min_buy_in": "9000"}, "invalid_table"), ({"big_blind": "x"}, "invalid_table")):
        refused = floor.post("/floor/tables/new", data={**fields, **change})
        body = unescape(refused.get_data(as_text=True))
        assert refused.status_code == 422 and 'id="form-error"' in body and says in body, (change, body[:1500])
