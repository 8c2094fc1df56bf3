"""Two app servers and two workers behave as one: two gunicorn servers and two `celery
worker` processes, each a process of its own, on one PostgreSQL database and one broker,
as production would run them behind a load balancer. Beat runs in exactly one worker (two
beats would send every periodic sweep twice; the sweeps are safe to race, but production
runs one scheduler, so this does). Shown here:

- 16 clients, half on each server, post at the same table version at once, round after
  round over several hands: exactly one 201 per version, the others 409 version_conflict
  with the versions in the problem's numbers; chips conserved at every hand's end; both
  servers give the same view, which the log replays to;
- 16 retries of one write with one Idempotency-Key, half on each server: it is written
  once, and either server answers a later retry with the first answer;
- action clocks started through both servers expire exactly once each (one ClockExpired
  per ClockStarted that ran out, counted against their deadlines), by the clock watch of
  whichever worker leads (the other waits to take over), or the beat sweep;
- a 40-player tournament (tests/e2e/test_tournament_e2e.py's) played through both
  servers, its tables driven by whichever worker takes beat's sweep, to one winner, its
  payouts and chips conserved.

`make test-integration` (the integration and e2e phase of .ci/run) runs it; `make test`
leaves it out (marker `scale`): it takes about a minute on 2 cores.
"""
from __future__ import annotations

import http.client
import random
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from service.application import commands
from tests.e2e.conftest import Server, assert_log_replays_to_live, start_gunicorn
from tests.e2e.test_tournament_e2e import BUY_IN, PAYOUTS, PLAYERS, STACK, act_where_due, assert_the_multi_table_machinery_ran, schedule, settled_chips
from tests.integration.conftest import CeleryWorker

pytestmark = [pytest.mark.e2e, pytest.mark.scale, pytest.mark.xdist_group("clock_worker")]

CLIENTS = 16
RACE_TABLES = 3
RACE_ROUNDS = 36
CHIPS_PER_SEAT = 10_000
CLOCK_TABLES = 12
CLOCK_S = 1
# A clock is acted on by the leading worker's watch at the deadline, or by the sweep
# (every second, leaving a second's grace to the watch): never later than about two
# seconds after it.
CLOCK_LATE_BY_AT_MOST_S = 2.5
SETTLE_S = 3.5
TOURNAMENT_TIME_LIMIT_S = 90


@dataclass
class Cluster:
    servers: list[Server]
    workers: list[CeleryWorker]

    def server(self, index: int) -> Server:
        """Server by index, alternating: what a round-robin load balancer would do."""
        return self.servers[index % len(self.servers)]


