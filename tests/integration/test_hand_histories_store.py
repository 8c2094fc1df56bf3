"""POST /v1/hand-histories?store=true keeps an imported hand as an audited hand: its own
stream `hand-<uuid>`, readable through the hands endpoints, exported as PHH that replays
to the same result, with a hash chain that verifies."""
from __future__ import annotations

import json
import secrets

import pytest

from domain.history import phh
from service.application.public_log import PublicLog
from tests.corpus import PHH
from tests.integration.conftest import ADMIN, assert_problem, key_for, register_player, unique_to_test
from tests.integration.test_floor_pages_http import sign_in
from tests.integration.test_hand_histories_http import phhs
from tests.unit.test_phh_odd_chips import CHOPPED_BOARD

pytestmark = pytest.mark.integration

DRAW_HAND = """\
variant = "N5CD"
ante_trimming_status = true
antes = [10, 10, 10]
min_bet = 20
starting_stacks = [2000, 2000, 2000]
actions = ["d dh p1 AsAhKd7c2s", "d dh p2 QsQhJd9c3s", "d dh p3 8s8h5d4c3h",
  "p1 cbr 60", "p2 cc", "p3 f",
  "p1 sd Kd7c2s", "d dh p1 AdTc4h", "p2 sd Jd9c3s", "d dh p2 Qd5s6s",
  "p1 cc", "p2 cbr 100", "p1 cc", "p1 sm AsAhAdTc4h", "p2 sm QsQhQd5s6s"]
players = ["Ann", "Bob", "Cy"]
finishing_stacks = [2180, 1830, 1990]
"""


def key_of_role(client, role: str) -> dict:
    """A key for the role; a player key is for a newly registered player, Ann."""
    return key_for(client, role, register_player(client, "Ann") if role == "player" else None)


def store(client, text: str, headers: dict = ADMIN, key: str | None = None):
    extra = {"Idempotency-Key": key} if key else {}
    return client.post("/v1/hand-histories?store=true", data=unique_to_test(text), content_type="application/toml",
                       headers={**headers, **extra})


def stored(client, text: str, key: str | None = None) -> dict:
    response = store(client, text, key=key)
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def test_a_stored_draw_hand_answers_201_with_its_id_and_the_computed_result(client):
    answer = stored(client, DRAW_HAND)
    assert answer["id"].startswith("hand-")
    assert answer["finishing_stacks"] == [2180, 1830, 1990] and answer["matches_record"] is True
    assert answer["winners"] == ["Ann"] and answer["version"] > 1


@pytest.mark.parametrize("text", [DRAW_HAND, (PHH / "dwan-ivey-2009.phh").read_text(),
                                  (PHH / "pluribus/102/0.phh").read_text()],
                         ids=["five-card-draw", "dwan-ivey", "split-odd-chip"])
def test_a_stored_hand_reads_back_replays_exports_and_verifies(client, text):
    answer = stored(client, text)
    hand_id = answer["id"]
    history = client.get(f"/v1/hands/{hand_id}", headers=ADMIN)
    assert history.status_code == 200 and history.headers["ETag"] == f'"{answer["version"]}"'
    body = history.get_json()
    assert body["over"] is True and len(body["events"]) == answer["version"]
    assert list(body["hand"]["stacks"].values()) == answer["finishing_stacks"]
    early = client.get(f"/v1/hands/{hand_id}/state?at=2", headers=ADMIN).get_json()
    assert early["version"] == 2 and early["hand"]["over"] is False
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN)
    assert exported.status_code == 200 and exported.mimetype == "application/toml"
    again = client.post("/v1/hand-histories", data=exported.get_data(), content_type="application/toml",
                        headers=ADMIN).get_json()
    assert again["finishing_stacks"] == answer["finishing_stacks"]
    verified = client.get(f"/v1/streams/{hand_id}/verify", headers=ADMIN).get_json()
    assert set(verified.pop("warnings")) <= {PublicLog.UNCHECKED}  # no integrator runs here
    assert verified == {"ok": True, "events": answer["version"], "first_bad_version": None, "reason": None}


