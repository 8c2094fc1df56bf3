"""The public log on real PostgreSQL (issue 31; service.application.public_log): on a
database of its own, a hold'em hand played to a declared showdown (one hand shown, two
mucked) and a second hand left live are integrated; then, from public data and public keys
alone (the keyless feeds, /v1/log/*, service.public_log_verifier):

- every leaf is recomputed from the event as the keyless public view serves it, and every
  event written has an inclusion proof that verifies against the signed checkpoint;
- no digest in any leaf or proof is any hole-card pair of the live or the mucked hands;
- two checkpoints are consistent;
- a node the application's login adds ahead of the integrator stops it; a node changed
  in the database is refused before any proof is served from it.
"""
from __future__ import annotations

import base64
import hashlib
import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from domain.rules.cards import deck_texts
from domain.secrecy import secrets_named
from service import bootstrap, wiring
from service.adapters.integrity import chain_signer
from service.adapters.log_keys import LOG_KEY_FILE, LogKeyMissing, new_signer
from service.adapters.row_macs import RowSigner
from service.adapters.store.base import canonical_json as stored_json
from service.adapters.store.base import chained_hash, format_recorded_at
from service.adapters.store.public_log import ForgedRows, PostgresPublicLog
from service.adapters.store.trackings import PostgresTracking
from service.application import public_log
from service.application.application import application
from service.config import Config
from service.public_log_verifier import (
    ED25519,
    NotVerified,
    canonical_json,
    leaf_hash,
    open_checkpoint,
    parse_leaf,
    parse_vkey,
    verify_consistency,
    verify_inclusion,
    verify_proof,
)
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem, register_players
from tests.integration.test_showdown_http import act, call_to_the_showdown, dealt, declared_showdown_table

pytestmark = pytest.mark.integration

ORIGIN = "cardroom.test/public-log"


@pytest.fixture(scope="module")
def config(own_database: tuple[str, str]) -> Config:
    return Config(database_url=own_database[1], admin_key=ADMIN_KEY, log_origin=ORIGIN,
                  log_key=new_signer(ORIGIN, ED25519).text())


@pytest.fixture(scope="module")
def client(config: Config) -> Any:
    return bootstrap.create_app(config).test_client()


@pytest.fixture(scope="module")
def integrator(config: Config) -> Iterator[public_log.Integrator]:
    assert config.database_url is not None
    pool = ConnectionPool(config.database_url, min_size=1, max_size=3, kwargs={"autocommit": True}, open=True)
    tracking = PostgresTracking(RowSigner(chain_signer(config), "process_trackings"))
    yield public_log.Integrator(application(wiring.event_store(pool, config)), tracking,
                                PostgresPublicLog(pool), wiring.public_log_signer(config))
    pool.close()


def integrate(integrator: public_log.Integrator) -> None:
    """Until the log is integrated to its end (a transaction still open anywhere on the
    server holds the gap-safe order back: look again, as the worker does)."""
    deadline = time.monotonic() + 30
    while True:
        batch = integrator.handle_batch()
        if not batch.full and not batch.held_back:
            return
        assert time.monotonic() < deadline, "the log stayed held back"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def hands(client: Any, integrator: public_log.Integrator) -> dict[str, Any]:
    """A hand shown down with two hands mucked, and a second hand dealt and left live."""
    table_id = declared_showdown_table(client, register_players(client, "Ann", "Bob", "Cat"))
    first = dealt(client, table_id)
    call_to_the_showdown(client, table_id)
    for step in range(3):
        act(client, table_id, "show" if step == 0 else "muck")
    integrate(integrator)
    live = dealt(client, table_id)
    integrate(integrator)
    return {"table": table_id, "hole": [*first.values(), *live.values()]}


def public_events(client: Any, table_id: str) -> list[dict[str, Any]]:
    """The table's events as the keyless public feed serves them (SSE, `?view=public`)."""
    head = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["version"]
    return public_feed(client, f"/v1/tables/{table_id}/stream?view=public", head)


