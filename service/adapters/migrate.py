"""Run the alembic migrations from a program (tests, `make run`, the benchmark), and set up
the database roles the service runs under (least privilege, issue 13).

Roles are cluster-wide, but CI, tests and other checkouts share one server: so each
database has roles of its own, named after it (`roles_for`): for the database `cardroom`
(`make run`'s embedded server's is `postgres`: `cardroom_postgres_*`),

- `cardroom_cardroom_owner` (no login) owns every table and runs the migrations: `upgrade`
  connects with the URL it is given (a superuser, or a role with CREATEROLE that may become
  the owner; any libpq connection string, several hosts included) and switches to the owner
  for the migrations themselves. The owner is granted `pg_read_all_stats` where the
  administrator may, so `cardroom_replication()` (its SECURITY DEFINER function, migration
  0020) shows the application the standbys' replication state.
- `cardroom_cardroom_writer` (no login) holds what the application may do, granted by the
  migrations (the table of rights is in the README; migration 0016 states it whole).
- The application logs in as a member of the writer: `cardroom_cardroom_app` for `make run`
  (`ensure_login_role`, its password generated once under the data directory), or the user
  of APP_DATABASE_URL. It is no superuser, so it cannot `SET session_replication_role`.

A test creates the roles of its own database and drops them with it (`drop_roles`): no test
changes a role it did not create. Role set-up is idempotent and serialised across processes
(and across databases of one server) by an advisory lock taken in the server's `postgres`
database, so two processes creating their databases at once do not collide.
"""
from __future__ import annotations

import hashlib
import logging
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config

from service.adapters.connection_strings import with_login

PROJECT_ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger(__name__)

LEGACY_WRITER_ROLE = "cardroom_writer"
"""The one writer role every database shared before roles were named per database
(migration 0016 takes its rights away)."""
APP_PASSWORD_FILE = "database-app-password"
# One lock for every cardroom role change on a server (pg_advisory_xact_lock's key).
_ROLES_LOCK = 0x63617264726F6F6D  # "cardroom"


@dataclass(frozen=True)
class Roles:
    """One database's roles (`roles_for`)."""

    owner: str
    writer: str
    app: str


_ROLE_NAME_BYTES = 63  # PostgreSQL's NAMEDATALEN - 1


def roles_for(database_url: str) -> Roles:
    """`cardroom_<database>_owner`, `_writer` and `_app`; a database name too long for
    that is replaced by 16 hex digits of its SHA-256."""
    import psycopg

    name = psycopg.conninfo.conninfo_to_dict(database_url).get("dbname")
    if not name:
        raise ValueError(f"the database URL names no database: {database_url}")
    stem = f"cardroom_{name}"
    if len(f"{stem}_writer".encode()) > _ROLE_NAME_BYTES:
        stem = f"cardroom_{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    return Roles(f"{stem}_owner", f"{stem}_writer", f"{stem}_app")


def writer_role() -> str:
    """For a migration: the writer role of the database being migrated, quoted for SQL."""
    from alembic import context

    roles: Roles = context.config.attributes["roles"]
    return quoted(roles.writer)


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def upgrade(database_url: str, revision: str = "head") -> None:
    """Create the owner and writer roles if needed, hand the database's existing objects
    to the owner (databases migrated before the roles existed), then migrate as the owner."""
    roles = ensure_roles(database_url)
    _prepare_database(database_url, roles.owner)
    config = Config()  # no ini file: leaves the caller's logging alone
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # Passed as an attribute, not a main option, so a '%' in a password is not
    # read as ConfigParser interpolation. migrations/env.py connects with psycopg itself:
    # SQLAlchemy's URL parser cannot read several hosts or key=value strings.
    config.attributes["database_url"] = database_url
    config.attributes["owner_role"] = roles.owner
    config.attributes["roles"] = roles
    command.upgrade(config, revision)


def ensure_roles(database_url: str) -> Roles:
    """The database's owner and writer roles exist, and the connecting user may act as the
    owner; returns the database's roles."""
    from psycopg import sql

    roles = roles_for(database_url)
    with _roles_transaction(database_url) as connection:
        for role in (roles.owner, roles.writer):
            if not _role_exists(connection, role):
                connection.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
        member = connection.execute(
            "SELECT pg_has_role(current_user, %s, 'MEMBER')", (roles.owner,)
        ).fetchone()
        if not (member and member[0]):
            connection.execute(
                sql.SQL("GRANT {} TO CURRENT_USER").format(sql.Identifier(roles.owner))
            )
        _let_the_owner_read_replication(connection, roles.owner)
    return roles


