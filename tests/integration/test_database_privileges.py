"""Least privilege in the database (issues 13 and 38): the application's login has exactly
the rights the README's table lists, on every table, for every statement class; it cannot
switch the append-only triggers off, in any way an insider with its password would try.
The migrations ran as the database's own owner role."""
from __future__ import annotations

import re
import secrets
import threading
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from service.adapters.connection_strings import with_database, with_login
from service.adapters.migrate import drop_roles, ensure_login_role, ensure_roles, roles_for
from service.adapters.store.base import NewEvent

pytestmark = pytest.mark.integration

README = Path(__file__).resolve().parents[2] / "README.md"
TABLE_RIGHTS = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")


def documented_rights() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The README's table of rights: (table -> rights, function -> rights)."""
    text = README.read_text()
    section = text[text.index("| table or function | the application's login may |"):]
    tables: dict[str, set[str]] = {}
    functions: dict[str, set[str]] = {}
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            break
        names, rights = line.split("|")[1:3]
        granted = set() if rights.strip() == "nothing" else {r.strip() for r in rights.split(",")}
        for name in re.findall(r"`([a-z_]+)(\(…\))?`", names):
            (functions if name[1] else tables)[name[0]] = granted
    return tables, functions


@pytest.fixture
def app_connection(database_url):
    with psycopg.connect(database_url, autocommit=True) as connection:
        yield connection


def _tables(connection) -> list[str]:
    return [name for (name,) in connection.execute(
        "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY relname")]


def _statements(connection, table: str) -> dict[str, str]:
    """One statement of each class against `table`, touching no row (or rolled back)."""
    column = connection.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0"
        " AND NOT attisdropped AND attidentity = '' AND attgenerated = '' ORDER BY attnum LIMIT 1",
        (table,)).fetchone()[0]
    t, c = sql.Identifier(table), sql.Identifier(column)
    return {
        "SELECT": sql.SQL("SELECT FROM {} LIMIT 0").format(t),
        "INSERT": sql.SQL("INSERT INTO {} OVERRIDING SYSTEM VALUE SELECT * FROM {} WHERE false").format(t, t),
        "UPDATE": sql.SQL("UPDATE {} SET {} = {} WHERE false").format(t, c, c),
        "DELETE": sql.SQL("DELETE FROM {} WHERE false").format(t),
        "TRUNCATE": sql.SQL("TRUNCATE {}").format(t),
        "TRIGGER": sql.SQL("CREATE TRIGGER rights_probe BEFORE INSERT ON {} FOR EACH ROW"
                           " EXECUTE FUNCTION suppress_redundant_updates_trigger()").format(t),
        "ALTER": sql.SQL("ALTER TABLE {} ADD COLUMN rights_probe int").format(t),
        "DISABLE TRIGGERS": sql.SQL("ALTER TABLE {} DISABLE TRIGGER ALL").format(t),
        "DROP": sql.SQL("DROP TABLE {}").format(t),
    }


def _granted(connection, table: str, right: str) -> bool:
    """Whether the catalogue gives the login `right` on the table or on any of its columns."""
    by_column = right in ("SELECT", "INSERT", "UPDATE", "REFERENCES")
    return connection.execute(
        "SELECT has_table_privilege(%s, %s)" + (" OR has_any_column_privilege(%s, %s)" if by_column else ""),
        (table, right, table, right) if by_column else (table, right)).fetchone()[0]


def _allowed(connection, statement) -> bool:
    """Whether the statement runs (inside a transaction rolled back afterwards)."""
    try:
        with connection.transaction(force_rollback=True):
            connection.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


def test_the_application_login_has_exactly_the_documented_rights_on_every_table(app_connection):
    documented, _ = documented_rights()
    tables = _tables(app_connection)
    assert sorted(documented) == tables, "every table has a row in the README's table of rights"
    ran, granted = {}, {}
    for table in tables:
        ran[table] = {kind for kind, statement in _statements(app_connection, table).items()
                      if _allowed(app_connection, statement)}
        granted[table] = {right for right in TABLE_RIGHTS if _granted(app_connection, table, right)}
        # REFERENCES needs a table of one's own to reference from, which the login cannot
        # create (nor may a temporary table reference a permanent one): the catalogue says.
        ran[table] |= granted[table] & {"REFERENCES"}
    assert ran == documented  # no ALTER, DROP or trigger switch anywhere either
    assert granted == documented  # nor a right on a single column


def test_the_application_login_may_call_the_documented_functions_only(app_connection):
    _, documented = documented_rights()
    callable_ = {name for (name,) in app_connection.execute(
        "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname = 'public' AND has_function_privilege(p.oid, 'EXECUTE')")}
    assert callable_ == {name for name, rights in documented.items() if "EXECUTE" in rights}
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        app_connection.execute("SELECT listing_apply('table-forged', 1, 'TableCreated', '{}', '{}', 0, now())")