def public_feed(client: Any, path: str, head: int) -> list[dict[str, Any]]:
    """The events of a keyless feed up to version `head`."""
    response = client.get(path, buffered=False)
    events: list[dict[str, Any]] = []
    text = ""
    try:
        for chunk in response.response:
            text += chunk.decode()
            *messages, text = text.split("\n\n")
            for message in messages:
                data = [line[len("data: "):] for line in message.split("\n") if line.startswith("data: ")]
                if data and message.startswith("id:"):
                    events.append(json.loads(data[0]))
            if events and events[-1]["version"] >= head:
                break
    finally:
        response.close()
    return events


def keys(client: Any) -> dict[str, Any]:
    answer = client.get("/v1/log/keys")
    assert answer.status_code == 200
    return answer.get_json()


def test_every_event_is_proven_from_its_public_form_against_the_signed_checkpoint(
        client: Any, hands: dict[str, Any]) -> None:
    log_key = keys(client)["log"]
    events = public_events(client, hands["table"])
    stream = f"table-{hands['table']}"
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    for event in events:
        answer = client.get(f"/v1/log/proofs/{stream}/{event['version']}")
        assert answer.status_code == 200, answer.get_data(as_text=True)
        proof = answer.get_json()
        assert verify_proof(proof, event, log_key).origin == ORIGIN
        leaf = parse_leaf(base64.b64decode(proof["leaf"]))
        assert (leaf.stream_id, leaf.version, leaf.type) == (stream, event["version"], event["type"])
        assert client.get(f"/v1/log/leaves/{proof['index']}").get_json()["leaf"] == proof["leaf"]
        altered = {**event, "data": {**event["data"], "extra": 1}}
        with pytest.raises(Exception, match="does not hash"):
            verify_proof(proof, altered, log_key)


