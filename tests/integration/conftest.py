"""Fixtures shared by the integration tests.

- `store`: the event-store contract suite runs every test against both stores. The events
  table refuses DELETE and TRUNCATE, so tests never clean up: each one writes to streams
  of its own (`stream_id`), and global readers start from the current end.
- `postgres_store`: the PostgreSQL store alone, for tests that share it with processes.
- `own_database`, `own_store`: a database of the module's own, for tests whose streams
  the shared database's status, home page and followers must not meet (or the reverse).
- `CeleryWorker`: a real `celery worker` process on the test database and broker.
- HTTP: `client` (the app on the test database, with `ADMIN_KEY` as its admin key),
  `assert_problem`, `register_players` and `key_for` for the tests that import them.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from service.adapters.store.base import EventStore
from service.adapters.store.memory import InMemoryEventStore

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKER_WAIT_S = 30
ADMIN_KEY = "test-admin-" + secrets.token_hex(8)
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}


@pytest.fixture(scope="session")
def postgres_pool(database_url: str) -> Iterator[ConnectionPool]:
    from service.adapters.store.postgres import open_pool

    # Enough connections for the 16-writer race plus a reader.
    pool = open_pool(database_url, max_size=20)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(params=["memory", "postgres"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore()
    from service.adapters.store.postgres import PostgresEventStore

    return PostgresEventStore(request.getfixturevalue("postgres_pool"))


@pytest.fixture
def stream_id(request: pytest.FixtureRequest) -> str:
    return f"test-{request.node.originalname}-{uuid.uuid4().hex[:12]}"



@pytest.fixture(scope="module")
def postgres_store(postgres_pool: ConnectionPool) -> EventStore:
    """Another process's store on the test database, wired as the apps of these tests are
    (as service.wiring.event_store, with Config's data directory's keys): the events it
    writes carry the MACs their reads check, and it opens and seals their secrets."""
    from service.config import Config
    from tests.stores import store_as_the_apps

    return store_as_the_apps(postgres_pool, Config())


@pytest.fixture(scope="module")
def own_database(admin_database_url: str) -> Iterator[tuple[str, str]]:
    """(admin URL, application URL) of a fresh database for this module alone."""
    from tests.conftest import _fresh_database_on

    yield from _fresh_database_on(admin_database_url)


@pytest.fixture(scope="module")
def own_store(own_database: tuple[str, str]) -> Iterator[EventStore]:
    """The PostgreSQL store on `own_database` (two connections), keyed as an app of this
    process on it is (its events carry the MACs the app's reads check)."""
    from service.adapters.integrity import chain_signer
    from service.adapters.store.postgres import PostgresEventStore, open_pool
    from service.config import Config

    pool = open_pool(own_database[1], max_size=2)
    yield PostgresEventStore(pool, signer=chain_signer(Config(database_url=own_database[1])))
    pool.close()


class CeleryWorker:
    """A `celery -A workers.celery_app worker` process of ours (two pool processes, so two
    deliveries can really run at once; with `beat`, the periodic sweeps too): started and
    ready, watched through its log, stopped by pid."""

    def __init__(self, directory: Path, database_url: str, broker_url: str, *,
                 beat: bool = False) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.log = directory / "worker.log"
        args = [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker",
                "--concurrency=2", "--loglevel=INFO", "--without-gossip", "--without-mingle",
                "--without-heartbeat"]
        if beat:
            args += ["-B", f"--schedule={directory / 'beat-schedule'}"]
        # The tests count routine tasks (sweeps, pings) done by their lines in the log.
        env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url,
               "CARDROOM_SWEEP_LOG_LEVEL": "INFO"}
        with self.log.open("w") as output:
            self.process = subprocess.Popen(args, cwd=PROJECT_ROOT, env=env, stdout=output,
                                            stderr=subprocess.STDOUT)
        self.wait_for_log("ready.")

    def text(self) -> str:
        return self.log.read_text()

    def succeeded(self, task: str = "") -> int:
        """How many runs of `task` (a task name, or part of one; every task when empty)
        the log reports done."""
        return sum(1 for line in self.text().splitlines() if task in line and "succeeded" in line)

    def wait_until(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WORKER_WAIT_S
        while not condition():
            assert time.monotonic() < deadline, f"{what} never happened:\n{self.text()}"
            time.sleep(0.05)

    def wait_for_log(self, fragment: str) -> None:
        deadline = time.monotonic() + WORKER_WAIT_S
        while fragment not in self.text():
            assert self.process.poll() is None, self.text()
            assert time.monotonic() < deadline, f"no {fragment!r} in the worker's log:\n{self.text()}"
            time.sleep(0.05)

    def pool_pids(self) -> set[int]:
        """The main process's children: its pool (and beat, with `beat`)."""
        children = set()
        for status in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = status.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                children.add(int(status.parent.name))
        return children

    def kill(self) -> None:
        """SIGKILL, as a crash: the main process (holding the ETA tasks) and its pool."""
        children = self.pool_pids()
        self.process.kill()
        self.process.wait()
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM to the main process only (it stops its pool itself); a kill if it hangs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=WORKER_WAIT_S)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def celery_worker(database_url: str, broker_url: str,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[CeleryWorker]:
    """One worker (no beat) for the module."""
    worker = CeleryWorker(tmp_path_factory.mktemp("worker"), database_url, broker_url)
    yield worker
    worker.stop()


@pytest.fixture(scope="module")
def client(database_url: str) -> Any:
    """A Flask test client of the app on the test database; `ADMIN` is its admin."""
    from service.bootstrap import create_app
    from service.config import Config

    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY)).test_client()


