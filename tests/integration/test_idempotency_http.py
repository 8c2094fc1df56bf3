"""Idempotency-Key over HTTP on a real PostgreSQL, as payments APIs do it
(service.http.api.writes): a key belongs to the API key that sent it; the same key and request
answer the first answer again (its status, `Idempotent-Replayed: true`) and write nothing;
the same key with another method, path or body is a 422 `idempotency_key_reused` that
writes nothing; of concurrent requests with one key exactly one runs; records expire."""
from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from service.adapters.store.base import utc_now
from service.application.api_keys import MASTER_KEY_ID
from service.bootstrap import create_app
from service.config import Config
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, key_for, register_player
from tests.integration.test_tables_http import new_player, new_table, version_of
from tests.integration.test_tournaments_http import running, schedule

pytestmark = pytest.mark.integration

RACERS = 20


def keyed(headers: dict, key: str | None = None) -> dict:
    return {**headers, "Idempotency-Key": key or "k-" + secrets.token_hex(8)}


def written(postgres_pool) -> tuple[int, int, int]:
    """What the database holds: events, API keys, idempotency records."""
    with postgres_pool.connection() as connection:
        return connection.execute(
            "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM api_keys),"
            "       (SELECT count(*) FROM idempotency_records)").fetchone()


def assert_replayed(client, postgres_pool, method: str, path: str, json=None, headers=ADMIN, **kwargs):
    """Send the request twice with one key: the second answers the first answer and writes
    nothing. Returns the first answer."""
    headers = keyed(headers)
    first = client.open(path, method=method, json=json, headers=headers, **kwargs)
    assert 200 <= first.status_code < 300, first.get_data(as_text=True)
    before = written(postgres_pool)
    again = client.open(path, method=method, json=json, headers=headers, **kwargs)
    assert written(postgres_pool) == before
    assert (again.status_code, again.get_data()) == (first.status_code, first.get_data())
    assert again.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    for name in ("Content-Type", "Location", "ETag"):
        assert again.headers.get(name) == first.headers.get(name)
    assert again.headers.getlist("Cardroom-Receipt") == first.headers.getlist("Cardroom-Receipt")
    return first


@pytest.fixture
def seated(client):
    players = [new_player(client, name) for name in ("Ann", "Bob")]
    table_id = new_table(client, [p for p, _ in players])
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    return table_id, players


def act(client, table_id: str, headers: dict, action: dict):
    return client.post(f"/v1/tables/{table_id}/actions", json=action,
                       headers={**headers, "If-Match": str(version_of(client, table_id))})


# --- the rules ------------------------------------------------------------------------

def test_a_retried_create_answers_its_first_201_again_and_writes_nothing(client, postgres_pool):
    first = assert_replayed(client, postgres_pool, "POST", "/v1/players", {"name": "Ida"})
    assert first.status_code == 201


def test_every_create_endpoint_replays_its_first_answer(client, postgres_pool, seated):
    table_id, players = seated
    player = register_player(client, "Joe")
    assert_replayed(client, postgres_pool, "POST", "/v1/tables", {
        "game": "holdem", "settings": {}, "betting": {"structure": "no-limit", "small_blind": 1, "big_blind": 2},
        "seats": [{"player_id": p, "stack": 100} for p, _ in players]})
    assert_replayed(client, postgres_pool, "POST", f"/v1/tables/{table_id}/actions", {"action": "call"},
                    {**players[0][1], "If-Match": str(version_of(client, table_id))})
    assert_replayed(client, postgres_pool, "POST", f"/v1/tables/{table_id}/absences", {},
                    players[1][1])
    tournament_id = schedule(client, starts_in_s=3600)
    assert_replayed(client, postgres_pool, "POST", f"/v1/tournaments/{tournament_id}/registrations",
                    {"player_id": player})
    running_id, names = running(client, 2, late_registration_until_level=1, rebuy_price=100,
                                rebuys_allowed=3, add_on_price=50, add_on_chips=100)
    assert_replayed(client, postgres_pool, "POST", f"/v1/tournaments/{running_id}/rebuys", {"player_id": names[0]})
    assert_replayed(client, postgres_pool, "POST", f"/v1/tournaments/{running_id}/add-ons", {"player_id": names[1]})
    assert_replayed(client, postgres_pool, "POST", f"/v1/tournaments/{running_id}/clock/pause", {})
    phh = ('variant = "NT"\nante_trimming_status = true\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\n'
           'min_bet = 2\nstarting_stacks = [200, 200]\nactions = ["d dh p1 AcAd", "d dh p2 KcKd", '
           '"p2 f"]\nplayers = ["A", "B"]\n')
    assert_replayed(client, postgres_pool, "POST", "/v1/hand-histories?store=true", data=phh,
                    content_type="application/toml")


