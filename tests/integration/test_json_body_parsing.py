"""JSON request bodies over HTTP: what a client gets for a body that is not JSON, not an
object, of the wrong media type, missing, or of the wrong shape, pinned to the exact problem
document (status, code, detail and every `errors` entry), on endpoints of several blueprints
and on schemas given as classes and as instances."""
from __future__ import annotations

import re

import pytest

from service.http.problems import PROBLEM_CONTENT_TYPE
from tests.integration.conftest import ADMIN, register_players

pytestmark = pytest.mark.integration

NL = {"structure": "no-limit", "small_blind": 50, "big_blind": 100}


def validation_error(detail: str, *errors: tuple[str, list[str]]) -> dict:
    """The whole 400 document, every `errors` entry in the json location."""
    return {
        "type": "urn:cardroom:problem:validation_error",
        "title": "Bad Request",
        "status": 400,
        "code": "validation_error",
        "detail": detail,
        "errors": [{"location": "json", "field": field, "messages": messages} for field, messages in errors],
    }


def unsupported_media_type(detail: str) -> dict:
    return {
        "type": "urn:cardroom:problem:unsupported_media_type",
        "title": "Unsupported Media Type",
        "status": 415,
        "code": "unsupported_media_type",
        "detail": detail,
    }


INVALID_JSON = validation_error("invalid request: json: Invalid JSON body.", ("", ["Invalid JSON body."]))
NOT_AN_OBJECT = validation_error("invalid request: json: Invalid input type.", ("", ["Invalid input type."]))
NAME_MISSING = validation_error("invalid request: name: Missing data for required field.",
                                ("name", ["Missing data for required field."]))


def assert_document(response, expected: dict) -> None:
    assert response.mimetype == PROBLEM_CONTENT_TYPE, response.get_data(as_text=True)
    document = response.get_json(force=True)
    # Every problem names its request (service.http.request_log); the rest is compared exactly.
    assert document.pop("request_id") == response.headers["X-Request-Id"]
    assert (response.status_code, document) == (expected["status"], expected)


def post_player(client, **request):
    return client.post("/v1/players", headers={**ADMIN, **request.pop("headers", {})}, **request)


# ------------------------------------------------------------------ not JSON


@pytest.mark.parametrize("raw", [
    b'{"name": ',
    b'{"name": "\xff"}',  # not UTF-8
    b"  ",  # blank is not empty
    '\ufeff{"name": "Ann"}'.encode(),  # a byte-order mark
], ids=["truncated", "not-utf8", "blank", "bom"])
def test_a_body_that_is_not_json_is_invalid_json(client, raw):
    assert_document(post_player(client, data=raw, content_type="application/json"), INVALID_JSON)


@pytest.mark.parametrize("raw", ["[1, 2]", "[]", '"Ann"', "null", "42", "true"])
def test_json_that_is_not_an_object_is_an_invalid_input_type(client, raw):
    assert_document(post_player(client, data=raw, content_type="application/json"), NOT_AN_OBJECT)


def test_json_nested_too_deeply_is_400(client):
    raw = '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert_document(post_player(client, data=raw, content_type="application/json"),
                    validation_error("invalid request: json: The JSON is nested too deeply.",
                                     ("", ["The JSON is nested too deeply."])))


def duplicate_key(key: str) -> dict:
    return {
        "type": "urn:cardroom:problem:duplicate_key",
        "title": "Bad Request",
        "status": 400,
        "code": "duplicate_key",
        "detail": f'the key "{key}" appears more than once in one object of the body: send each key once',
        "numbers": {"key": key},
    }


def test_a_key_sent_twice_is_refused_not_read_as_its_last_value(client):
    """A proxy or validator in front may read the first value: the body would mean a
    spectator key to it and an admin key to us (issue 38)."""
    before = len(client.get("/v1/keys?limit=1000", headers=ADMIN).get_json()["keys"])
    response = client.post("/v1/keys", headers=ADMIN, content_type="application/json",
                           data='{"role": "spectator", "role": "admin"}')
    assert_document(response, duplicate_key("role"))
    assert len(client.get("/v1/keys?limit=1000", headers=ADMIN).get_json()["keys"]) == before


@pytest.mark.parametrize(("raw", "key"), [
    ('{"name": "Ann", "name": "Ann"}', "name"),  # even with the same value
    ('{"name": "Ann", "x": [{"a": 1, "a": 2}]}', "a"),  # at any depth
    ('{"name": "Ann", "\\ud800": 1, "\\ud800": 2}', "\\ud800"),  # named as a path shows it
], ids=["same-value", "nested", "surrogate"])
def test_a_duplicate_key_anywhere_in_the_body_is_400_naming_it(client, raw, key):
    assert_document(post_player(client, data=raw, content_type="application/json"), duplicate_key(key))


# ------------------------------------------------------------------ media type


