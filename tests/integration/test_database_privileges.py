"""Least privilege in the database (issue 13): the application's login role may read and
append events and nothing else there; it cannot switch the append-only triggers off, in
any way an insider with its password would try. The migrations ran as the owner role."""
from __future__ import annotations

import secrets
import threading
import uuid

import psycopg
import pytest
from psycopg import sql

from service.adapters.connection_strings import with_login
from service.adapters.migrate import OWNER_ROLE, WRITER_ROLE, ensure_login_role, ensure_roles
from service.adapters.store.base import NewEvent

pytestmark = pytest.mark.integration


@pytest.fixture
def app_connection(database_url):
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


@pytest.mark.parametrize("statement", [
    "UPDATE events SET type = 'Forged' WHERE stream_id = %(stream)s",
    "DELETE FROM events WHERE stream_id = %(stream)s",
    "TRUNCATE events",
    "ALTER TABLE events DISABLE TRIGGER ALL",
    "ALTER TABLE events DISABLE TRIGGER events_refuse_update_delete",
    "DROP TRIGGER events_refuse_update_delete ON events",
    "SET session_replication_role = replica",
    "SET ROLE cardroom_owner",
    "CREATE TABLE shadow (x int)",
    "DELETE FROM api_keys",
    "UPDATE api_keys SET role = 'admin'",
    "DROP TABLE alembic_version",
    "TRUNCATE idempotency_records",
    "ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_pkey",
    "UPDATE listings SET status = 'finished'",
    "INSERT INTO listings (stream_id, kind, created_position, created_at, status)"
    " VALUES ('table-forged', 'table', 0, now(), 'waiting')",
    "DELETE FROM listings",
    "ALTER TABLE events DISABLE TRIGGER events_listing",
    "SELECT listing_apply('table-forged', 1, 'TableCreated', '{}', '{}', 0, now())",
    "DELETE FROM open_clocks",
    "INSERT INTO open_clocks VALUES ('table-forged', 1, 0, '{}')",
    "ALTER TABLE events DISABLE TRIGGER events_open_clock",
], ids=["update", "delete", "truncate", "disable-all-triggers", "disable-trigger", "drop-trigger",
        "replication-role", "become-owner", "create-table", "delete-keys", "escalate-key", "drop-version",
        "truncate-idempotency-records", "unkey-idempotency-records",
        "forge-listing", "insert-listing", "delete-listings", "disable-listing-trigger", "apply-listing",
        "delete-open-clocks", "forge-open-clock", "disable-open-clock-trigger"])
def test_the_application_role_may_not(app_connection, postgres_store, stream_id, statement):
    postgres_store.append(stream_id, 0, [NewEvent("PlayerSeated", {"seat": 0})])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        app_connection.execute(statement, {"stream": stream_id})
    assert [e.type for e in postgres_store.read_stream(stream_id)] == ["PlayerSeated"]


def test_the_application_role_is_no_superuser_and_owns_nothing(app_connection):
    role = app_connection.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert role == (False, False, False, False)
    owners = app_connection.execute(
        "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public'").fetchall()
    assert owners == [(OWNER_ROLE,)]


def test_the_application_role_reads_appends_and_revokes_keys(app_connection, postgres_store, stream_id):
    postgres_store.append(stream_id, 0, [NewEvent("PlayerSeated", {"seat": 0})])
    assert app_connection.execute("SELECT count(*) FROM events WHERE stream_id = %s", (stream_id,)).fetchone() == (1,)
    key_id = str(uuid.uuid4())  # as the app issues them (GET /v1/keys pages by them)
    app_connection.execute("INSERT INTO api_keys (id, key_hash, role) VALUES (%s, %s, 'spectator')",
                           (key_id, "0" * 64))
    app_connection.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (key_id,))


def test_role_set_up_is_idempotent_and_safe_when_processes_race(admin_database_url):
    """Roles are cluster-wide: two test processes (or servers) set them up at once, each
    for its own database (PostgreSQL alone would answer "tuple concurrently updated")."""
    role = f"cardroom_race_{secrets.token_hex(4)}"
    errors: list[BaseException] = []
    urls: list[str] = []

    def set_up() -> None:
        try:
            ensure_roles(admin_database_url)
            urls.append(ensure_login_role(admin_database_url, role, "pw"))
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=set_up) for _ in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert urls == [with_login(admin_database_url, role, "pw")] * 8
        with psycopg.connect(admin_database_url) as admin:
            assert admin.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (role, WRITER_ROLE)).fetchone() == (True,)
    finally:
        with psycopg.connect(admin_database_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
