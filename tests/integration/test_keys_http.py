"""API keys (api.md "Auth"): issued with an id and shown once, listed (admin, never the
secret), revoked (admin any key, a player their own); a revoked key is a 401 `key_revoked`."""
from __future__ import annotations

import time

import pytest

from service.http.api_keys import KEY_CACHE_TTL_S
from tests.integration.conftest import ADMIN, assert_problem, register_players

pytestmark = pytest.mark.integration


def issue(client, role: str, player_id: str | None = None) -> dict:
    body = {"role": role, **({"player_id": player_id} if player_id else {})}
    issued = client.post("/v1/keys", json=body, headers=ADMIN)
    assert issued.status_code == 201, issued.get_data(as_text=True)
    return issued.get_json()


def bearer(issued: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {issued['key']}"}


def works(client, issued: dict) -> int:
    """The status of an authenticated read with the key (404: authenticated, no such table)."""
    return client.get("/v1/tables/no-such-table", headers=bearer(issued)).status_code


def test_an_issued_key_has_an_id_and_its_secret_is_shown_only_then(client):
    issued = issue(client, "floor")
    assert set(issued) == {"id", "key", "role", "player_id", "created_at", "revoked_at"}
    assert (issued["role"], issued["player_id"], issued["revoked_at"]) == ("floor", None, None)

    listed = client.get("/v1/keys?limit=1000", headers=ADMIN).get_json()
    mine = [key for key in listed["keys"] if key["id"] == issued["id"]]
    assert mine == [{k: v for k, v in issued.items() if k != "key"}]
    assert issued["key"] not in str(listed)


def test_keys_are_listed_in_pages_in_the_order_they_were_issued(client):
    ids = [issue(client, "spectator")["id"] for _ in range(5)]
    seen, after = [], None
    while True:
        response = client.get("/v1/keys?limit=2" + (f"&after={after}" if after else ""), headers=ADMIN)
        if response.status_code == 429:  # two at a time through every key the suite issued
            time.sleep(float(response.headers["Retry-After"]))
            continue
        assert response.status_code == 200, response.get_data(as_text=True)
        page = response.get_json()
        assert len(page["keys"]) <= 2
        seen += [key["id"] for key in page["keys"]]
        after = page["next"]
        if after is None:
            break
    assert [i for i in seen if i in ids] == ids
    assert len(seen) == len(set(seen))


def test_only_an_admin_lists_keys(client):
    assert_problem(client.get("/v1/keys", headers=bearer(issue(client, "organiser"))), 403, "forbidden")


def test_a_revoked_key_is_a_401_key_revoked_and_revoking_again_keeps_the_first_time(client):
    issued = issue(client, "spectator")
    assert works(client, issued) == 404
    revoked = client.delete(f"/v1/keys/{issued['id']}", headers=ADMIN)
    assert revoked.status_code == 200, revoked.get_data(as_text=True)
    assert revoked.get_json()["revoked_at"] is not None

    time.sleep(KEY_CACHE_TTL_S)
    problem = assert_problem(client.get("/v1/tables/x", headers=bearer(issued)), 401, "key_revoked")
    assert "revoked" in problem["detail"]
    again = client.delete(f"/v1/keys/{issued['id']}", headers=ADMIN)
    assert again.get_json()["revoked_at"] == revoked.get_json()["revoked_at"]


def test_a_player_revokes_their_own_keys_and_no_one_elses(client):
    ann, bob = register_players(client, "Ann", "Bob")
    ann_old, ann_new, bob_key = issue(client, "player", ann), issue(client, "player", ann), issue(client, "player", bob)

    assert_problem(client.delete(f"/v1/keys/{bob_key['id']}", headers=bearer(ann_new)), 403, "forbidden")
    assert client.delete(f"/v1/keys/{ann_old['id']}", headers=bearer(ann_new)).status_code == 200
    time.sleep(KEY_CACHE_TTL_S)
    assert works(client, ann_old) == 401
    assert works(client, ann_new) == works(client, bob_key) == 404


@pytest.mark.parametrize("role", ["organiser", "floor", "spectator"])
def test_other_roles_revoke_no_key(client, role):
    target = issue(client, "spectator")
    assert_problem(client.delete(f"/v1/keys/{target['id']}", headers=bearer(issue(client, role))), 403, "forbidden")


def test_revoking_an_unknown_key_is_a_404(client):
    assert_problem(client.delete("/v1/keys/no-such-key", headers=ADMIN), 404, "not_found")