@pytest.mark.parametrize("statement", [
    "SET session_replication_role = replica",
    "SET ROLE {owner}",
    "CREATE TABLE shadow (x int)",
    "CREATE SEQUENCE shadow",
    "SELECT setval('events_position_seq', 1)",
    "GRANT SELECT ON alembic_version TO PUBLIC",
    "ALTER FUNCTION idempotency_records_remove_expired SECURITY INVOKER",
    "CREATE OR REPLACE FUNCTION idempotency_records_remove_expired(text, text, timestamptz, integer)"
    " RETURNS integer LANGUAGE sql AS 'SELECT 0'",
], ids=["replication-role", "become-owner", "create-table", "create-sequence", "set-sequence",
        "grant", "alter-function", "replace-function"])
def test_the_application_login_may_not(app_connection, database_url, statement):
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        app_connection.execute(statement.format(owner=sql.Identifier(roles_for(database_url).owner)
                                                .as_string(app_connection)))


@pytest.mark.parametrize("statement", [
    "UPDATE events SET type = 'Forged' WHERE stream_id = %(stream)s",
    "DELETE FROM events WHERE stream_id = %(stream)s",
    "DROP TRIGGER events_refuse_update_delete ON events",
    "UPDATE api_keys SET role = 'admin'",
    "DELETE FROM key_revocations",
    "UPDATE key_revocations SET key_id = 'another'",
    "UPDATE idempotency_records SET status = 200",
    "DELETE FROM idempotency_records",
    "UPDATE page_sessions SET role = 'admin'",
    "UPDATE listings SET status = 'finished'",
    "INSERT INTO open_clocks VALUES ('table-forged', 1, 0, '{}')",
], ids=["update-event", "delete-event", "drop-trigger", "escalate-key", "unrevoke-by-delete",
        "move-revocation", "alter-answer", "delete-answers", "escalate-session", "forge-listing",
        "forge-open-clock"])
def test_the_attacks_of_an_insider_with_the_login_are_refused(app_connection, postgres_store, stream_id,
                                                              statement):
    postgres_store.append(stream_id, 0, [NewEvent("PlayerSeated", {"seat": 0})])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        app_connection.execute(statement, {"stream": stream_id})
    assert [e.type for e in postgres_store.read_stream(stream_id)] == ["PlayerSeated"]


def test_the_application_role_is_no_superuser_and_owns_nothing(app_connection, database_url):
    role = app_connection.execute(
        "SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    assert role == (False, False, False, False)
    owners = app_connection.execute(
        "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public'").fetchall()
    assert owners == [(roles_for(database_url).owner,)]


def test_each_database_has_roles_of_its_own(admin_database_url, database_url, own_database):
    """Roles are cluster-wide and CI and other checkouts share the server: two databases'
    logins hold no right on each other's tables."""
    other_admin, other_app = own_database
    assert roles_for(other_admin) != roles_for(admin_database_url)
    login = psycopg.conninfo.conninfo_to_dict(database_url)
    with psycopg.connect(with_login(other_admin, login["user"], login["password"])) as stranger, pytest.raises(psycopg.errors.InsufficientPrivilege):
        stranger.execute("SELECT FROM events LIMIT 0")
    with psycopg.connect(other_app) as own:
        assert own.execute("SELECT count(*) FROM events").fetchone() == (0,)


def test_role_set_up_is_idempotent_and_safe_when_processes_race(admin_database_url):
    """Roles are cluster-wide: two processes set them up at once (PostgreSQL alone would
    answer "tuple concurrently updated"). The roles of a database of this test's own,
    dropped afterwards."""
    url = with_database(admin_database_url, f"cardroom_race_{secrets.token_hex(4)}")
    errors: list[BaseException] = []
    urls: list[str] = []

    def set_up() -> None:
        try:
            ensure_roles(url)
            urls.append(ensure_login_role(url, "pw"))
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=set_up) for _ in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        roles = roles_for(url)
        assert urls == [with_login(url, roles.app, "pw")] * 8
        with psycopg.connect(admin_database_url) as admin:
            assert admin.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (roles.app, roles.writer)).fetchone() == (True,)
    finally:
        drop_roles(url)
    with psycopg.connect(admin_database_url) as admin:
        assert admin.execute("SELECT count(*) FROM pg_roles WHERE rolname = ANY(%s)",
                             ([roles.owner, roles.writer, roles.app],)).fetchone() == (0,)


def test_a_long_database_name_still_gives_valid_distinct_role_names():
    long_a, long_b = "postgresql://h/" + "a" * 63, "postgresql://h/" + "a" * 62 + "b"
    assert roles_for(long_a) != roles_for(long_b)
    assert all(len(name.encode()) <= 63 for name in (*vars(roles_for(long_a)).values(),))
    assert roles_for("postgresql://h/cardroom").app == "cardroom_cardroom_app"

