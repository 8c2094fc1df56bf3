"""The anchor of bench/action_cost.py (bench/_anchor.py) does the durable work it is
measured for, and refuses what Cardroom refuses: an action is two events chained by
SHA-256 at the expected version, its answer kept under its Idempotency-Key in the same
commit; a retry is the first answer again, a key reused for another body, a stale
version, a wrong key or an invalid body write nothing."""
from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from bench import _anchor

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def anchor(admin_database_url: str) -> Iterator[tuple[Any, list[str], str]]:
    from bench.store import _scratch_database

    with _scratch_database(admin_database_url, "_anchor_test") as url:
        keys = _anchor.install(url, 2)
        pool = ConnectionPool(url, min_size=1, max_size=2, kwargs={"autocommit": True}, open=False)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_anchor, "pool", pool)
            yield _anchor.app.test_client(), keys, url
        pool.close()


def _headers(secret: str, version: int, key: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}", "If-Match": f'"{version}"',
            "Idempotency-Key": key or str(uuid.uuid4())}


def _rows(url: str, table: str) -> list[tuple]:
    with psycopg.connect(url) as connection:
        return connection.execute("SELECT type, data::text, hash FROM anchor_events WHERE stream_id = %s "
                                  "ORDER BY version", (table,)).fetchall()


def test_an_action_appends_two_events_chained_by_sha256_and_answers_the_new_version(anchor: Any) -> None:
    client, keys, url = anchor
    table = f"t-{uuid.uuid4()}"
    first = client.post(f"/v1/tables/{table}/actions", json={"action": "call"}, headers=_headers(keys[0], 0))
    second = client.post(f"/v1/tables/{table}/actions", json={"action": "raise", "to": 300},
                         headers=_headers(keys[1], 2))
    assert (first.status_code, first.headers["ETag"]) == (201, '"2"')
    assert (second.status_code, second.get_json()["version"]) == (201, 4)
    chained = b""
    for type_, data, stored in _rows(url, table):
        canonical = _anchor._canonical(json.loads(data))
        chained = hashlib.sha256(chained + type_.encode() + canonical.encode()).digest()
        assert stored == chained
    assert second.get_json()["hash"] == chained.hex()


def test_a_retry_is_the_first_answer_and_a_reused_key_or_stale_version_writes_nothing(anchor: Any) -> None:
    client, keys, url = anchor
    table, key = f"t-{uuid.uuid4()}", str(uuid.uuid4())
    first = client.post(f"/v1/tables/{table}/actions", json={"action": "check"}, headers=_headers(keys[0], 0, key))
    again = client.post(f"/v1/tables/{table}/actions", json={"action": "check"}, headers=_headers(keys[0], 0, key))
    assert (again.status_code, again.data, again.headers["Idempotent-Replayed"]) == (201, first.data, "true")
    reused = client.post(f"/v1/tables/{table}/actions", json={"action": "fold"}, headers=_headers(keys[0], 2, key))
    stale = client.post(f"/v1/tables/{table}/actions", json={"action": "fold"}, headers=_headers(keys[0], 0))
    assert (reused.status_code, stale.status_code, stale.get_json()["version"]) == (422, 409, 2)
    assert len(_rows(url, table)) == 2


@pytest.mark.parametrize(("body", "secret", "status"), [
    ({"action": "bet"}, None, 422), ({"action": "shove"}, None, 422), ({"action": "call", "x": 1}, None, 422),
    ({"action": "call"}, "not-a-key", 401)])
def test_a_refused_request_writes_nothing(anchor: Any, body: dict, secret: str | None, status: int) -> None:
    client, keys, url = anchor
    table = f"t-{uuid.uuid4()}"
    refused = client.post(f"/v1/tables/{table}/actions", json=body, headers=_headers(secret or keys[0], 0))
    assert refused.status_code == status
    assert _rows(url, table) == []


def test_a_revoked_key_is_refused_once_the_cache_asks_again(anchor: Any) -> None:
    client, keys, url = anchor
    table = f"t-{uuid.uuid4()}"
    assert client.post(f"/v1/tables/{table}/actions", json={"action": "call"},
                       headers=_headers(keys[1], 0)).status_code == 201
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("INSERT INTO anchor_revocations (key_id) VALUES ('key-1')")
    time.sleep(_anchor.KEY_CACHE_TTL_S + 0.1)
    refused = client.post(f"/v1/tables/{table}/actions", json={"action": "call"}, headers=_headers(keys[1], 2))
    assert refused.status_code == 401
    assert len(_rows(url, table)) == 2
