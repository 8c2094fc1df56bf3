"""POST /v1/hand-histories: real PHH hands replayed over HTTP (api.md "Hand histories in PHH").

A correct engine reproduces every recorded `finishing_stacks`; a body that is not a hand is
a 400 `invalid_phh`; an illegal action is a 422 naming it; never a 500.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.history.phh import parse
from service.http.api.hand_histories import imported_hand_id
from tests.corpus import PHH
from tests.integration.conftest import ADMIN, assert_problem
from tests.unit.test_phh_odd_chips import CHOPPED_BOARD
from tests.unit.test_stud_past_eight import NINE_HANDED

pytestmark = pytest.mark.integration

PLURIBUS_SPLIT_POT = PHH / "pluribus/102/0.phh"   # an odd chip split into halves
WSOP_NT = PHH / "wsop/2023/43/5/63.phh"
WSOP_FT = PHH / "wsop/2023/43/5/37.phh"
WSOP_PO = PHH / "wsop/2023/43/5/33.phh"
WSOP_STUD_HI_LO = PHH / "wsop/2023/43/5/53.phh"
WSOP_OMAHA_HI_LO = PHH / "wsop/2023/43/5/79.phh"
WSOP_RAZZ = PHH / "wsop/2023/43/5/26.phh"


def send(client, text: str | bytes, content_type: str = "application/toml", headers=None, query: str = ""):
    return client.post("/v1/hand-histories" + query, data=text, content_type=content_type,
                       headers=ADMIN if headers is None else headers)


def replayed(client, text: str, content_type: str = "application/toml") -> dict:
    response = send(client, text, content_type)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def test_dwan_ivey_2009_the_million_dollar_pot_goes_to_dwan(client):
    answer = replayed(client, (PHH / "dwan-ivey-2009.phh").read_text())
    assert answer["players"] == ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
    # Ivey loses Dwan's whole stack (553,500); Antonius folded his blind and ante (2,500).
    assert answer["finishing_stacks"] == [1125600 - 553500, 2000000 - 2500, 553500 * 2 + 2500]
    assert answer["winners"] == ["Tom Dwan"]
    assert answer["recorded_finishing_stacks"] is None and answer["matches_record"] is None
    assert sum(pot["amount"] for pot in answer["pots"]) == 553500 * 2 + 2500


def test_a_pluribus_hand_with_a_split_pot_reproduces_its_half_chips(client):
    answer = replayed(client, PLURIBUS_SPLIT_POT.read_text())
    assert answer["finishing_stacks"] == [10112.5, 9775, 10000, 10000, 10112.5, 10000]
    assert answer["recorded_finishing_stacks"] == answer["finishing_stacks"]
    assert answer["matches_record"] is True
    assert answer["winners"] == ["MrBlue", "MrBrown"]
    assert answer["pots"][0]["shares"] == {"MrBlue": 674.5, "MrBrown": 674.5}  # (3 x 225 + 2 x 337) / 2
    assert answer["odd_chip_rule"] == "split_exactly"  # as the record itself splits


def test_a_whole_chip_hand_gives_the_odd_chip_by_tda_rule_20(client):
    # p2 and p3 play a royal flush on the board for a pot of 5: the odd chip goes to p2,
    # the first winner left of the button (PokerKit agrees).
    answer = replayed(client, CHOPPED_BOARD + "finishing_stacks = [99, 101, 100]\n")
    assert answer["odd_chip_rule"] == "tda" and answer["matches_record"] is True
    assert answer["finishing_stacks"] == [99, 101, 100]
    assert answer["pots"][0]["shares"] == {"p2": 3, "p3": 2}
    stored = send(client, CHOPPED_BOARD, query="?store=true")
    assert stored.status_code == 201 and stored.get_json()["odd_chip_rule"] == "tda"


@pytest.mark.parametrize("path", [WSOP_NT, WSOP_FT, WSOP_PO], ids=["NT", "FT", "PO"])
def test_wsop_final_table_hands_reproduce_their_recorded_finishing_stacks(client, path):
    text = path.read_text()
    answer = replayed(client, text)
    assert f"variant = '{answer['variant']}'" in text
    assert answer["finishing_stacks"] == answer["recorded_finishing_stacks"]
    assert answer["matches_record"] is True


@pytest.mark.parametrize("path", [WSOP_STUD_HI_LO, WSOP_OMAHA_HI_LO, WSOP_RAZZ],
                         ids=["F7S/8", "FO/8", "FR"])
def test_mixed_game_hands_reproduce_their_recorded_finishing_stacks(client, path):
    answer = replayed(client, path.read_text())
    assert answer["matches_record"] is True


def test_omaha_hi_lo_hand_79_rast_takes_the_high_and_quarters_the_low(client):
    # On 4s3hQh 5s 5d Rast's 7-6 make a seven-high straight (the high) and his A-2 the
    # wheel, which Shakerchi's A-2 makes too: each pot's low half is quartered.
    answer = replayed(client, WSOP_OMAHA_HI_LO.read_text())
    high_main, low_main, high_side, low_side = answer["pots"]
    assert high_main["winners"] == high_side["winners"] == ["Brian Rast"]
    assert low_main["winners"] == low_side["winners"] == ["Brian Rast", "Talal Shakerchi"]
    assert low_main["shares"] == {"Brian Rast": 975000, "Talal Shakerchi": 975000}


def test_text_plain_is_accepted_like_application_toml(client):
    assert replayed(client, WSOP_NT.read_text(), "text/plain")["matches_record"] is True


def test_a_variant_we_do_not_replay_is_unsupported_variant(client):
    text = (PHH / "arieh-yockey-2019.phh").read_text().replace('"F2L3D"', '"NR"')
    assert_problem(send(client, text), 422, "unsupported_variant")


@pytest.mark.parametrize("variant", sorted(NINE_HANDED))
def test_a_nine_handed_stud_history_is_refused_too_many_players_and_nothing_is_kept(client, variant):
    # Issue 33: stud is dealt to at most eight (Robert's Rules); the refusal is the domain's,
    # at the hand's start, whether the hand is replayed or sent to be kept.
    for query in ("", "?store=true"):
        body = assert_problem(send(client, NINE_HANDED[variant], query=query), 422, "too_many_players")
        assert (body["rule"], body["numbers"]) == ("RRP seven-card stud", {"players": 9, "max_players": 8})
    kept_as = imported_hand_id(parse(NINE_HANDED[variant]))
    assert client.get(f"/v1/hands/{kept_as}", headers=ADMIN).status_code == 404


def test_an_illegal_raise_is_a_422_naming_the_action_by_its_index(client):
    text = PLURIBUS_SPLIT_POT.read_text().replace("'p5 cbr 225'", "'p5 cbr 150'")
    body = assert_problem(send(client, text), 422, "raise_below_minimum")
    assert body["index"] == 8
    assert "p5 cbr 150" in body["detail"]


def test_an_illegal_action_with_fractional_amounts_is_still_a_422(client):
    text = PLURIBUS_SPLIT_POT.read_text().replace(
        "starting_stacks = [10000, 10000", "starting_stacks = [10000.5, 10000").replace(
        "'p5 cbr 225'", "'p5 cbr 150.5'")
    body = assert_problem(send(client, text), 422, "raise_below_minimum")
    assert body["index"] == 8


def test_acting_out_of_turn_is_not_your_turn(client):
    text = PLURIBUS_SPLIT_POT.read_text().replace("'p3 f', 'p4 f'", "'p4 f', 'p3 f'")
    assert assert_problem(send(client, text), 422, "not_your_turn")["index"] == 6


def test_a_record_that_stops_mid_hand_is_incomplete(client):
    text = WSOP_NT.read_text().replace(", 'p5 f', 'p1 f', 'p2 f'", "")
    body = assert_problem(send(client, text), 422, "hand_incomplete")
    assert body["index"] == 7


@pytest.mark.parametrize("text", [
    "",
    "variant = ",
    "this is not toml at all",
    'variant = "NT"\nantes = [0, 0]\nstarting_stacks = [100, 100]\n',              # no actions
    'variant = "NT"\nantes = "none"\nstarting_stacks = [100, 100]\nactions = []\n',
    'variant = "NT"\nantes = [0, 0]\nstarting_stacks = [100, inf]\nactions = []\n',
    'variant = "NT"\nantes = [0, 0]\nstarting_stacks = [100, 100]\nactions = [1, 2]\n',
    'variant = "NT"\nantes = [0, 0, 0]\nstarting_stacks = [100, 100]\nactions = []\n',
    'variant = "NT"\nantes = [0, 0]\nstarting_stacks = [100, 100]\nactions = ["p1 jumps"]\n',
    'variant = "NT"\nantes = [0, 0]\nstarting_stacks = [100, 100]\nactions = ["p9 f"]\n',
    'variant = 7\nantes = [0, 0]\nstarting_stacks = [100, 100]\nactions = []\n',
])
def test_a_body_that_is_not_a_phh_hand_is_invalid_phh(client, text):
    assert_problem(send(client, text), 400, "invalid_phh")


def test_bytes_that_are_not_utf8_are_invalid_phh(client):
    assert_problem(send(client, b"variant = '\xff\xfe'"), 400, "invalid_phh")


def test_json_is_the_wrong_media_type_and_a_huge_body_too_large(client):
    assert_problem(send(client, '{"variant": "NT"}', "application/json"), 415, "unsupported_media_type")
    assert_problem(send(client, "# " + "x" * 300_000), 413, "payload_too_large")


def test_replaying_needs_a_key(client):
    assert_problem(send(client, WSOP_NT.read_text(), headers={}), 401, "unauthorized")


def test_store_must_be_true_or_false(client):
    assert_problem(send(client, WSOP_NT.read_text(), query="?store=maybe"), 400, "validation_error")


REAL_HANDS = [PLURIBUS_SPLIT_POT.read_text(), WSOP_FT.read_text(), WSOP_PO.read_text(),
              (PHH / "dwan-ivey-2009.phh").read_text()]


@st.composite
def damaged_hands(draw: st.DrawFn) -> str:
    """A real hand with a few characters replaced, removed or repeated."""
    text = draw(st.sampled_from(REAL_HANDS))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text) - 1))
        change = draw(st.sampled_from(["replace", "delete", "repeat"]))
        if change == "replace":
            text = text[:at] + draw(st.sampled_from(list("0123456789-.,'\"[]=#pfc ndbhs?\n"))) + text[at + 1:]
        elif change == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        else:
            text = text[:at] + text[at:at + 12] + text[at:]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(damaged_hands())
def test_a_damaged_real_hand_gets_an_answer_or_a_4xx_never_a_500(client, text):
    response = send(client, text)
    assert response.status_code in (200, 400, 422), response.get_data(as_text=True)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(damaged_hands(), min_size=2, max_size=3))
def test_a_phhs_file_of_damaged_hands_gets_an_answer_for_each_or_a_4xx_never_a_500(client, hands):
    response = send(client, phhs(*hands))
    assert response.status_code in (200, 400, 422), response.get_data(as_text=True)
    if response.status_code == 200 and "hands" in response.get_json():
        answer = response.get_json()
        assert [h["position"] for h in answer["hands"]] == list(range(1, len(answer["hands"]) + 1))
        assert all(len({"outcome", "refused", "unreadable"} & h.keys()) == 1 for h in answer["hands"])


def phhs(*hands: str) -> str:
    """A .phhs file: each hand a TOML table of its own, [1], [2] ..."""
    return "\n".join(f"[{number}]\n{text}" for number, text in enumerate(hands, 1))


def test_a_phhs_file_replays_each_hand_and_answers_one_summary(client):
    illegal = CHOPPED_BOARD.replace("'p3 cc', 'p1 f'", "'p3 cbr 3', 'p1 f'")  # a raise of 1 over 2
    answer = replayed(client, phhs(PLURIBUS_SPLIT_POT.read_text(), WSOP_NT.read_text(),
                                   CHOPPED_BOARD, illegal))
    named = answer["summary"].pop("named")
    assert answer["summary"] == {"hands": 4, "replayed": 3, "refused": 1, "unreadable": 0, "matching_record": 2,
                                 "not_matching_record": 0, "without_record": 1}
    assert [(n["name"], n["why"].split(":")[:2]) for n in named] == [("4", ["not replayed", " raise_below_minimum"])]
    first, second, third, fourth = answer["hands"]
    assert first["name"] == "1" and first["outcome"]["odd_chip_rule"] == "split_exactly"
    assert first["outcome"] == replayed(client, PLURIBUS_SPLIT_POT.read_text())
    assert second["outcome"]["matches_record"] is True
    assert third["outcome"]["finishing_stacks"] == [99, 101, 100]
    assert fourth["refused"]["code"] == "raise_below_minimum" and fourth["refused"]["index"] == 3
    assert fourth["refused"]["rule"] == "TDA 2024 43"


def test_a_phhs_summary_names_a_hand_that_does_not_match_its_record(client):
    recorded = WSOP_NT.read_text()
    stated = recorded[recorded.index("finishing_stacks = ["):].splitlines()[0]
    wrong = recorded.replace(stated, stated.replace("[", "[1, ", 1).rsplit(",", 1)[0] + "]")
    answer = replayed(client, phhs(recorded, wrong))
    (named,) = answer["summary"]["named"]
    assert (named["name"], named["line"]) == ("2", recorded.count("\n") + 3)
    assert named["why"].startswith("replayed to [") and "but the record says [1, " in named["why"]


def test_a_phhs_file_with_an_unreadable_hand_replays_the_others(client):
    body = phhs(CHOPPED_BOARD, "variant = 'NT\n", CHOPPED_BOARD, "variant = 'NT'\nantes = 'none'\n")
    answer = replayed(client, body)
    named = answer["summary"].pop("named")
    assert answer["summary"] == {"hands": 4, "replayed": 2, "refused": 0, "unreadable": 2,
                                 "matching_record": 0, "not_matching_record": 0, "without_record": 2}
    assert [n["name"] for n in named] == ["2", "4"] and all(n["why"].startswith("not read: ") for n in named)
    first, not_toml, third, wrong_type = answer["hands"]
    assert first["outcome"] == third["outcome"] == replayed(client, CHOPPED_BOARD)
    assert (first["position"], first["name"], first["line"], first["variant"]) == (1, "1", 1, "NT")
    lines = body.splitlines()
    assert not_toml["line"] == lines.index("[2]") + 1 and "variant" not in not_toml
    # The reader's own line, counted in the file, not in the hand.
    assert not_toml["unreadable"]["code"] == "invalid_phh"
    assert not_toml["unreadable"]["line"] == lines.index("variant = 'NT") + 1
    assert f"line {not_toml['unreadable']['line']} of the file" in not_toml["unreadable"]["detail"]
    assert wrong_type["unreadable"]["line"] == wrong_type["line"] == lines.index("[4]") + 1
    assert "antes" in wrong_type["unreadable"]["detail"]


def test_a_phhs_file_of_which_no_hand_can_be_read_is_invalid_phh_naming_each(client):
    problem = assert_problem(send(client, phhs("variant = 'NT\n", "antes = [0, 0]\n")), 400, "invalid_phh")
    assert "none of the file's 2 hands" in problem["detail"] and "hand [2] (line 4)" in problem["detail"]
    assert [(h["position"], h["unreadable"]["code"]) for h in problem["hands"]] == [
        (1, "invalid_phh"), (2, "invalid_phh")]


def test_hands_of_a_phhs_file_may_share_a_name(client):
    # Two tables [1] make one TOML document invalid; as hands of a file, each is read.
    answer = replayed(client, f"[1]\n{CHOPPED_BOARD}[1]\n{CHOPPED_BOARD}")
    assert [(h["name"], "outcome" in h) for h in answer["hands"]] == [("1", True), ("1", True)]


# ---------------------------------------------------------------- PokerStars

POKERSTARS = Path(__file__).resolve().parents[1] / "pokerstars"


def test_a_pokerstars_hand_replays_to_its_stacks_and_is_kept_once(client):
    text = (POKERSTARS / "tournament-side-pots.txt").read_text()
    answer = client.post("/v1/hand-histories", data=text, content_type="text/plain", headers=ADMIN).get_json()
    assert answer["variant"] == "NT" and answer["players"] == ["Dan", "Ann", "Ben", "Cat"]
    assert answer["finishing_stacks"] == answer["recorded_finishing_stacks"] == [2940, 3860, 2500, 0]
    assert answer["matches_record"] is True and answer["winners"] == ["Ann"]
    stored = client.post("/v1/hand-histories?store=true", data=text, content_type="text/plain", headers=ADMIN)
    again = client.post("/v1/hand-histories?store=true", data=text, content_type="text/plain", headers=ADMIN)
    assert stored.status_code in (200, 201) and again.status_code == 200
    assert again.get_json()["already_stored"] is True and again.get_json()["id"] == stored.get_json()["id"]
    exported = client.get(f"/v1/hands/{stored.get_json()['id']}/phh", headers=ADMIN).get_data(as_text=True)
    assert '_source = "PokerStars"' in exported and "hand = 208957890123" in exported


def test_a_pokerstars_session_replays_hand_by_hand(client):
    text = (POKERSTARS / "session.txt").read_text().replace("Gus: calls $0.10\n", "Gus: juggles\n", 1)
    answer = client.post("/v1/hand-histories", data=text, content_type="text/plain", headers=ADMIN).get_json()
    assert [h["name"] for h in answer["hands"]] == ["233876543210", "208957890123", "233876543299", "233876543300"]
    assert answer["summary"]["replayed"] == 3 and answer["summary"]["matching_record"] == 3
    (named,) = answer["summary"]["named"]
    assert named["name"] == "233876543299" and named["why"].startswith("not read: line 86: an action we do not read")
    unreadable = client.post("/v1/hand-histories", data=text.split("\n\n\n")[2], content_type="text/plain",
                             headers=ADMIN)
    body = assert_problem(unreadable, 400, "invalid_hand_history")
    assert body["line"] == 12


def test_a_full_tilt_hand_is_read_by_pokerkit_and_kept_once(client):
    # Numbered as no other test's hand (a hand is kept once however many tests store it).
    text = (Path(__file__).resolve().parents[1] / "site_histories" / "fulltilt-cash-showdown.txt").read_text()
    text = text.replace("Game #18534237905", "Game #28534237905")
    answer = client.post("/v1/hand-histories", data=text, content_type="text/plain", headers=ADMIN).get_json()
    assert answer["players"] == ["Ann", "Bob", "Cid"] and answer["finishing_stacks"] == [830, 1240, 980]
    stored = client.post("/v1/hand-histories?store=true&format=fulltilt", data=text, content_type="text/plain",
                         headers=ADMIN)
    again = client.post("/v1/hand-histories?store=true", data=text, content_type="text/plain", headers=ADMIN)
    assert stored.status_code == 201 and again.get_json()["already_stored"] is True
    exported = client.get(f"/v1/hands/{stored.get_json()['id']}/phh", headers=ADMIN).get_data(as_text=True)
    assert '_source = "Full Tilt Poker"' in exported and '_amounts_in = "USD cents"' in exported
    # Named as another site's, it holds no hand of it; a hand PokerKit cannot read names its line.
    assert_problem(client.post("/v1/hand-histories?format=partypoker", data=text, content_type="text/plain",
                               headers=ADMIN), 400, "invalid_hand_history")
    broken = client.post("/v1/hand-histories", data=text.replace("Bob folds", "Dan folds"),
                         content_type="text/plain", headers=ADMIN)
    assert assert_problem(broken, 400, "invalid_hand_history")["line"] == 1


def test_a_button_blind_hand_replays_and_is_kept(client):
    from tests.unit.test_phh_forced_bets import HAND
    text = HAND.format(variant="NT", trimming="true", antes="[25, 25, 25]", blinds="[0, 0, 100]",
                       actions='"p1 cbr 300", "p2 f", "p3 f"')
    answer = client.post("/v1/hand-histories", data=text, content_type="application/toml", headers=ADMIN)
    assert answer.status_code == 200 and answer.get_json()["finishing_stacks"] == [1150, 975, 875]
    kept = client.post("/v1/hand-histories?store=true", data=text, content_type="application/toml", headers=ADMIN)
    assert kept.status_code in (200, 201) and kept.get_json()["finishing_stacks"] == [1150, 975, 875]
    ante_only = HAND.format(variant="NT", trimming="false", antes="[25, 25, 25]", blinds="[0, 0, 0]",
                            actions='"p1 cbr 100", "p2 f", "p3 f"')
    kept = client.post("/v1/hand-histories?store=true", data=ante_only, content_type="application/toml",
                       headers=ADMIN)
    assert kept.status_code == 201 and kept.get_json()["finishing_stacks"] == [1050, 975, 975]
