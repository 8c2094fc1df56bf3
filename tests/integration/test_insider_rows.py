"""The insider with the application's own database login (issue 38, "Keys are the
application's to forge"), and a superuser after them: a key row minted in SQL, a floor
session opened in SQL, a revocation undone, an idempotency answer changed or deleted. Each
is refused, and the forged rows are reported (log, /metrics, GET /v1/status)."""
from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from pathlib import Path

import psycopg
import pytest

from service.http.api_keys import key_hash, new_secret
from tests.integration.conftest import ADMIN, assert_problem, printed_status
from tests.integration.test_pages_http import session_cookie, sign_in

pytestmark = pytest.mark.integration


@pytest.fixture
def as_login(database_url):
    """The application's own login, as an insider holding its password uses it."""
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


@pytest.fixture
def as_superuser(admin_database_url):
    with psycopg.connect(admin_database_url, autocommit=True) as connection:
        yield connection


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def refused_rows(client) -> list[dict[str, str]]:
    status = client.get("/v1/status", headers=ADMIN)
    assert status.status_code == 200, status.get_data(as_text=True)
    return status.get_json()["refused_rows"]


def refused_count(client, table: str) -> float:
    for line in client.get("/metrics").get_data(as_text=True).splitlines():
        if line.startswith(f'cardroom_rows_refused_total{{table="{table}"}}'):
            return float(line.split()[-1])
    return 0.0


def forget_known_keys(client) -> None:
    """As a process started afresh (a restarted worker): every key is looked up again."""
    client.application.extensions["cardroom"].keys._known.clear()


def issue(client, role: str = "spectator", **headers: str) -> dict:
    issued = client.post("/v1/keys", json={"role": role}, headers={**ADMIN, **headers})
    assert issued.status_code == 201, issued.get_data(as_text=True)
    return issued.get_json()


def test_an_admin_key_row_minted_by_the_login_is_refused_and_reported(client, as_login, caplog, database_url,
                                                                        monkeypatch):
    before = refused_count(client, "api_keys")
    minted = {str(uuid.uuid4()): mac for mac in (None, "0" * 64)}  # no MAC, and one made up
    for key_id, mac in minted.items():
        secret = new_secret()  # ids as the application issues them
        as_login.execute("INSERT INTO api_keys (id, key_hash, role, mac) VALUES (%s, %s, 'admin', %s)",
                         (key_id, key_hash(secret), mac))
        assert_problem(client.get("/v1/keys", headers=bearer(secret)), 401, "unauthorized")
        assert f"refused a row of api_keys (key {key_id})" in caplog.text
    assert refused_count(client, "api_keys") >= before + 2
    assert all({"table": "api_keys", "row": key_id} in refused_rows(client) for key_id in minted)
    listed = [key["id"] for key in client.get("/v1/keys?limit=1000", headers=ADMIN).get_json()["keys"]]
    assert not set(minted) & set(listed)  # the admin's list shows only keys the service issued
    # The client's chain key is the working directory's data folder's, as the command line's here.
    printed = printed_status(database_url, Path(".data"), monkeypatch)
    assert all(f"refused row of api_keys: {key_id}" in printed for key_id in minted)


def test_keys_page_past_a_minted_row_whatever_its_id(client, as_login):
    """Ids are the service's UUIDs, but a row from an old database or one minted in SQL can
    carry any text: the list leaves a minted row out and still pages past it."""
    first = issue(client)
    as_login.execute("INSERT INTO api_keys (id, key_hash, role, mac) VALUES (%s, %s, 'admin', NULL)",
                     (f"minted-{uuid.uuid4()}", key_hash(new_secret())))
    last = issue(client)
    seen, after = [], first["id"]
    while after is not None:
        page = client.get(f"/v1/keys?limit=1&after={after}", headers=ADMIN)
        assert page.status_code == 200, page.get_data(as_text=True)
        seen += [key["id"] for key in page.get_json()["keys"]]
        after = page.get_json()["next"]
    assert last["id"] in seen and not any(key_id.startswith("minted-") for key_id in seen)


