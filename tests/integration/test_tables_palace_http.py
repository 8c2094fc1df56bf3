"""Palace Poker tables over HTTP: settings validated, palace cards seen by their owner only."""
from __future__ import annotations

import pytest

from domain.live.games.palace import PALACE_DECK
from domain.rules import deal_commitment
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players
from tests.integration.test_floor_pages_http import sign_in

pytestmark = pytest.mark.integration


def _table_with_a_hand(client, players: list[str]) -> str:
    """A Palace table (small bet 10, big bet 20, 200 chips a seat) with its first hand dealt."""
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "seats": [{"player_id": p, "stack": 200} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    return table_id


def test_palace_settings_need_the_bets(client):
    player, other = register_players(client, "X", "Y")
    refused = client.post("/v1/tables", headers=ADMIN, json={"game": "palace", "settings": {"small_bet": 10},
                                                             "seats": [{"player_id": player, "stack": 100},
                                                                       {"player_id": other, "stack": 100}]})
    assert_problem(refused, 422, "invalid_settings")


def test_palace_takes_its_stakes_as_the_betting_description_every_table_shows(client):
    """README "Changelog": Palace's structure and bets may come as `betting`, and its view
    shows them there, as every table's does; both ways at once, they must agree."""
    player, other = register_players(client, "X", "Y")
    seats = [{"player_id": player, "stack": 100}, {"player_id": other, "stack": 100}]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "betting": {"structure": "no-limit", "small_bet": 10, "big_bet": 20}, "seats": seats})
    assert created.status_code == 201, created.get_data(as_text=True)
    betting = client.get(f"/v1/tables/{created.get_json()['id']}", headers=ADMIN).get_json()["betting"]
    assert (betting["structure"], betting["small_bet"], betting["big_bet"], betting["min_bet"]) == \
        ("no-limit", 10, 20, 10)
    assert_problem(client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "betting": {"small_bet": 5}, "seats": seats}), 422, "invalid_betting")
    assert_problem(client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "betting": {"min_bet": 20}, "seats": seats}), 422, "invalid_betting")


def test_a_player_sees_their_own_palace_and_nobody_elses(client):
    players = register_players(client, *"ABC")
    table_id = _table_with_a_hand(client, players)
    palaces = {s["player_id"]: s["cards"] for s in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]}
    assert all(cards and len(cards) == 6 for cards in palaces.values())
    viewer = players[0]
    headers = key_for(client, "player", viewer)
    seen = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()
    assert {s["player_id"]: s["cards"] for s in seen["seats"]} == {p: (palaces[p] if p == viewer else None) for p in players}
    for event in client.get(f"/v1/tables/{table_id}/events", headers=headers).get_json()["events"]:
        if event["type"] == "PalaceCardsDealt" and event["data"]["player"] != viewer:
            assert event["data"]["cards"] is None
        if event["type"] == "PalaceDeckShuffled":
            assert event["data"]["order"] is None
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    assert legal.get_json()["legal"]["stay"] is True
    stay = client.post(f"/v1/tables/{table_id}/actions", json={"action": "stay"},
                       headers={**key_for(client, "player", legal.get_json()["to_act"]), "If-Match": legal.headers["ETag"]})
    assert stay.status_code == 201 and stay.get_json()["events"][0]["type"] == "Stayed"


def test_a_seat_without_chips_is_refused_naming_the_player_and_the_stack(client):
    player, other = register_players(client, "Stackless Sam", "Stackless Sue")
    refused = client.post("/v1/tables", headers=ADMIN, json={
        "game": "palace", "settings": {"small_bet": 10, "big_bet": 20},
        "seats": [{"player_id": player}, {"player_id": other}]})
    problem = assert_problem(refused, 422, "invalid_table")
    assert problem["detail"] == "seat of Stackless Sam needs a stack (or settings.starting_chips) above 0"
    assert problem["numbers"] == {"player_id": player, "player_name": "Stackless Sam", "stack": None}


