"""Property-based API check: schemathesis generates requests for every operation of the
served OpenAPI document (valid and invalid), with an admin key; every response must be a
non-5xx that conforms to the document (status, content type, headers, body schema).

(schemathesis's own pytest loader does not run under pytest 9 here, so each operation is
parametrised by hand and driven through hypothesis.)
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance

from service.bootstrap import create_app
from service.config import Config

pytestmark = pytest.mark.integration

ADMIN_KEY = "schemathesis-admin-" + secrets.token_hex(8)
EXAMPLES_PER_OPERATION_AND_MODE = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "25"))
# The suite draws the same examples every run (a CI result can be rerun and a failure
# bisected); SCHEMATHESIS_EXPLORE=1 draws new ones, to hunt for what the fixed ones miss.
EXPLORE = os.environ.get("SCHEMATHESIS_EXPLORE") == "1"
DOCUMENT = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
OPERATIONS = [
    (path, method.upper(), mode)
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if method != "parameters"
    for mode in GenerationMode
    # an operation without inputs has no invalid request to generate
    if mode is GenerationMode.POSITIVE
    or "parameters" in item
    or "parameters" in operation
    or "requestBody" in operation
]



def refuses_some_schema_valid_requests(path: str, method: str) -> bool:
    """Operations whose rules go beyond what a schema can say: a documented 422 (a betting
    sequence can be well-formed and illegal; a key's player must exist), a body that is
    not JSON (a TOML hand history), or an opaque `cursor` (signed by the server: a made-up
    one is a 400 invalid_cursor). And the receipt check, whose only number is a version:
    JSON Schema counts 2147483647.0 an integer, our whole numbers are JSON integers only
    (README "Limits"), and it has no other rule to be excluded by. Elsewhere, schema-valid
    input must be accepted."""
    operation = DOCUMENT["paths"][path][method.lower()]
    content = operation.get("requestBody", {}).get("content", {"application/json": {}})
    cursor = any(parameter.get("name") == "cursor" for parameter in operation.get("parameters", []))
    return ("422" in operation["responses"] or set(content) != {"application/json"} or cursor
            or (path, method) == ("/v1/receipts/verify", "POST"))


# Ways to refuse invalid input; schemathesis's default list lacks 413 (a body over the
# size limit), which is a refusal too.
REJECTIONS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]


@pytest.fixture(scope="module")
def served_schema(database_url, broker_url):
    app = create_app(Config(database_url=database_url, broker_url=broker_url, admin_key=ADMIN_KEY))
    # The key goes in as the documented security scheme's credential: schemathesis then
    # knows the Authorization header is present, and never counts a request it meant to
    # send without one as invalid input that was accepted.
    config = SchemathesisConfig.from_dict({
        "auth": {"openapi": {"bearerAuth": {"bearer": ADMIN_KEY}}},
        "checks": {"negative_data_rejection": {"expected-statuses": REJECTIONS}},
    })
    return schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)


@pytest.mark.parametrize(("path", "method", "mode"), OPERATIONS)
def test_every_operation_answers_within_its_documented_contract(served_schema, path, method, mode):
    operation = served_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION_AND_MODE,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=not EXPLORE,
    )
    def answers_within_contract(case):
        case.call_and_validate(
            excluded_checks=(
                [positive_data_acceptance] if refuses_some_schema_valid_requests(path, method) else []
            ),
        )

    answers_within_contract()