MIXED_GAME_HANDS = {"F7S": "wsop/2023/43/5/10.phh", "F7S/8": "wsop/2023/43/5/48.phh",
                    "FR": "wsop/2023/43/5/20.phh", "FO/8": "wsop/2023/43/5/12.phh",
                    "F2L3D": "wsop/2023/43/5/55.phh", "N2L1D": "wsop/2023/43/5/41.phh",
                    "FB": "alice-carol-wikipedia.phh", "NS": "phua-xuan-2019.phh"}


@pytest.mark.parametrize("path", MIXED_GAME_HANDS.values(), ids=MIXED_GAME_HANDS.keys())
def test_every_mixed_game_hand_is_stored_and_exports_back_to_the_same_result(client, path):
    text = (PHH / path).read_text()
    answer = stored(client, text)
    hand_id = answer["id"]
    body = client.get(f"/v1/hands/{hand_id}", headers=ADMIN).get_json()
    assert body["over"] is True and body["hand"]["round"] == "over"
    assert list(body["hand"]["stacks"].values()) == answer["finishing_stacks"]
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN)
    again = client.post("/v1/hand-histories", data=exported.get_data(), content_type="application/toml",
                        headers=ADMIN).get_json()
    assert again["finishing_stacks"] == answer["finishing_stacks"]
    assert client.get(f"/v1/streams/{hand_id}/verify", headers=ADMIN).get_json()["ok"] is True


def test_a_spectator_sees_the_up_cards_of_a_stored_stud_hand_and_no_down_card(client):
    text = (PHH / MIXED_GAME_HANDS["F7S"]).read_text()
    answer = stored(client, text)
    hand_id = answer["id"]
    spectator = key_of_role(client, "spectator")
    body = client.get(f"/v1/hands/{hand_id}", headers=spectator).get_json()
    floor = client.get(f"/v1/hands/{hand_id}", headers=ADMIN).get_json()
    for seen, full in zip(body["events"], floor["events"]):
        if full["type"] == "CardsDealt":
            expected = "".join(full["data"]["cards"][2 * i:2 * i + 2] if up else "??"
                               for i, up in enumerate(full["data"]["up"]))
            assert seen["data"]["cards"] == expected
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=spectator).get_data(as_text=True)
    assert "????" in exported
    replayed = client.post("/v1/hand-histories", data=exported, content_type="application/toml",
                           headers=ADMIN).get_json()
    assert replayed["finishing_stacks"] == answer["finishing_stacks"]


def test_a_retry_with_the_same_key_answers_the_first_hand_and_stores_nothing_new(client):
    key = secrets.token_hex(8)
    first = stored(client, DRAW_HAND, key)
    retry = store(client, DRAW_HAND, key=key)
    assert (retry.status_code, retry.get_json()) == (201, first)
    assert retry.headers["Idempotent-Replayed"] == "true"


def test_the_same_key_with_another_hand_is_a_422_and_stores_nothing(client):
    key = secrets.token_hex(8)
    stored(client, DRAW_HAND, key)
    hands = client.application.extensions["cardroom"].store.list_streams("hand-")
    other = store(client, (PHH / "dwan-ivey-2009.phh").read_text(), key=key)
    body = assert_problem(other, 422, "idempotency_key_reused")
    assert (body["numbers"]["first_method"], body["numbers"]["first_path"]) == ("POST", "/v1/hand-histories?store=true")
    assert client.application.extensions["cardroom"].store.list_streams("hand-") == hands


def test_storing_needs_floor_organiser_or_admin(client):
    for role in ("floor", "organiser"):
        each_its_own = DRAW_HAND + f'_stored_by = "{role}"\n'
        assert store(client, each_its_own, key_of_role(client, role)).status_code == 201
    for role in ("spectator", "player"):
        assert_problem(store(client, DRAW_HAND, key_of_role(client, role)), 403, "forbidden")


