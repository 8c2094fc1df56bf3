"""A dropped events table is brought back by a point-in-time restore (issue 28): a failover
does not save it, since the standbys replay the DROP as faithfully as every INSERT.

A PostgreSQL 15 server of the test's own archives its WAL (tests.ha.backups); a base backup
is taken after the first writes; more writes follow; the time is noted; more writes; then a
superuser drops the events table. The base backup restored with the archive replayed up to
the noted time (`recovery_target_time`) holds every event written before it with the hash
its receipt gave, none written after, and every chain verifies (`cardroom verify`).

The public log's tree is in the same database, so it rolls back with the restore: what
remembers the events given up is outside it. An auditor who kept the signed checkpoint and
the leaves it covers (public data: `GET /v1/log/checkpoint` and `/v1/log/leaves/{i}`, as
`cardroom log monitor --full` reads them) finds the restored log's checkpoint smaller than
the one it trusted (a rollback a monitor refuses) and names, from its leaves, exactly the
streams the restore cut short or lost whole: what a restore gave up is found, not silently
forgotten.
"""
from __future__ import annotations

import base64
import json
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.public_log_verifier import parse_leaf
from tests.ha.backups import ArchivingServer
from tests.ha.cluster import POSTGRES_BIN, unprivileged_account

pytestmark = [pytest.mark.ha]

ADMIN_KEY = "pitr-admin-" + secrets.token_hex(8)
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Writes:
    """Writes through the app (a Flask test client on the application's login), each
    write's receipts kept per phase."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.receipts: dict[str, list[dict]] = {}
        self.phase = ""

    def post(self, path: str, body: dict, headers: dict[str, str] | None = None) -> dict:
        response = self.client.post(path, json=body, headers={**ADMIN, **(headers or {})})
        assert response.status_code in (200, 201), response.get_data(as_text=True)
        self.receipts.setdefault(self.phase, []).extend(
            json.loads(text) for text in response.headers.getlist("Cardroom-Receipt"))
        return response.get_json()

    def table(self, players: int) -> str:
        ids = [self.post("/v1/players", {"name": f"Restored {self.phase} {n}"})["id"] for n in range(players)]
        return self.post("/v1/tables", {
            "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
            "seats": [{"player_id": p, "stack": 10_000} for p in ids], "auto_deal": True})["id"]

    def play(self, table_id: str, actions: int) -> None:
        view = self.client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
        if view["hand"] is None:
            written = self.post(f"/v1/tables/{table_id}/hands", {}, {"If-Match": f'"{view["version"]}"'})
        else:
            legal = self.client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()
            written = {"version": view["version"], **legal}
        for _ in range(actions):
            action = "check" if written["legal"].get("check") else "call"
            written = self.post(f"/v1/tables/{table_id}/actions", {"player_id": written["to_act"], "action": action},
                                {"If-Match": f'"{written["version"]}"'})


def verify(database_url: str, data_dir: Path, chain_key: str) -> dict:
    """`cardroom --database-url ... verify --json` with this data folder (its keys)."""
    env = {"CARDROOM_DATA_DIR": str(data_dir), "CARDROOM_CHAIN_KEY": chain_key, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(Path(sys.executable).parent / "cardroom"), "--database-url", database_url,
                           "verify", "--json"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return json.loads(done.stdout)


def audited(client: Any) -> tuple[int, list[tuple[str, int]]]:
    """What an auditor keeps of the public log: the size of the signed checkpoint it
    trusted, and the (stream, version) of every leaf under it."""
    size = int(client.get("/v1/log/checkpoint").get_data(as_text=True).split("\n")[1])
    leaves = [parse_leaf(base64.b64decode(client.get(f"/v1/log/leaves/{index}").get_json()["leaf"]))
              for index in range(size)]
    return size, [(leaf.stream_id, leaf.version) for leaf in leaves]


def integrate(config: Any) -> None:
    """The public log integrated to the log's end, as the worker does."""
    from psycopg_pool import ConnectionPool

    from service import wiring
    from tests.integration.test_forgeries import integrate as to_the_end
    from tests.integration.test_forgeries import integrator_of

    with ConnectionPool(config.database_url, min_size=1, max_size=3, kwargs={"autocommit": True}) as pool:
        to_the_end(integrator_of(pool, config, wiring.event_store(pool, config)))


def stored(admin_url: str, receipts: list[dict]) -> dict[tuple[str, int], str]:
    """(stream, version) -> hash in the log, of the events these receipts name."""
    with psycopg.connect(admin_url) as connection:
        rows = connection.execute("SELECT stream_id, version, encode(hash, 'hex') FROM events WHERE stream_id = ANY(%s)",
                                  (sorted({r["stream"] for r in receipts}),)).fetchall()
    return {(stream, version): digest for stream, version, digest in rows}


