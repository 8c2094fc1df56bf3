"""`verify` notices absence (trust issue, item 3; issue 31), on a database of this module's own:

- a whole stream deleted by the owner (its events and its listing row): the public log's
  signed tree still holds its leaves, so `cardroom verify` lists it, reports it and exits 1,
  run by a host whose data directory was deleted (its keys given by the configuration);
  a stream whose events are deleted but whose listing stays is reported from the listing;
- no signed public log to check against (nothing integrated yet): every
  `GET /v1/streams/{id}/verify` answers 200 with a warning saying what is then not caught,
  the chains are still checked, and `cardroom verify` exits 0 with the warning.
"""
from __future__ import annotations

import json
import secrets
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from domain.live import table_commands
from domain.rules.betting import BettingStructure
from service import wiring
from service.adapters.log_keys import new_signer
from service.adapters.store.postgres import open_pool
from service.application import commands
from service.application.application import application
from service.application.public_log import PublicLog
from service.cli.main import main
from service.config import Config
from service.public_log_verifier import ED25519
from tests.integration.conftest import ADMIN, ADMIN_KEY, register_player
from tests.integration.test_forgeries import as_insider, integrate, integrator_of

pytestmark = pytest.mark.integration

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SEATS = (table_commands.TableSeat("ann", 1000), table_commands.TableSeat("bob", 1000))


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
    commands.create_table(app, table_commands.CreateTable(table_id, "holdem", {}, NL, SEATS))
    return commands.start_next_hand(app, table_id, 1).version


ORIGIN = "cardroom.test/verify-absence"
KEYS = {"CARDROOM_CHAIN_KEY": secrets.token_hex(32), "CARDROOM_DATA_KEY": secrets.token_hex(32),
        "CARDROOM_LOG_ORIGIN": ORIGIN, "CARDROOM_LOG_KEY": new_signer(ORIGIN, ED25519).text()}
"""The keys given to every host of these tests, as production's secret store gives them."""


@pytest.fixture
def keyed_config(own_database: tuple[str, str], data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    return replace(Config.from_env(), database_url=own_database[1], admin_key=ADMIN_KEY)


def test_a_stream_deleted_with_its_listing_is_reported_from_the_signed_tree(own_database, data_dir, keyed_config):
    admin_url, app_url = own_database
    config = keyed_config
    pool = open_pool(app_url, max_size=3)
    store = wiring.event_store(pool, config)
    version = played_table(store, "gone")
    played_table(store, "kept")
    integrate(integrator_of(pool, config, store))
    pool.close()
    stream = commands.table_stream("gone")
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s", (stream,)),
             ("DELETE FROM listings WHERE stream_id = %s", (stream,)))
    shutil.rmtree(data_dir)  # the app host's files, all of them

    checked = cardroom_verify(app_url, "table-", expect=1)

    assert checked["streams"] == 2 and checked["ok"] == 1 and checked["warnings"] == []
    (bad,) = checked["bad"]
    assert bad["stream"] == stream and bad["events"] == 0 and bad["first_bad_version"] == 1
    assert "the stream no longer has it: removed" in bad["reason"] and version >= 1


def test_a_stream_whose_events_are_deleted_is_reported_from_its_listing(own_database, own_store, data_dir):
    """Nothing integrated into the public log: the listing alone says the stream was there."""
    admin_url, app_url = own_database
    played_table(own_store, "unlisted-events")
    stream = commands.table_stream("unlisted-events")
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s", (stream,)))

    checked = cardroom_verify(app_url, stream, expect=1)

    (bad,) = checked["bad"]
    assert bad["stream"] == stream and bad["first_bad_version"] == 1 and "listings" in bad["reason"]


def test_no_signed_public_log_is_a_warning_not_a_500(own_database, data_dir):
    from service.bootstrap import create_app

    _, app_url = own_database
    client = create_app(Config(database_url=app_url, admin_key=ADMIN_KEY, data_dir=data_dir)).test_client()
    players = [register_player(client, name) for name in ("Ann", "Bob")]
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 1000} for p in players]})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    as_insider(own_database[0], ("DELETE FROM log_checkpoints", ()))  # none signed, as before the first

    answered = client.get(f"/v1/streams/{commands.table_stream(table_id)}/verify", headers=ADMIN)
    assert answered.status_code == 200, answered.get_data(as_text=True)
    verified = answered.get_json()
    assert verified["ok"] is True and verified["events"] >= 1
    assert verified["warnings"] == [PublicLog.UNCHECKED]
    dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN)
    assert dealt.status_code == 201, dealt.get_data(as_text=True)  # the service keeps serving
    checked = cardroom_verify(app_url, commands.table_stream(table_id), expect=0)
    assert checked["bad"] == [] and checked["ok"] == 1 and checked["warnings"] == [PublicLog.UNCHECKED]


def test_a_hands_removed_tail_is_caught_against_the_signed_tree(own_database, keyed_config):
    from service.bootstrap import create_app

    admin_url, app_url = own_database
    config = keyed_config
    pool = open_pool(app_url, max_size=3)
    store = wiring.event_store(pool, config)
    version = played_table(store, "cut-hand")
    integrate(integrator_of(pool, config, store))
    pool.close()
    as_insider(admin_url, ("DELETE FROM events WHERE stream_id = %s AND version = %s",
                           (commands.table_stream("cut-hand"), version)))

    checked = create_app(config).test_client().get("/v1/hands/cut-hand.1/verify", headers=ADMIN).get_json()

    assert (checked["ok"], checked["first_bad_version"], checked["next_opening"]) == (False, version, None), checked
    assert "removed" in checked["reason"]
