"""A hold'em hand to a declared showdown over HTTP (issue 15 item 4, declarations.md
"Showdown", service.md "Provably fair deals, without exposing mucked cards"): the first
left of the button shows, the other two muck. The mucked hands stay hidden from the other
players and spectators on every endpoint; every player checks their own cards and the
board (and the hand shown) against the commitment published before the deal, the floor
checks the whole deck."""
from __future__ import annotations

import json
from typing import Any

import pytest

from domain.history import phh
from domain.rules.deal_commitment import Opening, deal_root, verify_opening
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players, without_digests
from tests.integration.test_hands_phh_export import record_player_ids

pytestmark = pytest.mark.integration


def act(client: Any, table_id: str, action: str, player_id: str | None = None) -> dict[str, Any]:
    """The floor enters `action` for `player_id` (default: the player to act)."""
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    player_id = player_id or legal.get_json()["to_act"]
    answer = client.post(f"/v1/tables/{table_id}/actions",
                         headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                         json={"action": action, "player_id": player_id})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def declared_showdown_table(client: Any, players: list[str]) -> str:
    """A no-limit hold'em table of these players where hands end in declared showdowns."""
    return client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "settings": {"showdown": "declared"},
        "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]}).get_json()["id"]


def dealt(client: Any, table_id: str) -> dict[str, Any]:
    """A new hand dealt: each player's hole cards."""
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    seats = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    return {seat["player_id"]: seat["cards"] for seat in seats}


def call_to_the_showdown(client: Any, table_id: str) -> None:
    """Call and check to the river, until the first player is to show."""
    while True:
        legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["legal"]
        if legal.get("show"):
            return
        act(client, table_id, "check" if legal["check"] else "call")


@pytest.fixture(scope="module")
def showdown(client: Any) -> dict[str, Any]:
    players = register_players(client, "Ann", "Bob", "Cat")
    table_id = declared_showdown_table(client, players)
    hole = dealt(client, table_id)
    call_to_the_showdown(client, table_id)
    order = []
    for step in range(3):
        to_show = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"]
        order.append(to_show)
        if step == 0:
            others = [p for p in players if p != to_show]
            refused = client.post(f"/v1/tables/{table_id}/actions", json={"action": "show", "player_id": others[0]},
                                  headers={**ADMIN, "If-Match": client.get(f"/v1/tables/{table_id}", headers=ADMIN)
                                           .headers["ETag"]})
            body = assert_problem(refused, 422, "not_your_turn_to_show")
            assert body["rule"] == "TDA 2024 17"
        result = act(client, table_id, "show" if step == 0 else "muck", to_show)
    assert result["hand"]["over"] is True, "two mucked: the shown hand wins"
    shower, mucker, third = order
    board = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()["hand"]["board"]
    return {"table": table_id, "players": players, "hole": hole, "shower": shower,
            "mucked": [mucker, third], "board": board, "spectator": key_for(client, "spectator"),
            "keys": {p: key_for(client, "player", p) for p in players}, "floor": key_for(client, "floor")}


def reads(client: Any, table_id: str, headers: dict[str, str]) -> dict[str, str]:
    paths = [f"/v1/tables/{table_id}", f"/v1/tables/{table_id}/events", f"/v1/hands/{table_id}.1",
             f"/v1/hands/{table_id}.1/state", f"/v1/tables/{table_id}/legal-actions",
             f"/v1/hands/{table_id}.1/phh"]
    answers = {}
    for path in paths:
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.get_data(as_text=True))
        text = response.get_data(as_text=True)
        answers[path] = without_digests(json.dumps(response.get_json())) if response.is_json else text
    return answers


