"""Run `python -m service.devserver` (what `make run` runs) as a real process tree."""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.adapters.embedded import free_port
from service.devserver import gunicorn_command, spawn_tied, stop_process
from tests.processes import is_running, parents, process_start_time, process_tree

PROJECT_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 60.0


def _mentions(pid: int, text: str) -> bool:
    try:
        return text.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@dataclass
class Devserver:
    data_dir: Path
    port: int
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    seen: dict[int, str] = field(default_factory=dict)
    """Every process that belonged to the server, pid -> start time."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "CARDROOM_ADMIN_KEY")
        }
        env.update(CARDROOM_DATA_DIR=str(self.data_dir), PORT=str(self.port))
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "service.devserver"],
                cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while self.get("/healthz")[0] != 200:
            assert self.process.poll() is None, f"devserver exited:\n{self.log()}"
            assert time.monotonic() < deadline, f"devserver never healthy:\n{self.log()}"
            time.sleep(0.2)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:]

    def record_processes(self) -> set[int]:
        """The server's process tree plus anything started on its data directory."""
        assert self.process is not None
        tree = process_tree(self.process.pid)
        tree |= {pid for pid in parents() if _mentions(pid, str(self.data_dir))}
        for pid in tree:
            start_time = process_start_time(pid)
            if start_time is not None:
                self.seen[pid] = start_time
        return tree

    def interrupt(self) -> int:
        """Ctrl-C: SIGINT to the devserver only, as a terminal would send it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=STOP_TIMEOUT_S)

    def still_running(self) -> list[int]:
        return [pid for pid, start in self.seen.items() if is_running(pid, start)]

    def admin_key(self) -> str:
        return (self.data_dir / "admin-key").read_text().strip()

    def get(self, path: str, key: str | None = None) -> tuple[int, dict]:
        return self.request("GET", path, key=key)

    def request(self, method: str, path: str, body: dict | None = None, key: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return 0, {}

    def kill_leftovers(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for pid in self.still_running():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def devserver(tmp_path: Path) -> Iterator[Devserver]:
    server = Devserver(data_dir=tmp_path / "data", port=free_port(), log_path=tmp_path / "devserver.log")
    yield server
    server.kill_leftovers()


# A bare gunicorn on the test database, shared by the HTTP e2e tests.

@dataclass
class Server:
    port: int
    admin: dict[str, str]

    def call(self, method: str, path: str, body: dict | None = None,
             headers: dict[str, str] | None = None, connection: http.client.HTTPConnection | None = None
             ) -> tuple[int, dict, dict[str, str]]:
        own = connection is None
        connection = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None,
                               headers={"Content-Type": "application/json", **(headers or {})})
            response = connection.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else {}, dict(response.getheaders())
        finally:
            if own:
                connection.close()


# Scripted players: tests that play many hands through HTTP as the players would.

Move = Callable[[str, str, dict], dict]
"""(table_id, player_id, legal-actions answer) -> the action body to post."""


def scripted_players(server: Server, count: int, name: str) -> list[tuple[str, dict[str, str]]]:
    """`count` new players ("<name> 0", ...), each with the headers of their own key."""
    players = []
    for index in range(count):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"{name} {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]},
                                server.admin)
        players.append((created["id"], {"Authorization": f"Bearer {key['key']}"}))
    return players


def play_scripted_hands(server: Server, players: list[tuple[str, dict[str, str]]], hands: int,
                        new_table: Callable[[], str], move: Move,
                        check_hand: Callable[[dict], None], time_limit_s: float) -> list[str]:
    """Deals `hands` hands (on a fresh table whenever one is finished or down to one
    player), each player to act posting `move`'s action with their own key; after each hand
    `check_hand` gets the admin's view of the table. Returns the tables played on."""
    started = time.monotonic()
    key_of = dict(players)
    tables = [new_table()]
    played = 0
    while played < hands:
        table_id = tables[-1]
        status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        if status == 422 and answer["code"] in ("table_finished", "not_enough_players"):
            tables.append(new_table())
            continue
        assert status == 201, answer
        played += 1
        while True:
            status, legal, headers = server.call("GET", f"/v1/tables/{table_id}/legal-actions",
                                                 headers=server.admin)
            assert status == 200
            if legal["to_act"] is None:
                break
            player = legal["to_act"]
            action = move(table_id, player, legal["legal"])
            status, answer, _ = server.call("POST", f"/v1/tables/{table_id}/actions", action,
                                            {**key_of[player], "If-Match": headers["ETag"]})
            assert status == 201, (action, answer)
        _, view, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
        check_hand(view)
        elapsed = time.monotonic() - started
        assert elapsed < time_limit_s, f"only {played} hands in {time_limit_s} s"
    return tables


