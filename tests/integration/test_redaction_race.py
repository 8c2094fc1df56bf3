"""Redaction under a race: writers deal and act on an auto-deal table while readers of
every role poll every read endpoint. No read may show the deck or salt of a hand that was
still being played, nor a hole card its caller may not see.

The bug this guards against: GET /v1/tables/{id}/events decided which hand was live in one
read and read the log in a second; a hand dealt in between came back with its deck and
salt. Now the store reveals sealed fields only of hands whose HandClosed it reads in the
same statement (service.sealing).

A secret of hand H seen by a read that answered before the request that closed H was even
sent is a certain leak; reads that overlap the closing request are not judged (either
answer is right there).
"""
from __future__ import annotations

import json
import random
import threading
import time
from collections import defaultdict

import pytest

from tests.integration.conftest import ADMIN, key_for, register_players

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

    def play() -> None:
        rng = random.Random(1)
        while not stop.is_set():
            looked = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
            legal = looked.get_json()
            player = legal["to_act"]
            if player is None:
                errors.append(f"the table stopped dealing: {legal}")
                return
            allowed = legal["legal"]
            action = ({"action": "check"} if allowed["check"]
                      else {"action": "call"} if rng.random() < 0.8 or not allowed["fold"]
                      else {"action": "fold"})
            sent = time.monotonic()
            answer = client.post(f"/v1/tables/{table_id}/actions", json=action,
                                 headers={**keys[player], "If-Match": looked.headers["ETag"]})
            if answer.status_code == 409:
                continue
            if answer.status_code != 201:
                errors.append(f"{action} -> {answer.status_code} {answer.get_data(as_text=True)}")
                return
            for event in answer.get_json()["events"]:
                if event["type"] == "HandClosed":
                    closing_sent[event["data"]["hand_id"]] = sent

    seen_secret: list[tuple[str, float, str, str]] = []  # (hand, answered at, role, path)
    card_leaks: list[str] = []
    reads = [0] * READERS
    live_reads = [0] * READERS
    versions = [1]

    def read(index: int) -> None:
        rng = random.Random(index)
        while not stop.is_set() and sum(reads) < READS:
            role = rng.choice(list(roles))
            version = versions[-1]
            hand = f"{table_id}.{max(1, (version - 3) // 9)}"
            path = rng.choice([
                f"/v1/tables/{table_id}/events?after={max(0, version - 30)}",
                f"/v1/tables/{table_id}/events?after={max(0, version - 3)}",
                f"/v1/tables/{table_id}",
                f"/v1/hands/{hand}",
                f"/v1/hands/{hand}/state",
                f"/v1/tables/{table_id}/legal-actions",
            ])
            response = client.get(path, headers=roles[role])
            answered = time.monotonic()
            reads[index] += 1
            if response.status_code == 404:  # a hand number guessed ahead of the table
                continue
            if response.status_code != 200:
                errors.append(f"{path} as {role}: {response.status_code}")
                return
            body = response.get_json()
            secrets, live = _secrets_shown(body)
            live_reads[index] += live
            seen_secret.extend((h, answered, role, path) for h in secrets)
            card_leaks.extend(f"{role} on {path}: {leak}" for leak in _cards_not_theirs(body, role))
            if "ETag" in response.headers:
                versions.append(max(versions[-1], int(response.headers["ETag"].strip('"').split(".")[0])))

    threads = [threading.Thread(target=play)] + [
        threading.Thread(target=read, args=(i,)) for i in range(READERS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    while sum(reads) < READS and time.monotonic() - started < TIME_LIMIT_S and not errors:
        time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join()

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