def test_a_spectator_sees_no_hidden_cards_of_a_stored_hand(client):
    hand_id = stored(client, DRAW_HAND)["id"]
    spectator = key_of_role(client, "spectator")
    body = client.get(f"/v1/hands/{hand_id}", headers=spectator).get_json()
    dealt = [e["data"] for e in body["events"] if e["type"] in ("HoleCardsDealt", "PlayerDrew")]
    assert dealt and all(d.get("cards") is None and d.get("received") is None for d in dealt)
    assert body["events"][0]["data"]["deck"] is None
    text = client.get(f"/v1/hands/{hand_id}/phh", headers=spectator).get_data(as_text=True)
    assert "d dh p1 ??????????" in text and "AsAhKd7c2s" not in text
    assert "p1 sm AsAhAdTc4h" in text  # shown at the showdown: public


def test_an_illegal_or_garbage_hand_is_not_stored(client):
    bad = DRAW_HAND.replace('"p1 cbr 60"', '"p1 cbr 15"')
    assert store(client, bad).status_code == 422
    assert store(client, "not toml [").status_code == 400
    assert store(client, DRAW_HAND, key="x" * 500).status_code == 400


def test_an_unknown_hand_id_is_404(client):
    for path in ("/v1/hands/hand-nope", "/v1/hands/hand-nope/state", "/v1/hands/hand-nope/phh"):
        assert client.get(path, headers=ADMIN).status_code == 404


def test_an_imported_hand_keeps_its_metadata_on_export(client):
    # The WSOP record names its event, author, place and day; a time of day is added.
    text = (PHH / "wsop/2023/43/5/63.phh").read_text().replace(
        "author = 'Juho Kim'", "author = 'Juho Kim'\ntime = 12:30:00\ntime_zone = 'America/Los_Angeles'")
    hand_id = stored(client, text)["id"]
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    original, again = phh.parse(unique_to_test(text)), phh.parse(exported)
    assert dict(again.metadata) == dict(original.metadata)
    assert dict(again.metadata)["event"].startswith("2023 World Series of Poker Event #43")
    assert (dict(again.metadata)["author"], str(dict(again.metadata)["time"])) == ("Juho Kim", "12:30:00")
    assert again.players == original.players and again.finishing_stacks == original.finishing_stacks


def test_an_imported_draw_hand_keeps_its_metadata_beside_the_draw_settings(client):
    hand_id = stored(client, DRAW_HAND + "event = 'Home game'\nhand = 7\n")["id"]
    exported = phh.parse(client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True))
    assert (dict(exported.metadata)["event"], dict(exported.metadata)["hand"]) == ("Home game", 7)
    keys = [key for key, _ in exported.metadata]
    assert len(keys) == len(set(keys))


def test_the_same_hand_imported_twice_is_kept_once(client):
    # Laid out otherwise (comments, spacing, field order), it is the same hand: the id is
    # made from its canonical PHH, so the second import is reported, not stored again.
    text = DRAW_HAND.replace('players = ["Ann", "Bob", "Cy"]', 'players = ["Ann", "Bob", "Cy"]\n_import = "twice"')
    first = store(client, text)
    assert first.status_code == 201 and first.get_json()["already_stored"] is False
    relaid = "# the same hand, exported from elsewhere\n" + text.replace(" = ", "=")
    again = store(client, relaid)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert again.get_json()["already_stored"] is True
    assert (again.get_json()["id"], again.get_json()["version"]) == (first.get_json()["id"], first.get_json()["version"])
    assert client.get(f"/v1/streams/{first.get_json()['id']}/verify", headers=ADMIN).get_json()["ok"] is True


# ---------------------------------------------------------------- single and button blinds
# PokerKit posts a blind where the record puts it; a hold'em or Omaha hand with a single
# blind on the first seat or a button blind replays (and is kept) as a rotation's hand,
# read back through domain.games.mixed. PokerKit's own replay is the expected answer.


def pokerkit_stacks(text: str) -> list[int]:
    from pokerkit import HandHistory
    *_, last = HandHistory.loads(text)
    return list(last.stacks)


