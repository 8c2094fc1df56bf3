"""Redaction under a race: writers deal and act on an auto-deal table while readers of
every role poll every read endpoint. No read may show the deck or salt of a hand that was
still being played, nor a hole card its caller may not see.

The bug this guards against: GET /v1/tables/{id}/events decided which hand was live in one
read and read the log in a second; a hand dealt in between came back with its deck and
salt. Now the store reveals sealed fields only of hands whose HandClosed it reads in the
same statement (service.application.sealing).

A secret of hand H seen by a read that answered before the request that closed H was even
sent is a certain leak; reads that overlap the closing request are not judged (either
answer is right there).
"""
from __future__ import annotations

import json
import random
import threading
from collections import defaultdict

import pytest

from tests.integration.conftest import ADMIN, key_for, register_players
from tests.integration.races import play_table, read_loop, run_race

pytestmark = pytest.mark.integration

READS = 50_000
READERS = 4
TIME_LIMIT_S = 240


def test_no_read_of_any_role_shows_a_live_hands_secrets_or_anothers_cards(client):
    players = register_players(client, "Ann", "Bob", "Cat")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "auto_deal": True,
        "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
        "seats": [{"player_id": p, "stack": 1_000_000} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    keys = {p: key_for(client, "player", p) for p in players}
    roles = {"admin": ADMIN, "floor": key_for(client, "floor"),
             "spectator": key_for(client, "spectator"), **{f"player:{p}": k for p, k in keys.items()}}

    closing_sent: dict[str, float] = {}  # hand id -> when the request that closed it was sent
    stop = threading.Event()
    errors: list[str] = []

    def choose(allowed: dict, rng: random.Random) -> dict:
        return ({"action": "check"} if allowed["check"]
                else {"action": "call"} if rng.random() < 0.8 or not allowed["fold"]
                else {"action": "fold"})

    seen_secret: list[tuple[str, float, str, str]] = []  # (hand, answered at, role, path)
    card_leaks: list[str] = []
    reads = [0] * READERS
    live_reads = [0] * READERS
    versions = [1]

    def paths(version: int) -> list[str]:
        hand = f"{table_id}.{max(1, (version - 3) // 9)}"
        return [f"/v1/tables/{table_id}/events?after={max(0, version - 30)}",
                f"/v1/tables/{table_id}/events?after={max(0, version - 3)}",
                f"/v1/tables/{table_id}",
                f"/v1/hands/{hand}",
                f"/v1/hands/{hand}/state",
                f"/v1/tables/{table_id}/legal-actions"]

    def judge(index: int, role: str, path: str, body: dict, answered: float) -> None:
        secrets, live = _secrets_shown(body)
        live_reads[index] += live
        seen_secret.extend((h, answered, role, path) for h in secrets)
        card_leaks.extend(f"{role} on {path}: {leak}" for leak in _cards_not_theirs(body, role))

    def read(index: int) -> None:
        read_loop(client, index, roles, paths, judge, stop, errors, reads, READS, versions)

    run_race(lambda: play_table(client, table_id, keys, choose, stop, errors, closing_sent), read,
             READERS, reads, READS, TIME_LIMIT_S, stop, errors)

    assert not errors, errors[:5]
    assert sum(reads) >= READS, f"only {sum(reads)} reads in {TIME_LIMIT_S} s"
    leaks = [(h, role, path) for h, answered, role, path in seen_secret
             if h not in closing_sent or answered < closing_sent[h]]
    assert leaks == [], f"{len(leaks)} reads showed a live hand's deck or salt: {leaks[:5]}"
    assert card_leaks == [], card_leaks[:5]
    # The race was really run: reads saw hands in play and hands closed meanwhile.
    assert sum(live_reads) > 1000 and len(closing_sent) > 20 and seen_secret


def _secrets_shown(body: dict) -> tuple[set[str], int]:
    """Hands whose deck or salt this answer shows, and how many hidden (live) ones it saw."""
    shown: set[str] = set()
    live = 0
    for event in body.get("events", ()):
        if event["type"] in ("HandOpened", "HandStarted"):
            secret = event["data"].get("salt") or event["data"].get("deck")
            if secret:
                shown.add(event["hand_id"])
            else:
                live += 1
    deal = body.get("deal") or (body.get("hand") or {}).get("deal")
    if isinstance(deal, dict) and (deal.get("salt") or deal.get("deck")):
        shown.add(body.get("id") or body["hand"].get("id"))
    return shown, live


def _cards_not_theirs(body: dict, role: str) -> list[str]:
    """Hole cards in the answer that a spectator or player may not see: a spectator none,
    a player one HoleCardsDealt per hand (their own) and no other seat's cards."""
    if role in ("admin", "floor"):
        return []
    leaks = []
    dealt = defaultdict(int)
    for event in body.get("events", ()):
        if event["type"] == "HoleCardsDealt" and event["data"].get("cards"):
            dealt[event["hand_id"]] += 1
    allowed = 0 if role == "spectator" else 1
    leaks += [f"{n} hands of hole cards in {h}" for h, n in dealt.items() if n > allowed]
    own = role.partition(":")[2] or None
    for seat in body.get("seats", ()):
        if seat.get("cards") and seat.get("player_id") != own:
            leaks.append(f"seat of {seat.get('player_id')}: {json.dumps(seat['cards'])}")
    return leaks
