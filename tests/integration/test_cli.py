"""The `cardroom` command line straight to the test database (--database-url: the app
in-process), as an operator runs it (issue 19)."""
from __future__ import annotations

import json
import secrets
import time
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from domain.tournaments import commands as tournament_commands
from service.adapters.integrity import open_store
from service.adapters.store.postgres import open_pool
from service.application import tournaments
from service.cli.main import main
from service.config import Config
from tests import applications
from tests.corpus import PHH
from tests.integration.conftest import ADMIN, with_the_apps_keys
from tests.integration.test_hands_phh_export import folded_hand
from tests.integration.test_tournament_tables import play_to_the_end

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[2] / "docs"
WSOP_BY_VARIANT = {  # tests/unit/test_phh_corpus.py counts the same files
    "NT": 11, "FT": 7, "PO": 7, "F7S": 13, "F7S/8": 7, "FO/8": 14, "FR": 10, "F2L3D": 7, "N2L1D": 7,
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return with_the_apps_keys(tmp_path_factory.mktemp("cli-data"))


@pytest.fixture
def cardroom(database_url, data_dir, monkeypatch):
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(data_dir))

    def run(*args: str, expect: int = 0):
        result = CliRunner().invoke(main, ["--database-url", database_url, *args], catch_exceptions=False)
        assert result.exit_code == expect, result.output + result.stderr
        return result

    return run


def test_importing_the_wsop_folder_replays_and_stores_every_hand(cardroom):
    result = cardroom("phh", "import", str(PHH / "wsop"), "--json")

    summary = json.loads(result.stdout)
    assert summary["files"] == 83
    assert {v: c["hands"] for v, c in summary["by_variant"].items()} == WSOP_BY_VARIANT
    assert summary["total"] == {"hands": 83, "replayed": 83, "matched": 83, "stored": 83, "already": 0,
                                "refused": 0}
    assert all(c["stored"] == c["hands"] for c in summary["by_variant"].values())
    assert "importing" in result.stderr and "83/83" in result.stderr  # the progress bar

    again = json.loads(cardroom("phh", "import", str(PHH / "wsop/2023/43/5/63.phh"), "--json").stdout)
    assert (again["total"]["stored"], again["total"]["already"]) == (0, 1)  # reported, not stored twice


def test_the_summary_table_names_each_variant_and_a_refused_hand(cardroom, tmp_path):
    broken = tmp_path / "two.phhs"
    good = (PHH / "wsop/2023/43/5/63.phh").read_text()
    broken.write_text(f"[1]\n{good}\n[2]\n{good.replace('starting_stacks', 'starting_chips')}")

    result = cardroom("phh", "import", "--no-store", str(broken), expect=1)

    assert "all" in result.stdout and "NT" in result.stdout
    assert "refused" in result.stderr and "two.phhs[2]" in result.stderr and "invalid_phh" in result.stderr


def test_the_summary_names_a_hand_that_does_not_match_its_record(cardroom, tmp_path):
    good = (PHH / "wsop/2023/43/5/63.phh").read_text()
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(good.replace("finishing_stacks = [2125000,", "finishing_stacks = [1,"))

    result = cardroom("phh", "import", "--no-store", str(wrong), expect=1)

    assert f"not matched {wrong}: replayed to [" in result.stderr and "but the record says [1, " in result.stderr


def test_a_phhs_file_with_a_hand_that_is_not_toml_imports_the_others(cardroom, tmp_path):
    good = (PHH / "wsop/2023/43/5/63.phh").read_text()
    broken = tmp_path / "three.phhs"
    broken.write_text(f"[1]\n{good}\n[2]\nvariant = 'NT\n\n[3]\n{good}")
    unreadable_line = broken.read_text().splitlines().index("variant = 'NT") + 1

    summary = json.loads(cardroom("phh", "import", "--no-store", str(broken), "--json", expect=1).stdout)

    assert summary["total"] == {"hands": 3, "replayed": 2, "matched": 2, "stored": 0, "already": 0,
                                "refused": 1}
    (refusal,) = summary["refused"]
    assert refusal["hand"] == f"{broken}[2] (line {unreadable_line - 1})"
    assert "invalid_phh" in refusal["reason"] and f"line {unreadable_line} of the file" in refusal["reason"]
    not_utf8 = tmp_path / "latin1.phhs"
    not_utf8.write_bytes("[1]\nplayers = ['Jos\u00e9']\n".encode("latin-1"))
    refused = json.loads(cardroom("phh", "import", "--no-store", str(not_utf8), str(broken), "--json",
                                  expect=1).stdout)
    assert refused["total"]["replayed"] == 2 and "not UTF-8" in refused["refused"][0]["reason"]


