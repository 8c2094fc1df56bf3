"""Rulings on the record (issue 33): the floor records a ruling on a table's hand on the
table's own rulings log (the table's version and If-Match untouched), everyone reads it
back with who ruled and when, filtered by floor person and hand; the cards it names are
the floor's alone while the hand runs, everyone's once it is closed."""
from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path
from typing import Any

import psycopg
import pytest

from service.application import tournament_tables
from tests import applications
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players, unique_to_test
from tests.integration.test_floor_pages_http import HOSTILE, csrf, sign_in
from tests.integration.test_pages_http import new_tournament

pytestmark = pytest.mark.integration

PHH_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "phh"
RULING = {"question": "Bob's all-in for 150 on a 100 bet: may Ann re-raise?",
          "decision": "No: 50 is less than a full raise, betting is not reopened for Ann.",
          "rule": "TDA 2024 43", "note": "Ann had acted", "cards": ["As", "Kd"]}


def key_id(client: Any, role: str) -> tuple[str, dict[str, str]]:
    issued = client.post("/v1/keys", json={"role": role}, headers=ADMIN).get_json()
    return issued["id"], {"Authorization": f"Bearer {issued['key']}"}


def fold_out(client: Any, table_id: str) -> None:
    """Everyone folds to the last player: the hand closes."""
    while (legal := client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)).get_json()["to_act"]:
        answer = client.post(f"/v1/tables/{table_id}/actions", headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                             json={"action": "fold", "player_id": legal.get_json()["to_act"]})
        assert answer.status_code == 201, answer.get_json()


@pytest.fixture(scope="module")
def table(client: Any) -> dict[str, Any]:
    players = register_players(client, "Ann", "Bob", "Cat")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    floor_id, floor = key_id(client, "floor")
    other_id, other_floor = key_id(client, "floor")
    return {"id": table_id, "players": players, "floor": floor, "floor_id": floor_id,
            "other_floor": other_floor, "other_id": other_id,
            "player": key_for(client, "player", players[0]), "spectator": key_for(client, "spectator")}


def test_a_ruling_is_recorded_with_who_and_when_and_leaves_the_table_version_alone(client, table):
    table_id = table["id"]
    before = client.get(f"/v1/tables/{table_id}", headers=ADMIN).headers["ETag"]
    answer = client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"],
                         json={"hand": f"{table_id}.1", **RULING})
    assert answer.status_code == 201, answer.get_json()
    ruling = answer.get_json()
    assert (ruling["ruled_by"], ruling["role"], ruling["hand"], ruling["cards"]) == (
        table["floor_id"], "floor", f"{table_id}.1", ["As", "Kd"])
    assert ruling["recorded_at"] and ruling["at_version"] >= 1 and ruling["rule"] == "TDA 2024 43"
    assert client.get(f"/v1/tables/{table_id}", headers=ADMIN).headers["ETag"] == before


def test_players_and_spectators_never_see_its_cards_while_the_hand_runs(client, table):
    table_id = table["id"]
    client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"], json={"hand": f"{table_id}.1", **RULING})
    for who in ("player", "spectator"):
        rulings = client.get(f"/v1/tables/{table_id}/rulings", headers=table[who]).get_json()["rulings"]
        assert rulings and all(r["cards"] is None for r in rulings), who
        assert rulings[0]["decision"] == RULING["decision"]
    floor_sees = client.get(f"/v1/tables/{table_id}/rulings", headers=table["other_floor"]).get_json()["rulings"]
    assert floor_sees[0]["cards"] == ["As", "Kd"]


def test_the_log_filters_by_floor_person_and_hand(client, table):
    table_id = table["id"]
    # Its own rulings from both floor people: xdist may give this test a fresh module table.
    client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"], json={"hand": f"{table_id}.1", **RULING})
    client.post(f"/v1/tables/{table_id}/rulings", headers=table["other_floor"],
                json={"hand": f"{table_id}.1", "question": "Exposed card?", "decision": "Play on"})
    mine = client.get(f"/v1/tables/{table_id}/rulings?floor={table['floor_id']}", headers=ADMIN).get_json()
    theirs = client.get(f"/v1/tables/{table_id}/rulings?floor={table['other_id']}", headers=ADMIN).get_json()
    assert mine["rulings"] and {r["ruled_by"] for r in mine["rulings"]} == {table["floor_id"]}
    assert [r["question"] for r in theirs["rulings"]] == ["Exposed card?"]
    assert client.get(f"/v1/tables/{table_id}/rulings?hand={table_id}.2", headers=ADMIN).get_json()["rulings"] == []
    on_hand = client.get(f"/v1/hands/{table_id}.1/rulings", headers=ADMIN).get_json()["rulings"]
    assert len(on_hand) == len(client.get(f"/v1/tables/{table_id}/rulings", headers=ADMIN).get_json()["rulings"])


