"""The HTTP foundation against a real PostgreSQL: problems, auth, players, keys, health."""
from __future__ import annotations

import hashlib
import secrets

import psycopg
import pytest

from service.adapters.store.postgres import PostgresEventStore
from service.bootstrap import create_app
from service.config import Config
from tests.integration import conftest
from tests.integration.conftest import ADMIN, ADMIN_KEY, key_for

pytestmark = pytest.mark.integration

UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"


@pytest.fixture(scope="module")
def app(database_url, broker_url):
    # Not the shared client's app: /healthz here also checks the broker it is given.
    return create_app(Config(database_url=database_url, broker_url=broker_url, admin_key=ADMIN_KEY))


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def assert_problem(response, status: int, code: str) -> dict:
    """The shared check, plus the members every RFC 9457 problem here must carry."""
    body = conftest.assert_problem(response, status, code)
    assert body["type"] and body["title"]
    return body


def new_player(client, name: str = "Ann") -> str:
    response = client.post("/v1/players", json={"name": name}, headers=ADMIN)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()["id"]


def new_key(client, role: str) -> str:
    """The secret itself (key_for gives only the header): for checking how it is stored."""
    response = client.post("/v1/keys", json={"role": role}, headers=ADMIN)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()["key"]


# --- health ---------------------------------------------------------------------------


def test_healthz_reports_database_and_broker_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    health = response.get_json()
    assert {k: health[k] for k in ("status", "database", "broker")} == {"status": "ok", "database": "ok", "broker": "ok"}
    assert health["database_server"]["in_recovery"] is False


def test_healthz_without_a_broker_is_degraded_but_serving(database_url):
    app = create_app(Config(database_url=database_url, broker_url=UNREACHABLE_BROKER))
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    health = response.get_json()
    assert {k: health[k] for k in ("status", "database", "broker")} == {"status": "degraded", "database": "ok",
                                                                         "broker": "down"}


def test_healthz_without_a_database_is_down_and_503(broker_url):
    response = create_app(Config(broker_url=broker_url)).test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json() == {"status": "down", "database": "down", "broker": "ok", "database_server": None}


def test_livez_answers_without_any_dependency():
    response = create_app(Config()).test_client().get("/livez")
    assert (response.status_code, response.get_json()) == (200, {"status": "ok"})


# --- auth -----------------------------------------------------------------------------


def test_no_key_is_401_with_a_bearer_challenge(client):
    response = client.post("/v1/players", json={"name": "Ann"})
    assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_unknown_key_is_401(client):
    assert_problem(client.get("/v1/players/x", headers=bearer("crd_nope")), 401, "unauthorized")


def test_authentication_comes_before_body_validation(client):
    response = client.post("/v1/players", data="{broken", content_type="application/json")
    assert_problem(response, 401, "unauthorized")


def test_a_spectator_may_not_register_players(client):
    spectator = key_for(client, "spectator")
    body = assert_problem(
        client.post("/v1/players", json={"name": "Bob"}, headers=spectator), 403, "forbidden"
    )
    assert "spectator" in body["detail"]


@pytest.mark.parametrize("role", ["organiser", "floor"])
def test_organisers_and_floor_staff_register_players(client, role):
    staff = key_for(client, role)
    response = client.post("/v1/players", json={"name": "Cy"}, headers=staff)
    assert response.status_code == 201


def test_only_an_admin_issues_keys(client):
    floor = key_for(client, "floor")
    assert_problem(client.post("/v1/keys", json={"role": "floor"}, headers=floor), 403, "forbidden")


def test_a_player_key_acts_for_its_player_and_reads_players(client):
    player_id = new_player(client, "Dee")
    player = key_for(client, "player", player_id)
    response = client.get(f"/v1/players/{player_id}", headers=player)
    assert response.get_json() == {"id": player_id, "name": "Dee"}
    assert_problem(
        client.post("/v1/players", json={"name": "Eve"}, headers=player), 403, "forbidden"
    )


def test_a_player_key_needs_a_registered_player(client):
    response = client.post("/v1/keys", json={"role": "player", "player_id": "ghost"}, headers=ADMIN)
    assert_problem(response, 422, "unknown_player")


def test_a_player_key_needs_a_player_id_and_other_roles_refuse_one(client):
    body = assert_problem(client.post("/v1/keys", json={"role": "player"}, headers=ADMIN), 400, "validation_error")
    assert [e["field"] for e in body["errors"]] == ["player_id"]
    response = client.post("/v1/keys", json={"role": "floor", "player_id": "p"}, headers=ADMIN)
    assert_problem(response, 400, "validation_error")