def test_every_write_route_goes_through_the_idempotency_layer(client):
    """A key too long is refused by the layer before the view runs: so every POST and
    DELETE route of the API reaches it, including any added later (admin may call each).
    The pages' forms are not API writes: a browser sends no Idempotency-Key, and their
    POSTs are guarded by the session and its CSRF token instead (test_pages_http)."""
    routes = [rule for rule in client.application.url_map.iter_rules()
              if {"POST", "DELETE"} & set(rule.methods or ()) and not rule.endpoint.startswith("pages.")]
    assert len(routes) > 30
    for rule in routes:
        path = rule.rule
        for argument in rule.arguments:
            path = path.replace(f"<string:{argument}>", "x").replace(f"<int:{argument}>", "1")
        for method in {"POST", "DELETE"} & set(rule.methods):
            response = client.open(path, method=method, json={},
                                   headers={**ADMIN, "Idempotency-Key": "k" * 201})
            body = assert_problem(response, 400, "validation_error")
            assert body["errors"][0]["field"] == "Idempotency-Key", (method, path)


def test_an_empty_key_is_refused_rather_than_taken_for_no_key(client, postgres_pool):
    # Found by trying: an empty Idempotency-Key wrote, and its retry wrote a second player.
    before = written(postgres_pool)
    for _ in range(2):
        response = client.post("/v1/players", json={"name": "Ann"}, headers={**ADMIN, "Idempotency-Key": ""})
        body = assert_problem(response, 400, "validation_error")
        assert body["errors"][0]["field"] == "Idempotency-Key"
    assert written(postgres_pool) == before


def test_a_raise_retried_with_another_amount_is_a_422_and_writes_nothing(client, postgres_pool, seated):
    table_id, players = seated
    headers = keyed({**players[0][1], "If-Match": str(version_of(client, table_id))})
    path = f"/v1/tables/{table_id}/actions"
    first = client.post(path, json={"action": "raise", "to": 300}, headers=headers)
    assert first.status_code == 201, first.get_data(as_text=True)
    before = written(postgres_pool)
    other = client.post(path, json={"action": "raise", "to": 900}, headers=headers)
    problem = assert_problem(other, 422, "idempotency_key_reused")
    assert (problem["numbers"]["first_method"], problem["numbers"]["first_path"], problem["numbers"]["differs"]) == ("POST", path, ["body"])
    assert written(postgres_pool) == before


def test_the_same_key_on_another_path_or_method_is_a_422(client, postgres_pool):
    headers = keyed(ADMIN)
    assert client.post("/v1/players", json={"name": "Kim"}, headers=headers).status_code == 201
    before = written(postgres_pool)
    problem = assert_problem(client.post("/v1/tables", json={"name": "Kim"}, headers=headers),
                             422, "idempotency_key_reused")
    assert (problem["numbers"]["first_method"], problem["numbers"]["first_path"]) == ("POST", "/v1/players")
    assert problem["numbers"]["differs"] == ["path"]
    problem = assert_problem(client.delete("/v1/keys/x", headers=headers), 422, "idempotency_key_reused")
    assert problem["numbers"]["method"] == "DELETE" and "method" in problem["numbers"]["differs"]
    assert written(postgres_pool) == before


