"""The public log's integrator runs in the Celery worker (workers.public_log_tasks): on a
database of its own, a table's events written through the API get proofs in a moment,
each verifying offline from the event as the keyless public feed serves it."""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service import bootstrap
from service.config import Config
from service.public_log_verifier import verify_proof
from tests.integration.conftest import ADMIN_KEY, WORKER_WAIT_S, CeleryWorker, register_players
from tests.integration.test_public_log import public_events
from tests.integration.test_showdown_http import dealt, declared_showdown_table

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def worker(own_database: tuple[str, str], broker_url: str, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[CeleryWorker]:
    started = CeleryWorker(tmp_path_factory.mktemp("worker"), own_database[1], broker_url)
    yield started
    started.stop()


def test_a_write_gets_its_proof_from_the_worker_in_a_moment(worker: CeleryWorker, own_database: tuple[str, str],
                                                           tmp_path: Path) -> None:
    client: Any = bootstrap.create_app(Config(database_url=own_database[1], admin_key=ADMIN_KEY)).test_client()
    table_id = declared_showdown_table(client, register_players(client, "Worker Wanda", "Worker Walt"))
    dealt(client, table_id)
    events = public_events(client, table_id)
    written = time.monotonic()
    deadline = written + WORKER_WAIT_S
    last = events[-1]["version"]
    while (answer := client.get(f"/v1/log/proofs/table-{table_id}/{last}")).status_code != 200:
        assert answer.status_code == 404 and answer.get_json()["code"] == "not_yet_integrated", answer.get_json()
        assert time.monotonic() < deadline, f"never integrated:\n{worker.text()}"
        time.sleep(0.05)
    log_key = client.get("/v1/log/keys").get_json()["log"]
    for event in events:
        proof = client.get(f"/v1/log/proofs/table-{table_id}/{event['version']}").get_json()
        verify_proof(proof, event, log_key)
    assert "public log's integrator stops" not in worker.text()