def test_a_key_row_changed_by_a_superuser_is_refused(client, as_superuser):
    issued = issue(client, "spectator")
    assert client.get("/v1/tables/none", headers=bearer(issued["key"])).status_code == 404
    as_superuser.execute("UPDATE api_keys SET role = 'admin' WHERE id = %s", (issued["id"],))
    forget_known_keys(client)
    assert_problem(client.get("/v1/keys", headers=bearer(issued["key"])), 401, "unauthorized")
    assert {"table": "api_keys", "row": issued["id"]} in refused_rows(client)


def test_a_revocation_can_be_added_by_the_login_but_never_changed_or_removed(client, as_login):
    issued = issue(client, "floor")
    assert client.delete(f"/v1/keys/{issued['id']}", headers=ADMIN).status_code == 200
    for undo in ("DELETE FROM key_revocations WHERE key_id = %(id)s",
                 "UPDATE key_revocations SET key_id = 'elsewhere' WHERE key_id = %(id)s",
                 "TRUNCATE key_revocations"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            as_login.execute(undo, {"id": issued["id"]})
    with pytest.raises(psycopg.errors.UndefinedColumn):  # where a revocation used to be undone
        as_login.execute("UPDATE api_keys SET revoked_at = NULL WHERE id = %s", (issued["id"],))
    forget_known_keys(client)
    assert_problem(client.get("/v1/tables/none", headers=bearer(issued["key"])), 401, "key_revoked")


def test_a_revocation_the_login_inserts_still_refuses_its_key_and_is_reported(client, as_login):
    """Failing closed: a revocation without the service's MAC cannot be told from one
    whose MAC was damaged, and un-revoking is the worse mistake."""
    issued = issue(client, "spectator")
    as_login.execute("INSERT INTO key_revocations (key_id) VALUES (%s)", (issued["id"],))
    forget_known_keys(client)
    assert_problem(client.get("/v1/tables/none", headers=bearer(issued["key"])), 401, "key_revoked")
    assert {"table": "key_revocations", "row": issued["id"]} in refused_rows(client)


def test_a_floor_session_inserted_by_the_login_opens_nothing(client, as_login):
    floor = issue(client, "floor")
    session_id = secrets.token_urlsafe(32)
    as_login.execute(
        "INSERT INTO page_sessions (id_hash, key_id, role, csrf_token, expires_at)"
        " VALUES (%s, %s, 'floor', 'csrf', now() + interval '1 hour')",
        (hashlib.sha256(session_id.encode()).hexdigest(), floor["id"]))
    client.set_cookie("cardroom_session", session_id)
    assert "signed in" not in client.get("/").get_data(as_text=True)
    assert client.get("/floor/rulings").status_code == 302  # asked to sign in
    assert {"table": "page_sessions", "row": f"session of key {floor['id']}"} in refused_rows(client)


def test_a_session_changed_by_a_superuser_opens_nothing(client, as_superuser):
    spectator = issue(client, "spectator")
    sign_in(client, spectator["key"])
    assert "signed in: spectator" in client.get("/").get_data(as_text=True)
    as_superuser.execute("UPDATE page_sessions SET role = 'floor' WHERE key_id = %s", (spectator["id"],))
    assert "signed in" not in client.get("/").get_data(as_text=True)
    assert session_cookie(client) is not None  # the browser still sends it: it opens nothing


def test_a_stored_answer_cannot_be_changed_or_deleted_by_the_login_and_a_retry_answers_the_first(
        client, as_login):
    idempotency_key = f"issue-{uuid.uuid4()}"
    first = issue(client, "spectator", **{"Idempotency-Key": idempotency_key})
    for attack in ("UPDATE idempotency_records SET status = 500 WHERE key = %(key)s",
                   "DELETE FROM idempotency_records WHERE key = %(key)s",
                   "TRUNCATE idempotency_records"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            as_login.execute(attack, {"key": idempotency_key})
    # The owner's function may be called, and removes nothing still live, whatever it is asked.
    # (It may remove records of other tests that have expired: the count is not this one's.)
    as_login.execute("SELECT idempotency_records_remove_expired(owner, key, 'infinity', 1000)"
                     "  FROM idempotency_records WHERE key = %s", (idempotency_key,))
    assert as_login.execute("SELECT count(*) FROM idempotency_records WHERE key = %s",
                            (idempotency_key,)).fetchone() == (1,)
    again = client.post("/v1/keys", json={"role": "spectator"},
                        headers={**ADMIN, "Idempotency-Key": idempotency_key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first["id"], "one key issued, not two"


def test_an_answer_changed_by_a_superuser_is_refused_not_replayed(client, as_superuser):
    idempotency_key = f"issue-{uuid.uuid4()}"
    first = issue(client, "spectator", **{"Idempotency-Key": idempotency_key})
    forged = first | {"role": "admin"}
    as_superuser.execute("UPDATE idempotency_records SET body = %s WHERE key = %s",
                         (json.dumps(forged).encode(), idempotency_key))
    again = client.post("/v1/keys", json={"role": "spectator"},
                        headers={**ADMIN, "Idempotency-Key": idempotency_key})
    assert_problem(again, 409, "idempotency_record_refused")
    assert "admin" not in again.get_data(as_text=True)
    assert any(row["table"] == "idempotency_records" and idempotency_key in row["row"]
               for row in refused_rows(client))


# ------------------------------------------------------------------ the followers' checkpoints


@pytest.fixture
def signed_tracking():
    from service.adapters.row_macs import RowSigner
    from service.adapters.store.base import ChainSigner
    from service.adapters.store.trackings import PostgresTracking

    return PostgresTracking(RowSigner(ChainSigner(b"t" * 32), "process_trackings"))


def test_a_checkpoint_moved_by_the_login_stops_the_follower_instead_of_skipping_events(
        postgres_store, signed_tracking, as_login, client):
    from service.adapters.store.base import Checkpoint
    from service.adapters.store.trackings import TrackingRefused

    name = f"follower-{uuid.uuid4().hex[:8]}"
    with postgres_store.transaction():
        assert signed_tracking.claim(name) == Checkpoint(0, 0)
        signed_tracking.move(name, Checkpoint(0, 5))
    with postgres_store.transaction():
        assert signed_tracking.claim(name) == Checkpoint(0, 5)
    as_login.execute("UPDATE process_trackings SET position = 1000000000 WHERE name = %s", (name,))
    with pytest.raises(TrackingRefused), postgres_store.transaction():
        signed_tracking.claim(name)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        as_login.execute("INSERT INTO process_trackings_unsigned VALUES (%s, '0', 1000000000)", (name,))
    assert {"table": "process_trackings", "row": f"follower {name}"} in refused_rows(client)


def test_a_checkpoint_from_before_macs_is_taken_as_it_stood_then_and_signed_by_its_next_move(
        postgres_store, signed_tracking, as_login, as_superuser):
    from service.adapters.store.base import Checkpoint
    from service.adapters.store.trackings import TrackingRefused

    name = f"follower-{uuid.uuid4().hex[:8]}"
    # As migration 0016 found it: written unsigned, and copied to process_trackings_unsigned.
    as_superuser.execute("INSERT INTO process_trackings (name, transaction_id, position) VALUES (%s, '7', 3)", (name,))
    as_superuser.execute("INSERT INTO process_trackings_unsigned VALUES (%s, '7', 3)", (name,))
    with postgres_store.transaction():
        assert signed_tracking.claim(name) == Checkpoint(7, 3)
    as_login.execute("UPDATE process_trackings SET position = 4 WHERE name = %s", (name,))
    with pytest.raises(TrackingRefused), postgres_store.transaction():
        signed_tracking.claim(name)  # unsigned, and not as it stood
    as_login.execute("UPDATE process_trackings SET position = 3 WHERE name = %s", (name,))
    with postgres_store.transaction():
        signed_tracking.claim(name)
        signed_tracking.move(name, Checkpoint(7, 9))
    as_login.execute("UPDATE process_trackings SET position = 3, mac = NULL WHERE name = %s", (name,))
    with postgres_store.transaction():  # back to where it stood at the migration: a replay, not a skip
        assert signed_tracking.claim(name) == Checkpoint(7, 3)