def test_its_cards_are_unreadable_at_rest(client, table, database_url):
    """The database's login reads the rulings stream's rows: the declared cards are ciphertext."""
    table_id = table["id"]
    client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"], json={"hand": f"{table_id}.1", **RULING})
    with psycopg.connect(database_url) as login:
        stored = [json.loads(data) for (data,) in login.execute(
            "SELECT data::text FROM events WHERE stream_id = %s", (f"rulings-{table_id}",)).fetchall()]
    # Sealed: a string under the data key's prefix (base64 after it, where a plain "As" can
    # turn up by chance, so the plaintext is looked for as it would be stored: a JSON list).
    assert stored and all(isinstance(row["cards"], str) and row["cards"].startswith("aesgcm2:")
                          and '"As"' not in row["cards"] for row in stored if row["cards"])
    # The words are public (keep cards out of them); other tests' rulings may share the stream.
    assert RULING["question"] in [row["question"] for row in stored]


def test_once_the_hand_is_closed_everyone_reads_its_cards(client, table):
    table_id = table["id"]
    client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"], json={"hand": f"{table_id}.1", **RULING})
    fold_out(client, table_id)
    rulings = client.get(f"/v1/tables/{table_id}/rulings", headers=table["spectator"]).get_json()["rulings"]
    assert any(r["cards"] == ["As", "Kd"] for r in rulings)
    # A ruling on the closed hand, once the next is dealt, sits at the closed hand's last event.
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    events = client.get(f"/v1/hands/{table_id}.1", headers=ADMIN).get_json()
    later = client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"],
                        json={"hand": f"{table_id}.1", "question": "Was the muck final?", "decision": "Yes"})
    assert later.get_json()["at_version"] == events["last_version"]
    hand_two = client.get(f"/v1/tables/{table_id}/rulings?hand={table_id}.2", headers=table["spectator"])
    assert hand_two.get_json()["rulings"] == []


def test_the_hands_phh_carries_its_rulings(client, table):
    table_id = table["id"]
    # The module's earlier tests rule on hand 1; run alone (-k, or this module's table made
    # afresh in another xdist process), this test makes its own ruling.
    if not client.get(f"/v1/hands/{table_id}.1/rulings", headers=ADMIN).get_json()["rulings"]:
        ruled = client.post(f"/v1/tables/{table_id}/rulings", headers=table["floor"],
                            json={"hand": f"{table_id}.1", **RULING})
        assert ruled.status_code == 201, ruled.get_json()
    if client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"]:
        fold_out(client, table_id)
    exported = client.get(f"/v1/hands/{table_id}.1/phh", headers=table["spectator"])
    assert exported.status_code == 200, exported.get_data(as_text=True)
    rulings = tomllib.loads(exported.get_data(as_text=True))["_floor_rulings"]
    recorded = client.get(f"/v1/hands/{table_id}.1/rulings", headers=ADMIN).get_json()["rulings"]
    assert len(rulings) == len(recorded) >= 1
    first = rulings[0]
    assert (first["question"], first["decision"], first["rule"], first["cards"], first["ruled_by"]) == (
        RULING["question"], RULING["decision"], RULING["rule"], RULING["cards"], table["floor_id"])
    assert first["recorded_at"] == recorded[0]["recorded_at"] and first["at_version"] == recorded[0]["at_version"]


def test_a_stored_hand_has_its_own_rulings_log_and_phh(client, table):
    record = (PHH_DIR / "dwan-ivey-2009.phh").read_text()
    stored = client.post("/v1/hand-histories?store=true", data=unique_to_test(record).encode(),
                         headers={**ADMIN, "Content-Type": "application/toml"})
    assert stored.status_code == 201, stored.get_data(as_text=True)
    hand_id = stored.get_json()["id"]
    answer = client.post(f"/v1/hands/{hand_id}/rulings", headers=table["floor"],
                         json={"hand": hand_id, "question": "Was Ivey's call a string bet?",
                               "decision": "No: one motion.", "cards": ["Ah"], "at_version": 3})
    assert answer.status_code == 201, answer.get_json()
    assert (answer.get_json()["subject"], answer.get_json()["at_version"]) == (hand_id, 3)
    # A stored hand is over: its cards are everyone's.
    shown = client.get(f"/v1/hands/{hand_id}/rulings", headers=table["spectator"]).get_json()["rulings"]
    assert [(r["question"], r["cards"]) for r in shown] == [("Was Ivey's call a string bet?", ["Ah"])]
    exported = tomllib.loads(client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True))
    assert [r["decision"] for r in exported["_floor_rulings"]] == ["No: one motion."]
    assert_problem(client.post("/v1/hands/hand-none-such/rulings", headers=table["floor"],
                               json={"hand": "hand-none-such", **RULING}), 404, "unknown_hand")


