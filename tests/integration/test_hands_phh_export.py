"""`GET /v1/hands/{id}/phh` of live tables beyond hold'em: five-card draw hands export in
our PHH extension (docs/phh-five-card-draw.md), redacted for the caller; Palace Poker and
dice hands, which PHH cannot express, are a 422 `phh_not_available` naming the game."""
from __future__ import annotations

import tomllib
from typing import Any

import pokerkit
import pytest

from domain.history import phh
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_players

pytestmark = pytest.mark.integration

ANTE = 5
STACK = 500
UNKNOWN_HAND = ("??",) * 5


def act(client: Any, table_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """The floor plays `body` for the player to act; the events it produced."""
    legal = client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN)
    answer = client.post(f"/v1/tables/{table_id}/actions",
                         headers={**ADMIN, "If-Match": legal.headers["ETag"]},
                         json={**body, "player_id": legal.get_json()["to_act"]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def to_act(client: Any, table_id: str) -> str | None:
    return client.get(f"/v1/tables/{table_id}/legal-actions", headers=ADMIN).get_json()["to_act"]


def cards_of(client: Any, table_id: str, player_id: str) -> str:
    seats = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    return next(seat["cards"] for seat in seats if seat["player_id"] == player_id)


def record_player_ids(record: phh.HandHistory) -> list[str]:
    """The ids of an exported live hand's players (its `players` are their names)."""
    return dict(record.metadata)[phh.PLAYER_IDS_FIELD]


def where_and_when(record: phh.HandHistory) -> dict[str, Any]:
    """The standard's fields an exported live hand carries about its table and time."""
    fields = dict(record.metadata)
    return {key: fields[key] for key in ("table", "hand", "seats", "seat_count", "time", "time_zone",
                                          "day", "month", "year")}


def export(client: Any, hand_id: str, headers: dict[str, str]) -> phh.HandHistory:
    response = client.get(f"/v1/hands/{hand_id}/phh", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/toml"
    return phh.parse(response.get_data(as_text=True))


@pytest.fixture(scope="module")
def draw_hand(client: Any) -> dict[str, Any]:
    """A finished no-limit draw hand of three: the first to act bets one unit, the second
    folds (mucking five cards nobody else sees), the third calls; both draw two; both check;
    showdown."""
    players = register_players(client, "Ada", "Ben", "Cal")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "five-card-draw", "settings": {"ante": ANTE},
        "seats": [{"player_id": p, "stack": STACK} for p in players]}).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    hand_id = f"{table_id}.1"
    assert_problem(client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN), 409, "hand_in_progress")
    bettor = to_act(client, table_id)
    act(client, table_id, {"action": "bet", "to": 2 * ANTE})
    folder = to_act(client, table_id)
    folded_cards = cards_of(client, table_id, folder)
    act(client, table_id, {"action": "fold"})
    caller = to_act(client, table_id)
    act(client, table_id, {"action": "call"})
    discards = {}
    for _ in range(2):
        drawer = to_act(client, table_id)
        held = cards_of(client, table_id, drawer)
        discards[drawer] = held[:4]
        act(client, table_id, {"action": "discard", "discard": [held[:2], held[2:4]]})
    while to_act(client, table_id) is not None:
        act(client, table_id, {"action": "check"})
    seats = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()["seats"]
    return {"hand_id": hand_id, "players": players, "bettor": bettor, "folder": folder,
            "caller": caller, "folded_cards": folded_cards, "discards": discards,
            "stacks": {seat["player_id"]: seat["stack"] for seat in seats}}


def test_a_draw_hand_exports_as_phh_that_replays_to_the_tables_finishing_stacks(client, draw_hand):
    record = export(client, draw_hand["hand_id"], key_for(client, "floor"))
    assert record.variant == "N5CD"
    assert record.antes == (ANTE,) * 3 and record.min_bet == 2 * ANTE
    assert record.starting_stacks == (STACK,) * 3
    assert "??" not in phh.write_phh(record)
    replayed = client.post("/v1/hand-histories", data=phh.write_phh(record),
                           headers={**ADMIN, "Content-Type": "application/toml"})
    assert replayed.status_code == 200, replayed.get_json()
    answer = replayed.get_json()
    assert answer["finishing_stacks"] == [draw_hand["stacks"][p] for p in record_player_ids(record)]
    assert answer["matches_record"] is True
    assert sum(answer["finishing_stacks"]) == 3 * STACK


def test_the_floor_export_writes_the_draw_and_every_setting_of_the_extension(client, draw_hand):
    record = export(client, draw_hand["hand_id"], ADMIN)
    names = record_player_ids(record)
    discards = [action for action in record.actions if isinstance(action, phh.StoodPatOrDiscarded)]
    assert {(names[a.player], "".join(a.cards)) for a in discards} == set(draw_hand["discards"].items())
    assert dict(record.metadata) == {"_draw_limit": "3_or_4_with_ace", "_opening": "none",
                                     "_second_round_start": "opener", "_joker": "none",
                                     "_heads_up_uncapped": False, **where_and_when(record),
                                     "_player_ids": record_player_ids(record)}


