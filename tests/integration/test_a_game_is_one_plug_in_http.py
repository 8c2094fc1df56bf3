"""A game is one plug-in: high card (tests/high_card.py), which only this test registers,
is played through the HTTP API with no line of service/ of its own. A table is created for
it, a hand dealt and played; each role reads the hand with the other players' hole cards
redacted by the events' own secrecy declarations; the floor's replayer steps through it.
Once the test is over the game is gone again (the OpenAPI document stays the built-in
games' only: tests/integration/test_openapi.py)."""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from typing import Any

import pytest

from domain import registry
from service.http.openapi import openapi_yaml
from tests import high_card
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players
from tests.integration.test_floor_pages_http import csrf, sign_in

pytestmark = pytest.mark.integration
_REPLAY_DATA = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


@pytest.fixture
def high_card_registered() -> Iterator[None]:
    yield from high_card.registered()


def test_an_unregistered_game_is_refused_with_the_registered_ones_named(client: Any) -> None:
    players = register_players(client, "Una", "Vic")
    refused = client.post("/v1/tables", headers=ADMIN, json={
        "game": high_card.NAME, "seats": [{"player_id": p, "stack": 100} for p in players]})
    assert refused.status_code == 400
    assert "holdem" in refused.get_data(as_text=True) and high_card.NAME not in registry.table_names()


def test_a_game_registered_by_a_test_alone_plays_through_the_api(client: Any, high_card_registered: None) -> None:
    ann, bob, cat = players = register_players(client, "Ann", "Bob", "Cat")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": high_card.NAME, "settings": {"ante": 5},
        "seats": [{"player_id": p, "stack": 100} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    assert_problem(client.post("/v1/tables", headers=ADMIN, json={
        "game": high_card.NAME, "settings": {"ante": 0},
        "seats": [{"player_id": p, "stack": 100} for p in players]}), 422, "invalid_table")

    dealt = client.post(f"/v1/tables/{table_id}/hands", headers=ADMIN, json={})
    assert dealt.status_code == 201, dealt.get_data(as_text=True)
    hand_id = f"{table_id}.1"

    # Each player reads their own card only; the floor reads all three; nobody reads the deck.
    keys = {p: key_for(client, "player", p) for p in players}
    floor = key_for(client, "floor")
    seen = {p: client.get(f"/v1/hands/{hand_id}", headers=keys[p]).get_json() for p in players}
    for player, answer in seen.items():
        hole = answer["hand"]["hole"]
        assert hole[player] is not None and [o for o in players if hole[o] is not None] == [player]
        dealt_cards = {e["data"]["position"]: e["data"]["card"] for e in answer["events"]
                       if e["type"] == "HighCardDealt"}
        assert [c is not None for c in dealt_cards.values()].count(True) == 1
        started = next(e for e in answer["events"] if e["type"] == "HighCardStarted")
        assert started["data"]["deck"] is None
    by_floor = client.get(f"/v1/hands/{hand_id}", headers=floor).get_json()
    cards = by_floor["hand"]["hole"]
    assert all(cards[p] is not None for p in players)
    assert next(e for e in by_floor["events"] if e["type"] == "HighCardStarted")["data"]["deck"] is None
    assert client.get(f"/v1/hands/{hand_id}", headers=key_for(client, "spectator")).get_json()["hand"]["hole"] \
        == {p: None for p in players}

    def act(player: str, action: str) -> Any:
        version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
        return client.post(f"/v1/tables/{table_id}/actions", headers=ADMIN,
                           json={"player_id": player, "action": action, "expected_version": version})

    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=keys[ann]).get_json()
    assert legal["legal"] == {"show": True, "fold": True}
    to_act = legal["to_act"]
    assert_problem(act(to_act, "raise"), 422, "illegal_action")
    order = [players[(players.index(to_act) + i) % 3] for i in range(3)]
    assert act(order[0], "show").status_code == 201
    shown_first = client.get(f"/v1/hands/{hand_id}", headers=keys[order[1]]).get_json()["hand"]["hole"]
    assert shown_first[order[0]] == cards[order[0]]  # shown: public now
    assert act(order[1], "fold").status_code == 201
    last = act(order[2], "show")
    assert last.status_code == 201, last.get_data(as_text=True)

    winner = max((order[0], order[2]), key=lambda p: high_card.parse_card(cards[p]))
    done = client.get(f"/v1/hands/{hand_id}", headers=keys[order[1]]).get_json()
    assert done["over"] and done["hand"]["winner"] == winner
    assert done["hand"]["hole"][order[1]] == cards[order[1]]  # the folder's own card
    assert done["hand"]["hole"][winner] == cards[winner]
    assert done["deal"]["verified"] is True  # the deck is out once the hand is closed
    stacks = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    assert sorted(s["stack"] for s in stacks) == [95, 95, 110]

    browser = client.application.test_client()
    sign_in(browser, floor)
    page = browser.get(f"/floor/hands/{hand_id}")
    assert page.status_code == 200
    replay = json.loads(unescape(_REPLAY_DATA.search(page.get_data(as_text=True)).group(1)))  # type: ignore[union-attr]
    # Names read as isolated runs (bidirectional text): without the marks for the comparison.
    captions = [step["caption"].replace("\u2068", "").replace("\u2069", "") for step in replay["steps"]]
    winner_name = dict(zip(players, ("Ann", "Bob", "Cat")))[winner]
    assert f"{winner_name} takes 15 with the high card" in captions  # its own words
    assert any(caption.startswith("High card folded") for caption in captions)  # the type in words


def test_the_schemas_read_the_registry_and_the_game_is_gone_once_its_test_is_over() -> None:
    # The OpenAPI document is the schemas' own: while high card is registered it is one of
    # the table games; after, the document is the built-in games' (what openapi.yaml holds).
    registration = high_card.registered()
    next(registration)
    try:
        assert f"- {high_card.NAME}" in openapi_yaml()
    finally:
        registration.close()
    assert high_card.NAME not in registry.names() and high_card.NAME not in openapi_yaml()


def test_the_rulings_page_asks_the_games_own_ruling_from_its_registration(client: Any,
                                                                           high_card_registered: None) -> None:
    # The form is laid out from the registration (its fields, its example as placeholders)
    # and answered by its ruling: no line of service/ names the game.
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    page = floor.get("/floor/rulings")
    text = unescape(page.get_data(as_text=True))
    assert page.status_code == 200
    assert '<section class="card" id="high-card-showdown">' in text
    assert "High card: who takes the antes" in text and 'placeholder="Ann 9c\nBob Qh"' in text
    assert "Dice poker: the roll, the lines, another roll" in text  # the built-in games' forms stay
    token = csrf(page)
    ruled = floor.post("/floor/rulings/high-card-showdown", data={"csrf_token": token, "shown": "Ann 9c\nBob Qh"})
    assert ruled.status_code == 200, ruled.get_data(as_text=True)[:3000]
    assert f"Bob takes the antes with Qh ({high_card.RULE})" in unescape(ruled.get_data(as_text=True))
    unreadable = floor.post("/floor/rulings/high-card-showdown", data={"csrf_token": token, "shown": "Ann"})
    assert unreadable.status_code == 400
    assert "shown, line 1: write `name card`" in unescape(unreadable.get_data(as_text=True))


def test_once_its_test_is_over_the_rulings_page_has_no_form_of_the_game(client: Any) -> None:
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    page = floor.get("/floor/rulings")
    assert "high-card-showdown" not in page.get_data(as_text=True)
    assert floor.post("/floor/rulings/high-card-showdown", data={"csrf_token": csrf(page)}).status_code == 404
