"""Connection strings as libpq takes them, parsed and rebuilt with psycopg's own functions.

Everywhere a database is named (DATABASE_URL, APP_DATABASE_URL, the CLI's --database-url,
the migrations, the roles' set-up, the tests and the benchmarks) any string libpq accepts
works: a URL with several hosts (`postgresql://u@db1:5432,db2:5432/cardroom?target_session_attrs=read-write`,
libpq tries each until one is a primary), key=value pairs (`host=db1,db2 port=5432,5432 dbname=cardroom`),
an empty URL (`postgresql://`) or a `service=` name, the rest coming from libpq's own
environment variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGSERVICE, PGPASSFILE...) and files.

Nothing here splits a URL by hand: a comma-separated host list is no URL netloc urlsplit
or SQLAlchemy can read (`invalid literal for int() with base 10: '1,127.0.0.1:5432'`).
Derived strings (another database, another login) come out as key=value strings.
"""
from __future__ import annotations

import os
import re

from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict, make_conninfo

EXAMPLE = "postgresql://user@db1:5432,db2:5432/cardroom?target_session_attrs=read-write"


def problem(conninfo: str) -> str | None:
    """Why libpq would refuse this connection string, said without repeating any part of it
    that may hold a password; None when it is usable."""
    try:
        params = conninfo_to_dict(conninfo)
    except ProgrammingError as refused:
        # libpq quotes the piece it could not read, which may be a password (a quoted
        # single character is its own syntax: missing "=").
        return re.sub(r'"([^"]*)"', lambda quoted: quoted[0] if len(quoted[1]) < 2 else '"..."',
                      str(refused).strip())
    for port in str(params.get("port") or "").split(","):
        if port and not port.isdigit():
            return f"port {port!r} is not a number"
    return None


def with_database(conninfo: str, dbname: str) -> str:
    """The same server(s) and login, another database."""
    return make_conninfo(conninfo, dbname=dbname)


def with_login(conninfo: str, user: str, password: str) -> str:
    """The same server(s) and database, another login."""
    return make_conninfo(conninfo, user=user, password=password)


def with_server_option(conninfo: str, option: str) -> str:
    """`option` (e.g. `-c role=owner`) added to the string's own server options, if any."""
    existing = str(conninfo_to_dict(conninfo).get("options") or "")
    return make_conninfo(conninfo, options=f"{existing} {option}".strip())


def user_of(conninfo: str) -> str | None:
    """The login the string names, else libpq's (PGUSER); None when neither says."""
    return conninfo_to_dict(conninfo).get("user") or os.environ.get("PGUSER") or None  # type: ignore[return-value]