def test_two_players_checking_with_one_key_are_both_recorded(client, seated):
    """The attack: the opponent's check must not be dropped as a retry of mine."""
    table_id, players = seated
    key = "same-" + secrets.token_hex(4)
    assert act(client, table_id, keyed(players[0][1], key), {"action": "call"}).status_code == 201
    version = version_of(client, table_id)
    second = act(client, table_id, keyed(players[1][1], key), {"action": "check"})
    assert second.status_code == 201, second.get_data(as_text=True)
    assert "Idempotent-Replayed" not in second.headers
    assert version_of(client, table_id) > version
    assert [e["type"] for e in second.get_json()["events"]][0] == "ActionTaken"


def test_two_organisers_registering_with_one_key_both_register(client):
    """Tournament writes too: a key is the caller's, never the stream's."""
    tournament_id = schedule(client, starts_in_s=3600)
    key = "reg-" + secrets.token_hex(4)
    for player in (register_player(client, "Pia"), register_player(client, "Quin")):
        answer = client.post(f"/v1/tournaments/{tournament_id}/registrations", json={"player_id": player},
                             headers=keyed(key_for(client, "organiser"), key))
        assert answer.status_code == 201 and "Idempotent-Replayed" not in answer.headers
    shown = client.get(f"/v1/tournaments/{tournament_id}", headers=ADMIN).get_json()
    assert shown["version"] == 3


def test_a_refused_request_keeps_no_record_so_a_corrected_one_may_use_the_key(client, seated):
    table_id, players = seated
    headers = keyed({**players[0][1], "If-Match": str(version_of(client, table_id))})
    path = f"/v1/tables/{table_id}/actions"
    assert_problem(client.post(path, json={"action": "raise", "to": 101}, headers=headers), 422,
                   "raise_below_minimum")
    assert client.post(path, json={"action": "raise", "to": 300}, headers=headers).status_code == 201


def test_twenty_racing_requests_with_one_key_write_once(client, postgres_pool, seated):
    table_id, players = seated
    headers = keyed({**players[0][1], "If-Match": str(version_of(client, table_id))})
    version = version_of(client, table_id)
    start = threading.Barrier(RACERS)

    def race(_: int):
        own = client.application.test_client()
        start.wait(10)
        return own.post(f"/v1/tables/{table_id}/actions", json={"action": "raise", "to": 300},
                        headers=headers)

    with ThreadPoolExecutor(RACERS) as pool:
        answers = list(pool.map(race, range(RACERS)))
    ran = [a for a in answers if a.status_code == 201]
    busy = [a for a in answers if a.status_code == 409]
    assert len(ran) + len(busy) == RACERS, [a.get_data(as_text=True) for a in answers]
    assert ran and all(a.get_data() == ran[0].get_data() for a in ran)
    assert len([a for a in ran if "Idempotent-Replayed" not in a.headers]) == 1
    for refused in busy:
        assert_problem(refused, 409, "idempotency_request_in_progress")
        assert refused.headers["Retry-After"] == "1"
    assert version_of(client, table_id) == version + 1


def test_a_request_while_another_with_its_key_runs_is_a_409_with_retry_after(client):
    store = client.application.extensions["cardroom"].store
    key, held, release = "busy-" + secrets.token_hex(4), threading.Event(), threading.Event()

    def running_request() -> None:
        with store.transaction():
            store.claim_key(MASTER_KEY_ID, key, utc_now())
            held.set()
            release.wait(10)

    runner = threading.Thread(target=running_request)
    runner.start()
    try:
        assert held.wait(10)
        response = client.post("/v1/players", json={"name": "Lou"}, headers=keyed(ADMIN, key))
        assert_problem(response, 409, "idempotency_request_in_progress")
        assert response.headers["Retry-After"] == "1"
    finally:
        release.set()
        runner.join(10)
    assert client.post("/v1/players", json={"name": "Lou"}, headers=keyed(ADMIN, key)).status_code == 201