BUTTON_BLIND_HOLDEM = (PHH / "phua-xuan-2019.phh").read_text().replace('variant = "NS"', 'variant = "NT"')
SINGLE_BLIND_OMAHA = """\
variant = "PO"
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [100, 0, 0]
min_bet = 100
starting_stacks = [1000, 1200, 1500]
actions = ["d dh p1 AsAdKhQh", "d dh p2 7c2h3d4d", "d dh p3 KsKdJcTc",
  "p2 cc", "p3 cbr 300", "p1 cc", "p2 f", "d db 2s3s9h", "p1 cbr 200", "p3 cc",
  "d db Qd", "p1 cc", "p3 cc", "d db 4c", "p1 cc", "p3 cc",
  "p1 sm AsAdKhQh", "p3 sm KsKdJcTc"]
players = ["Ann", "Bob", "Cy"]
"""


@pytest.mark.parametrize("text", [BUTTON_BLIND_HOLDEM, SINGLE_BLIND_OMAHA], ids=["button-blind-NT", "single-blind-PO"])
def test_a_single_or_button_blind_hand_is_kept_and_reads_back_as_pokerkit_plays_it(client, text):
    assert phh.positional_blinds(phh.parse(text))
    expected = pokerkit_stacks(text)
    answer = stored(client, text)
    assert answer["finishing_stacks"] == expected and answer["already_stored"] is False
    hand_id = answer["id"]
    body = client.get(f"/v1/hands/{hand_id}", headers=ADMIN).get_json()
    assert body["over"] is True and body["hand"]["round"] == "over"
    assert body["hand"]["game"] in ("rotation_holdem", "rotation_omaha")
    assert list(body["hand"]["stacks"].values()) == expected
    assert client.get(f"/v1/hands/{hand_id}/state?at=3", headers=ADMIN).get_json()["hand"]["over"] is False
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    again = phh.parse(exported)
    assert again.variant == phh.parse(text).variant and again.blinds_or_straddles == phh.parse(text).blinds_or_straddles
    assert pokerkit_stacks(exported) == expected
    assert store(client, text).get_json()["already_stored"] is True
    assert client.get(f"/v1/streams/{hand_id}/verify", headers=ADMIN).get_json()["ok"] is True


def test_a_spectator_sees_no_hidden_card_of_a_kept_single_blind_hand(client):
    text = SINGLE_BLIND_OMAHA.replace('"p1 sm AsAdKhQh", "p3 sm KsKdJcTc"', '"p3 sm KsKdJcTc", "p1 sm AsAdKhQh"')
    hand_id = stored(client, text)["id"]
    spectator = key_of_role(client, "spectator")
    body = client.get(f"/v1/hands/{hand_id}", headers=spectator).get_json()
    assert body["hand"]["hole"]["Bob"] in (None, "????????")  # folded, never shown
    assert "7c2h3d4d" not in json.dumps(body)
    assert body["hand"]["hole"]["Ann"] == "AsAdKhQh"  # shown at the showdown
    exported = client.get(f"/v1/hands/{hand_id}/phh", headers=spectator).get_data(as_text=True)
    assert "7c2h3d4d" not in exported and "d dh p2 ????????" in exported
    assert "7c2h3d4d" in client.get(f"/v1/hands/{hand_id}/phh", headers=ADMIN).get_data(as_text=True)
    floor = client.application.test_client()
    sign_in(floor, key_for(client, "floor"))
    page = floor.get(f"/floor/hands/{hand_id}").get_data(as_text=True)
    assert "PHH PO" in page and "is dealt KsKdJcTc</a>" in page and "shows AsAdKhQh</a>" in page
    assert "<h1>Imported omaha · Ann, Bob, Cy</h1>" in page


# ---------------------------------------------------------------- a file of many hands


