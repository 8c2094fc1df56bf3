"""The insider who reads the database (issue 38, item 4): with the application's own login,
during live hands of hold'em, stud, 2-7 triple draw, five-card draw and Palace Poker, every
row of the table's stream (`data`, `sealed`) and every snapshot of it is read and parsed,
and no card of the deck is found outside the fields declared public (a Palace banner is
dealt face up): hole cards, down cards, palaces, the deck and its orders, the board not
yet dealt. The service
itself still reads them: the floor sees every card, the chain verifies and receipts hold."""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import psycopg
import pytest

from domain import secrecy
from tests.integration.conftest import ADMIN, key_for, register_players
from tests.integration.test_tables_mixed_http import act

pytestmark = pytest.mark.integration

_CARDS = re.compile(r"(?:[2-9TJQKA][cdhs])+")


def _cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value: strings made only of cards (hashes and
    salts are hex, ids and names are not cards, ciphertext carries its prefix)."""
    if isinstance(value, str):
        return {value[i:i + 2] for i in range(0, len(value), 2)} if _CARDS.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(set(), *(_cards_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(_cards_in(v) for v in value))
    return set()


def _public(type_name: str) -> set[str]:
    """The fields a record of this type declares public (Palace Poker's banners are dealt
    face up): the only ones a card may be read in."""
    return {item.name for cls in secrecy.registered().get(type_name, ()) for item in dataclasses.fields(cls)
            if secrecy.declared(cls, item.name) is secrecy.Secrecy.PUBLIC}


def _read_at_rest(database_url: str, table_id: str) -> tuple[int, set[str], set[str]]:
    """(rows read, cards found in the stream's events, cards found in its snapshots), as the
    login sees them."""
    stream = f"table-{table_id}"
    with psycopg.connect(database_url) as login:
        events = login.execute("SELECT type, data::text, sealed::text FROM events WHERE stream_id = %s",
                               (stream,)).fetchall()
        snapshots = login.execute("SELECT body FROM snapshots WHERE stream_id = %s", (stream,)).fetchall()
    in_events: set[str] = set()
    for type_name, data, sealed in events:
        shown = {name: value for name, value in json.loads(data).items() if name not in _public(type_name)}
        in_events |= _cards_in(shown) | (_cards_in(json.loads(sealed)) if sealed else set())
    in_snapshots: set[str] = set()
    for (body,) in snapshots:
        in_snapshots |= _cards_in(body) | (_cards_in(json.loads(body)) if body.startswith(("{", "[")) else set())
    return len(events) + len(snapshots), in_events, in_snapshots


def _table(client, game: str, settings: dict, names: tuple[str, ...]) -> tuple[str, list[str]]:
    players = register_players(client, *names)
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": game, **settings, "seats": [{"player_id": p, "stack": 1000} for p in players]})
    assert created.status_code == 201, created.get_json()
    return created.get_json()["id"], players


def _floor_sees_cards(client, table_id: str) -> set[str]:
    """The cards the floor reads on the table and its events: the service decrypts them."""
    floor = key_for(client, "floor")
    return (_cards_in(client.get(f"/v1/tables/{table_id}", headers=floor).get_json()["seats"])
            | _cards_in(client.get(f"/v1/tables/{table_id}/events", headers=floor).get_json()["events"]))


def _chain_verifies(client, table_id: str, written: Any) -> None:
    verified = client.get(f"/v1/streams/table-{table_id}/verify", headers=ADMIN)
    assert verified.status_code == 200 and verified.get_json()["ok"] is True, verified.get_json()
    for receipt in written.headers.getlist("Cardroom-Receipt"):
        checked = client.post("/v1/receipts/verify", json=json.loads(receipt), headers=ADMIN).get_json()
        assert checked["valid"] is True, checked


GAMES = {
    "holdem": {"betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10}},
    "stud": {"settings": {"small_bet": 10, "ante": 1, "bring_in": 3}},
    "deuce_seven_triple_draw": {"settings": {"small_bet": 10}},
    "five-card-draw": {"settings": {"ante": 5}},
    "palace": {"settings": {"small_bet": 10, "big_bet": 20}},
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_database_login_reads_no_card_of_a_live_hand(client, database_url, game):
    table_id, players = _table(client, game, GAMES[game], tuple(f"Rest{game}{n}" for n in "ABC"))
    dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert dealt.status_code == 201, dealt.get_json()

    rows, in_events, in_snapshots = _read_at_rest(database_url, table_id)
    assert rows >= 5
    assert not in_events | in_snapshots, f"the database shows {sorted(in_events | in_snapshots)} during a live {game} hand"
    # The service still reads every card (three players' hands at least) and its chain.
    assert len(_floor_sees_cards(client, table_id)) >= 6
    _chain_verifies(client, table_id, dealt)


def test_a_closed_hand_leaves_no_card_at_rest_in_its_snapshot_or_the_next_hand(client, database_url):
    table_id, players = _table(client, "holdem", GAMES["holdem"], ("SnapA", "SnapB", "SnapC"))
    keys = {p: key_for(client, "player", p) for p in players}
    written = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    while not written["hand"]["over"]:  # everyone folds to the big blind: nothing is shown
        written = act(client, table_id, keys, written, {"action": "fold"})
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201

    with psycopg.connect(database_url) as login:
        snapshots = login.execute("SELECT count(*) FROM snapshots WHERE stream_id = %s",
                                  (f"table-{table_id}",)).fetchone()[0]
    assert snapshots >= 1  # the state after the first hand's close, which holds its cards
    rows, in_events, in_snapshots = _read_at_rest(database_url, table_id)
    assert not in_snapshots, f"the snapshot of the closed hand shows {sorted(in_snapshots)}"
    assert not in_events, f"the database shows {sorted(in_events)} of a mucked hand or the live one"
    # The floor's audit of the closed hand still shows its deck (revealed, decrypted).
    audited = client.get(f"/v1/hands/{table_id}.1", headers=key_for(client, "floor")).get_json()
    assert len(_cards_in(audited["hand"]["deal"]["deck"])) == 52 and audited["hand"]["deal"]["verified"]
