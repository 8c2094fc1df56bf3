"""The anchor (issue 37): the smallest honest service doing the durable work of one table
action, written by hand, to measure Cardroom's action against (bench/action_cost.py).

`POST /v1/tables/<id>/actions` with a player's bearer key, `If-Match: "<version>"`, an
`Idempotency-Key` and a JSON body `{"action": ..., "to": ...}`. Per request:
- the key is checked by its SHA-256 against `anchor_keys`, remembered by hash as Cardroom
  remembers keys (every KEY_CACHE_TTL_S one query asks which were revoked since);
- the body is parsed and validated;
- in one statement (autocommit: one round trip, its own transaction, committed
  synchronously) the idempotency claim and record (the answer, under (key id,
  Idempotency-Key)), the events a typical action appends (ActionTaken and the next
  ClockStarted), each with its SHA-256 chained to the one before and the expected
  version checked against the stored hash, the next deadline (the action clock's row) and
  the NOTIFY. A stale version or a used key makes the statement fail (1/0), so nothing of
  it commits; then one more query tells a replay from a conflict.
The answer is JSON, with an ETag, as Cardroom's. Its tables live in their own database
(ANCHOR_DATABASE_URL), made by `install`.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time

import psycopg
from flask import Flask, Response, request
from psycopg_pool import ConnectionPool

KEY_CACHE_TTL_S = 0.5  # service.application.api_keys.KEY_CACHE_TTL_S: Cardroom's
ACTION_CLOCK_S = 30
ACTIONS = frozenset({"fold", "check", "call", "bet", "raise", "show"})
SCHEMA = """
CREATE TABLE anchor_keys (id text PRIMARY KEY, sha256 bytea UNIQUE NOT NULL, player_id text NOT NULL);
CREATE TABLE anchor_revocations (key_id text PRIMARY KEY, revoked_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE anchor_events (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id text NOT NULL, version integer NOT NULL, type text NOT NULL, data jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(), hash bytea NOT NULL, UNIQUE (stream_id, version));
CREATE TABLE anchor_answers (owner text, key text, request_sha256 bytea NOT NULL, status integer NOT NULL,
    body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (owner, key));
CREATE TABLE anchor_clocks (stream_id text PRIMARY KEY, player_id text NOT NULL, deadline timestamptz NOT NULL);
"""
ACT = f"""
WITH claim AS (
    INSERT INTO anchor_answers (owner, key, request_sha256, status, body)
    VALUES (%(owner)s, %(key)s, %(request)s, 201, %(answer)s::jsonb) ON CONFLICT DO NOTHING RETURNING 1
), appended AS (
    INSERT INTO anchor_events (stream_id, version, type, data, hash)
    SELECT %(stream)s, %(expected)s + e.i, e.type, e.data::jsonb, e.hash
      FROM unnest(%(types)s::text[], %(data)s::text[], %(hashes)s::bytea[]) WITH ORDINALITY AS e (type, data, hash, i)
     WHERE EXISTS (SELECT FROM claim)
       AND (%(expected)s = 0 OR EXISTS (SELECT FROM anchor_events p WHERE p.stream_id = %(stream)s
                                          AND p.version = %(expected)s AND p.hash = %(at_expected)s))
    RETURNING version
), clock AS (
    INSERT INTO anchor_clocks SELECT %(stream)s, %(next)s, now() + interval '{ACTION_CLOCK_S} seconds'
     WHERE EXISTS (SELECT FROM claim)
    ON CONFLICT (stream_id) DO UPDATE SET player_id = excluded.player_id, deadline = excluded.deadline
)
SELECT 1 / count(*), pg_notify('anchor_events', %(stream)s || ' ' || max(version)) FROM appended
"""
# 1 / count(*): nothing appended (a stale version, a used key) fails the statement, which
# then commits nothing, the claim included.

app = Flask("anchor")
pool = ConnectionPool(os.environ.get("ANCHOR_DATABASE_URL", ""), min_size=1, max_size=8,
                      kwargs={"autocommit": True}, open=False)
_lock = threading.Lock()
_opening = threading.Lock()
_keys: dict[bytes, tuple[str, str]] = {}  # sha256 -> (key id, player id)
_asked = [0.0]
_heads: dict[str, tuple[int, bytes | None]] = {}  # stream -> (version, hash): this process's last


def _problem(status: int, code: str, **numbers: int) -> Response:
    return Response(json.dumps({"status": status, "code": code, **numbers}), status,
                    mimetype="application/problem+json")


def _caller() -> tuple[str, str] | None:
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    if scheme != "Bearer" or not secret:
        return None
    digest = hashlib.sha256(secret.encode()).digest()
    due = time.monotonic() - _asked[0] > KEY_CACHE_TTL_S
    if not due and digest in _keys:
        return _keys[digest]
    with pool.connection() as connection:
        if due:  # which keys were revoked since the last ask
            revoked = {k for (k,) in connection.execute(
                "SELECT key_id FROM anchor_revocations WHERE revoked_at > now() - interval '5 seconds'")}
            with _lock:
                _asked[0] = time.monotonic()
                for known, (key_id, _) in list(_keys.items()):
                    if key_id in revoked:
                        del _keys[known]
        if digest not in _keys:
            row = connection.execute("SELECT k.id, k.player_id FROM anchor_keys k WHERE sha256 = %s AND NOT EXISTS "
                                     "(SELECT FROM anchor_revocations r WHERE r.key_id = k.id)", (digest,)).fetchone()
            if row is None:
                return None
            _keys[digest] = row
    return _keys[digest]


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@app.post("/v1/tables/<table_id>/actions")
def act(table_id: str) -> Response:
    caller = _caller()
    if caller is None:
        return _problem(401, "unauthorized")
    key, match = request.headers.get("Idempotency-Key", ""), request.headers.get("If-Match", "").strip('"')
    body = request.get_json(silent=True)
    if not 0 < len(key) <= 255 or not match.isdigit():
        return _problem(428, "idempotency_key_and_if_match_required")
    if not isinstance(body, dict) or body.get("action") not in ACTIONS or set(body) - {"action", "to"}:
        return _problem(422, "invalid_action")
    to = body.get("to")
    if (body["action"] in ("bet", "raise")) != (type(to) is int and to > 0):
        return _problem(422, "invalid_amount")
    key_id, player = caller
    expected = int(match)
    version, at_expected = _heads.get(table_id, (None, None))
    if version != expected:  # another process wrote last, or a stale client: the stored hash
        with pool.connection() as connection:
            row = connection.execute("SELECT hash FROM anchor_events WHERE stream_id = %s AND version = %s",
                                     (table_id, expected)).fetchone()
        at_expected = row[0] if row else None
    events = [("ActionTaken", _canonical({"player": player, **body})),
              ("ClockStarted", _canonical({"player": player, "seconds": ACTION_CLOCK_S}))]
    head, hashes = at_expected or b"", []
    for type_, data in events:
        head = hashlib.sha256(head + type_.encode() + data.encode()).digest()
        hashes.append(head)
    now_at = expected + len(events)
    answer = _canonical({"table": table_id, "version": now_at, "hash": head.hex()})
    request_sha256 = hashlib.sha256(request.get_data()).digest()
    try:
        with pool.connection() as connection:
            connection.execute(ACT, {
                "owner": key_id, "key": key, "request": request_sha256, "answer": answer, "stream": table_id,
                "expected": expected, "at_expected": at_expected, "types": [t for t, _ in events],
                "data": [d for _, d in events], "hashes": hashes, "next": player}, prepare=True)
    except (psycopg.errors.DivisionByZero, psycopg.errors.UniqueViolation):
        _heads.pop(table_id, None)
        with pool.connection() as connection:
            first = connection.execute("SELECT request_sha256, body FROM anchor_answers WHERE owner = %s AND key = %s",
                                       (key_id, key)).fetchone()
            if first is None:  # the key is free: the version was stale; the head's is the news
                head = connection.execute("SELECT coalesce(max(version), 0) FROM anchor_events WHERE stream_id = %s",
                                          (table_id,)).fetchone()
                return _problem(409, "version_conflict", version=head[0] if head else 0)
        if first[0] != request_sha256:
            return _problem(422, "idempotency_key_reused")
        replayed = first[1]["version"]
        return Response(_canonical(first[1]), 201, mimetype="application/json",
                        headers={"ETag": f'"{replayed}"', "Idempotent-Replayed": "true"})
    _heads[table_id] = (now_at, head)
    return Response(answer, 201, mimetype="application/json", headers={"ETag": f'"{now_at}"'})


def install(url: str, players: int) -> list[str]:
    """The anchor's tables in the (empty) database at `url`, and a key for each of `players`
    players: their secrets."""
    issued = [secrets.token_urlsafe(32) for _ in range(players)]
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(SCHEMA)
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO anchor_keys VALUES (%s, %s, %s)", [
                (f"key-{n}", hashlib.sha256(secret.encode()).digest(), f"player-{n}") for n, secret in enumerate(issued)])
    return issued


@app.before_request
def _open_pool() -> None:
    """In each gunicorn worker, at its first request (not at import: the bench imports
    `install` too). Not waiting: a request that holds the pool's one connection while it
    waits for `_lock` would otherwise hold up the thread opening it, and so `_lock`."""
    if pool.closed:
        with _opening:
            if pool.closed:
                pool.open(wait=False)