def test_a_phhs_file_is_kept_hand_by_hand_and_a_rerun_reports_each_hand_kept(client):
    run = secrets.token_hex(6)
    draw, chopped = f'{DRAW_HAND}_run = "{run}"\n', f'{CHOPPED_BOARD}_run = "{run}"\n'
    illegal = chopped.replace("'p3 cc', 'p1 f'", "'p3 cbr 3', 'p1 f'")
    body = phhs(draw, chopped, illegal, "variant = 'NT\n", draw)
    first = client.post("/v1/hand-histories?store=true", data=body, content_type="application/toml", headers=ADMIN)
    assert first.status_code == 201, first.get_data(as_text=True)
    answer = first.get_json()
    named = answer["summary"].pop("named")
    assert answer["summary"] == {"hands": 5, "replayed": 3, "refused": 1, "unreadable": 1, "matching_record": 2,
                                 "not_matching_record": 0, "without_record": 1, "stored": 2, "already_stored": 1}
    lines = body.splitlines()
    assert [(n["name"], n["line"]) for n in named] == [("3", lines.index("[3]") + 1), ("4", lines.index("[4]") + 1)]
    assert "raise_below_minimum" in named[0]["why"] and named[1]["why"].startswith("not read: ")
    kept_draw, kept_chopped, refused, unreadable, again = answer["hands"]
    assert kept_draw["outcome"]["already_stored"] is False and kept_chopped["outcome"]["already_stored"] is False
    # The same hand twice in one file is kept once: the second is reported with the first's id.
    assert again["outcome"]["already_stored"] is True and again["outcome"]["id"] == kept_draw["outcome"]["id"]
    assert "id" not in refused and refused["refused"]["index"] == 3 and "unreadable" in unreadable
    hand = client.get(f"/v1/hands/{kept_chopped['outcome']['id']}", headers=ADMIN).get_json()
    assert list(hand["hand"]["stacks"].values()) == [99, 101, 100]
    rerun = client.post("/v1/hand-histories?store=true", data=body, content_type="application/toml", headers=ADMIN)
    assert rerun.status_code == 200
    summary = rerun.get_json()["summary"]
    assert (summary["stored"], summary["already_stored"], summary["refused"]) == (0, 3, 1)
    # Kept on its own, the same hand is the same id.
    alone = client.post("/v1/hand-histories?store=true", data=draw, content_type="application/toml", headers=ADMIN)
    assert alone.status_code == 200 and alone.get_json()["id"] == kept_draw["outcome"]["id"]


def test_a_site_file_of_many_hands_is_kept_hand_by_hand(client):
    from tests.integration.test_hand_histories_http import POKERSTARS
    text = (POKERSTARS / "session.txt").read_text()
    first = client.post("/v1/hand-histories?store=true", data=text, content_type="text/plain", headers=ADMIN)
    assert first.status_code in (200, 201), first.get_data(as_text=True)
    summary = first.get_json()["summary"]
    assert summary["stored"] + summary["already_stored"] == summary["replayed"] == 4
    ids = [h["outcome"]["id"] for h in first.get_json()["hands"]]
    rerun = client.post("/v1/hand-histories?store=true", data=text, content_type="text/plain", headers=ADMIN)
    assert rerun.status_code == 200 and rerun.get_json()["summary"]["already_stored"] == 4
    assert [h["outcome"]["id"] for h in rerun.get_json()["hands"]] == ids
    for hand_id in ids:
        assert client.get(f"/v1/hands/{hand_id}", headers=ADMIN).status_code == 200


def test_a_file_of_more_hands_than_one_request_keeps_is_refused_whole(client):
    from service.http.api.hand_histories import MAX_STORED_HANDS, imported_hand_id
    run = secrets.token_hex(6)
    hands = [f'{CHOPPED_BOARD}_run = "{run}"\n_n = {n}\n' for n in range(MAX_STORED_HANDS + 1)]
    body = phhs(*hands)
    problem = assert_problem(client.post("/v1/hand-histories?store=true", data=body, content_type="application/toml",
                                         headers=ADMIN), 422, "too_many_hands")
    assert (problem["hands"], problem["max_hands"]) == (MAX_STORED_HANDS + 1, MAX_STORED_HANDS)
    first_id = imported_hand_id(phh.parse(hands[0]))
    assert client.get(f"/v1/hands/{first_id}", headers=ADMIN).status_code == 404  # nothing kept
    replayed = client.post("/v1/hand-histories", data=body, content_type="application/toml", headers=ADMIN)
    assert replayed.status_code == 200 and replayed.get_json()["summary"]["replayed"] == MAX_STORED_HANDS + 1
    for role in ("spectator", "player"):
        assert_problem(client.post("/v1/hand-histories?store=true", data=phhs(*hands[:2]),
                                   content_type="application/toml", headers=key_of_role(client, role)), 403, "forbidden")
