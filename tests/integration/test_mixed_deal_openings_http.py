"""The mixed games' deals are committed card by card (service.md "Provably fair deals,
without exposing mucked cards"): when a stud or Omaha hi-lo hand is over, a player who
folded keeps their down cards to themselves. Another player and a spectator find them on
no endpoint (the table, the hand, its state, the events, the PHH export); the floor gets
the whole deck and the secret; everyone's openings verify against the hand's root."""
from __future__ import annotations

import re
from typing import Any

import pytest

from domain.rules.deal_commitment import Opening, deal_root, verify_opening
from tests.integration.conftest import ADMIN, key_for, register_players
from tests.integration.test_tables_mixed_http import act, play_out

pytestmark = pytest.mark.integration

SETTINGS = {"stud": {"small_bet": 10, "ante": 1, "bring_in": 3}, "omaha_hi_lo": {"small_bet": 10}}
_CARDS = re.compile(r"(?:[2-9TJQKA][cdhs])+")


def _cards(text: str | None) -> list[str]:
    return [] if not text else [text[i:i + 2] for i in range(0, len(text), 2)]


def _cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value: strings made only of cards (hashes and
    salts are hex, names are words, so neither reads as cards)."""
    if isinstance(value, str):
        return set(_cards(value)) if _CARDS.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(*(_cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    return set()


def _everything_read(client, table_id: str, hand_id: str, headers: dict) -> set[str]:
    """Every card the caller can read about the hand, on every endpoint."""
    seen = set()
    for path in (f"/v1/tables/{table_id}", f"/v1/hands/{hand_id}", f"/v1/hands/{hand_id}/state",
                 f"/v1/tables/{table_id}/events"):
        response = client.get(path, headers=headers)
        assert response.status_code == 200, (path, response.get_json())
        seen |= _cards_in(response.get_json())
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=headers)
    assert exported.status_code == 200, exported.get_json()
    seen |= {card for token in re.split(r"[^0-9A-Za-z?]+", exported.get_data(as_text=True))
             if _CARDS.fullmatch(token) for card in _cards(token)}
    return seen


def _play_with_one_fold(client, table_id: str, keys: dict, written: dict) -> str:
    """The first player who may fold (not on the bring-in) folds; the others bring in,
    check or call to the end. Returns who folded."""
    written = play_out(client, table_id, keys, written,
                       until=lambda w: w["legal"]["fold"] and not w["legal"].get("bring_in"))
    folded = written["to_act"]
    assert folded is not None
    written = play_out(client, table_id, keys, act(client, table_id, keys, written, {"action": "fold"}))
    assert written["hand"]["over"]
    return folded


def _down_cards(floor_events: list[dict], names: list[str], player: str) -> set[str]:
    down = set()
    for event in floor_events:
        data = event["data"]
        if event["type"] == "CardsDealt" and names[data["seat"]] == player:
            up = data["up"] or []
            down |= {card for i, card in enumerate(_cards(data["cards"])) if not (i < len(up) and up[i])}
    return down


def _check_openings(deal: dict) -> set[str]:
    """The openings a viewer gets, each checked against the root; the cards they open."""
    assert deal["deck"] is None and deal["salt"] is None
    opened = set()
    for raw in deal["openings"]:
        opening = Opening(raw["position"], raw["card"], raw["salt"], tuple(tuple(step) for step in raw["path"]))
        assert verify_opening(opening, deal["commitment"])
        opened.add(raw["card"])
    return opened


@pytest.mark.parametrize("game", sorted(SETTINGS))
def test_a_folded_players_down_cards_stay_theirs_after_the_hand(client, game):
    players = register_players(client, f"Muck{game}A", f"Muck{game}B", f"Muck{game}C")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": game, "settings": SETTINGS[game], "seats": [{"player_id": p, "stack": 300} for p in players]})
    assert created.status_code == 201, created.get_json()
    table_id = created.get_json()["id"]
    written = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    hand_id = written["hand"]["id"]
    keys = {p: key_for(client, "player", p) for p in players}
    folded = _play_with_one_fold(client, table_id, keys, written)

    floor = key_for(client, "floor")
    names = client.get(f"/v1/hands/{hand_id}", headers=floor).get_json()["hand"]["players"]
    floor_events = client.get(f"/v1/tables/{table_id}/events", headers=floor).get_json()["events"]
    down = _down_cards(floor_events, names, folded)
    assert len(down) == (2 if game == "stud" else 4)
    other = next(p for p in players if p != folded)
    for who, headers in (("spectator", key_for(client, "spectator")), (other, keys[other])):
        leaked = _everything_read(client, table_id, hand_id, headers) & down
        assert not leaked, f"{who} reads {folded}'s folded down cards {sorted(leaked)}"
    # The folded player still checks their own cards; the floor checks the whole deal.
    mine = client.get(f"/v1/hands/{hand_id}", headers=keys[folded]).get_json()["hand"]["deal"]
    assert down <= _check_openings(mine)
    spectators = client.get(f"/v1/hands/{hand_id}", headers=key_for(client, "spectator")).get_json()["hand"]
    assert set(_cards(spectators["board"])) <= _check_openings(spectators["deal"])
    audited = client.get(f"/v1/hands/{hand_id}", headers=floor).get_json()["hand"]["deal"]
    assert down <= set(_cards(audited["deck"])) and audited["verified"] is True
    assert deal_root(tuple(_cards(audited["deck"])), bytes.fromhex(audited["salt"])) == audited["commitment"]