def test_a_tournaments_log_gathers_its_tables_rulings(client, postgres_store, table):
    tournament_id, _ = new_tournament(client, ["Dee", "Eve", "Fay", "Gus"])
    tournament_tables.advance(applications.of(postgres_store), tournament_id, time.time())  # its table, a hand dealt
    table_id = tournament_tables.table_id_for(tournament_id, 1)
    hand = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["hand"]["id"]
    recorded = client.post(f"/v1/tables/{table_id}/rulings", headers=table["other_floor"],
                           json={"hand": hand, "question": "Clock called?", "decision": "Yes, 30 seconds",
                                 "cards": ["7c"]})
    assert recorded.status_code == 201, recorded.get_json()
    rulings = client.get(f"/v1/tournaments/{tournament_id}/rulings?floor={table['other_id']}",
                         headers=table["spectator"]).get_json()["rulings"]
    assert [(r["subject"], r["question"], r["cards"]) for r in rulings] == [(table_id, "Clock called?", None)]
    assert client.get(f"/v1/tournaments/{tournament_id}/rulings?floor={table['floor_id']}",
                      headers=ADMIN).get_json()["rulings"] == []


def test_refusals_are_problems_with_stable_codes(client, table):
    table_id = table["id"]
    path = f"/v1/tables/{table_id}/rulings"
    assert_problem(client.post(path, headers=table["player"], json={"hand": f"{table_id}.1", **RULING}), 403, "forbidden")
    assert_problem(client.post(path, headers=table["floor"], json={**RULING, "hand": "elsewhere.1"}), 404, "unknown_hand")
    assert_problem(client.post(path, headers=table["floor"], json={**RULING, "hand": f"{table_id}.9"}),
                   404, "unknown_hand")
    assert_problem(client.post(path, headers=table["floor"], json={"hand": f"{table_id}.1", **RULING, "question": " "}),
                   422, "invalid_ruling")
    assert_problem(client.post(path, headers=table["floor"], json={"hand": f"{table_id}.1", **RULING, "cards": ["Zz"]}),
                   422, "invalid_card")
    body = assert_problem(client.post(path, headers=table["floor"],
                                      json={"hand": f"{table_id}.1", **RULING, "at_version": 100000}),
                          422, "invalid_ruling")
    assert body["numbers"]["at_version"] == 100000
    assert_problem(client.post(f"/v1/hands/{table_id}.1/rulings", headers=table["floor"],
                               json={"hand": f"{table_id}.2", **RULING}), 422, "hand_mismatch")
    assert_problem(client.get("/v1/tournaments/none-such/rulings", headers=ADMIN), 404, "not_found")
    assert_problem(client.get("/v1/tables/none-such/rulings", headers=ADMIN), 404, "not_found")


def test_the_replayers_form_records_a_ruling_the_table_page_lists_it_and_one_without_words_is_refused(client, table):
    table_id, hand = table["id"], f"{table['id']}.1"
    browser = client.application.test_client()
    sign_in(browser, key_for(client, "floor"))
    page = browser.get(f"/floor/hands/{hand}")
    token = csrf(page)
    asked = {"csrf_token": token, "question": HOSTILE, "decision": "Play on", "cards": "Qh, Jh", "step": "2",
             "at_version": "3"}
    recorded = browser.post(f"/floor/hands/{hand}/rulings", data=asked)
    assert recorded.status_code == 303 and recorded.headers["Location"].endswith(f"/floor/hands/{hand}#step=3")
    shown = browser.get(f"/floor/hands/{hand}").get_data(as_text=True)
    assert '<script>alert("x")' not in shown and "&lt;script&gt;alert" in shown  # the words stay text
    ruling = client.get(f"/v1/hands/{hand}/rulings", headers=ADMIN).get_json()["rulings"][-1]
    assert (ruling["question"], ruling["cards"], ruling["at_version"]) == (HOSTILE, ["Qh", "Jh"], 3)
    at_table = browser.get(f"/floor/tables/{table_id}").get_data(as_text=True)
    listed = at_table[at_table.index('id="table-rulings"'):]
    assert "&lt;script&gt;alert" in listed and f'href="/floor/hands/{hand}"' in listed and "Qh Jh" in listed
    refused = browser.post(f"/floor/hands/{hand}/rulings", data={**asked, "decision": "  "})
    assert refused.status_code == 422 and "invalid_ruling" in refused.get_data(as_text=True)
    assert browser.post(f"/floor/hands/{table_id}.99/rulings", data=asked).status_code == 404
