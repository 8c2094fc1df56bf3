"""openapi.yaml is generated from the code, committed, and what the app serves."""
from __future__ import annotations

from pathlib import Path

import yaml

from service.bootstrap import create_app
from service.config import Config
from service.http.openapi import SERVED_AT, openapi_document, openapi_yaml

COMMITTED = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_the_committed_openapi_yaml_is_current():
    assert COMMITTED.read_text() == openapi_yaml(), "run `make openapi` and commit openapi.yaml"


def test_the_app_serves_the_committed_document():
    served = create_app(Config()).test_client().get(SERVED_AT)
    assert served.status_code == 200
    assert served.get_json() == yaml.safe_load(COMMITTED.read_text())


def test_the_document_declares_bearer_keys_and_problem_errors():
    document = openapi_document()
    assert document["openapi"].startswith("3.")
    assert document["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "an API key: Bearer <key>",
    }
    default_error = document["components"]["responses"]["DEFAULT_ERROR"]
    assert list(default_error["content"]) == ["application/problem+json"]
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "code", "detail"} <= set(problem["required"])


def test_every_operation_documents_problems_and_guarded_ones_their_key():
    document = openapi_document()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            assert "default" in operation["responses"], f"{method} {path}"
            if path.endswith("/stream"):  # a key, or none for the public view
                assert operation["security"] == [{"bearerAuth": []}, {}], f"{method} {path}"
                assert "401" in operation["responses"], f"{method} {path}"
            elif path.startswith("/v1/log/"):  # the public log: anyone, no key
                assert operation["security"] == [], f"{method} {path}"
            elif path.startswith("/v1/"):
                assert operation["security"] == [{"bearerAuth": []}], f"{method} {path}"
                assert {"401", "403"} <= set(operation["responses"]), f"{method} {path}"