@pytest.mark.parametrize(("request_", "named"), [
    ({"data": '{"name": "Ann"}', "content_type": "text/plain"}, "text/plain"),
    ({"data": {"name": "Ann"}}, "application/x-www-form-urlencoded"),
    ({"data": '{"name": "Ann"}'}, "untyped"),
], ids=["text", "form", "untyped"])
def test_a_body_of_another_media_type_is_415_naming_it(client, request_, named):
    assert_document(post_player(client, **request_),
                    unsupported_media_type(f"the body must be application/json, not {named}"))


def test_the_rulings_refuse_a_text_body_too(client):
    response = client.post("/v1/rulings/betting", headers=ADMIN, data="x", content_type="text/plain")
    assert_document(response, unsupported_media_type("the body must be application/json, not text/plain"))


def test_a_body_over_the_limit_is_413(client):
    response = post_player(client, data='{"name": "' + "x" * 1_100_000 + '"}', content_type="application/json")
    assert_document(response, {
        "type": "urn:cardroom:problem:payload_too_large",
        "title": "Request Entity Too Large",
        "status": 413,
        "code": "payload_too_large",
        "detail": "The data value transmitted exceeds the capacity limit.",
    })


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/merge-patch+json"])
def test_json_media_types_with_parameters_or_a_suffix_are_json(client, content_type):
    response = post_player(client, data='{"name": "Ann"}', content_type=content_type)
    assert response.status_code == 201, response.get_data(as_text=True)
    assert set(response.get_json()) == {"id"}


# ------------------------------------------------------------------ missing body


@pytest.mark.parametrize("request_", [
    {},
    {"data": b"", "content_type": "application/json"},
    {"data": b"", "content_type": "text/plain"},  # no body, so no media type to refuse
], ids=["no-body", "empty-json", "empty-text"])
def test_a_missing_body_reads_as_an_empty_object(client, request_):
    assert_document(post_player(client, **request_), NAME_MISSING)


def required_body_endpoints(client) -> list[tuple[str, str]]:
    """(method, path) of every operation whose JSON body schema has a required field, path
    parameters filled with ids that exist nowhere."""
    spec = client.get("/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    found = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not content:
                continue
            schema = content["schema"]
            schema = schemas[schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
            if schema.get("required"):
                found.append((method.upper(), re.sub(r"\{[^}]+\}", "nowhere", path)))
    return found


def test_every_endpoint_whose_body_has_a_required_field_answers_400_to_a_missing_body(client):
    endpoints = required_body_endpoints(client)
    assert len(endpoints) > 20 and ("POST", "/v1/keys") in endpoints
    answers = {(method, path): client.open(path, method=method, headers=ADMIN).status_code
               for method, path in endpoints}
    assert {endpoint for endpoint, status in answers.items() if status != 400} == set()


def test_a_dice_ruling_asks_for_dice_a_scorecard_or_rolls(client):
    """No single field is required (the card's totals need no dice), but a body naming none
    of them asks for nothing: once a missing body was answered 200 with a blank card."""
    asks_nothing = validation_error(
        "invalid request: json: Send dice, a scorecard or rolls_taken: at least one is required.",
        ("", ["Send dice, a scorecard or rolls_taken: at least one is required."]))
    assert_document(client.post("/v1/rulings/dice", headers=ADMIN), asks_nothing)
    assert_document(client.post("/v1/rulings/dice", headers=ADMIN, json={}), asks_nothing)
    assert client.post("/v1/rulings/dice", headers=ADMIN, json={"dice": [1, 2, 3, 4, 5]}).status_code == 200


def test_a_missing_body_is_enough_where_every_field_is_optional(client):
    players = register_players(client, "Ann", "Bob")
    table_id = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": p, "stack": 10000} for p in players],
    }).get_json()["id"]
    response = client.post(f"/v1/tables/{table_id}/hands", headers={**ADMIN, "If-Match": '"1"'})
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.get_json()["version"] > 1


# ------------------------------------------------------------------ schema errors


def test_an_unknown_field_is_refused(client):
    assert_document(post_player(client, json={"name": "Ann", "nick": "A"}),
                    validation_error("invalid request: nick: Unknown field.", ("nick", ["Unknown field."])))


def test_a_field_of_the_wrong_type_is_named(client):
    assert_document(post_player(client, json={"name": 7}),
                    validation_error("invalid request: name: Not a valid string.", ("name", ["Not a valid string."])))


def test_nested_field_errors_are_listed_by_path_in_field_order(client):
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": {}, "seats": [{"player_id": "x", "stack": "lots"}, {"stack": 5}]})
    assert_document(response, validation_error(
        "invalid request: seats.0.stack: Not a valid integer.; seats.1.player_id: Missing data for required field.",
        ("seats.0.stack", ["Not a valid integer."]),
        ("seats.1.player_id", ["Missing data for required field."])))


