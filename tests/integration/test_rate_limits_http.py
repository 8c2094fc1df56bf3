"""Rate limits per key and per address: a 429 problem with Retry-After past the limit
(issue 19). Each test builds an app with its own low limits."""
from __future__ import annotations

import pytest

from service.bootstrap import create_app
from service.config import Config
from service.http.rate_limits import storage_url
from tests.integration.conftest import ADMIN, ADMIN_KEY, assert_problem


def _app(database_url: str, **limits: str):
    return create_app(Config(database_url=database_url, admin_key=ADMIN_KEY, **limits)).test_client()


def _spectator_key(client) -> dict[str, str]:
    issued = client.post("/v1/keys", json={"role": "spectator"}, headers=ADMIN).get_json()
    return {"Authorization": f"Bearer {issued['key']}"}


def test_a_key_past_its_limit_gets_a_429_problem_with_retry_after(database_url):
    client = _app(database_url, rate_limit_per_key="3/minute", rate_limit_per_address="")
    key = _spectator_key(client)

    answered = [client.get("/v1/players/nobody", headers=key).status_code for _ in range(3)]
    refused = client.get("/v1/players/nobody", headers=key)

    assert answered == [404, 404, 404]
    body = assert_problem(refused, 429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert body["retry_after_s"] == int(refused.headers["Retry-After"])
    assert (body["limit"], body["per"]) == ("3 per 1 minute", "key")
    assert body["request_id"] == refused.headers["X-Request-Id"]
    # Another key is counted apart; the deployment's admin key is not limited per key.
    assert client.get("/v1/players/nobody", headers=_spectator_key(client)).status_code == 404
    assert all(client.get("/v1/players/nobody", headers=ADMIN).status_code == 404 for _ in range(5))


def test_an_address_past_its_limit_gets_a_429_but_health_is_never_limited(database_url):
    client = _app(database_url, rate_limit_per_key="", rate_limit_per_address="2/minute")

    assert [client.get("/v1/players/nobody").status_code for _ in range(2)] == [401, 401]
    refused = client.get("/v1/players/nobody", headers=ADMIN)

    assert_problem(refused, 429, "rate_limited")
    assert refused.get_json()["per"] == "address"
    assert refused.headers["Retry-After"]
    assert all(client.get(path).status_code in (200, 302) for path in ("/healthz", "/metrics", "/livez", "/docs")
               for _ in range(3))


def test_with_a_redis_broker_the_count_is_shared_by_every_process(database_url, broker_url):
    limits = {"rate_limit_per_key": "2/minute", "rate_limit_per_address": "", "broker_url": broker_url}
    first, second = _app(database_url, **limits), _app(database_url, **limits)
    key = _spectator_key(first)

    assert first.get("/v1/players/nobody", headers=key).status_code == 404
    assert second.get("/v1/players/nobody", headers=key).status_code == 404
    assert_problem(first.get("/v1/players/nobody", headers=key), 429, "rate_limited")


def test_in_redis_every_limit_that_applies_counts_the_request(database_url, broker_url):
    import redis

    counts = redis.Redis.from_url(broker_url)
    for stale in counts.scan_iter("LIMITS:*address*"):  # earlier runs' counts of this address
        counts.delete(stale)
    client = _app(database_url, rate_limit_per_key="2/minute", rate_limit_per_address="4/minute",
                  broker_url=broker_url)
    key = _spectator_key(client)  # the address's first request

    assert [client.get("/v1/players/nobody", headers=key).status_code for _ in range(2)] == [404, 404]
    assert assert_problem(client.get("/v1/players/nobody", headers=key), 429, "rate_limited")["per"] == "key"
    assert assert_problem(client.get("/v1/players/nobody", headers=ADMIN), 429, "rate_limited")["per"] == "address"


def test_a_counting_store_that_is_down_lets_requests_through_and_counts_in_memory(database_url):
    client = _app(database_url, rate_limit_per_key="2/minute", rate_limit_per_address="",
                  broker_url="redis://127.0.0.1:1/0")  # nothing listens there
    key = _spectator_key(client)

    assert [client.get("/v1/players/nobody", headers=key).status_code for _ in range(2)] == [404, 404]
    assert_problem(client.get("/v1/players/nobody", headers=key), 429, "rate_limited")


def test_the_default_limits_leave_a_busy_client_alone(database_url):
    client = _app(database_url)
    key = _spectator_key(client)
    assert all(client.get("/v1/players/nobody", headers=key).status_code == 404 for _ in range(60))


@pytest.mark.parametrize("broker, counted_in", [
    (None, "cardroom-memory://"),
    ("redis://broker:6379/3", "redis://broker:6379/3"),
    ("amqp://guest@rabbit//", "cardroom-memory://"),
])
def test_the_limits_count_in_a_redis_broker_else_in_memory(broker, counted_in):
    assert storage_url(Config(broker_url=broker)) == counted_in


def test_in_memory_an_expired_count_starts_again_and_no_thread_is_started(monkeypatch):
    import threading

    from service.http import rate_limits

    storage = rate_limits.QuietMemoryStorage()
    now = [1000.0]
    monkeypatch.setattr(rate_limits.time, "time", lambda: now[0])
    threads = threading.active_count()
    assert [storage.incr("k", 1) for _ in range(3)] == [1, 2, 3]
    now[0] += 1.5
    assert storage.incr("k", 1) == 1
    assert threading.active_count() == threads


def test_in_redis_processes_take_a_limit_in_leases_and_together_never_pass_it(broker_url):
    """Two processes' counts of one client: each leases a hundredth of the limit at a time;
    the first's unspent lease is all the second misses, and the first spends it later."""
    import uuid

    from limits import parse
    from limits.storage import storage_from_string

    from service.http.rate_limits import LeasedCounts

    limit = parse("1000/minute")
    hit = [(limit, "key", uuid.uuid4().hex)]
    storage = storage_from_string(broker_url)
    first, second = LeasedCounts(storage), LeasedCounts(storage)
    trips = []
    script = second._script
    second._script = lambda keys, arguments: trips.append(keys) or script(keys, arguments)

    assert first.take(hit) == [None]  # leases 10, spends 1
    let_through = sum(second.take(hit) == [None] for _ in range(1100))
    assert let_through == 1000 - 10
    assert len(trips) == 99 + 1  # a lease per 10 requests, and the one that found the limit passed
    rest = [first.take(hit)[0] for _ in range(10)]
    assert rest[:9] == [None] * 9  # its lease, spent here: 1,000 let through in all
    assert rest[9] > 50  # then refused until the window ends


def test_a_lease_is_taken_after_redis_dropped_the_connection_or_forgot_the_script(broker_url):
    """The lease script runs on a connection each thread keeps: one Redis closed is made
    again, and a script Redis no longer knows (a restart, SCRIPT FLUSH) is loaded again,
    without the request noticing (no fallback to counting in memory)."""
    import uuid

    import redis
    from limits import parse
    from limits.storage import storage_from_string

    from service.http.rate_limits import LeasedCounts

    limit = parse("1/minute")  # a lease of one request: each take asks Redis
    counts = LeasedCounts(storage_from_string(broker_url))
    admin = redis.Redis.from_url(broker_url)
    assert counts.take([(limit, "key", uuid.uuid4().hex)]) == [None]

    kept = counts._script._own.connection
    kept.send_command("CLIENT", "ID")
    assert admin.client_kill_filter(_id=kept.read_response()) == 1
    assert counts.take([(limit, "key", uuid.uuid4().hex)]) == [None]

    admin.script_flush()
    client = uuid.uuid4().hex
    assert counts.take([(limit, "key", client)]) == [None]
    assert counts.take([(limit, "key", client)])[0] > 50  # counted in Redis: the second is refused
