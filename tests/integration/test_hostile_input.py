"""Hostile input (issue 13, "Bad input"): every class of input that once answered a 500,
was taken for something else, or was accepted and broke later, gets a 4xx problem with a
stable code, and writes nothing. One test per class."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.integration.conftest import ADMIN, assert_problem, register_players

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}
LEVELS = [{"small_blind": 25, "big_blind": 50, "minutes": 20}]
HEADS_UP_PHH = """variant = 'NT'
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [10000, 10000]
actions = ['d dh p1 AsAd', 'd dh p2 KsKd', 'p2 f']
"""


def raw_post(client, path: str, text: str, **kwargs):
    """A JSON body sent as written: `json=` would refuse (or re-encode) what we want to send."""
    return client.post(path, data=text, content_type="application/json", headers=ADMIN, **kwargs)


def phh(client, text: str, query: str = ""):
    return client.post("/v1/hand-histories" + query, data=text, content_type="application/toml",
                       headers=ADMIN)


def tournament(**overrides) -> dict:
    return {"name": "Hostile", "game": "holdem", "levels": LEVELS, "starting_stack": 10000,
            "starts_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
            "payout_percentages": ["100"], **overrides}


@pytest.fixture(scope="module")
def seats(client) -> list[dict]:
    ann, bob = register_players(client, "Ann", "Bob")
    return [{"player_id": ann, "stack": 10000}, {"player_id": bob, "stack": 10000}]


def table(seats, **overrides) -> dict:
    return {"game": "holdem", "betting": NL, "seats": seats, **overrides}


# ------------------------------------------------------------ strings PostgreSQL cannot store


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/players", '{"name": "An\\ud800n"}'),
    ("/v1/players", '{"name": "Ann", "\\udfff": 1}'),
    ("/v1/tournaments", json.dumps(tournament(name="T\ud800"))),
    ("/v1/keys", '{"role": "player", "player_id": "\\udbff"}'),
], ids=["player-name", "key-of-an-object", "tournament-name", "key-player"])
def test_a_lone_surrogate_in_any_json_string_is_refused_by_path(client, path, body):
    problem = assert_problem(raw_post(client, path, body), 400, "validation_error")
    assert "surrogate" in problem["detail"], problem


@pytest.mark.parametrize("name", ["\u202ennA", "Ann\u2066Bob", "\u202bAnn"])
def test_a_name_with_a_bidirectional_override_is_refused_and_a_right_to_left_one_is_not(client, name):
    # Found by trying: "\u202ennA" registered, and then showed as "Ann" in every list.
    problem = assert_problem(client.post("/v1/players", json={"name": name}, headers=ADMIN),
                             400, "validation_error")
    assert problem["errors"][0]["field"] == "name"
    created = client.post("/v1/players", json={"name": "\u05d0\u05e0\u05d4 \u0639\u0644\u064a"}, headers=ADMIN)
    assert created.status_code == 201, created.get_data(as_text=True)


def test_a_lone_surrogate_deep_in_table_settings_is_refused_by_path(client, seats):
    body = json.dumps(table(seats, settings={"notes": ["fine", "bad \ud83d"]}))
    problem = assert_problem(raw_post(client, "/v1/tables", body), 400, "validation_error")
    assert problem["errors"][0]["field"] == "settings.notes.1", problem


def test_a_lone_surrogate_in_a_phh_string_is_invalid_phh(client):
    # TOML has no escape for one, and UTF-8 no encoding (CESU-8's is refused).
    text = HEADS_UP_PHH + 'players = ["Ann", "B\\ud800b"]\n'
    assert_problem(phh(client, text), 400, "invalid_phh")
    cesu = HEADS_UP_PHH.encode() + b"event = 'x\xed\xa0\x80x'\n"
    assert_problem(client.post("/v1/hand-histories?store=true", data=cesu, content_type="application/toml",
                               headers=ADMIN), 400, "invalid_phh")


# ------------------------------------------------------------ null where a number belongs


@pytest.mark.parametrize("field", ["small_blind", "big_blind", "ante"])
def test_a_null_blind_is_a_400_naming_it(client, seats, field):
    body = table(seats, betting={**NL, field: None})
    problem = assert_problem(client.post("/v1/tables", json=body, headers=ADMIN), 400, "validation_error")
    assert problem["errors"][0]["field"] == f"betting.{field}", problem


# ------------------------------------------------------------ number literals


@pytest.mark.parametrize(("literal", "message"), [
    ("1" * 5000, "A number has too many digits."),
    ("NaN", "NaN is not a JSON number."),
    ("-Infinity", "-Infinity is not a JSON number."),
])
def test_number_literals_json_does_not_have_or_python_will_not_read_are_refused(client, seats, literal, message):
    body = json.dumps(table(seats)).replace('"settings": {}', "").rstrip("}") + f', "settings": {{"x": {literal}}}}}'
    problem = assert_problem(raw_post(client, "/v1/tables", body), 400, "validation_error")
    assert problem["errors"] == [{"location": "json", "field": "", "messages": [message]}], problem


def test_a_phh_integer_of_thousands_of_digits_is_invalid_phh(client):
    assert_problem(phh(client, HEADS_UP_PHH + "x = " + "9" * 5000 + "\n"), 400, "invalid_phh")
    assert_problem(phh(client, HEADS_UP_PHH + "x = 1e999999999\n"), 400, "invalid_phh")


# ------------------------------------------------------------ nesting


def test_settings_nested_500_deep_are_refused(client, seats):
    deep: object = 1
    for _ in range(500):
        deep = {"x": deep}
    body = json.dumps(table(seats, settings={"deep": deep}))
    problem = assert_problem(raw_post(client, "/v1/tables", body), 400, "validation_error")
    assert "nested" in problem["detail"], problem


def test_json_nested_deeper_than_the_limit_is_refused_even_where_no_schema_looks(client):
    body = '{"name": "Ann", "extra": ' + "[" * 200 + "]" * 200 + "}"
    assert_problem(raw_post(client, "/v1/players", body), 400, "validation_error")


@pytest.mark.parametrize("depth", [100, 3000])
def test_a_phh_nested_deeply_is_invalid_phh(client, depth):
    assert_problem(phh(client, HEADS_UP_PHH + "x = " + "[" * depth + "]" * depth + "\n"), 400, "invalid_phh")
    inline = "y = " + "{a = " * depth + "1" + "}" * depth + "\n"
    assert_problem(phh(client, HEADS_UP_PHH + inline), 400, "invalid_phh")


# ------------------------------------------------------------ PHH amounts and names


@pytest.mark.parametrize("change", [
    ("starting_stacks = [10000, 10000]", "starting_stacks = [1e-300, 10000]"),
    ("starting_stacks = [10000, 10000]", "starting_stacks = [1e300, 10000]"),
    ("starting_stacks = [10000, 10000]", "starting_stacks = [1180591620717411303424, 10000]"),
    ("'p2 f'", "'p2 cbr 1e-300'"),
    ("'p2 f'", "'p2 cbr 1e400'"),
    ("blinds_or_straddles = [50, 100]", "blinds_or_straddles = [-50, 100]"),
    ("antes = [0, 0]", "antes = [-1, 0]"),
    ("min_bet = 100", "min_bet = -100"),
    ("starting_stacks = [10000, 10000]", "starting_stacks = [-10000, 10000]"),
    ("starting_stacks = [10000, 10000]", "starting_stacks = [10000.0000000001, 10000]"),
], ids=["tiny", "huge-float", "2**70", "tiny-bet", "infinite-bet", "negative-blind",
        "negative-ante", "negative-min-bet", "negative-stack", "fine-fraction"])
def test_phh_amounts_out_of_range_are_invalid_phh(client, change):
    text = HEADS_UP_PHH.replace(*change)
    assert text != HEADS_UP_PHH
    assert_problem(phh(client, text), 400, "invalid_phh")
    assert_problem(phh(client, text, "?store=true"), 400, "invalid_phh")


@pytest.mark.parametrize("names", ['["A\\u0000nn", "Bob"]', '["Ann", "Bob\\u0000"]'])
def test_phh_player_names_with_nul_are_invalid_phh_stored_or_not(client, names):
    text = HEADS_UP_PHH + f"players = {names}\n"
    assert_problem(phh(client, text), 400, "invalid_phh")
    assert_problem(phh(client, text, "?store=true"), 400, "invalid_phh")


def test_a_nul_anywhere_in_a_stored_phh_is_invalid_phh(client):
    text = HEADS_UP_PHH + 'event = "WSOP\\u0000"\n'
    assert_problem(phh(client, text, "?store=true"), 400, "invalid_phh")


# ------------------------------------------------------------ unknown games


def test_a_tournament_of_an_unknown_game_is_refused_where_it_is_created(client):
    problem = assert_problem(client.post("/v1/tournaments", json=tournament(game="abc"), headers=ADMIN),
                             400, "validation_error")
    assert problem["errors"][0]["field"] == "game", problem


# ------------------------------------------------------------ numbers out of range


@pytest.mark.parametrize("betting", [
    {**NL, "small_blind": 2**70, "big_blind": 2**71},
    {**NL, "big_blind": 2**70},
    {**NL, "ante": 10**12 + 1},
    {**NL, "straddles": [2**70]},
    {"structure": "fixed-limit", "small_blind": 50, "big_blind": 100, "small_bet": 100, "big_bet": 2**70},
    {**NL, "min_bet": 10**15},
    {**NL, "small_blind": -1},
    {**NL, "small_blind": 50.5},
    {**NL, "raise_cap": 2**70},
], ids=["blinds", "big-blind", "ante", "straddle", "big-bet", "min-bet", "negative", "fraction", "cap"])
def test_table_betting_numbers_have_limits(client, seats, betting):
    assert_problem(client.post("/v1/tables", json=table(seats, betting=betting), headers=ADMIN),
                   400, "validation_error")


@pytest.mark.parametrize(("where", "body"), [
    ("seat stack", lambda seats: table([{**seats[0], "stack": 2**70}, seats[1]])),
    ("starting chips", lambda seats: table(seats[:1] + [{"player_id": seats[1]["player_id"]}],
                                           settings={"starting_chips": 2**70})),
    ("action clock", lambda seats: table(seats, action_clock_s=2**70)),
    ("draw ante", lambda seats: {"game": "five-card-draw", "seats": seats, "settings": {"ante": 2**70}}),
    ("dice clock", lambda seats: {"game": "dice", "seats": seats, "settings": {"turn_time_limit_s": 2**70}}),
    ("dice clock of a year", lambda seats: {"game": "dice", "seats": seats,
                                            "settings": {"turn_time_limit_s": 365 * 86400}}),
    ("draw clock of a year", lambda seats: {"game": "five-card-draw", "seats": seats,
                                            "settings": {"turn_time_limit_s": 365 * 86400}}),
])
def test_table_numbers_have_limits(client, seats, where, body):
    response = client.post("/v1/tables", json=body(seats), headers=ADMIN)
    assert 400 <= response.status_code < 500, (where, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("overrides", [
    {"starting_stack": 2**70},
    {"buy_in": 2**70},
    {"levels": [{"small_blind": 2**70, "big_blind": 2**71, "minutes": 20}]},
    {"levels": [{"small_blind": 25, "big_blind": 50, "seconds": 2**70}]},
    {"payout_percentages": ["1" * 400]},
], ids=["stack", "buy-in", "blinds", "seconds", "payout"])
def test_tournament_numbers_have_limits(client, overrides):
    assert_problem(client.post("/v1/tournaments", json=tournament(**overrides), headers=ADMIN),
                   400, "validation_error")


# ------------------------------------------------------------ strict booleans


@pytest.mark.parametrize("value", [0, 1, "true", "yes", None])
@pytest.mark.parametrize("field", ["auto_deal", "ranked"])
def test_table_booleans_are_true_or_false_only(client, seats, field, value):
    problem = assert_problem(client.post("/v1/tables", json=table(seats, **{field: value}), headers=ADMIN),
                             400, "validation_error")
    assert problem["errors"][0]["field"] == field, problem


@pytest.mark.parametrize("value", [0, 1, "on"])
def test_tournament_and_ruling_booleans_are_true_or_false_only(client, value):
    levels = [{"small_blind": 25, "big_blind": 50, "minutes": 20, "big_blind_ante": value}]
    assert_problem(client.post("/v1/tournaments", json=tournament(levels=levels), headers=ADMIN),
                   400, "validation_error")
    breaks = [{"break": value, "minutes": 10}, *LEVELS]
    assert_problem(client.post("/v1/tournaments", json=tournament(levels=breaks), headers=ADMIN),
                   400, "validation_error")
