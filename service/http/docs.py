"""`/docs`: the API documented by Swagger UI, from the OpenAPI document the app serves
(`/openapi.json`, the same text as the committed openapi.yaml).

The page and its assets come from this server (the `flask-swagger-ui` wheel's copy of
Swagger UI 5, which reads OpenAPI 3.1), never from a CDN: the documentation works on a
card room's network with no internet, and no third party sees who reads it. `/` is the
pages' (service.http.pages.home), which link here.
"""
from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Flask, Response, send_from_directory

DOCS_PATH = "docs"
ASSETS_URL = f"/{DOCS_PATH}/assets/"
ASSETS_DIR = Path(flask_swagger_ui.__file__).parent / "dist"
ASSETS_MAX_AGE_S = 24 * 3600

# flask-smorest renders the page (its swagger_ui.html) when these are set.
SETTINGS = {
    "OPENAPI_SWAGGER_UI_PATH": DOCS_PATH,
    "OPENAPI_SWAGGER_UI_URL": ASSETS_URL,
    # Keys typed into "Authorize" survive a reload of the page.
    "OPENAPI_SWAGGER_UI_CONFIG": {"persistAuthorization": True, "deepLinking": True},
}


def _asset(filename: str) -> Response:
    return send_from_directory(ASSETS_DIR, filename, max_age=ASSETS_MAX_AGE_S)


def install(app: Flask) -> None:
    """Before the Api is created: flask-smorest reads SETTINGS when it registers its pages."""
    app.config.update(SETTINGS)
    app.add_url_rule(f"{ASSETS_URL}<path:filename>", "docs_asset", _asset, methods=["GET"])