def test_the_discard_pile_lies_face_down_for_the_players(client):
    # palace-poker.md: the discard pile is face down; everyone sees its size. A folded
    # palace goes there and stays hidden from the others (the floor sees the cards).
    players = register_players(client, "Pile A", "Pile B", "Pile C")
    table_id = _table_with_a_hand(client, players)
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    folder = legal.get_json()["to_act"]
    folded = client.post(f"/v1/tables/{table_id}/actions", json={"action": "fold"},
                         headers={**key_for(client, "player", folder), "If-Match": legal.headers["ETag"]})
    assert folded.status_code == 201, folded.get_json()
    pile = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["hand"]["discard_pile"]
    assert len(pile) == 4 and "??" not in pile
    other = next(p for p in players if p != folder)
    for headers in (key_for(client, "player", other), key_for(client, "spectator")):
        seen = client.get(f"/v1/tables/{table_id}", headers=headers).get_json()["hand"]["discard_pile"]
        assert seen == ["??"] * 4
        assert client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["hand"]["discard_pile"] == ["??"] * 4


# The fields of a closed Palace hand's events that only the floor and admin read: every
# order the deal was drawn from, and the secret behind the per-card salts.
FLOOR_ONLY_ORDERS = {"PalaceDeckCut": ("deck", "banner_reshuffle_order", "palace_order", "reshuffle_order"),
                     "PalaceDeckShuffled": ("order",), "HandOpened": ("salt",)}


def _act_as(client, table_id: str, action: str, **body) -> None:
    """The player to act does `action` with their own key."""
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    acted = client.post(f"/v1/tables/{table_id}/actions", json={"action": action, **body},
                        headers={**key_for(client, "player", legal.get_json()["to_act"]), "If-Match": legal.headers["ETag"]})
    assert acted.status_code == 201, acted.get_json()


def test_after_a_battle_each_player_opens_only_the_cards_they_saw(client):
    # service.md "Provably fair deals, without exposing mucked cards": A attacks B, B calls
    # and the loser's palace goes face down; C never saw either palace, and C's proof of
    # the deal must not show them.
    players = register_players(client, "Proof A", "Proof B", "Proof C")
    table_id = _table_with_a_hand(client, players)
    palaces = {s["player_id"]: s["cards"] for s in client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]}
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
    attacker, defender = legal["to_act"], legal["legal"]["attack"]["options"][0]["defender"]
    onlooker = next(p for p in players if p not in (attacker, defender))
    _act_as(client, table_id, "attack", defender=defender)
    _act_as(client, table_id, "call")
    while not client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()["over"]:
        phase = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["round"]
        _act_as(client, table_id, *(("discard",) if phase == "discarding" else ("fold",)),
                **({"discard": []} if phase == "discarding" else {}))

    floor_history = client.get(f"/v1/hands/{table_id}.1", headers=key_for(client, "floor")).get_json()
    floor = floor_history["deal"]
    cut = next(e for e in floor_history["events"] if e["type"] == "PalaceDeckCut")
    assert all(cut["data"][name] for name in FLOOR_ONLY_ORDERS["PalaceDeckCut"])
    assert floor["scheme"] == deal_commitment.SCHEME and floor["verified"] is True and floor["salt"]
    order = [floor["palace_order"][i:i + 2] for i in range(0, 104, 2)]
    at = {p: {PALACE_DECK + order.index(cards[i:i + 2]) for i in range(0, 6, 2)} for p, cards in palaces.items()}
    saw = {attacker: at[attacker] | at[defender], defender: at[attacker] | at[defender], onlooker: at[onlooker]}
    every_palace = set().union(*at.values())
    for player in players:
        headers = key_for(client, "player", player)
        deal = client.get(f"/v1/hands/{table_id}.1", headers=headers).get_json()["deal"]
        assert deal["commitment"] == floor["commitment"] and deal["verified"] is True
        assert deal["deck"] is None and deal["palace_order"] is None and deal["salt"] is None
        for opened in deal["openings"]:
            proof = deal_commitment.Opening(opened["position"], opened["card"], opened["salt"],
                                            tuple(tuple(step) for step in opened["path"]))
            assert deal_commitment.verify_opening(proof, floor["commitment"])
        assert {o["position"] for o in deal["openings"]} & every_palace == saw[player], player
        for event in client.get(f"/v1/tables/{table_id}/events", headers=headers).get_json()["events"]:
            for name in FLOOR_ONLY_ORDERS.get(event["type"], ()):
                assert event["data"][name] is None, event
    replayer = client.application.test_client()
    sign_in(replayer, key_for(client, "floor"))
    page = replayer.get(f"/floor/hands/{table_id}.1").get_data(as_text=True)
    assert "the deck and the salt match the commitment" in page
