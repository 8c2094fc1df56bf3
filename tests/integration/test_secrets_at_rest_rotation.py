"""Rotating the data key on a live room (issue 38: `cardroom data-key new`): a hand played
under the first key, the key rotated, the app restarted on the new ring, a second hand
played. Both hands read as before by every role; the second hand's rows are sealed under
the new key alone (the old one does not open them), and a host still on the old ring
refuses the table with a 409 naming the key it lacks, never a 500. Nothing stored changes:
the chain verifies across the rotation."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from service.adapters.store.cipher import KEY_ID_HEX, PREFIX, DataKeyMissing, FieldCipher, SecretUnreadable, key_id
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, key_for, register_players
from tests.integration.test_tables_mixed_http import act

pytestmark = pytest.mark.integration

HOLDEM = {"game": "holdem", "betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10}}


def _app(database_url: str, data_dir: Path) -> Any:
    """An app started on this data directory's key ring (a restart: nothing cached)."""
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY, data_dir=data_dir)).test_client()


def _hole_cards_seen(client: Any, table_id: str, headers: dict[str, str]) -> dict[tuple[str, int], str | None]:
    """(hand id, seat) -> the hole cards these headers' role reads in the table's events."""
    events = client.get(f"/v1/tables/{table_id}/events", headers=headers).get_json()["events"]
    return {(e["hand_id"], e["data"]["seat"]): e["data"]["cards"] for e in events if e["type"] == "HoleCardsDealt"}


def _cardroom(data_dir: Path, monkeypatch: pytest.MonkeyPatch, *arguments: str) -> Any:
    """`cardroom <arguments>` run on a host whose data directory is `data_dir`."""
    from service.cli.main import main

    monkeypatch.delenv("CARDROOM_DATA_KEY", raising=False)
    monkeypatch.delenv("CARDROOM_DATA_KEYS_OLD", raising=False)
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(data_dir))
    return CliRunner().invoke(main, list(arguments))