def test_verify_checks_every_stream_of_a_played_tournament(cardroom, database_url, data_dir):
    pool = open_pool(database_url, max_size=2)
    store = open_store(pool, Config(database_url=database_url, data_dir=data_dir))
    created = json.loads(cardroom("tournament", "create", str(DOCS / "tournament-structure.yaml"),
                                  "--json").stdout)
    tournament_id = created["id"]
    for n in range(6):
        tournaments.send(applications.of(store), tournament_id, tournament_commands.Register(f"{tournament_id}p{n}", at=int(time.time())))
    tournaments.send(applications.of(store), tournament_id, tournament_commands.StartTournament(at=int(time.time()), seed=3))
    play_to_the_end(store, tournament_id, 6)
    pool.close()

    result = cardroom("verify", "--prefix", f"tournament-{tournament_id}", "--prefix", f"table-{tournament_id}-",
                      "--json")

    checked = json.loads(result.stdout)
    assert checked["streams"] == 2 and checked["ok"] == 2 and checked["bad"] == []
    assert checked["events"] > 20  # the tournament and its table, every hand of it
    assert "verifying" in result.stderr

    results = cardroom("tournament", "export", tournament_id, "--csv").stdout.splitlines()
    assert results[0] == "place,player_id,name,prize,bounties,total" and len(results) == 7
    status = json.loads(cardroom("status", "--json").stdout)
    assert status["database"] == "ok" and tournament_id not in [t["id"] for t in status["tournaments"]]


def test_keys_are_issued_listed_and_revoked(cardroom):
    issued = json.loads(cardroom("keys", "issue", "floor", "--json").stdout)
    assert issued["key"].startswith("crd_") and issued["role"] == "floor"

    listed = json.loads(cardroom("keys", "list", "--json").stdout)
    revoked = json.loads(cardroom("keys", "revoke", issued["id"], "--json").stdout)

    assert issued["id"] in [k["id"] for k in listed]
    assert revoked["revoked_at"]