_HEX_DIGEST = re.compile(r'"[0-9a-f]{64}"')


def without_digests(text: str) -> str:
    """JSON text with its SHA-256 hex strings (commitments, salts, hashes) emptied, for a
    search for leaked cards: "5c3d" is a hand and hex alike."""
    return _HEX_DIGEST.sub('""', text)


def assert_problem(response: Any, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem document with this status and code, and a detail."""
    from service.http.problems import PROBLEM_CONTENT_TYPE

    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM_CONTENT_TYPE
    body = response.get_json(force=True)
    assert (body["status"], body["code"]) == (status, code), body
    assert body["detail"]
    return body


def register_player(client: Any, name: str) -> str:
    """Registers the player (as the admin) and gives their id."""
    return client.post("/v1/players", json={"name": name}, headers=ADMIN).get_json()["id"]


def register_players(client: Any, *names: str) -> list[str]:
    return [register_player(client, name) for name in names]


def with_the_apps_keys(data_dir: Path) -> Path:
    """`data_dir` holding the chain key and the data key of the apps these tests run
    (Config's data directory), so that a command or another app run on it reads what they
    wrote: its reads check the MACs and open the secrets."""
    from service.adapters.integrity import chain_signer, data_cipher
    from service.config import Config

    chain_signer(Config())  # made if this is the first app
    data_cipher(Config())
    data_dir.mkdir(parents=True, exist_ok=True)
    for key in ("chain-key", "data-key"):
        (data_dir / key).write_text((Config().data_dir / key).read_text())
    return data_dir


def printed_status(database_url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """What `cardroom status` prints, straight to the database, its words on one line (the
    terminal's width folds long lines)."""
    from click.testing import CliRunner

    from service.cli.main import main

    monkeypatch.setenv("CARDROOM_DATA_DIR", str(with_the_apps_keys(data_dir)))
    result = CliRunner().invoke(main, ["--database-url", database_url, "status"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def key_for(client: Any, role: str, player_id: str | None = None) -> dict[str, str]:
    """Authorization headers with a fresh key for the role (and player)."""
    body = {"role": role, **({"player_id": player_id} if player_id else {})}
    issued = client.post("/v1/keys", json=body, headers=ADMIN)
    assert issued.status_code == 201, issued.get_data(as_text=True)
    return {"Authorization": f"Bearer {issued.get_json()['key']}"}


def hand_request(betting: dict, stacks: dict[str, int], actions: list[tuple], limped: bool = False) -> dict:
    """A whole hold'em hand as the rulings take it: seats in the order given (the first two
    post the blinds, the last has the button); `actions` are (player, action[, to]).
    `limped`: everyone called the big blind before the flop, and `actions` are the flop's."""
    names = list(stacks)
    before = [(name, "call") for name in names[2:]] + [(names[0], "call"), (names[1], "check")] if limped else []
    return {"game": "holdem", "betting": betting,
            "seats": [{"player": name, "stack": stack} for name, stack in stacks.items()],
            "actions": [{"player": p, "action": a, **({"to": t[0]} if t else {})} for p, a, *t in before + actions]}


def unique_to_test(text: str | bytes) -> str:
    """A PHH hand made this test's own by a user field naming the test: an imported hand is
    kept once by its canonical PHH, so tests storing the same file would otherwise share
    one stored hand (the same test gets the same text each time, for retries)."""
    body = text.decode() if isinstance(text, bytes) else text
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    return f"{body.rstrip()}\n_test = {json.dumps(test)}\n"