def _let_the_owner_read_replication(connection: Any, owner: str) -> None:
    """The owner reads pg_stat_replication whole, for `cardroom_replication()` (migration
    0020): a grant only a superuser, or an administrator holding pg_read_all_stats with
    ADMIN OPTION, may give. Without it the status shows each standby with its details null."""
    import psycopg
    from psycopg import sql

    reads = connection.execute(
        "SELECT pg_has_role(%s, 'pg_read_all_stats', 'USAGE')", (owner,)).fetchone()
    if reads and reads[0]:
        return
    try:
        with connection.transaction():  # a savepoint: a refusal leaves the roles' set-up whole
            connection.execute(sql.SQL("GRANT pg_read_all_stats TO {}").format(sql.Identifier(owner)))
    except psycopg.errors.InsufficientPrivilege as refused:
        log.warning("the replication state will show no standby details: %s may not be granted "
                    "pg_read_all_stats by this user (%s)", owner, str(refused).strip())


def drop_roles(database_url: str) -> None:
    """Drop the database's roles (`roles_for`), once the database itself is dropped: what
    a test does with the roles it created."""
    from psycopg import sql

    roles = roles_for(database_url)
    with _roles_transaction(database_url) as connection:
        for role in (roles.app, roles.writer, roles.owner):
            connection.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def ensure_login_role(database_url: str, password: str, role: str | None = None) -> str:
    """A login role (the database's app role unless named) with this password and the
    writer's rights (created, or its password set again); returns `database_url` with that
    user and password instead."""
    from psycopg import sql

    writer = roles_for(database_url).writer
    role = role or roles_for(database_url).app

    with _roles_transaction(database_url) as connection:
        verb = "ALTER" if _role_exists(connection, role) else "CREATE"
        connection.execute(
            sql.SQL(verb + " ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD {}").format(
                sql.Identifier(role), sql.Literal(password)
            )
        )
        connection.execute(
            sql.SQL("GRANT {} TO {}").format(sql.Identifier(writer), sql.Identifier(role))
        )
    return with_login(database_url, role, password)


def grant_writer(database_url: str, role: str) -> None:
    """Give an existing role (APP_DATABASE_URL's user) the writer's rights."""
    from psycopg import sql

    writer = roles_for(database_url).writer
    with _roles_transaction(database_url) as connection:
        connection.execute(
            sql.SQL("GRANT {} TO {}").format(sql.Identifier(writer), sql.Identifier(role))
        )


def app_database_url(database_url: str, data_dir: Path) -> str:
    """`make run`'s application URL: the database's app role (`roles_for`) with a password
    generated once and kept in <data dir>/database-app-password (mode 0600)."""
    path = data_dir / APP_PASSWORD_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(24) + "\n")
    return ensure_login_role(database_url, path.read_text().strip())


@contextmanager
def _roles_transaction(database_url: str) -> Iterator[Any]:
    """A transaction in the server's `postgres` database holding the roles lock."""
    import psycopg

    maintenance = psycopg.conninfo.make_conninfo(database_url, dbname="postgres")
    with psycopg.connect(maintenance) as connection:  # commits on leaving, or rolls back
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (_ROLES_LOCK,))
        yield connection


def _role_exists(connection: Any, role: str) -> bool:
    return connection.execute("SELECT FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


def _prepare_database(database_url: str, owner: str) -> None:
    """The owner may create in the public schema (PostgreSQL 15 lets only the database's
    owner), and tables and functions of a cardroom database that another role owns
    (databases migrated before the owner role existed) pass to the owner."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(database_url, autocommit=False) as connection:
        may_create = connection.execute(
            "SELECT has_schema_privilege(%s, 'public', 'CREATE')", (owner,)
        ).fetchone()
        if not (may_create and may_create[0]):
            connection.execute(
                sql.SQL("GRANT CREATE ON SCHEMA public TO {}").format(sql.Identifier(owner))
            )
        foreign = connection.execute(
            """
            SELECT 'TABLE', c.oid::regclass::text FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
               AND pg_get_userbyid(c.relowner) <> %(owner)s
               AND to_regclass('public.alembic_version') IS NOT NULL
            UNION ALL
            SELECT 'FUNCTION', p.oid::regprocedure::text FROM pg_proc p
              JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> %(owner)s
               AND to_regclass('public.alembic_version') IS NOT NULL
            """,
            {"owner": owner},
        ).fetchall()
        for kind, name in foreign:
            # `name` is PostgreSQL's own quoted spelling (regclass, regprocedure).
            connection.execute(
                sql.SQL("ALTER {} {} OWNER TO {}").format(
                    sql.SQL(kind), sql.SQL(name), sql.Identifier(owner)
                )
            )


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
