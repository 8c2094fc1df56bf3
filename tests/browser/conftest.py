"""The browser tests: the pages in a real headless Chromium (tests.browser.chromium) on a
real server (gunicorn on the test database, as tests/e2e run it).

Skipped, with the reason, when Chromium, its driver or Selenium is missing; `make test`
then says so in its summary (tests/conftest.py). One server and one browser serve the
whole suite (one xdist group), and the suite has a time budget: each test's own run at
most TEST_BUDGET_S (its fixtures' start-up, e.g. the server's, not counted), all of them
with their fixtures at most SUITE_BUDGET_S, so `make test` stays bounded.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import chromium

try:
    import selenium  # noqa: F401
except ImportError:
    # The test modules drive Selenium: without it they are not collected at all (the
    # summary line of tests/conftest.py says why).
    collect_ignore_glob = ["test_*.py"]

TEST_BUDGET_S = 30
SUITE_BUDGET_S = 150  # about 90 s here with the room's screens (issue 34): a carousel turning, two browsers, sounds
_spent = {"s": 0.0}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    reason = chromium.missing()
    for item in items:
        if "tests/browser/" not in item.nodeid:
            continue
        item.add_marker(pytest.mark.xdist_group("browser"))
        item.add_marker(pytest.mark.timeout(TEST_BUDGET_S, func_only=True))
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


@pytest.fixture(autouse=True)
def _within_the_suites_budget() -> Iterator[None]:
    if _spent["s"] > SUITE_BUDGET_S:
        pytest.fail(f"the browser suite spent {_spent['s']:.0f} s, over its budget of {SUITE_BUDGET_S} s")
    started = time.monotonic()
    yield
    _spent["s"] += time.monotonic() - started


@pytest.fixture(scope="session")
def server(database_url: str) -> Iterator[Any]:
    from tests.e2e.conftest import start_gunicorn

    yield from start_gunicorn(database_url)


@pytest.fixture(scope="session")
def base(server: Any) -> str:
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture(scope="session")
def admin_key(server: Any) -> str:
    return server.admin["Authorization"].removeprefix("Bearer ")


@pytest.fixture(scope="session")
def _browser() -> Iterator[Any]:
    with chromium.chromium() as driver:
        yield driver


@pytest.fixture
def browser(_browser: Any) -> Iterator[Any]:
    """The suite's Chromium, at TV size, with one tab, signed out, for each test."""
    chromium.set_viewport(_browser, "tv")
    yield _browser
    for handle in _browser.window_handles[1:]:
        _browser.switch_to.window(handle)
        _browser.close()
    _browser.switch_to.window(_browser.window_handles[0])
    _browser.delete_all_cookies()
    _browser.get("about:blank")
