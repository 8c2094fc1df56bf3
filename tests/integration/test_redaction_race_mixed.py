"""Redaction under a race at a stud table (the pattern of test_redaction_race.py, smaller):
a writer plays an auto-deal stud table while readers of every role poll the read
endpoints. No read may show the deck (MixedDeckCut) or salt of a hand still being played,
nor another player's down card: in stud the first two cards and the seventh are down."""
from __future__ import annotations

import random
import threading

import pytest

from tests.integration.conftest import ADMIN, key_for, register_players
from tests.integration.races import play_table, read_loop, run_race

pytestmark = pytest.mark.integration

READS = 3000
TIME_LIMIT_S = 120
DOWN = (0, 1, 6)  # positions of the down cards in a stud hand


def test_no_read_shows_a_live_stud_hands_deck_or_another_players_down_card(client):
    players = register_players(client, "RaceA", "RaceB", "RaceC")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "stud", "auto_deal": True, "settings": {"small_bet": 2, "ante": 1, "bring_in": 1},
        "seats": [{"player_id": p, "stack": 1_000_000} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    keys = {p: key_for(client, "player", p) for p in players}
    roles = {"floor": key_for(client, "floor"), "spectator": key_for(client, "spectator"),
             **{f"player:{p}": k for p, k in keys.items()}}
    closing_sent: dict[str, float] = {}
    stop = threading.Event()
    errors: list[str] = []

    def choose(allowed: dict, rng: random.Random) -> dict:
        return ({"action": "bring_in"} if allowed.get("bring_in")
                else {"action": "check"} if allowed["check"]
                else {"action": "call"} if rng.random() < 0.8 else {"action": "fold"})

    secrets_seen: list[tuple[str, float, str]] = []
    leaks: list[str] = []
    reads = [0, 0]
    versions = [1]

    def paths(version: int) -> list[str]:
        hand = f"{table_id}.{max(1, version // 25)}"
        return [f"/v1/tables/{table_id}/events?after={max(0, version - 30)}",
                f"/v1/tables/{table_id}", f"/v1/hands/{hand}", f"/v1/hands/{hand}/state"]

    def judge(index: int, role: str, path: str, body: dict, answered: float) -> None:
        secrets_seen.extend((h, answered, path) for h in _secrets(body))
        if role != "floor":
            leaks.extend(f"{role} on {path}: {leak}" for leak in _down_cards(body, role, players))

    def read(index: int) -> None:
        read_loop(client, index, roles, paths, judge, stop, errors, reads, READS, versions)

    run_race(lambda: play_table(client, table_id, keys, choose, stop, errors, closing_sent), read,
             2, reads, READS, TIME_LIMIT_S, stop, errors)

    assert not errors, errors[:5]
    early = [(h, path) for h, answered, path in secrets_seen if h not in closing_sent or answered < closing_sent[h]]
    assert early == [], early[:5]
    assert leaks == [], leaks[:5]
    assert len(closing_sent) > 5 and secrets_seen  # hands closed meanwhile, and were then revealed


def _secrets(body: dict) -> set[str]:
    shown = set()
    for event in body.get("events", ()):
        if event["type"] in ("HandOpened", "MixedDeckCut") and (event["data"].get("salt") or event["data"].get("deck")):
            shown.add(event["hand_id"])
    deal = body.get("deal") or (body.get("hand") or {}).get("deal")
    if isinstance(deal, dict) and (deal.get("salt") or deal.get("deck")):
        shown.add(body.get("id") or body["hand"].get("id"))
    return shown


def _down_cards(body: dict, role: str, players: list[str]) -> list[str]:
    """Another player's down cards in a live hand's seats, or in any dealing event. Nobody
    busts (the stacks are deep), so hand seat k is always table seat k, `players[k]`."""
    own = role.partition(":")[2] or None
    leaks = []
    for event in body.get("events", ()):
        data = event["data"]
        if event["type"] == "CardsDealt" and data["cards"]:
            hidden = [data["cards"][2 * i:2 * i + 2] for i, up in enumerate(data["up"]) if not up]
            if any(card != "??" for card in hidden) and players[data["seat"]] != own:
                leaks.append(f"CardsDealt {data}")
    hand = body.get("hand") or {}
    if body.get("seats") and not hand.get("over"):
        for seat in body["seats"]:
            cards = seat.get("cards") or ""
            if seat["player_id"] != own and any(cards[2 * i:2 * i + 2] not in ("", "??") for i in DOWN):
                leaks.append(f"seat of {seat['player_id']}: {cards}")
    return leaks