@pytest.fixture(scope="module")
def cluster(database_url: str, broker_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The four processes, started at once and stopped at once (a worker's warm shutdown
    waits for its running sweep: seconds each, one after the other)."""
    environ = {"CELERY_BROKER_URL": broker_url, "CARDROOM_ADMIN_KEY": "two-servers-" + secrets.token_hex(8)}
    directory = Path(tmp_path_factory.mktemp("two-servers"))
    stops: list = []

    def serve() -> Server:
        stack = ExitStack()
        stops.append(stack.close)
        return stack.enter_context(contextmanager(start_gunicorn)(database_url, environ))

    def work(index: int) -> CeleryWorker:
        worker = CeleryWorker(directory / f"worker-{index}", database_url, broker_url, beat=index == 0)
        stops.append(worker.stop)
        return worker

    with ThreadPoolExecutor(4) as pool:
        try:
            servers = [pool.submit(serve) for _ in range(2)]
            workers = [pool.submit(work, index) for index in range(2)]
            yield Cluster([future.result() for future in servers], [future.result() for future in workers])
        finally:
            for stopped in [pool.submit(stop) for stop in stops]:
                stopped.result()


def connections_to(cluster: Cluster) -> list[http.client.HTTPConnection]:
    """One open connection per client, client i on server i % 2."""
    opened = []
    for index in range(CLIENTS):
        connection = http.client.HTTPConnection("127.0.0.1", cluster.server(index).port, timeout=30)
        connection.connect()
        opened.append(connection)
    return opened


def all_at_once(cluster: Cluster, connections: list[http.client.HTTPConnection], path: str,
                bodies: list[dict], headers: dict) -> list[tuple[int, dict]]:
    """Client i posts bodies[i] on its own connection; all are released together."""
    barrier = threading.Barrier(CLIENTS)

    def post(index: int) -> tuple[int, dict]:
        barrier.wait()
        status, answer, _ = cluster.server(index).call("POST", path, bodies[index], headers, connections[index])
        return status, answer

    with ThreadPoolExecutor(CLIENTS) as pool:
        return list(pool.map(post, range(CLIENTS)))


def new_players(server: Server, count: int) -> dict[str, dict[str, str]]:
    keys = {}
    for index in range(count):
        _, created, _ = server.call("POST", "/v1/players", {"name": f"Racer {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        keys[created["id"]] = {"Authorization": f"Bearer {key['key']}"}
    return keys


def new_table(server: Server, players: list[str], **options) -> str:
    status, created, _ = server.call("POST", "/v1/tables", {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": CHIPS_PER_SEAT} for p in players], **options}, server.admin)
    assert status == 201, created
    return created["id"]


def choices(legal: dict, rng: random.Random) -> list[dict]:
    """A legal action for each client (they disagree: each posts its own choice)."""
    possible = [{"action": "call"} if legal["call"] else {"action": "check"}]
    if legal["fold"]:
        possible.append({"action": "fold"})
    span = legal["raise"] or legal["bet"]
    if span:
        possible.append({"action": "raise" if legal["raise"] else "bet", "to": span["min_to"]})
    # Folds rarely, so hands reach the later streets.
    weights = [6] + [1] * (len(possible) - 1)
    return [rng.choices(possible, weights)[0] for _ in range(CLIENTS)]


def assert_one_winner(answers: list[tuple[int, dict]], version: int, written_to: int) -> None:
    """One 201; every other client a 409 naming the version it expected and the one the
    winner wrote up to."""
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] + [409] * (CLIENTS - 1), answers
    for status, answer in answers:
        if status == 409:
            assert answer["code"] == "version_conflict", answer
            assert answer["numbers"] == {"expected_version": version, "actual_version": written_to}, answer


def test_sixteen_clients_on_two_servers_one_winner_per_version_and_chips_conserved(cluster):
    first = cluster.server(0)
    rng = random.Random(16)
    keys = new_players(first, 3 * RACE_TABLES)
    seated = list(keys)
    tables = [new_table(cluster.server(t), seated[3 * t:3 * t + 3]) for t in range(RACE_TABLES)]
    connections = connections_to(cluster)
    won_by = [0, 0]
    hands = 0
    try:
        for round_ in range(RACE_ROUNDS):
            table_id = tables[round_ % RACE_TABLES]
            reader = cluster.server(round_)
            _, legal, headers = reader.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=reader.admin)
            version = int(headers["ETag"].strip('"'))
            if legal["to_act"] is None:  # between hands: every client deals the next one
                path, bodies, key = f"/v1/tables/{table_id}/hands", [{}] * CLIENTS, reader.admin
                hands += 1
            else:
                path, bodies, key = f"/v1/tables/{table_id}/actions", choices(legal["legal"], rng), keys[legal["to_act"]]
            answers = all_at_once(cluster, connections, path, bodies, {**key, "If-Match": f'"{version}"'})
            _, view, _ = reader.call("GET", f"/v1/tables/{table_id}", headers=reader.admin)
            assert_one_winner(answers, version, view["version"])
            won_by[[status for status, _ in answers].index(201) % 2] += 1
            if view["hand"] is None or view["hand"]["over"]:
                assert sum(seat["stack"] for seat in view["seats"]) == 3 * CHIPS_PER_SEAT, view
    finally:
        for connection in connections:
            connection.close()
    assert hands >= RACE_TABLES and all(won_by), won_by
    print(f"race: {RACE_ROUNDS} versions, {hands} hands dealt, won through each server {won_by}")
    for table_id in tables:
        views = [server.call("GET", f"/v1/tables/{table_id}", headers=server.admin) for server in cluster.servers]
        assert views[0][1] == views[1][1] and views[0][2]["ETag"] == views[1][2]["ETag"]
        assert_log_replays_to_live(first, table_id, "holdem")
        _, verified, _ = first.call("GET", f"/v1/streams/table-{table_id}/verify", headers=first.admin)
        assert verified["ok"] is True


def test_one_idempotency_key_is_written_once_and_answered_the_same_on_either_server(cluster):
    first, second = cluster.servers
    keys = new_players(first, 3)
    table_id = new_table(first, list(keys))
    status, _, _ = second.call("POST", f"/v1/tables/{table_id}/hands", {}, second.admin)
    assert status == 201
    _, legal, headers = first.call("GET", f"/v1/tables/{table_id}/legal-actions", headers=first.admin)
    version = int(headers["ETag"].strip('"'))
    retry = {**keys[legal["to_act"]], "If-Match": f'"{version}"', "Idempotency-Key": "once-" + secrets.token_hex(6)}
    body = {"action": "raise", "to": legal["legal"]["raise"]["min_to"]}
    connections = connections_to(cluster)
    try:
        answers = all_at_once(cluster, connections, f"/v1/tables/{table_id}/actions", [body] * CLIENTS, retry)
    finally:
        for connection in connections:
            connection.close()
    ran = [answer for status, answer in answers if status == 201]
    busy = [answer for status, answer in answers if status == 409]
    assert ran and len(ran) + len(busy) == CLIENTS, answers
    assert all(answer == ran[0] for answer in ran)
    assert all(answer["code"] == "idempotency_request_in_progress" for answer in busy)
    for server in (first, second, first, second):  # later retries, the version moved on
        status, late, headers = server.call("POST", f"/v1/tables/{table_id}/actions", body, retry)
        assert (status, late, headers.get("Idempotent-Replayed")) == (201, ran[0], "true")
    _, events, _ = second.call("GET", f"/v1/tables/{table_id}/events?after={version}", headers=second.admin)
    assert [e["type"] for e in events["events"]] == ["ActionTaken"]


def clocks_of(store, table_id: str) -> tuple[list[int], list]:
    """The deadlines of the table's clocks, and its ClockExpired records."""
    records = store.read_stream(commands.table_stream(table_id))
    started = [r.data["deadline_at_ms"] for r in records if r.type == "ClockStarted"]
    return started, [r for r in records if r.type == "ClockExpired"]


def test_action_clocks_started_through_both_servers_fire_exactly_once(cluster, store):
    first = cluster.server(0)
    keys = new_players(first, 3)
    tables = [new_table(cluster.server(t), list(keys), action_clock_s=CLOCK_S) for t in range(CLOCK_TABLES)]
    for index, table_id in enumerate(tables):
        server = cluster.server(index)
        status, _, _ = server.call("POST", f"/v1/tables/{table_id}/hands", {}, server.admin)
        assert status == 201
    # Nobody acts: three-handed, the first two to act are folded by their clocks in turn
    # and the hand ends: two clocks per table run out, each one once.
    deadline = time.monotonic() + 20
    while sum(len(clocks_of(store, t)[1]) for t in tables) < 2 * CLOCK_TABLES:
        assert time.monotonic() < deadline, [clocks_of(store, t) for t in tables]
        time.sleep(0.1)
    time.sleep(SETTLE_S)  # a second expiry of any clock would be in by now
    for table_id in tables:
        started, expired = clocks_of(store, table_id)
        assert len(started) == 2 and sorted(e.data["deadline_at_ms"] for e in expired) == sorted(started), (
            table_id, started, [e.data for e in expired])
        for record in expired:
            late_by = record.recorded_at.timestamp() - record.data["deadline_at_ms"] / 1000
            assert 0 <= late_by < CLOCK_LATE_BY_AT_MOST_S, (table_id, late_by)
        _, view, _ = first.call("GET", f"/v1/tables/{table_id}", headers=first.admin)
        assert view["hand"]["over"] and view["clock"] is None
    # One worker's watch led; the other waited to take over.
    leading = ["clock watch: leading" in worker.text() for worker in cluster.workers]
    assert leading.count(True) == 1, leading
    print(f"clocks: {2 * CLOCK_TABLES} expired once each; the watch led on worker {leading.index(True)}")


def connections_held(database_url: str) -> int:
    """Connections open to the test database (the servers', the workers', this process's)."""
    with psycopg.connect(database_url) as connection:
        return connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()").fetchone()[0]


def test_forty_players_on_two_servers_and_two_workers_play_down_to_one_winner(cluster, store, database_url):
    started = time.monotonic()
    first = cluster.server(0)
    keys = {}
    for index in range(PLAYERS):
        server = cluster.server(index)
        _, created, _ = server.call("POST", "/v1/players", {"name": f"Shover {index}"}, server.admin)
        _, key, _ = server.call("POST", "/v1/keys", {"role": "player", "player_id": created["id"]}, server.admin)
        keys[created["id"]] = {"Authorization": f"Bearer {key['key']}"}
    tournament_id = schedule(first, keys)
    rng = random.Random(40)
    rounds = 0
    while True:
        assert time.monotonic() - started < TOURNAMENT_TIME_LIMIT_S, [w.text()[-2000:] for w in cluster.workers]
        reader = cluster.server(rounds)
        _, view, _ = reader.call("GET", f"/v1/tournaments/{tournament_id}", headers=reader.admin)
        if view["status"] == "finished":
            break
        if view["tables"]:
            assert settled_chips(store, tournament_id) == PLAYERS * STACK
        for index, shown in enumerate(view["tables"]):
            act_where_due(cluster.server(rounds + index), shown["table_id"], keys, rng)
        rounds += 1
        time.sleep(0.05)
    assert settled_chips(store, tournament_id) == PLAYERS * STACK
    standings = view["standings"]
    assert len(standings) == PLAYERS and {s["player_id"] for s in standings} == set(keys)
    [winner] = [s for s in standings if s["place"] == 1]
    pool = PLAYERS * BUY_IN
    assert view["prize_pool"] == pool and sum(p["amount"] for p in view["prizes"]) == pool
    place_of = {s["player_id"]: s["place"] for s in standings}
    assert all(place_of[p["player_id"]] == p["place"] <= len(PAYOUTS) for p in view["prizes"])
    assert view["prizes"][0]["player_id"] == winner["player_id"]
    assert view["prizes"][0]["amount"] == pool * int(PAYOUTS[0]) // 100
    assert_the_multi_table_machinery_ran(store, tournament_id)
    swept = [worker.succeeded("sweep_tournaments") for worker in cluster.workers]
    print(f"tournament: {time.monotonic() - started:.1f} s; sweeps run by each worker {swept}; "
          f"connections to the database now: {connections_held(database_url)}")