def assert_log_replays_to_live(server: Server, table_id: str, game: str) -> dict:
    """The table rebuilt from its event log equals the live table; returns the live view."""
    from domain.live import table, table_records, table_state
    from service.application import views

    _, live, _ = server.call("GET", f"/v1/tables/{table_id}", headers=server.admin)
    types = table.event_types(game)
    rebuilt = table_state.replay(table_records.event_of(types, e["type"], e["data"])
                                 for e in whole_log(server, table_id))
    assert views.table_view(rebuilt, live["version"], views.Viewer("admin")) == without_names(live)
    return live


def without_names(value: Any) -> Any:
    """An answer without the names the HTTP layer adds beside player ids (live.md): `name`
    beside each `player_id`, `names` beside a list of `players`."""
    if isinstance(value, list):
        return [without_names(item) for item in value]
    if not isinstance(value, dict):
        return value
    added = {"name"} if "player_id" in value else set()
    added |= {"names"} if isinstance(value.get("players"), list) else set()
    return {key: without_names(item) for key, item in value.items() if key not in added}


def whole_log(server: Server, table_id: str) -> list[dict]:
    """Every event of the table, page after page (`next`)."""
    events: list[dict] = []
    url: str | None = f"/v1/tables/{table_id}/events?limit=5000"
    while url:
        status, page, _ = server.call("GET", url, headers=server.admin)
        assert status == 200, page
        events += page["events"]
        url = page["next"]
    return events


def _gunicorn_on_a_free_port(attempts: int = 3) -> tuple[int, list[str]]:
    """A free port and the command serving on it. gunicorn_command refuses a port something
    listens on; between free_port's probe and that check another server of the run may take
    it (CI met it twice, with test_two_servers starting its servers side by side): then
    another port."""
    for attempt in range(attempts):
        port = free_port()
        try:
            return port, gunicorn_command("service.wsgi:app", port)
        except SystemExit:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def start_gunicorn(database_url: str, environ: dict[str, str] | None = None,
                   log_path: Path | None = None) -> Iterator[Server]:
    """gunicorn on the test database with a fresh admin key and no broker, unless `environ`
    names them (and with the rest of `environ`); its output to `log_path` if given, else
    ours; stopped afterwards."""
    environ = {"CARDROOM_ADMIN_KEY": "e2e-admin-" + secrets.token_hex(8), **(environ or {})}
    admin_key = environ["CARDROOM_ADMIN_KEY"]
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}
    env.update(DATABASE_URL=database_url, **environ)
    port, command = _gunicorn_on_a_free_port()
    if log_path is None:
        process = spawn_tied(command, env)
    else:
        with log_path.open("ab") as log:
            process = spawn_tied(command, env, log.fileno())
    server = Server(port, {"Authorization": f"Bearer {admin_key}"})
    deadline = time.monotonic() + 30
    while True:
        try:
            if server.call("GET", "/livez")[0] == 200:
                break
        except OSError:
            pass
        assert process.poll() is None and time.monotonic() < deadline, "gunicorn did not start"
        time.sleep(0.1)
    try:
        yield server
    finally:
        stop_process(process)


@pytest.fixture(scope="module")
def server(database_url) -> Iterator[Server]:
    yield from start_gunicorn(database_url)


# The tournament e2e tests: a `celery worker -B` that deals every hand, and the store they
# read the log from.

@pytest.fixture
def worker(tmp_path: Path, database_url: str, broker_url: str) -> Iterator[Any]:
    from tests.integration.conftest import CeleryWorker

    running = CeleryWorker(tmp_path / "worker", database_url, broker_url, beat=True)
    yield running
    running.stop()


@pytest.fixture
def store(database_url: str) -> Iterator[Any]:
    from service.adapters.store.postgres import open_pool
    from service.config import Config
    from tests.stores import store_as_the_apps

    pool = open_pool(database_url, max_size=2)
    # Keyed as the servers these tests start (the same environment): their reads check the
    # MACs, and the secrets they seal open.
    yield store_as_the_apps(pool, Config.from_env())
    pool.close()


# Server-Sent Events clients, closed after each test.

@pytest.fixture
def clients() -> Iterator[list]:
    """Each test's SseClients (tests.e2e.sse), appended as opened."""
    opened: list = []
    yield opened
    for client in opened:
        client.close()
