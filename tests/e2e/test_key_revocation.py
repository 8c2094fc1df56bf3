"""A key revoked through one gunicorn worker stops working on every worker within a second
(issue 13, "Keys"): each worker remembers keys for api_keys.KEY_CACHE_TTL_S only."""
from __future__ import annotations

import time

import pytest

from service.devserver import gunicorn_workers

pytestmark = pytest.mark.e2e

REVOCATION_DEADLINE_S = 1.0


def test_a_revoked_key_is_refused_by_every_worker_within_a_second(server):
    assert gunicorn_workers() >= 2
    status, issued, _ = server.call("POST", "/v1/keys", {"role": "spectator"}, server.admin)
    assert status == 201, issued
    key = {"Authorization": f"Bearer {issued['key']}"}
    # A new connection each time: SO_REUSEPORT spreads them over the workers, and each
    # worker remembers the key as working.
    for _ in range(40):
        assert server.call("GET", "/v1/tables/none", headers=key)[0] == 404

    status, _, _ = server.call("DELETE", f"/v1/keys/{issued['id']}", headers=server.admin)
    revoked_at = time.monotonic()
    assert status == 200
    answers = []
    while (elapsed := time.monotonic() - revoked_at) < REVOCATION_DEADLINE_S + 1.0:
        status, body, _ = server.call("GET", "/v1/tables/none", headers=key)
        answers.append((elapsed, status, body.get("code")))
    late = [answer for answer in answers if answer[0] >= REVOCATION_DEADLINE_S]
    assert len(late) >= 20
    assert {(status, code) for _, status, code in late} == {(401, "key_revoked")}, late
    last_accepted = max((elapsed for elapsed, status, _ in answers if status != 401), default=0.0)
    print(f"revocation took effect on every worker after {last_accepted:.3f} s "
          f"({len(answers)} requests)")


def test_the_logins_attacks_on_keys_get_401_on_every_worker(server, database_url):
    """Issue 38: the application's login mints an admin key row and tries to un-revoke a
    key; on every worker (a new connection each time, spread by SO_REUSEPORT) the minted
    secret and the revoked one stay 401, and the answers never disagree."""
    import psycopg

    from service.application.api_keys import key_hash, new_secret

    minted = new_secret()
    status, issued, _ = server.call("POST", "/v1/keys", {"role": "spectator"}, server.admin)
    assert status == 201, issued
    assert server.call("DELETE", f"/v1/keys/{issued['id']}", headers=server.admin)[0] == 200
    with psycopg.connect(database_url, autocommit=True) as login:
        login.execute("INSERT INTO api_keys (id, key_hash, role, mac) VALUES (%s, %s, 'admin', %s)",
                      (f"minted-{time.time_ns()}", key_hash(minted), "0" * 64))
        for undo in ("DELETE FROM key_revocations WHERE key_id = %s",
                     "UPDATE api_keys SET role = role WHERE id = %s"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                login.execute(undo, (issued["id"],))
    time.sleep(REVOCATION_DEADLINE_S)
    answers = {(secret, server.call("GET", "/v1/keys", headers={"Authorization": f"Bearer {secret}"})[0])
               for secret in (minted, issued["key"]) for _ in range(40)}
    assert answers == {(minted, 401), (issued["key"], 401)}
