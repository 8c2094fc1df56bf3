"""Print the OpenAPI document as YAML: `python -m service.http.openapi > openapi.yaml`.

The document is generated from the code (flask-smorest/apispec); openapi.yaml in the
repository is this output, and a test keeps the two equal.
"""
from __future__ import annotations

import sys
from typing import Any

import yaml

from service.bootstrap import create_app
from service.config import Config

SERVED_AT = "/openapi.json"


def openapi_document() -> dict[str, Any]:
    """The document exactly as the app serves it (no database needed)."""
    app = create_app(Config())
    return app.test_client().get(SERVED_AT).get_json()


def openapi_yaml() -> str:
    return yaml.safe_dump(openapi_document(), sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":
    sys.stdout.write(openapi_yaml())
