"""The public log with a witness (C2SP tlog-witness; service.witness, service.adapters.witnesses)
on real PostgreSQL: the integrator asks the witness to cosign each checkpoint, and
`GET /v1/log/checkpoint` serves only a checkpoint the witness policy's witnesses cosigned;
an event's proof verifies with the witness's key required. A checkpoint that forks from
the one the witness holds, even signed with the log's own key, is refused (422) and the
witness's state stays; a stale `old` size answers 409 with the size it holds."""
from __future__ import annotations

import base64
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from service import bootstrap, wiring, witness
from service.adapters.integrity import chain_signer
from service.adapters.log_keys import new_signer, parse_signer, sign_note
from service.adapters.row_macs import RowSigner
from service.adapters.store.public_log import PostgresPublicLog
from service.adapters.store.trackings import PostgresTracking
from service.adapters.witnesses import add_checkpoint_body
from service.application import public_log
from service.application.application import application
from service.config import Config
from service.public_log_verifier import ED25519, open_checkpoint, parse_vkey, verify_proof
from tests.integration.conftest import ADMIN_KEY, register_players
from tests.integration.test_public_log import public_events
from tests.integration.test_showdown_http import dealt, declared_showdown_table

pytestmark = pytest.mark.integration

ORIGIN = "cardroom.test/witnessed-log"


@pytest.fixture(scope="module")
def witnessed(tmp_path_factory: pytest.TempPathFactory, own_database: tuple[str, str]) -> Iterator[dict[str, Any]]:
    log_key = new_signer(ORIGIN, ED25519)
    local = witness.build(tmp_path_factory.mktemp("witness"), "witness.test", [log_key.verifier.vkey()])
    server = witness.serve(local, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    config = Config(database_url=own_database[1], admin_key=ADMIN_KEY, log_origin=ORIGIN, log_key=log_key.text(),
                    witnesses=f"{url} {local.signer.verifier.vkey()}", witness_policy=1)
    pool = ConnectionPool(own_database[1], min_size=1, max_size=3, kwargs={"autocommit": True}, open=True)
    tree = PostgresPublicLog(pool)
    client_of_witnesses = wiring.witness_client(config, tree)
    assert client_of_witnesses is not None
    integrator = public_log.Integrator(
        application(wiring.event_store(pool, config)),
        PostgresTracking(RowSigner(chain_signer(config), "process_trackings")), tree,
        wiring.public_log_signer(config), after_signing=client_of_witnesses.ask)
    yield {"client": bootstrap.create_app(config).test_client(), "integrator": integrator, "url": url,
           "witness": local, "log_key": log_key.text()}
    server.shutdown()
    pool.close()


def integrate(integrator: public_log.Integrator) -> None:
    deadline = time.monotonic() + 30
    while (batch := integrator.handle_batch()).full or batch.held_back:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def proven(client: Any, stream: str, version: int) -> dict[str, Any]:
    """The event's proof, once a cosigned checkpoint covers it (the witness answers on a
    thread of its own): until then 404 not_yet_integrated, Retry-After 1."""
    deadline = time.monotonic() + 15
    while (answer := client.get(f"/v1/log/proofs/{stream}/{version}")).status_code != 200:
        assert answer.status_code == 404 and answer.headers["Retry-After"] == "1", answer.get_data(as_text=True)
        assert time.monotonic() < deadline, answer.get_data(as_text=True)
        time.sleep(0.05)
    return answer.get_json()


def post(url: str, body: bytes) -> tuple[int, str]:
    request = urllib.request.Request(f"{url}/add-checkpoint", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


def test_the_served_checkpoint_is_cosigned_and_proofs_verify_with_the_witness_required(witnessed: dict) -> None:
    client = witnessed["client"]
    player = register_players(client, "Witnessed Wendy")[0]
    integrate(witnessed["integrator"])
    keys = client.get("/v1/log/keys").get_json()
    assert keys["witnesses"] == [witnessed["witness"].signer.verifier.vkey()]
    proof = proven(client, f"player-{player}", 1)
    checkpoint = open_checkpoint(proof["checkpoint"], parse_vkey(keys["log"]),
                                 [parse_vkey(k) for k in keys["witnesses"]], 1)
    assert witnessed["witness"].state()[ORIGIN]["size"] >= checkpoint.size > proof["index"]
    assert client.get(f"/v1/log/leaves/{proof['index']}").get_json()["leaf"] == proof["leaf"]
    status = client.get("/v1/status", headers={"Authorization": f"Bearer {ADMIN_KEY}"}).get_json()["public_log"]
    assert status["witnesses"][0]["last_cosigned_s_ago"] is not None and status["backlog"] == 0


def test_a_fork_is_refused_by_the_witness_and_a_stale_size_answers_409(witnessed: dict, tmp_path: Path) -> None:
    player = register_players(witnessed["client"], "Forked Fay")[0]
    integrate(witnessed["integrator"])
    proven(witnessed["client"], f"player-{player}", 1)
    held = witnessed["witness"].state()[ORIGIN]
    log_key = parse_signer(witnessed["log_key"])
    forged_root = bytes(32)
    forged = sign_note(f"{ORIGIN}\n{held['size'] + 1}\n{base64.b64encode(forged_root).decode()}\n", log_key)
    status, body = post(witnessed["url"], add_checkpoint_body(held["size"], [bytes(32)], forged))
    assert status == 422, body
    assert witnessed["witness"].state()[ORIGIN] == held
    status, body = post(witnessed["url"], add_checkpoint_body(held["size"] + 5, [], forged))
    assert (status, body.strip()) == (409, str(held["size"]))
    stranger = sign_note(f"{ORIGIN}\n{held['size'] + 1}\n{base64.b64encode(forged_root).decode()}\n",
                         new_signer(ORIGIN, ED25519))
    assert post(witnessed["url"], add_checkpoint_body(held["size"], [], stranger))[0] == 403


def test_a_table_event_verifies_offline_with_one_witness_required(witnessed: dict) -> None:
    client = witnessed["client"]
    table_id = declared_showdown_table(client, register_players(client, "Offline Olga", "Offline Otto"))
    dealt(client, table_id)
    integrate(witnessed["integrator"])
    keys = client.get("/v1/log/keys").get_json()
    for event in public_events(client, table_id):
        checkpoint = verify_proof(proven(client, f"table-{table_id}", event["version"]), event,
                                  keys["log"], keys["witnesses"], 1)
        assert checkpoint.origin == ORIGIN