def pairs(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


def test_the_showdown_order_is_the_first_left_of_the_button_with_no_river_bet(client, showdown):
    # The last hand's button is seat 0 (Ann): with every street checked, Bob shows first.
    ann, bob, cat = showdown["players"]
    assert showdown["shower"] == bob
    told = client.get(f"/v1/hands/{showdown['table']}.1", headers=showdown["spectator"]).get_json()["hand"]["showdown"]
    assert told == {"mode": "declared", "order": [bob, cat, ann], "to_show": None, "shown": [bob],
                    "mucked": [ann, cat]}


def test_a_mucked_hand_stays_hidden_from_the_other_players_and_spectators_on_every_endpoint(client, showdown):
    table_id, mucked = showdown["table"], showdown["mucked"]
    viewers = {"spectator": showdown["spectator"], **showdown["keys"]}
    for who, headers in viewers.items():
        for path, text in reads(client, table_id, headers).items():
            for player in mucked:
                if player == who:
                    continue
                assert showdown["hole"][player] not in text, f"{player}'s mucked hand leaks to {who} on {path}"
            assert '"deck": "' not in text, (who, path)
        history = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()
        deal = history["deal"]
        assert deal["deck"] is None and deal["salt"] is None, who
        secrets = [e["data"].get(name) for e in history["events"] for name in ("deck", "salt")]
        assert secrets and not any(secrets), f"{who} sees the deck or the secret salt in the events"
        opened = {o["card"] for o in deal["openings"]}
        for player in mucked:
            if player != who:
                assert not opened & set(pairs(showdown["hole"][player])), f"{who} got an opening of {player}'s card"


def test_the_shown_hand_is_public_and_written_as_sm_in_the_phh_export(client, showdown):
    table_id, shower = showdown["table"], showdown["shower"]
    for headers in (showdown["spectator"], *showdown["keys"].values()):
        seats = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()["seats"]
        assert next(s["cards"] for s in seats if s["player_id"] == shower) == showdown["hole"][shower]
    record = phh.parse(client.get(f"/v1/hands/{table_id}.1/phh", headers=showdown["spectator"]).get_data(as_text=True))
    names = record_player_ids(record)
    shows = {names[a.player]: a.cards for a in record.actions if isinstance(a, phh.ShownOrMucked)}
    assert "".join(shows[shower]) == showdown["hole"][shower]
    assert all(shows[p] is None for p in showdown["mucked"]), "mucks are `sm` without cards"


def test_the_floor_export_has_every_real_hole_card(client, showdown):
    text = client.get(f"/v1/hands/{showdown['table']}.1/phh", headers=showdown["floor"]).get_data(as_text=True)
    assert "??" not in text
    assert all(cards in text for cards in showdown["hole"].values())


def test_every_player_checks_their_own_cards_and_the_board_against_the_commitment(client, showdown):
    table_id = showdown["table"]
    opened_event = next(e for e in client.get(f"/v1/tables/{table_id}/events", headers=ADMIN).get_json()["events"]
                        if e["type"] == "HandOpened")
    root = opened_event["data"]["commitment"]
    for player, headers in showdown["keys"].items():
        deal = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["deal"]
        assert deal["commitment"] == root and deal["deck"] is None and deal["salt"] is None
        openings = [Opening(o["position"], o["card"], o["salt"], tuple(tuple(step) for step in o["path"]))
                    for o in deal["openings"]]
        assert all(verify_opening(o, root) for o in openings), player
        expected = set(pairs(showdown["board"])) | set(pairs(showdown["hole"][player]))
        expected |= set(pairs(showdown["hole"][showdown["shower"]]))
        assert {o.card for o in openings} == expected, player
        forged = Opening(openings[0].position, "Jk", openings[0].salt, openings[0].path)
        assert not verify_opening(forged, root), "an opening binds its card"


def test_the_floor_checks_the_whole_deck_against_the_commitment(client, showdown):
    deal = client.get(f"/v1/hands/{showdown['table']}.1", headers=showdown["floor"]).get_json()["deal"]
    assert len(deal["deck"]) == 104 and deal["verified"] is True
    assert deal_root(pairs(deal["deck"]), bytes.fromhex(deal["salt"])) == deal["commitment"]


def test_the_hash_chain_covers_the_sealed_deal(client, showdown):
    verified = client.get(f"/v1/streams/table-{showdown['table']}/verify", headers=ADMIN).get_json()
    assert verified["ok"] is True


def test_a_caller_asks_to_see_the_river_bettors_hand_with_their_own_key(client, showdown):
    """The next hand: every street checked but the river, where the first to act bets 100
    and both others call; a caller's own key asks to see (TDA 2024 18-B)."""
    table_id, keys = showdown["table"], showdown["keys"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    hand = client.get(f"/v1/hands/{table_id}.2", headers=ADMIN).get_json()["hand"]
    hole = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    bettor = None
    while True:
        legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
        if legal["legal"].get("show"):
            break
        board = client.get(f"/v1/hands/{table_id}.2", headers=ADMIN).get_json()["hand"]["board"]
        if len(board) == 10 and bettor is None and legal["legal"]["bet"]:
            bettor = legal["to_act"]
            version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).headers["ETag"]
            assert client.post(f"/v1/tables/{table_id}/actions", json={"action": "bet", "to": 100},
                               headers={**keys[bettor], "If-Match": version}).status_code == 201
            continue
        act(client, table_id, "check" if legal["legal"]["check"] else "call")
    assert legal["to_act"] == bettor and legal["legal"]["ask_to_see"] == {"player": bettor}
    caller = next(p for p in hand["players"] if p != bettor)
    version = client.get(f"/v1/tables/{table_id}", headers=ADMIN).headers["ETag"]
    asked = client.post(f"/v1/tables/{table_id}/actions", json={"action": "ask_to_see"},
                        headers={**keys[caller], "If-Match": version})
    assert asked.status_code == 201, asked.get_json()
    assert [e["type"] for e in asked.get_json()["events"]][:2] == ["ShowAsked", "CardsShown"]
    seats = client.get(f"/v1/tables/{table_id}", headers=showdown["spectator"]).get_json()["seats"]
    cards = {s["player_id"]: s["cards"] for s in seats}
    assert cards[bettor] == next(s["cards"] for s in hole if s["player_id"] == bettor)
    again = client.post(f"/v1/tables/{table_id}/actions", json={"action": "ask_to_see"},
                        headers={**keys[caller], "If-Match": asked.headers["ETag"]})
    assert assert_problem(again, 422, "no_right_to_see")["rule"] == "TDA 2024 18-B"