@pytest.mark.timeout(90)
def test_a_dropped_events_table_is_restored_to_the_time_before_and_every_chain_verifies(tmp_path, monkeypatch):
    if not (POSTGRES_BIN / "pg_basebackup").exists():
        print(f"\n!! the point-in-time restore test is SKIPPED: no {POSTGRES_BIN} (Debian's postgresql-15)",
              file=sys.stderr)
        pytest.skip(f"no {POSTGRES_BIN}: install Debian's postgresql-15")
    from service.adapters.migrate import ensure_database, ensure_login_role, upgrade
    from service.bootstrap import create_app
    from service.config import Config

    started = time.monotonic()
    account = unprivileged_account()
    chain_key = secrets.token_hex(32)
    writer_data = tmp_path / "writer-data"
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    # Not under tmp_path: pytest keeps that private to root, and the servers run as `account`.
    root = Path(tempfile.mkdtemp(prefix="cardroom-restore-"))
    if account.uid is not None:
        shutil.chown(root, account.uid, account.gid)
    server = ArchivingServer(root / "primary", account, root / "archive")
    restored = ArchivingServer(root / "restored", account, server.archive, port=server.port)
    try:
        server.initialise()
        server.start()
        admin_url = ensure_database(server.url("cardroom"))
        upgrade(admin_url)
        app_url = ensure_login_role(admin_url, "cardroom_restore_app", secrets.token_urlsafe(18))
        config = replace(Config.from_env({}), database_url=app_url, admin_key=ADMIN_KEY, chain_key=chain_key,
                         data_dir=writer_data)
        writes = Writes(create_app(config).test_client())

        writes.phase = "before the backup"
        first = writes.table(3)
        writes.play(first, 12)
        server.base_backup(root / "base-backup")

        writes.phase = "before the target"
        writes.play(first, 12)
        second = writes.table(2)
        writes.play(second, 6)
        time.sleep(0.2)
        with psycopg.connect(admin_url) as connection:
            target_time = str(connection.execute("SELECT clock_timestamp()").fetchone()[0])
        time.sleep(0.2)

        writes.phase = "after the target"
        writes.play(first, 9)
        writes.play(second, 5)
        third = writes.table(2)
        writes.play(third, 4)
        integrate(config)
        trusted_size, leaves = audited(writes.client)

        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute("DROP TABLE events CASCADE")
        server.archive_current_wal()
        server.stop()

        restored.restore(root / "base-backup", target_time)

        kept = writes.receipts["before the backup"] + writes.receipts["before the target"]
        lost = writes.receipts["after the target"]
        log = stored(admin_url, kept + lost)
        assert all(log.get((r["stream"], r["version"])) == r["hash"] for r in kept), \
            [r for r in kept if log.get((r["stream"], r["version"])) != r["hash"]][:5]
        assert not [r for r in lost if (r["stream"], r["version"]) in log]

        # Another host: given the room's keys (the chain key, the data key the secrets were
        # sealed under), none of the writer's files.
        fresh_data = tmp_path / "fresh-data"
        fresh_data.mkdir()
        shutil.copy2(writer_data / "data-key", fresh_data / "data-key")
        fresh = verify(app_url, fresh_data, chain_key)
        assert fresh["bad"] == [] and fresh["streams"] == len({r["stream"] for r in kept}), fresh
        # The auditor's kept checkpoint and leaves name every stream the restore gave up:
        # those cut short, and those written only after the target (known, with no events).
        cut_short = {r["stream"] for r in lost} & {r["stream"] for r in kept}
        restored_app = create_app(config).test_client()
        restored_checkpoint = restored_app.get("/v1/log/checkpoint")
        assert restored_checkpoint.status_code == 404 or \
            int(restored_checkpoint.get_data(as_text=True).split("\n")[1]) < trusted_size  # rolled back
        now = stored(admin_url, [{"stream": stream} for stream, _ in leaves])
        given_up = {stream for stream, version in leaves if (stream, version) not in now}
        assert given_up == {r["stream"] for r in lost}, given_up ^ {r["stream"] for r in lost}
        assert cut_short and {r["stream"] for r in lost} - cut_short  # both kinds were there
        print(f"\npoint-in-time restore: {len(kept)} writes before {target_time} restored, {len(lost)} after it "
              f"not; {fresh['streams']} streams, {fresh['events']} events verify; from an auditor's kept checkpoint "
              f"{len(cut_short)} streams cut short and {len({r['stream'] for r in lost} - cut_short)} lost whole are named; {time.monotonic() - started:.1f} s")
    finally:
        restored.stop()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
