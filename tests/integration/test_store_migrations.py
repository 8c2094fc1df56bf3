"""Migrations run programmatically, over psycopg 3, and can run again harmlessly."""
from __future__ import annotations

import secrets

import psycopg
from psycopg import sql

from service.adapters.migrate import ensure_database, upgrade


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