def test_a_rotated_key_seals_the_next_hand_and_both_hands_read_for_every_role(
        own_database: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database_url = own_database[1]  # the app's login; its own database, so every stored value is counted
    data_dir = tmp_path / "host"
    before = _app(database_url, data_dir)
    old_key = bytes.fromhex((data_dir / "data-key").read_text().strip())
    players = register_players(before, "RotA", "RotB", "RotC")
    table_id = before.post("/v1/tables", headers=ADMIN, json={
        **HOLDEM, "seats": [{"player_id": p, "stack": 1000} for p in players]}).get_json()["id"]
    keys = {p: key_for(before, "player", p) for p in players}
    written = before.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).get_json()
    while not written["hand"]["over"]:  # folded to the big blind: no card is shown
        written = act(before, table_id, keys, written, {"action": "fold"})

    printed = _cardroom(data_dir, monkeypatch, "data-key", "new")
    assert printed.exit_code == 0, printed.output
    new_key = bytes.fromhex((data_dir / "data-key").read_text().strip())
    assert f"data key {key_id(new_key)} now seals new secrets" in printed.output
    assert (data_dir / "data-keys" / key_id(old_key)).read_text().strip() == old_key.hex()

    assert before.get("/v1/status", headers=ADMIN).get_json()["data_keys"] == {
        "sealing": key_id(old_key), "retired": []}  # a process not restarted keeps its ring
    after = _app(database_url, data_dir)
    assert after.get("/v1/status", headers=ADMIN).get_json()["data_keys"] == {
        "sealing": key_id(new_key), "retired": [key_id(old_key)]}
    status = _cardroom(data_dir, monkeypatch, "--database-url", database_url, "status")
    assert status.exit_code == 0, status.output
    assert (f"data key sealing new secrets: {key_id(new_key)}; retired keys it opens with: {key_id(old_key)}"
            in " ".join(status.output.split()))
    dealt = after.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert dealt.status_code == 201, dealt.get_json()
    first, second = f"{table_id}.1", f"{table_id}.2"

    # Every role reads both hands as it did before the rotation.
    floor = _hole_cards_seen(after, table_id, key_for(after, "floor"))
    assert {hand for hand, _ in floor} == {first, second} and all(floor.values()) and len(floor) == 6
    assert not any(_hole_cards_seen(after, table_id, key_for(after, "spectator")).values())
    seat_of = {p: seat for seat, p in enumerate(players)}
    for player, headers in keys.items():
        seen = _hole_cards_seen(after, table_id, headers)
        assert {place: cards for place, cards in seen.items() if cards} == {
            (hand, seat_of[player]): floor[hand, seat_of[player]] for hand in (first, second)}
    audited = after.get(f"/v1/hands/{first}", headers=key_for(after, "floor")).get_json()["hand"]["deal"]
    assert len(audited["deck"]) == 52 * 2 and audited["verified"]  # the first hand's deck, opened by the old key
    verified = after.get(f"/v1/streams/table-{table_id}/verify", headers=ADMIN).get_json()
    assert verified["ok"] is True, verified  # the chain over the stored ciphertext: untouched

    # At rest: the first hand under the old key, the second under the new one, which the old does not open.
    sealed_under = _sealing_keys(database_url, table_id)
    assert sealed_under[first] == {key_id(old_key)} and sealed_under[second] == {key_id(new_key)}
    stream, version, place, text = _a_sealed_value(database_url, table_id, second)
    with pytest.raises(DataKeyMissing, match=key_id(new_key)):
        FieldCipher(old_key).decrypt(text, stream, version, place)
    with pytest.raises(SecretUnreadable):  # nor do its bytes, told they are the old key's
        FieldCipher(old_key).decrypt(text.replace(key_id(new_key), key_id(old_key), 1), stream, version, place)

    # A host still on the old ring alone refuses the table, naming the key it lacks.
    stale = tmp_path / "stale-host"
    stale.mkdir()
    for name in ("chain-key", "data-key"):
        (stale / name).write_text(old_key.hex() + "\n" if name == "data-key" else (data_dir / name).read_text())
    refused = _app(database_url, stale).get(f"/v1/tables/{table_id}", headers=ADMIN)
    problem = assert_problem(refused, 409, "integrity_failure")
    assert key_id(new_key) in problem["detail"] and old_key.hex() not in json.dumps(problem)

    # `cardroom data-key list` counts what each key sealed, and says which key a host lacks.
    listed = _cardroom(data_dir, monkeypatch, "data-key", "list", "--database-url", database_url, "--json")
    assert listed.exit_code == 0, listed.output
    counted = {k["key"]: (k["ring"], k["sealed_values"]) for k in json.loads(listed.output)}
    assert set(counted) == {key_id(new_key), key_id(old_key)}
    # Each hand's deck and three players' hole cards at least; the old key also the snapshots between.
    assert counted[key_id(new_key)][0] == "current (seals)" and counted[key_id(new_key)][1] >= 4
    assert counted[key_id(old_key)][0] == "retired (opens only)" and counted[key_id(old_key)][1] >= 4
    lacking = _cardroom(stale, monkeypatch, "data-key", "list", "--database-url", database_url)
    assert lacking.exit_code == 1 and f"{key_id(new_key)} │ NOT IN THE RING" in lacking.output


def _sealing_keys(database_url: str, table_id: str) -> dict[str, set[str]]:
    """hand id -> the ids of the keys its stored secrets were sealed under."""
    with psycopg.connect(database_url) as login:
        rows = login.execute("SELECT metadata->>'hand_id', data, sealed FROM events WHERE stream_id = %s",
                             (f"table-{table_id}",)).fetchall()
    found: dict[str, set[str]] = {}
    for hand_id, data, sealed in rows:
        ids = {value[len(PREFIX):len(PREFIX) + KEY_ID_HEX] for value in [*data.values(), *(sealed or {}).values()]
               if isinstance(value, str) and value.startswith(PREFIX)}
        if hand_id and ids:
            found.setdefault(hand_id, set()).update(ids)
    return found


def _a_sealed_value(database_url: str, table_id: str, hand_id: str) -> tuple[str, int, str, str]:
    """(stream, version, place, stored text) of a hole-card field of the hand."""
    with psycopg.connect(database_url) as login:
        stream, version, cards = login.execute(
            "SELECT stream_id, version, data->>'cards' FROM events WHERE stream_id = %s AND type = 'HoleCardsDealt' "
            "AND metadata->>'hand_id' = %s LIMIT 1", (f"table-{table_id}", hand_id)).fetchone()
    return stream, version, "data.cards", cards