def test_a_structure_file_the_service_refuses_names_the_field(database_url, data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("CARDROOM_DATA_DIR", str(data_dir))
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("name: Wrong\ngame: holdem\nstarting_stack: 0\nstarts_at: now\n"
                     "levels:\n  - {minutes: 10, small_blind: 25, big_blind: 50}\npayouts: [100]\n")

    result = CliRunner().invoke(main, ["--database-url", database_url, "tournament", "create", str(wrong)])

    assert "starting_stack" in str(result.exception)


def test_a_finished_hand_exports_as_phh_naming_its_players(cardroom, client, tmp_path):
    hand_id, players = folded_hand(client, ("Ann", "Bob", "Cat"))
    exported = tmp_path / "hand.phh"
    cardroom("phh", "export", hand_id, "--output", str(exported))
    assert exported.read_text() == client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    fields = tomllib.loads(exported.read_text())
    assert sorted(fields["players"]) == ["Ann", "Bob", "Cat"] and sorted(fields["_player_ids"]) == sorted(players)
    assert cardroom("phh", "export", hand_id).stdout == exported.read_text()


def test_the_director_runs_a_physical_event_from_the_command_line(cardroom, database_url, data_dir, tmp_path):
    structure = tmp_path / "physical.yaml"
    structure.write_text((DOCS / "tournament-structure.yaml").read_text() + "tables: physical\n")
    tournament_id = json.loads(cardroom("tournament", "create", str(structure), "--json").stdout)["id"]
    pool = open_pool(database_url, max_size=2)
    store = open_store(pool, Config(database_url=database_url, data_dir=data_dir))
    players = [f"{tournament_id}p{n}" for n in range(8)]  # tables of 4 and 4
    for player in players:
        tournaments.send(applications.of(store), tournament_id, tournament_commands.Register(player, at=int(time.time())))
    pool.close()
    assert "TournamentStarted" in cardroom("tournament", "start", tournament_id).stdout
    shown = json.loads(cardroom("tournament", "export", tournament_id).stdout)
    three = shown["tables"][0]
    out = json.loads(cardroom("tournament", "eliminate", tournament_id, three["players"][0]["player_id"],
                              "--json").stdout)
    assert [e["type"] for e in out["events"]][0] == "PlayersEliminated"
    assert "EliminationUndone" in cardroom("tournament", "undo", tournament_id).stdout
    cardroom("tournament", "eliminate", tournament_id, three["players"][0]["player_id"])
    cardroom("tournament", "eliminate", tournament_id, three["players"][1]["player_id"])  # 6 fit one table: moves
    lines = cardroom("tournament", "moves", tournament_id).stdout.splitlines()
    assert lines[0].startswith("1. ") and "seat" in lines[0] and lines[0].endswith("(pending)")
    assert "MoveSeated" in cardroom("tournament", "moves", tournament_id, "--seated", "1").stdout
    confirmed = [line for line in cardroom("tournament", "moves", tournament_id).stdout.splitlines()
                 if line.startswith("1. ")]
    assert confirmed and not confirmed[0].endswith("(pending)")


def test_a_pokerstars_session_imports_each_hand_once(cardroom, tmp_path):
    # Numbered as no other test's hands (a hand is kept once however many tests store it).
    written = (Path(__file__).resolve().parents[1] / "pokerstars" / "session.txt").read_text()
    session = tmp_path / "session.txt"
    session.write_text(written.replace("PokerStars Hand #2", "PokerStars Hand #7"))
    summary = json.loads(cardroom("phh", "import", str(session), "--json").stdout)
    assert summary["total"] == {"hands": 4, "replayed": 4, "matched": 4, "stored": 4, "already": 0, "refused": 0}
    assert set(summary["by_variant"]) == {"NT", "FT", "PT"}
    again = json.loads(cardroom("phh", "import", "--format", "pokerstars", str(session), "--json").stdout)
    assert (again["total"]["stored"], again["total"]["already"]) == (0, 4)
    broken = tmp_path / "broken.txt"
    broken.write_text(session.read_text().replace("Carol: calls $1\n", "Carol: dances\n"))
    refused = json.loads(cardroom("phh", "import", "--no-store", str(broken), "--json", expect=1).stdout)
    (refusal,) = refused["refused"]
    assert refusal["hand"] == f"{broken}[hand #733876543210] (line 1)"
    assert refusal["reason"] == "invalid_hand_history: line 18: an action we do not read: 'dances'"


def test_a_full_tilt_file_imports_through_pokerkit_with_its_format_named(cardroom, tmp_path):
    written = (Path(__file__).resolve().parents[1] / "site_histories" / "fulltilt-cash-showdown.txt").read_text()
    session = tmp_path / "fulltilt.txt"
    session.write_text(written.replace("Game #1", "Game #7") + "\n\n" + written.replace("Game #1", "Game #8"))
    summary = json.loads(cardroom("phh", "import", "--format", "fulltilt", str(session), "--json").stdout)
    assert summary["total"] == {"hands": 2, "replayed": 2, "matched": 0, "stored": 2, "already": 0, "refused": 0}
    broken = tmp_path / "broken.txt"
    broken.write_text(session.read_text().replace("Game #8", "Game #9").replace("Bob folds", "Dan folds"))
    refused = json.loads(cardroom("phh", "import", "--no-store", str(broken), "--json", expect=1).stdout)
    assert [r["hand"] for r in refused["refused"]] == [f"{broken}[hand #78534237905] (line 1)",
                                                       f"{broken}[hand #98534237905] (line 35)"]


def test_a_phhs_file_is_kept_in_one_request_answered_hand_by_hand(cardroom, tmp_path):
    good = (PHH / "wsop/2023/43/5/63.phh").read_text().rstrip() + f"\n_run = '{secrets.token_hex(6)}'\n"
    three = tmp_path / "three.phhs"
    three.write_text(f"[1]\n{good}\n[2]\nvariant = 'NT\n\n[3]\n{good}_n = 3\n\n[4]\n{good}")
    unreadable_line = three.read_text().splitlines().index("variant = 'NT") + 1
    summary = json.loads(cardroom("phh", "import", str(three), "--json", expect=1).stdout)
    assert summary["total"]["hands"] == 4 and summary["total"]["refused"] == 1, summary["refused"]
    assert (summary["total"]["replayed"], summary["total"]["stored"], summary["total"]["already"]) == (3, 2, 1)
    (refusal,) = summary["refused"]
    assert refusal["hand"] == f"{three}[2] (line {unreadable_line - 1})"
    assert refusal["reason"].startswith("400 invalid_phh") and f"line {unreadable_line} of the file" in refusal["reason"]
    again = json.loads(cardroom("phh", "import", str(three), "--json", expect=1).stdout)
    assert (again["total"]["stored"], again["total"]["already"]) == (0, 3)