def test_a_players_export_hides_the_others_mucked_cards_and_discards_but_not_their_own(client, draw_hand):
    viewer, folder, opponent = draw_hand["caller"], draw_hand["folder"], draw_hand["bettor"]
    record = export(client, draw_hand["hand_id"], key_for(client, "player", viewer))
    names = record_player_ids(record)
    dealt = {names[a.player]: a.cards for a in record.actions
             if isinstance(a, phh.HoleCardsDealt) and len(a.cards) == 5}
    assert dealt[folder] == UNKNOWN_HAND
    assert "".join(dealt[viewer]) != "".join(UNKNOWN_HAND)
    assert draw_hand["folded_cards"] not in phh.write_phh(record)
    discarded = {names[a.player]: a.cards for a in record.actions
                 if isinstance(a, phh.StoodPatOrDiscarded)}
    assert discarded[opponent] == ("??", "??"), "the count of a discard is public, its cards are not"
    assert "".join(discarded[viewer]) == draw_hand["discards"][viewer]
    shown = {names[a.player] for a in record.actions if isinstance(a, phh.ShownOrMucked)}
    assert shown == {viewer, opponent}, "every player still in shows at the showdown"


def test_a_spectators_export_shows_only_the_showdown(client, draw_hand):
    record = export(client, draw_hand["hand_id"], key_for(client, "spectator"))
    dealt = [a.cards for a in record.actions if isinstance(a, phh.HoleCardsDealt)]
    assert dealt and all(set(cards) == {"??"} for cards in dealt)
    assert all(set(a.cards) == {"??"} for a in record.actions if isinstance(a, phh.StoodPatOrDiscarded))


def _started_table(client: Any, body: dict[str, Any]) -> str:
    table_id = client.post("/v1/tables", headers=ADMIN, json=body).get_json()["id"]
    assert client.post(f"/v1/tables/{table_id}/hands", json={}, headers=ADMIN).status_code == 201
    return table_id


@pytest.mark.parametrize("game", ["palace", "dice"])
def test_palace_and_dice_hands_have_no_phh_form(client, game):
    players = register_players(client, f"{game}-1", f"{game}-2")
    body: dict[str, Any] = {"game": game, "seats": [{"player_id": p} for p in players]}
    if game == "palace":
        body = {**body, "settings": {"small_bet": 10, "big_bet": 20},
                "seats": [{"player_id": p, "stack": 200} for p in players]}
    table_id = _started_table(client, body)
    problem = assert_problem(client.get(f"/v1/hands/{table_id}.1/phh", headers=ADMIN), 422, "phh_not_available")
    assert problem["game"] == game and game in problem["detail"]


def test_a_draw_hand_played_for_points_has_no_phh_form(client):
    players = register_players(client, "Pts-1", "Pts-2")
    table_id = _started_table(client, {"game": "five-card-draw", "settings": {"mode": "no-betting"},
                                       "seats": [{"player_id": p} for p in players]})
    problem = assert_problem(client.get(f"/v1/hands/{table_id}.1/phh", headers=ADMIN), 422, "phh_not_available")
    assert problem["game"] == "five-card-draw"


def test_an_unknown_hand_has_no_export(client):
    assert_problem(client.get("/v1/hands/table-nowhere.1/phh", headers=ADMIN), 404, "not_found")


# Names are what people typed: quotes, a backslash, TOML's comment and table marks, a
# multi-line string's quotes, right-to-left text. The export must keep each one a string.
HOSTILE_NAMES = ('Ann "The Rock" O\'Neil', "back\\slash # no comment ] [table] \'\'\' \"\"\"",
                 "\u05e9\u05dc\u05d5\u05dd \U0001F0A1")


def folded_hand(client: Any, names: tuple[str, ...]) -> tuple[str, list[str]]:
    """A finished three-handed no-limit hand: the first two to act fold."""
    players = register_players(client, *names)
    table_id = _started_table(client, {
        "game": "holdem", "betting": {"structure": "no-limit", "small_blind": 50, "big_blind": 100},
        "seats": [{"player_id": p, "stack": 10000} for p in players]})
    while to_act(client, table_id) is not None:
        act(client, table_id, {"action": "fold"})
    return f"{table_id}.1", players


def test_a_live_hand_exports_its_players_names_and_keeps_their_ids(client):
    hand_id, players = folded_hand(client, HOSTILE_NAMES)
    text = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    fields = tomllib.loads(text)  # every name a TOML string, whatever it holds
    name_of = dict(zip(players, HOSTILE_NAMES))
    assert fields["players"] == [name_of[p] for p in fields["_player_ids"]]
    assert sorted(fields["_player_ids"]) == sorted(players)
    table_id, number = hand_id.rsplit(".", 1)
    assert (fields["table"], fields["hand"], fields["seat_count"]) == (table_id, int(number), 3)
    # PHH lists the first seat left of the button first: seats 1, 2, 3 with the button at 1.
    assert fields["seats"] == [2, 3, 1] and fields["time_zone"] == "UTC"
    assert phh.parse(text).players == tuple(fields["players"])
    # PokerKit, a reader of the standard, takes the names and keeps the ids as user-defined.
    read = pokerkit.HandHistory.loads(text)
    assert read.players == fields["players"] and read.user_defined_fields == {"_player_ids": fields["_player_ids"]}
    assert list(list(read)[-1].stacks) == fields["finishing_stacks"]


@pytest.mark.parametrize("names", [HOSTILE_NAMES, ("Ann", "Ann", "Bob")],
                         ids=["hostile names", "two players of one name"])
def test_an_exported_hand_imported_again_exports_the_same_hand(client, names):
    hand_id, _ = folded_hand(client, names)
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    stored = client.post("/v1/hand-histories?store=true", data=exported.encode(),
                         headers={**ADMIN, "Content-Type": "application/toml"})
    assert stored.status_code == 201, stored.get_json()
    assert stored.get_json()["matches_record"] is True
    again = client.get(f"/v1/hands/{stored.get_json()['id']}/phh", headers=ADMIN).get_data(as_text=True)
    assert again == exported
