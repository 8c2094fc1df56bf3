"""Alembic environment: online migrations only, over psycopg 3."""
from __future__ import annotations

import os
from logging.config import fileConfig

import psycopg
from alembic import context
from sqlalchemy import create_engine, pool

from service.adapters.connection_strings import with_server_option
from service.adapters.migrate import roles_for

config = context.config

# Only the alembic CLI configures logging; a program calling service.adapters.migrate.upgrade
# keeps its own logging untouched.
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _database_url() -> str:
    url = config.attributes.get("database_url") or os.environ.get("DATABASE_URL")
    if not url:
        raise RuntimeError("no database: set DATABASE_URL (e.g. postgresql://user@host/db)")
    # The roles the migrations grant to are the database's own (the alembic command line
    # names none: they follow from the URL as service.adapters.migrate.upgrade names them).
    config.attributes.setdefault("roles", roles_for(str(url)))
    return str(url)


def run_migrations_online() -> None:
    # service.adapters.migrate.upgrade runs the migrations as the owner role (the connecting user
    # only needs to be allowed to become it), so every object they create is the owner's.
    owner = config.attributes.get("owner_role")
    conninfo = _database_url()
    if owner:
        conninfo = with_server_option(conninfo, f"-c role={owner}")
    # psycopg connects, not SQLAlchemy: its URL parser reads neither several hosts
    # (`host1:5432,host2:5432`) nor key=value strings; libpq reads both, and PG* variables.
    engine = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(conninfo),
                           poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            context.configure(connection=connection, target_metadata=None)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
