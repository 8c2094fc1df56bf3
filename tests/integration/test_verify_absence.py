"""`verify` notices absence (trust issue, item 3), on a database of this module's own:

- a whole stream deleted by the owner (its events and its listing row): the head
  checkpoints kept outside the database still know it, and `cardroom verify` reports it
  and exits 1; a stream whose events are deleted but whose listing stays is reported from
  the listing alone;
- the head checkpoint file deleted (or damaged) while the service runs: every
  `GET /v1/streams/{id}/verify` answers 200 with a warning naming the file and what is
  lost, the chains are still checked, the service keeps serving, and `cardroom verify`
  exits 0 with the warning.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from domain.live import table
from domain.rules.betting import BettingStructure
from service.adapters.integrity import checkpoints_path, open_store
from service.adapters.store.postgres import open_pool
from service.application import commands
from service.application.application import application
from service.cli.main import main
from service.config import Config
from tests.integration.conftest import ADMIN, ADMIN_KEY, register_player

pytestmark = pytest.mark.integration

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SEATS = (table.TableSeat("ann", 1000), table.TableSeat("bob", 1000))


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(tmp_path))
    return tmp_path


def cardroom_verify(database_url: str, *prefixes: str, expect: int) -> dict[str, Any]:
    """`cardroom verify --json` straight to the database (the app in-process)."""
    options = [option for prefix in prefixes for option in ("--prefix", prefix)]
    result = CliRunner().invoke(main, ["--database-url", database_url, "verify", *options, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == expect, result.output + result.stderr
    return json.loads(result.stdout)


def played_table(store: Any, table_id: str) -> int:
    """A table created and its first hand dealt: its version."""
    app = application(store)
    commands.create_table(app, table.CreateTable(table_id, "holdem", {}, NL, SEATS))
    return commands.start_next_hand(app, table_id, 1).version


def as_owner(admin_url: str, *statements: tuple[str, tuple[Any, ...]]) -> None:
    """As the database's owner (the superuser), with the append-only triggers off."""
    with psycopg.connect(admin_url) as owner:
        owner.execute("SET session_replication_role = replica")
        for sql, parameters in statements:
            owner.execute(sql, parameters)


def test_a_stream_deleted_with_its_listing_is_reported_from_the_head_checkpoints(own_database, data_dir):
    admin_url, app_url = own_database
    pool = open_pool(app_url, max_size=2)
    store = open_store(pool, Config(database_url=app_url, data_dir=data_dir))
    version = played_table(store, "gone")
    played_table(store, "kept")
    store._checkpoints.close()  # the heads written to the file, as the flusher does every second
    pool.close()
    stream = commands.table_stream("gone")
    as_owner(admin_url, ("DELETE FROM events WHERE stream_id = %s", (stream,)),
             ("DELETE FROM listings WHERE stream_id = %s", (stream,)))

    checked = cardroom_verify(app_url, "table-", expect=1)

    assert checked["streams"] == 2 and checked["ok"] == 1
    (bad,) = checked["bad"]
    assert bad["stream"] == stream and bad["events"] == 0 and bad["first_bad_version"] == 1
    assert f"version {version} was recorded" in bad["reason"]


def test_a_stream_whose_events_are_deleted_is_reported_from_its_listing(own_database, own_store, data_dir):
    """Written by a store without checkpoints: the listing alone says the stream was there."""
    admin_url, app_url = own_database
    played_table(own_store, "unlisted-events")
    stream = commands.table_stream("unlisted-events")
    as_owner(admin_url, ("DELETE FROM events WHERE stream_id = %s", (stream,)))

    checked = cardroom_verify(app_url, stream, expect=1)

    (bad,) = checked["bad"]
    assert bad["stream"] == stream and bad["first_bad_version"] == 1 and "listings" in bad["reason"]


def test_the_checkpoint_file_deleted_or_damaged_under_the_service_is_a_warning_not_a_500(own_database, data_dir):
    from service.bootstrap import create_app

    _, app_url = own_database
    client = create_app(Config(database_url=app_url, admin_key=ADMIN_KEY, data_dir=data_dir)).test_client()
    players = [register_player(client, name) for name in ("Ann", "Bob")]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 1000} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    path = f"/v1/streams/{commands.table_stream(table_id)}/verify"
    assert client.get(path, headers=ADMIN).get_json()["warnings"] == []
    checkpoints = checkpoints_path(Config(database_url=app_url, data_dir=data_dir))

    for part in data_dir.glob(checkpoints.name + "*"):
        part.unlink()
    answered = client.get(path, headers=ADMIN)
    assert answered.status_code == 200, answered.get_data(as_text=True)
    verified = answered.get_json()
    assert verified["ok"] is True and verified["events"] >= 1
    (warning,) = verified["warnings"]
    assert str(checkpoints) in warning and "missing" in warning and "tail removed" in warning
    dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert dealt.status_code == 201, dealt.get_data(as_text=True)  # the service keeps serving

    client.application.extensions["cardroom"].store._checkpoints.flush()  # its next flush, at once
    assert (data_dir / checkpoints.name).exists()  # written again, with a note of the loss
    checked = cardroom_verify(app_url, commands.table_stream(table_id), expect=0)
    assert checked["bad"] == [] and checked["ok"] == 1
    (warning,) = checked["warnings"]  # from the note: another process, the file there again
    assert str(checkpoints) in warning and "missing" in warning

    checkpoints.write_bytes(b"not a database" * 100)
    for part in data_dir.glob(checkpoints.name + "-*"):
        part.unlink()
    damaged = cardroom_verify(app_url, commands.table_stream(table_id), expect=0)
    assert any(str(checkpoints) in w and "cannot be" in w for w in damaged["warnings"]), damaged
