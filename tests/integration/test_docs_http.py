"""`/docs` renders the served OpenAPI document with assets from this server (issue 19)."""
from __future__ import annotations

import re

from service.bootstrap import create_app
from service.config import Config


def test_the_docs_page_loads_swagger_ui_from_this_server_only():
    client = create_app(Config()).test_client()

    page = client.get("/docs")

    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/docs/assets/") for s in sources), sources
    assert '"/openapi.json"' in html
    for source in sources:
        asset = client.get(source)
        assert asset.status_code == 200 and len(asset.data) > 1000, source
    assert client.get("/openapi.json").get_json()["openapi"] == "3.1.0"


def test_the_servers_address_shows_what_runs_and_leads_to_the_docs():
    response = create_app(Config()).test_client().get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert 'href="/docs"' in response.get_data(as_text=True)


def test_an_asset_outside_the_folder_is_not_served():
    response = create_app(Config()).test_client().get("/docs/assets/../__init__.py")
    assert response.status_code == 404
