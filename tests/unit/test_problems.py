"""Every error is an RFC 9457 problem document with a stable code: checked on a tiny app
built from the same pieces as the service (no database)."""
from __future__ import annotations

import marshmallow as ma
import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.rules.violations import Violation
from service.adapters.store.base import VersionConflict
from service.http.api import Api, Blueprint
from service.http.problems import PROBLEM_CONTENT_TYPE, Problem, register_problem_handlers, validation_errors

blp = Blueprint("sample", __name__, url_prefix="/v1/sample")


class SeatSchema(ma.Schema):
    stack = ma.fields.Integer(required=True, strict=True)


class BodySchema(ma.Schema):
    name = ma.fields.String(required=True)
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), load_default=list)


@blp.route("", methods=["POST"])
@blp.arguments(BodySchema)
@blp.response(201)
def create(body: dict) -> dict:
    return {"name": body["name"]}


@blp.route("/raise", methods=["POST"])
def broken_rule() -> dict:
    raise Violation(
        "raise_below_minimum",
        "raise to 450 is below the minimum raise to 500: the last full raise was 200 over 100",
        rule="TDA 2024 43",
        numbers={"to": 450, "min_to": 500},
    )


@blp.route("/conflict", methods=["POST"])
def stale() -> dict:
    raise VersionConflict("table-1", expected=3, actual=4)


@blp.route("/teapot", methods=["GET"])
def teapot() -> dict:
    raise Problem(418, "short_and_stout", "here is my handle", spout=1)


@blp.route("/crash", methods=["GET"])
def crash() -> dict:
    raise RuntimeError("a bug")


@pytest.fixture(scope="module")
def client():
    app = Flask("problems-test")
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app)
    api.register_blueprint(blp)
    register_problem_handlers(app)
    return app.test_client()


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status
    assert response.mimetype == PROBLEM_CONTENT_TYPE
    body = response.get_json(force=True)
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"urn:cardroom:problem:{code}"
    assert body["title"] and body["detail"]
    return body


def test_an_unknown_route_is_a_not_found_problem(client):
    assert_problem(client.get("/v1/nowhere"), 404, "not_found")


def test_a_wrong_method_is_405_with_the_allow_header(client):
    response = client.delete("/v1/sample")
    assert_problem(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"POST", "OPTIONS"}


def test_malformed_json_is_a_400_validation_error(client):
    response = client.post("/v1/sample", data="{not json", content_type="application/json")
    body = assert_problem(response, 400, "validation_error")
    assert body["errors"][0]["location"] == "json"


def test_missing_and_wrong_fields_are_listed_by_path(client):
    response = client.post("/v1/sample", json={"seats": [{"stack": "many"}]})
    body = assert_problem(response, 400, "validation_error")
    fields = {e["field"] for e in body["errors"]}
    assert fields == {"name", "seats.0.stack"}
    assert "name" in body["detail"] and "seats.0.stack" in body["detail"]


def test_a_body_that_is_not_json_is_415(client):
    response = client.post("/v1/sample", data="name=Ann", content_type="text/plain")
    assert_problem(response, 415, "unsupported_media_type")


def test_a_nul_character_anywhere_in_the_body_is_rejected(client):
    response = client.post("/v1/sample", json={"name": "A\x00nn"})
    body = assert_problem(response, 400, "validation_error")
    assert body["errors"][0]["field"] == "name"


def test_a_nul_character_in_an_ignored_key_is_rejected_too(client):
    response = client.post("/v1/sample", json={"name": "Ann", "x\x00": 1})
    assert_problem(response, 400, "validation_error")


def test_a_broken_rule_is_422_with_code_rule_and_numbers(client):
    body = assert_problem(client.post("/v1/sample/raise"), 422, "raise_below_minimum")
    assert body["rule"] == "TDA 2024 43"
    assert body["numbers"] == {"to": 450, "min_to": 500}
    assert "below the minimum raise to 500" in body["detail"]


def test_a_version_conflict_is_409_naming_both_versions(client):
    body = assert_problem(client.post("/v1/sample/conflict"), 409, "version_conflict")
    assert "4" in body["detail"] and "3" in body["detail"]
    assert body["numbers"] == {"expected_version": 3, "actual_version": 4}


def test_a_view_problem_keeps_its_status_code_and_extensions(client):
    body = assert_problem(client.get("/v1/sample/teapot"), 418, "short_and_stout")
    assert body["spout"] == 1


def test_a_bug_is_a_500_problem_that_does_not_leak_the_exception(client):
    body = assert_problem(client.get("/v1/sample/crash"), 500, "internal_error")
    assert "a bug" not in body["detail"]


def test_nested_messages_flatten_to_one_entry_per_field():
    messages = {"json": {"seats": {0: {"stack": ["Not a valid integer."]}}, "_schema": ["bad"]}}
    assert validation_errors(messages) == [
        {"location": "json", "field": "seats.0.stack", "messages": ["Not a valid integer."]},
        {"location": "json", "field": "", "messages": ["bad"]},
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(body=json_values)
def test_any_json_body_gets_a_2xx_or_a_4xx_problem_never_a_500(client, body):
    response = client.post("/v1/sample", json=body)
    if response.status_code == 201:
        assert isinstance(body, dict) and isinstance(body.get("name"), str)
    else:
        assert_problem(response, 400, "validation_error")


def test_a_lost_or_refused_database_connection_is_an_outage_and_other_database_errors_are_not():
    import psycopg
    from psycopg import errors
    from psycopg_pool import PoolTimeout

    from service.http.problems import is_database_outage

    assert is_database_outage(PoolTimeout("couldn't get a connection after 1.50 sec"))
    assert is_database_outage(psycopg.OperationalError("connection refused"))
    assert is_database_outage(psycopg.DatabaseError("server closed the connection unexpectedly"))
    assert is_database_outage(errors.AdminShutdown("terminating connection"))
    assert is_database_outage(errors.TooManyConnections("too many clients"))
    assert is_database_outage(errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction"))
    assert not is_database_outage(errors.UniqueViolation("duplicate key"))
    assert not is_database_outage(errors.UndefinedTable("no such table"))
