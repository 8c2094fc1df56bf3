"""Receipts: every write's answer carries a `Cardroom-Receipt` per stream it appended to
(stream, version, hash, MAC under the chain key), and `POST /v1/receipts/verify` tells any
caller whether the log still reaches it. A forger with the database's superuser who
removes the tail, rewrites an event or drops a stream is shown up by a receipt kept."""
from __future__ import annotations

import json

import psycopg
import pytest

from tests.integration.conftest import ADMIN, key_for
from tests.integration.test_forgeries import _rewrite
from tests.integration.test_tables_http import new_player, new_table, version_of

pytestmark = pytest.mark.integration


def receipts_of(response) -> list[dict]:
    return [json.loads(text) for text in response.headers.getlist("Cardroom-Receipt")]


def checked(client, receipt: dict, headers: dict) -> dict:
    response = client.post("/v1/receipts/verify", json=receipt, headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


@pytest.fixture
def played(client):
    """A table with a hand dealt and two actions; the last action's receipt."""
    players = [new_player(client, name) for name in ("Ann", "Bob")]
    table_id = new_table(client, [p for p, _ in players])
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    for (_, headers), action in zip(players, ("call", "check")):
        answer = client.post(f"/v1/tables/{table_id}/actions", json={"action": action},
                             headers={**headers, "If-Match": str(version_of(client, table_id))})
        assert answer.status_code == 201, answer.get_data(as_text=True)
    (receipt,) = receipts_of(answer)
    return table_id, receipt


@pytest.fixture
def spectator(client) -> dict:
    return key_for(client, "spectator")


def test_a_receipt_from_a_real_write_verifies_for_any_role(client, played, spectator):
    table_id, receipt = played
    assert receipt["stream"] == f"table-{table_id}"
    assert receipt["version"] == version_of(client, table_id)
    store = client.application.extensions["cardroom"].store
    assert store.signer.valid(receipt["stream"], receipt["version"], receipt["hash"], receipt["mac"])
    assert checked(client, receipt, spectator) == {
        "valid": True, "reason": None, "detail": None, "stream": receipt["stream"],
        "version": receipt["version"], "head_version": receipt["version"]}


def test_every_write_answers_a_receipt_of_each_stream_it_appended_to(client):
    created = client.post("/v1/players", json={"name": "Cy"}, headers=ADMIN)
    (receipt,) = receipts_of(created)
    assert (receipt["stream"], receipt["version"]) == (f"player-{created.get_json()['id']}", 1)
    refused = client.post("/v1/players", json={"name": ""}, headers=ADMIN)
    assert refused.status_code == 400 and receipts_of(refused) == []


@pytest.mark.parametrize("field, value", [
    ("hash", "0" * 64), ("version", 1), ("mac", "f" * 64), ("stream", "table-elsewhere")])
def test_a_receipt_changed_in_any_field_does_not_verify(client, played, spectator, field, value):
    _, receipt = played
    result = checked(client, {**receipt, field: value}, spectator)
    assert (result["valid"], result["reason"]) == (False, "mac_wrong")


def test_after_the_superuser_removes_the_tail_the_receipt_shows_the_forgery(
        client, played, spectator, admin_database_url):
    table_id, receipt = played
    assert receipt["version"] > 3
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("DELETE FROM events WHERE stream_id = %s AND version > 3", (receipt["stream"],))
    result = checked(client, receipt, spectator)
    assert (result["valid"], result["reason"], result["head_version"]) == (False, "version_beyond_head", 3)
    assert "removed" in result["detail"]


def test_a_rewritten_event_at_the_receipts_version_is_a_hash_that_differs(
        client, played, spectator, admin_database_url):
    _, receipt = played
    _rewrite(admin_database_url, receipt["stream"], [(receipt["version"], "ActionTaken", {"forged": 1})])
    result = checked(client, receipt, spectator)
    assert (result["valid"], result["reason"]) == (False, "hash_differs")


def test_an_event_edited_before_the_receipts_version_breaks_the_chain_it_proves(
        client, played, spectator, admin_database_url):
    _, receipt = played
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("UPDATE events SET data = '{\"forged\": 2}' WHERE stream_id = %s AND version = 2",
                         (receipt["stream"],))
    result = checked(client, receipt, spectator)
    assert (result["valid"], result["reason"]) == (False, "chain_broken")
    assert result["detail"].startswith("version 2:")


def test_a_receipt_of_a_stream_the_log_no_longer_holds_is_an_unknown_stream(
        client, played, spectator, admin_database_url):
    _, receipt = played
    with psycopg.connect(admin_database_url) as intruder:
        intruder.execute("SET session_replication_role = replica")
        intruder.execute("DELETE FROM events WHERE stream_id = %s", (receipt["stream"],))
    result = checked(client, receipt, spectator)
    assert (result["valid"], result["reason"], result["head_version"]) == (False, "unknown_stream", 0)


def test_a_receipt_needs_its_four_fields(client, spectator):
    response = client.post("/v1/receipts/verify", json={"stream": "table-x", "version": 0}, headers=spectator)
    assert response.status_code == 400
    assert client.post("/v1/receipts/verify", json={}).status_code == 401
