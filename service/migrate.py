"""Run the alembic migrations from a program (tests, `make run`, the benchmark)."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def sqlalchemy_url(database_url: str) -> str:
    """SQLAlchemy needs the driver named: psycopg 3 is `postgresql+psycopg://`."""
    for scheme in ("postgresql://", "postgres://"):
        if database_url.startswith(scheme):
            return "postgresql+psycopg://" + database_url[len(scheme):]
    return database_url


def upgrade(database_url: str, revision: str = "head") -> None:
    config = Config()  # no ini file: leaves the caller's logging alone
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # Passed as an attribute, not a main option, so a '%' in a password is not
    # read as ConfigParser interpolation.
    config.attributes["database_url"] = database_url
    command.upgrade(config, revision)


def ensure_database(database_url: str) -> str:
    """Create the database the URL names if it does not exist yet; returns the URL.

    Connects to the server's `postgres` database to do it (CREATE DATABASE cannot run
    inside the database it creates).
    """
    import psycopg
    from psycopg import sql

    name = psycopg.conninfo.conninfo_to_dict(database_url).get("dbname")
    if not name:
        raise ValueError(f"the database URL names no database: {database_url}")
    maintenance = psycopg.conninfo.make_conninfo(database_url, dbname="postgres")
    with psycopg.connect(maintenance, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
        if exists.fetchone() is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return database_url
