"""Migrations run programmatically, over psycopg 3, and can run again harmlessly."""
from __future__ import annotations

import secrets

import psycopg
from psycopg import sql

from service.adapters.connection_strings import with_database
from service.adapters.migrate import drop_roles, ensure_database, roles_for, upgrade


def _newest_revision() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from service.adapters.migrate import PROJECT_ROOT

    return ScriptDirectory.from_config(Config(str(PROJECT_ROOT / "alembic.ini"))).get_current_head()


def test_upgrading_a_migrated_database_again_changes_nothing(admin_database_url):
    upgrade(admin_database_url)

    with psycopg.connect(admin_database_url) as connection:
        heads = connection.execute("SELECT version_num FROM alembic_version").fetchall()
        assert len(heads) == 1
        assert heads == [(_newest_revision(),)]
        # 0004 dropped the append functions of 0001: the store sends its own statement.
        assert connection.execute("SELECT count(*) FROM pg_proc WHERE proname LIKE 'append_event%'").fetchone() == (0,)


def test_ensure_database_creates_a_missing_database_once(admin_database_url):
    name = f"cardroom_ensure_{secrets.token_hex(4)}"
    url = psycopg.conninfo.make_conninfo(admin_database_url, dbname=name)
    try:
        assert ensure_database(url) == url
        assert ensure_database(url) == url  # already there: left alone
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT current_database()").fetchone() == (name,)
    finally:
        with psycopg.connect(admin_database_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def test_migration_0016_keeps_old_revocations_and_takes_the_update_right_away(admin_database_url):
    """A database at 0015: its revoked keys stay revoked (their times kept, in
    key_revocations), and api_keys.revoked_at, which the application could set back to
    NULL, is gone with the right to update it."""
    url = with_database(admin_database_url, f"cardroom_0016_{secrets.token_hex(4)}")
    ensure_database(url)
    try:
        upgrade(url, "0015")
        with psycopg.connect(url) as connection:
            connection.execute("INSERT INTO api_keys (id, key_hash, role, revoked_at) VALUES"
                               " ('old-revoked', %s, 'floor', '2026-11-30T09:00:00Z'), ('old-live', %s, 'admin', NULL)",
                               ("a" * 64, "b" * 64))
        upgrade(url)
        with psycopg.connect(url) as connection:
            assert connection.execute("SELECT key_id, revoked_at = '2026-11-30T09:00:00Z' FROM key_revocations"
                                      ).fetchall() == [("old-revoked", True)]
            assert connection.execute("SELECT count(*) FROM information_schema.columns WHERE"
                                      " table_name = 'api_keys' AND column_name = 'revoked_at'").fetchone() == (0,)
            assert connection.execute("SELECT has_table_privilege(%s, 'idempotency_records', 'DELETE')",
                                      (roles_for(url).writer,)).fetchone() == (False,)
    finally:
        with psycopg.connect(admin_database_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(psycopg.conninfo.conninfo_to_dict(url)["dbname"])))
        drop_roles(url)