def test_keys_are_stored_only_as_sha256_hashes(client, database_url):
    key = new_key(client, "organiser")
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT key_hash, role FROM api_keys").fetchall()
        dumped = conn.execute("SELECT string_agg(t::text, '') FROM api_keys t").fetchone()[0]
    assert (hashlib.sha256(key.encode()).hexdigest(), "organiser") in rows
    assert key not in dumped
    assert len(key) >= 40  # 32 random bytes, url-safe


# --- players --------------------------------------------------------------------------


def test_registering_a_player_appends_player_registered_at_version_1(client, app):
    player_id = new_player(client, "  Fay ")
    events = app.extensions["cardroom"].store.read_stream(f"player-{player_id}")
    assert [(e.version, e.type, dict(e.data)) for e in events] == [
        (1, "PlayerRegistered", {"player_id": player_id, "name": "Fay"})
    ]
    assert events[0].metadata["actor"] == "admin"


def test_a_retry_with_the_same_idempotency_key_registers_nobody_new(client, app):
    headers = {**ADMIN, "Idempotency-Key": secrets.token_hex(8)}
    first = client.post("/v1/players", json={"name": "Gus"}, headers=headers)
    retry = client.post("/v1/players", json={"name": "Gus"}, headers=headers)
    assert first.status_code == retry.status_code == 201
    assert first.get_json() == retry.get_json()
    store: PostgresEventStore = app.extensions["cardroom"].store
    assert store.stream_version(f"player-{first.get_json()['id']}") == 1


def test_an_unknown_player_is_404(client):
    assert_problem(client.get("/v1/players/nobody", headers=ADMIN), 404, "not_found")


def test_a_blank_name_is_refused_at_validation(client):
    body = assert_problem(client.post("/v1/players", json={"name": " \u3000 "}, headers=ADMIN), 400, "validation_error")
    assert "name: must not be blank" in body["detail"]


# --- bad input never reaches PostgreSQL ------------------------------------------------


def test_a_nul_in_the_body_is_400(client):
    body = assert_problem(client.post("/v1/players", json={"name": "A\u0000"}, headers=ADMIN), 400, "validation_error")
    assert body["errors"][0]["field"] == "name"


def test_a_nul_in_the_path_is_400(client):
    assert_problem(client.get("/v1/players/a%00b", headers=ADMIN), 400, "validation_error")


def test_a_nul_in_the_query_is_400(client):
    assert_problem(client.get("/v1/players/a?x=%00", headers=ADMIN), 400, "validation_error")
    assert_problem(client.get("/v1/players/a?x%00y=1", headers=ADMIN), 400, "validation_error")


def test_a_percent_sign_before_00_is_not_a_nul(client):
    # "%2500" decodes to the text "%00": no NUL, so the request gets as far as its view.
    assert_problem(client.get("/v1/players/a?x=%2500", headers=ADMIN), 404, "not_found")


def test_a_form_body_is_415(client):
    response = client.post("/v1/players", data={"name": "Ann"}, headers=ADMIN)
    assert_problem(response, 415, "unsupported_media_type")


def test_malformed_json_is_400(client):
    response = client.post("/v1/players", data='{"name": ', content_type="application/json", headers=ADMIN)
    assert_problem(response, 400, "validation_error")


def test_deeply_nested_json_is_400_not_a_crash(client):
    body = '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = client.post("/v1/players", data=body, content_type="application/json", headers=ADMIN)
    assert_problem(response, 400, "validation_error")


def test_a_body_over_one_mebibyte_is_413(client):
    body = '{"name": "' + "x" * (1024 * 1024) + '"}'
    response = client.post("/v1/players", data=body, content_type="application/json", headers=ADMIN)
    assert_problem(response, 413, "payload_too_large")


def test_a_wrong_method_is_405_with_allow(client):
    response = client.delete("/v1/players", headers=ADMIN)
    assert_problem(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"]


def test_an_unknown_route_is_404_problem(client):
    assert_problem(client.get("/v2/everything"), 404, "not_found")


def test_an_overlong_idempotency_key_is_400(client):
    headers = {**ADMIN, "Idempotency-Key": "k" * 201}
    assert_problem(client.post("/v1/players", json={"name": "Hal"}, headers=headers), 400, "validation_error")
