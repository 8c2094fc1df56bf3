"""A five-card draw hand to a declared showdown over HTTP (issue 15 item 4, declarations.md
"Showdown", service.md "Provably fair deals, without exposing mucked cards"): everyone
draws one card, the second round is checked, the first left of the dealer shows and the
other two muck. The mucked hands (dealt, discarded and drawn) stay hidden from the other
players and spectators on every endpoint, the stream included; every player checks the
cards they were dealt and drew, and the hand shown, against the commitment published
before the deal; the floor checks the whole deck and the reshuffle order."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from domain.history import phh
from domain.rules.deal_commitment import Opening, deal_root, verify_opening
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players, without_digests
from tests.integration.test_hands_phh_export import record_player_ids

pytestmark = pytest.mark.integration


def legal_now(client: Any, table_id: str) -> tuple[dict[str, Any], str]:
    answer = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    return answer.get_json(), answer.headers["ETag"]


def act(client: Any, table_id: str, body: dict[str, Any], headers: dict[str, str] = ADMIN) -> dict[str, Any]:
    """`body` for the player to act (the floor enters it unless `headers` is a player's key)."""
    legal, etag = legal_now(client, table_id)
    if headers is ADMIN:
        body = {"player_id": legal["to_act"], **body}
    answer = client.post(f"/v1/tables/{table_id}/actions", headers={**headers, "If-Match": etag}, json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def seat_cards(client: Any, table_id: str) -> dict[str, str]:
    return {s["player_id"]: s["cards"] for s in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]}


def pairs(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


def play_to_the_showdown(client: Any, table_id: str, bet_second_round: bool = False) -> tuple[dict, dict, str | None]:
    """The first to act opens for 10 and the others call; everyone throws away their first
    card; the second round is checked (or opened for 20 and called). Returns each player's
    five dealt cards, the card each drew, and who bet the second round."""
    act(client, table_id, {"action": "bet", "to": 10})
    while (legal := legal_now(client, table_id)[0])["legal"].get("discard") is None:
        act(client, table_id, {"action": "call"})
    dealt = seat_cards(client, table_id)
    received: dict[str, str] = {}
    while (legal := legal_now(client, table_id)[0])["legal"].get("discard"):
        drawer = legal["to_act"]
        answer = act(client, table_id, {"action": "discard", "discard": [dealt[drawer][:2]]})
        received[drawer] = next(e for e in answer["events"] if e["type"] == "PlayerDrew")["data"]["received"]
    bettor = None
    while not (legal := legal_now(client, table_id)[0])["legal"].get("show"):
        if bet_second_round and bettor is None:
            bettor = legal["to_act"]
            act(client, table_id, {"action": "bet", "to": 20})
        else:
            act(client, table_id, {"action": "call" if bettor else "check"})
    return dealt, received, bettor


@pytest.fixture(scope="module")
def showdown(client: Any) -> dict[str, Any]:
    players = register_players(client, "Ann", "Bob", "Cat")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "five-card-draw", "settings": {"ante": 5, "showdown": "declared"},
        "seats": [{"player_id": p} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    dealt, received, _ = play_to_the_showdown(client, table_id)
    final = seat_cards(client, table_id)
    order = []
    for step in range(3):
        legal, etag = legal_now(client, table_id)
        order.append(legal["to_act"])
        if step == 0:
            other = next(p for p in players if p != legal["to_act"])
            refused = client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": etag},
                                  json={"action": "muck", "player_id": other})
            assert assert_problem(refused, 422, "not_your_turn_to_show")["rule"] == "TDA 2024 17"
        result = act(client, table_id, {"action": "show" if step == 0 else "muck"})
    assert result["hand"]["over"] is True, "two mucked: the hand shown wins"
    return {"table": table_id, "players": players, "dealt": dealt, "received": received, "final": final,
            "shower": order[0], "mucked": order[1:], "order": order,
            "spectator": key_for(client, "spectator"), "floor": key_for(client, "floor"),
            "keys": {p: key_for(client, "player", p) for p in players}}


def stream_backlog(client: Any, table_id: str, headers: dict[str, str]) -> str:
    """The stream's messages up to the table's last event (then the connection is dropped)."""
    last = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
    response = client.get(f"/v1/tables/{table_id}/stream", headers=headers, buffered=False)
    assert response.status_code == 200
    text = ""
    for chunk in response.response:
        text += chunk.decode() if isinstance(chunk, bytes) else chunk
        if f"id: {last}\n" in text:
            break
    response.close()
    return text


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
    answers["stream"] = without_digests(stream_backlog(client, table_id, headers))
    assert "event: CardsMucked" in answers["stream"], "the stream's backlog reaches the showdown"
    return answers


def test_the_order_of_show_starts_left_of_the_dealer_when_the_second_round_was_checked(client, showdown):
    told = client.get(f"/v1/hands/{showdown['table']}.1", headers=showdown["spectator"]).get_json()["hand"]
    assert told["showdown"] == {"mode": "declared", "order": showdown["order"], "to_show": None,
                                "shown": [showdown["shower"]], "mucked": sorted(showdown["mucked"],
                                                                                 key=told["players"].index)}
    players = told["players"]  # every seat is dealt in: hand seats are table seats
    assert showdown["order"][0] == players[(told["button"] + 1) % len(players)]


def test_a_mucked_draw_hand_stays_hidden_from_the_other_players_on_every_endpoint(client, showdown):
    table_id = showdown["table"]
    viewers = {"spectator": showdown["spectator"], **showdown["keys"]}
    for who, headers in viewers.items():
        for path, text in reads(client, table_id, headers).items():
            for player in showdown["mucked"]:
                if player == who:
                    continue
                for secret in (showdown["dealt"][player], showdown["final"][player]):
                    assert secret not in text, f"{player}'s mucked cards leak to {who} on {path}"
                # The one card drawn, as the event's field or a PHH deal (not any "7c" in a UUID).
                drawn = showdown["received"][player]
                assert f'"received": "{drawn}"' not in text and not re.search(rf"dh p\d {drawn}\b", text), (who, path)
            assert '"deck": "' not in text and '"reshuffle_order": "' not in text, (who, path)
        history = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()
        assert history["deal"]["deck"] is None and history["deal"]["salt"] is None, who
        for event in history["events"]:
            for name in ("deck", "reshuffle_order", "salt"):
                assert not event["data"].get(name), (who, event["type"], name)


def test_the_shown_hand_is_public_and_the_mucks_are_sm_without_cards_in_the_phh_export(client, showdown):
    table_id, shower = showdown["table"], showdown["shower"]
    for headers in (showdown["spectator"], *showdown["keys"].values()):
        seats = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()["seats"]
        assert next(s["cards"] for s in seats if s["player_id"] == shower) == showdown["final"][shower]
    text = client.get(f"/v1/hands/{table_id}.1/phh", headers=showdown["spectator"]).get_data(as_text=True)
    record = phh.parse(text)
    names = record_player_ids(record)
    shows = {names[a.player]: a.cards for a in record.actions if isinstance(a, phh.ShownOrMucked)}
    assert "".join(shows[shower]) == showdown["final"][shower]
    assert all(shows[p] is None for p in showdown["mucked"]), "mucks are `sm` without cards"


def test_every_player_checks_their_dealt_and_drawn_cards_and_the_hand_shown_against_the_commitment(client, showdown):
    table_id = showdown["table"]
    opened = next(e for e in client.get(f"/v1/tables/{table_id}/events", headers=ADMIN).get_json()["events"]
                  if e["type"] == "HandOpened")
    root = opened["data"]["commitment"]
    for player, headers in showdown["keys"].items():
        deal = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["deal"]
        assert deal["commitment"] == root and deal["verified"] is True
        openings = [Opening(o["position"], o["card"], o["salt"], tuple(tuple(step) for step in o["path"]))
                    for o in deal["openings"]]
        assert all(verify_opening(o, root) for o in openings), player
        expected = set(pairs(showdown["dealt"][player])) | set(pairs(showdown["received"][player]))
        expected |= set(pairs(showdown["final"][showdown["shower"]]))
        assert {o.card for o in openings} == expected, player


def test_the_floor_checks_the_whole_deck_and_the_reshuffle_order_against_the_commitment(client, showdown):
    deal = client.get(f"/v1/hands/{showdown['table']}.1", headers=showdown["floor"]).get_json()["deal"]
    assert len(deal["deck"]) == 104 and len(deal["reshuffle_order"]) == 104 and deal["verified"] is True
    assert deal_root(pairs(deal["deck"]) + pairs(deal["reshuffle_order"]),
                     bytes.fromhex(deal["salt"])) == deal["commitment"]
    assert client.get(f"/v1/streams/table-{showdown['table']}/verify", headers=ADMIN).get_json()["ok"] is True


def test_a_caller_asks_to_see_the_second_round_bettors_hand_with_their_own_key(client, showdown):
    table_id, keys = showdown["table"], showdown["keys"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    _, _, bettor = play_to_the_showdown(client, table_id, bet_second_round=True)
    final = seat_cards(client, table_id)
    legal, etag = legal_now(client, table_id)
    assert legal["to_act"] == bettor and legal["legal"]["ask_to_see"] == {"player": bettor}, "the last aggressor shows first"
    caller = next(p for p in showdown["players"] if p != bettor)
    asked = client.post(f"/v1/tables/{table_id}/actions", json={"action": "ask_to_see"},
                        headers={**keys[caller], "If-Match": etag})
    assert asked.status_code == 201, asked.get_json()
    assert [e["type"] for e in asked.get_json()["events"]][:2] == ["ShowAsked", "CardsShown"]
    seats = client.get(f"/v1/tables/{table_id}", headers=showdown["spectator"]).get_json()["seats"]
    assert next(s["cards"] for s in seats if s["player_id"] == bettor) == final[bettor]
    again = client.post(f"/v1/tables/{table_id}/actions", json={"action": "ask_to_see"},
                        headers={**keys[caller], "If-Match": asked.headers["ETag"]})
    assert assert_problem(again, 422, "no_right_to_see")["rule"] == "TDA 2024 18-B"