def test_records_expire_after_the_window(database_url, postgres_pool):
    app = create_app(Config(database_url=database_url, admin_key=ADMIN_KEY, idempotency_window_s=1))
    client = app.test_client()
    headers = keyed(ADMIN)
    first = client.post("/v1/players", json={"name": "May"}, headers=headers)
    assert client.post("/v1/players", json={"name": "May"}, headers=headers).get_json() == first.get_json()
    time.sleep(1.2)
    later = client.post("/v1/players", json={"name": "May"}, headers=headers)
    assert later.status_code == 201 and "Idempotent-Replayed" not in later.headers
    assert later.get_json()["id"] != first.get_json()["id"]
    app.extensions["cardroom"].pool.close()


def test_a_replayed_key_creation_never_stored_the_secret(client, postgres_pool):
    headers = keyed(ADMIN)
    first = client.post("/v1/keys", json={"role": "spectator"}, headers=headers)
    again = client.post("/v1/keys", json={"role": "spectator"}, headers=headers)
    assert first.get_json()["key"].startswith("crd_")
    assert again.status_code == 201 and again.get_json() == {**first.get_json(), "key": None}
    with postgres_pool.connection() as connection:
        bodies = connection.execute("SELECT body FROM idempotency_records").fetchall()
    assert not any(first.get_json()["key"].encode() in bytes(body) for (body,) in bodies)
    assert client.get("/v1/keys?limit=1000", headers=ADMIN).get_json()["keys"][-1]["id"] == first.get_json()["id"]


def test_a_crash_between_the_events_and_the_record_leaves_neither(client, postgres_pool, seated, monkeypatch):
    table_id, players = seated
    store = client.application.extensions["cardroom"].store
    version = version_of(client, table_id)
    headers = keyed({**players[0][1], "If-Match": str(version)})

    def crash(record) -> None:
        raise ConnectionError("the process died before the commit")

    monkeypatch.setattr(store, "record_answer", crash)
    client.application.testing = False  # answer the crash as production does, not raise it
    try:
        crashed = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"}, headers=headers)
    finally:
        client.application.testing = True
        monkeypatch.undo()
    assert crashed.status_code >= 500
    assert version_of(client, table_id) == version
    # Nothing cached of the rolled-back write: the same request runs now, once.
    retried = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"}, headers=headers)
    assert retried.status_code == 201, retried.get_data(as_text=True)
    assert version_of(client, table_id) == version + 1


def test_keys_of_different_callers_do_not_meet(client):
    ann = key_for(client, "organiser")
    bob = key_for(client, "organiser")
    key = "mine-" + secrets.token_hex(4)
    first = client.post("/v1/players", json={"name": "Ned"}, headers=keyed(ann, key))
    other = client.post("/v1/players", json={"name": "Ola"}, headers=keyed(bob, key))
    assert first.status_code == other.status_code == 201
    assert first.get_json()["id"] != other.get_json()["id"]


def test_a_replay_after_the_table_moved_on_answers_its_first_answer(client, postgres_pool, seated):
    """The claim goes with the first append: a replay the table now refuses (its If-Match
    is stale, it is no longer the player's turn) still answers the first answer."""
    table_id, players = seated
    headers = keyed({**players[0][1], "If-Match": str(version_of(client, table_id))})
    path = f"/v1/tables/{table_id}/actions"
    first = client.post(path, json={"action": "raise", "to": 300}, headers=headers)
    assert first.status_code == 201, first.get_data(as_text=True)
    assert act(client, table_id, players[1][1], {"action": "call"}).status_code == 201
    before = written(postgres_pool)
    again = client.post(path, json={"action": "raise", "to": 300}, headers=headers)
    assert (again.status_code, again.get_data()) == (201, first.get_data())
    assert again.headers["Idempotent-Replayed"] == "true"
    assert written(postgres_pool) == before