def test_the_checkpoint_is_a_signed_note_and_inclusion_answers_rfc_9162_paths(client: Any, hands: dict) -> None:
    answer = client.get("/v1/log/checkpoint")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    checkpoint = open_checkpoint(answer.get_data(as_text=True), parse_vkey(keys(client)["log"]))
    for index in (0, checkpoint.size // 2, checkpoint.size - 1):
        leaf = base64.b64decode(client.get(f"/v1/log/leaves/{index}").get_json()["leaf"])
        hashes = client.get(f"/v1/log/inclusion?index={index}&size={checkpoint.size}").get_json()["hashes"]
        verify_inclusion(index, checkpoint.size, leaf_hash(leaf), [base64.b64decode(h) for h in hashes],
                         checkpoint.root)
    assert_problem(client.get(f"/v1/log/inclusion?index={checkpoint.size}&size={checkpoint.size}"),
                   422, "index_not_in_tree")
    assert_problem(client.get(f"/v1/log/consistency?from=2&to={checkpoint.size + 10**6}"), 404, "beyond_the_tree")
    assert_problem(client.get(f"/v1/log/proofs/table-{hands['table']}/999"), 404, "not_found")


def test_no_digest_in_the_leaves_or_proofs_is_a_hole_card_pair(client: Any, hands: dict[str, Any]) -> None:
    events = public_events(client, hands["table"])
    stream = f"table-{hands['table']}"
    digests: set[str] = set()
    for event in events:
        proof = client.get(f"/v1/log/proofs/{stream}/{event['version']}").get_json()
        leaf_bytes = base64.b64decode(proof["leaf"])
        leaf = parse_leaf(leaf_bytes)
        digests |= {leaf.public_sha256, *leaf.commitments, leaf_hash(leaf_bytes).hex(),
                    *(base64.b64decode(h).hex() for h in proof["hashes"])}
    cards = list(deck_texts())
    hidden = [event for event in events if secrets_named(event["type"]).at_rest]
    assert hidden, "the public view hides the hole cards of some event"
    tried = 0
    for first, second in itertools.permutations(cards, 2):
        pair = [first, second]
        spellings = [first + second, f"{first} {second}", f"{first},{second}", json.dumps(pair),
                     canonical_json(pair).decode()]
        guesses = {hashlib.sha256(s.encode()).hexdigest() for s in spellings}
        for event in hidden:  # the event as the public form would read with these cards in it
            for name in secrets_named(event["type"]).at_rest:
                if name in event["data"]:
                    filled = {**event, "data": {**event["data"], name: pair}}
                    guesses.add(hashlib.sha256(canonical_json(filled)).hexdigest())
        tried += len(guesses)
        assert not guesses & digests, f"a digest of the public log is computable from {pair}"
    assert tried > 52 * 51 * 5
    assert len(hands["hole"]) == 6 and all(hands["hole"]), hands["hole"]


def test_two_checkpoints_are_consistent(client: Any, hands: dict[str, Any], integrator: public_log.Integrator) -> None:
    log_key = parse_vkey(keys(client)["log"])
    before = open_checkpoint(client.get("/v1/log/checkpoint").get_data(as_text=True), log_key)
    act(client, hands["table"], "fold")
    integrate(integrator)
    after = open_checkpoint(client.get("/v1/log/checkpoint").get_data(as_text=True), log_key)
    assert after.size > before.size
    hashes = client.get(f"/v1/log/consistency?from={before.size}&to={after.size}").get_json()["hashes"]
    verify_consistency(before.size, after.size, before.root, after.root, [base64.b64decode(h) for h in hashes])


def test_a_host_without_the_key_refuses_to_sign_and_makes_none(
        hands: dict[str, Any], own_database: tuple[str, str], tmp_path: Path) -> None:
    keyless = Config(database_url=own_database[1], log_origin=ORIGIN, data_dir=tmp_path)
    with ConnectionPool(own_database[1], min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        host = public_log.Integrator(
            application(wiring.event_store(pool, keyless)),
            PostgresTracking(RowSigner(chain_signer(keyless), "process_trackings")),
            PostgresPublicLog(pool), wiring.public_log_signer(keyless))
        with pytest.raises(LogKeyMissing, match="CARDROOM_LOG_KEY"):
            host.handle_batch()
    assert not (tmp_path / LOG_KEY_FILE).exists()


def test_a_third_party_with_the_public_keys_alone_catches_a_rewritten_history(
        client: Any, integrator: public_log.Integrator, own_database: tuple[str, str], config: Config) -> None:
    """The operator, holding the database and the chain key, edits a tournament's event,
    rehashes and re-MACs the chain after it, and removes its last event: the service
    serves the forged stream as sound. A third party who kept the public keys, the events
    as the public feed served them and their proofs, catches both from public data alone:
    the edited event no longer hashes to its leaf, and the removed one is proven while the
    feed no longer has it."""
    created = client.post("/v1/tournaments", headers=ADMIN, json={
        "name": "Audited", "game": "holdem", "levels": [{"small_blind": 25, "big_blind": 50, "minutes": 20}],
        "starting_stack": 1000, "tables": "physical", "starts_at": "2030-01-01T00:00:00Z",
        "payout_percentages": ["100"]})
    assert created.status_code == 201, created.get_data(as_text=True)
    tournament_id = created.get_json()["id"]
    for player in register_players(client, "Audit Ann", "Audit Bob", "Audit Cat", "Audit Dan"):
        assert client.post(f"/v1/tournaments/{tournament_id}/registrations", json={"player_id": player},
                           headers=ADMIN).status_code == 201
    stream = f"tournament-{tournament_id}"
    integrate(integrator)
    log_key = keys(client)["log"]
    feed = f"/v1/tournaments/{tournament_id}/stream?view=public"
    kept = public_feed(client, feed, 5)
    proofs = {e["version"]: client.get(f"/v1/log/proofs/{stream}/{e['version']}").get_json() for e in kept}
    for event in kept:
        verify_proof(proofs[event["version"]], event, log_key)

    signer = chain_signer(config)
    with psycopg.connect(own_database[0]) as operator:
        operator.execute("SET session_replication_role = replica")
        rows = operator.execute("SELECT version, type, schema_version, data, metadata, recorded_at, encode(hash, 'hex')"
                                " FROM events WHERE stream_id = %s ORDER BY version", (stream,)).fetchall()
        operator.execute("DELETE FROM events WHERE stream_id = %s AND version >= 3", (stream,))
        previous = rows[1][6]
        for version, type_, schema, data, metadata, recorded_at, _ in rows[2:4]:  # 3 edited, 4 rehashed, 5 gone
            if version == 3:
                data = {**data, "player_id": data["player_id"][::-1]}
            previous = chained_hash(stream, version, type_, schema, stored_json(data), stored_json(metadata),
                                    previous, format_recorded_at(recorded_at))
            operator.execute(
                "INSERT INTO events (stream_id, version, type, schema_version, data, metadata, recorded_at, hash, mac)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, decode(%s, 'hex'), decode(%s, 'hex'))",
                (stream, version, type_, schema, Jsonb(data), Jsonb(metadata), recorded_at, previous,
                 signer.sign(stream, version, previous)))
    served = {e["version"]: e for e in public_feed(client, feed, 4)}
    assert sorted(served) == [1, 2, 3, 4]
    caught = []
    for version, proof in proofs.items():
        if version not in served:
            caught.append((version, "proven in the log, gone from the feed"))
            continue
        try:
            verify_proof(proof, served[version], log_key)
        except NotVerified as failed:
            caught.append((version, str(failed)))
    assert caught == [(3, "the event's public form does not hash to the leaf's digest"),
                      (5, "proven in the log, gone from the feed")]
    # The service's own verify checks the stream against the signed tree too.
    verified = client.get(f"/v1/streams/{stream}/verify", headers=ADMIN).get_json()
    assert (verified["ok"], verified["first_bad_version"]) == (False, 3) and "rewritten" in verified["reason"]
    player_stream = f"player-{kept[-1]['data']['player_id']}"
    with psycopg.connect(own_database[0]) as operator:  # a whole stream deleted
        operator.execute("SET session_replication_role = replica")
        operator.execute("DELETE FROM events WHERE stream_id = %s", (player_stream,))
    verified = client.get(f"/v1/streams/{player_stream}/verify", headers=ADMIN).get_json()
    assert (verified["ok"], verified["first_bad_version"]) == (False, 1), verified
    # ...and the signed tree alone says so, with no head checkpoint of any host's data directory.
    with ConnectionPool(own_database[1], min_size=1, max_size=1, kwargs={"autocommit": True}) as pool:
        found = wiring.public_log_reader(pool, config).first_difference(player_stream, [])
    assert found is not None and found[0] == 1 and "removed" in found[1]


def test_a_forged_node_stops_the_integrator_and_a_changed_one_is_never_served(
        client: Any, hands: dict[str, Any], integrator: public_log.Integrator,
        own_database: tuple[str, str], config: Config) -> None:
    size = int(client.get("/v1/log/checkpoint").get_data(as_text=True).split("\n")[1])
    index = client.get(f"/v1/log/proofs/table-{hands['table']}/1").get_json()["index"]
    with psycopg.connect(own_database[1], autocommit=True) as app_login:  # the application's own login
        app_login.execute("INSERT INTO log_nodes (level, index, hash) VALUES (0, %s, %s)", (size, bytes(32)))
    act(client, hands["table"], "fold")
    with pytest.raises(ForgedRows):
        # Until the fold is read: on a shared server another database's open transaction
        # can hold the log's readers back for a while (a loaded CI run met an empty batch).
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            integrator.handle_batch()
            time.sleep(0.05)
    assert int(client.get("/v1/log/checkpoint").get_data(as_text=True).split("\n")[1]) == size
    with psycopg.connect(own_database[0], autocommit=True) as owner:
        owner.execute("DELETE FROM log_nodes WHERE level = 0 AND index = %s", (size,))
        # A sibling on the event's path, and the largest subtree of the tree's right edge.
        owner.execute("UPDATE log_nodes SET hash = %s WHERE level = 0 AND index = %s", (bytes(32), index ^ 1))
        level, at = public_log.frontier(size)[0]
        owner.execute("UPDATE log_nodes SET hash = %s WHERE level = %s AND index = %s", (bytes(32), level, at))
    assert_problem(client.get(f"/v1/log/proofs/table-{hands['table']}/1"), 503, "public_log_damaged")
    assert config.database_url is not None
    with ConnectionPool(config.database_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        restarted = public_log.Integrator(
            application(wiring.event_store(pool, config)),
            PostgresTracking(RowSigner(chain_signer(config), "process_trackings")),
            PostgresPublicLog(pool), wiring.public_log_signer(config))
        with pytest.raises(public_log.LogDamaged):
            restarted.handle_batch()