GAMES = ("deuce_seven_triple_draw, dice, eight_game, five-card-draw, holdem, horse, omaha, omaha_hi_lo, "
         "palace, razz, stud, stud_hi_lo.")


def test_every_wrong_field_is_listed_unknown_ones_last(client):
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "go", "seats": "x", "ranked": "perhaps", "extra": 1})
    assert_document(response, validation_error(
        f"invalid request: game: Must be one of: {GAMES}; "
        "seats: Not a valid list.; ranked: Not a valid boolean.; extra: Unknown field.",
        ("game", [f"Must be one of: {GAMES}"]),
        ("seats", ["Not a valid list."]),
        ("ranked", ["Not a valid boolean."]),
        ("extra", ["Unknown field."])))


def test_a_ruling_lists_nested_and_list_errors(client):
    response = client.post("/v1/rulings/betting", headers=ADMIN, json={
        "betting": {"structure": "no-limit", "small_blind": "x"}, "seats": [{"player": "A", "stack": 1}]})
    assert_document(response, validation_error(
        "invalid request: betting.small_blind: Not a valid integer.; seats: Length must be between 2 and 23.",
        ("betting.small_blind", ["Not a valid integer."]),
        ("seats", ["Length must be between 2 and 23."])))


def test_a_schema_level_check_names_its_field(client):
    assert_document(client.post("/v1/keys", headers=ADMIN, json={"role": "player"}), validation_error(
        "invalid request: player_id: a player key needs the player it acts for",
        ("player_id", ["a player key needs the player it acts for"])))


def test_an_action_body_is_checked_before_the_table_is_looked_up(client):
    response = client.post("/v1/tables/nope/actions", headers=ADMIN, json={"action": 3, "to": 1.5})
    assert_document(response, validation_error(
        "invalid request: action: Not a valid string.; to: Not a valid integer.",
        ("action", ["Not a valid string."]),
        ("to", ["Not a valid integer."])))


def test_the_key_is_checked_before_the_body(client):
    response = client.post("/v1/players", data="{", content_type="application/json")
    assert (response.status_code, response.get_json(force=True)["code"]) == (401, "unauthorized")


# ------------------------------------------------------------------ NUL characters


def test_a_nul_in_a_string_is_refused_by_path(client):
    assert_document(post_player(client, json={"name": "A\x00nn"}), validation_error(
        "invalid request: name: NUL characters are not allowed.", ("name", ["NUL characters are not allowed."])))


def test_a_nul_in_a_key_is_refused_before_the_schema_sees_the_key(client):
    assert_document(post_player(client, json={"name": 7, "x\x00": 1}), validation_error(
        "invalid request: x\\u0000: NUL characters are not allowed.",
        ("x\\u0000", ["NUL characters are not allowed."])))


def test_a_nul_deep_in_a_table_is_refused_by_path(client):
    response = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": "a"}, {"player_id": "b\x00"}]})
    assert_document(response, validation_error(
        "invalid request: seats.1.player_id: NUL characters are not allowed.",
        ("seats.1.player_id", ["NUL characters are not allowed."])))


# ------------------------------------------------------------------ valid bodies


def test_valid_bodies_reach_the_views_loaded(client):
    ann, bob = register_players(client, "Ann", "Bob")
    created = client.post("/v1/tables", headers=ADMIN, json={
        "game": "holdem", "betting": NL, "seats": [{"player_id": ann, "stack": 10000}, {"player_id": bob}],
        "settings": {"starting_chips": 5000}})
    assert created.status_code == 201, created.get_data(as_text=True)
    table_id = created.get_json()["id"]
    table = client.get(f"/v1/tables/{table_id}", headers=ADMIN).get_json()
    assert [seat["stack"] for seat in table["seats"]] == [10000, 5000]  # the default filled in

    dealt = client.post(f"/v1/tables/{table_id}/hands", json={}, headers={**ADMIN, "If-Match": '"1"'})
    assert dealt.status_code == 201, dealt.get_data(as_text=True)
    to_act = dealt.get_json()["to_act"]
    acted = client.post(f"/v1/tables/{table_id}/actions", headers=ADMIN,
                        json={"action": "fold", "player_id": to_act, "expected_version": dealt.get_json()["version"]})
    assert acted.status_code == 201, acted.get_data(as_text=True)
    first = acted.get_json()["events"][0]
    assert (first["type"], first["data"]["action"]) == ("ActionTaken", "fold"), first

    ruling = client.post("/v1/rulings/betting", headers=ADMIN, json={
        "betting": NL, "seats": [{"player": "A", "stack": 1000}, {"player": "B", "stack": 1000}]})
    assert ruling.status_code == 200, ruling.get_data(as_text=True)
    assert ruling.get_json()["to_act"] == "B"  # heads-up, the button (last) acts first