def test_an_action_with_a_key_is_one_round_trip(client, seated, monkeypatch):
    """The claim and the append go with the record and the COMMIT
    (service.adapters.store.held_back)."""
    from service.adapters.store import libpq_pipeline
    table_id, players = seated
    version = version_of(client, table_id)  # read now: the write finds the table cached
    trips: list[int] = []
    sent = libpq_pipeline._pipelined

    def counted(pgconn, items):
        trips.append(len(items))
        return sent(pgconn, items)
    monkeypatch.setattr(libpq_pipeline, "_pipelined", counted)
    answer = client.post(f"/v1/tables/{table_id}/actions", json={"action": "call"},
                         headers=keyed({**players[0][1], "If-Match": str(version)}))
    assert answer.status_code == 201, answer.get_data(as_text=True)
    assert len(trips) == 1
    assert version_of(client, table_id) == version + 1


def test_a_retry_whose_first_answer_commits_while_it_runs_replays_it(
        client, database_url, postgres_pool, seated, monkeypatch):
    """Another server process answers the first request while the retry runs here, before
    the retry's claim (held back to its COMMIT) is sent: the COMMIT's trip refuses the
    retry, which runs again the long way and replays the first answer."""
    table_id, players = seated
    path = f"/v1/tables/{table_id}/actions"
    headers = keyed({**players[0][1], "If-Match": str(version_of(client, table_id))})
    other_process = create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()
    store = client.application.extensions["cardroom"].store
    record_answer, firsts = store.record_answer, []

    def first_answered_meanwhile(record) -> None:
        if not firsts:
            runner = threading.Thread(target=lambda: firsts.append(
                other_process.post(path, json={"action": "raise", "to": 300}, headers=headers)))
            runner.start()
            runner.join(30)
        record_answer(record)

    monkeypatch.setattr(store, "record_answer", first_answered_meanwhile)
    version = version_of(client, table_id)
    retry = client.post(path, json={"action": "raise", "to": 300}, headers=headers)
    first = firsts[0]
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers, first.get_data(as_text=True)
    assert (retry.status_code, retry.get_data()) == (201, first.get_data())
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.headers.getlist("Cardroom-Receipt") == first.headers.getlist("Cardroom-Receipt")
    assert version_of(client, table_id) == version + 1


def test_a_write_refused_at_its_commit_is_never_seen_by_another_request(
        client, database_url, seated, monkeypatch):
    """A raise decided here waits for its COMMIT's round trip while another server process
    commits a call at the same version; the raise is refused there (409). A third request,
    here, in that window, acts on the call (the BB checks), never on the raise it would
    have seen had the raise's state been cached before its COMMIT."""
    table_id, players = seated
    path = f"/v1/tables/{table_id}/actions"
    version = version_of(client, table_id)
    other_process = create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()
    store = client.application.extensions["cardroom"].store
    record_answer, meanwhile = store.record_answer, {}

    def others_act_meanwhile(record) -> None:
        if not meanwhile:
            def run() -> None:
                meanwhile["call"] = other_process.post(path, json={"action": "call"},
                                                       headers=keyed({**players[0][1], "If-Match": str(version)}))
                meanwhile["check"] = client.application.test_client().post(
                    path, json={"action": "check"}, headers=keyed({**players[1][1], "If-Match": str(version + 1)}))
            runner = threading.Thread(target=run)
            runner.start()
            runner.join(30)
        record_answer(record)

    monkeypatch.setattr(store, "record_answer", others_act_meanwhile)
    raised = client.post(path, json={"action": "raise", "to": 300},
                         headers=keyed({**players[0][1], "If-Match": str(version)}))
    assert meanwhile["call"].status_code == 201, meanwhile["call"].get_data(as_text=True)
    assert meanwhile["check"].status_code == 201, meanwhile["check"].get_data(as_text=True)
    assert_problem(raised, 409, "version_conflict")
    assert version_of(client, table_id) == meanwhile["check"].get_json()["version"]  # nothing after the check
