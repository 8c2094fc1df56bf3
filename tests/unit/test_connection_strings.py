"""Connection strings are read and rebuilt as libpq reads them: several hosts, key=value
pairs and what libpq's environment supplies survive every derivation."""
from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from service.adapters.connection_strings import problem, user_of, with_database, with_login, with_server_option

MULTI_HOST = "postgresql://postgres@127.0.0.1:1,127.0.0.1:5432/db?target_session_attrs=read-write"
KEYWORDS = "host=127.0.0.1,127.0.0.1 port=1,5432 dbname=db user=postgres target_session_attrs=read-write"


@pytest.mark.parametrize("conninfo", [MULTI_HOST, KEYWORDS])
def test_another_database_keeps_every_host_and_the_primary_requirement(conninfo):
    assert conninfo_to_dict(with_database(conninfo, "cardroom_test")) == {
        "host": "127.0.0.1,127.0.0.1", "port": "1,5432", "dbname": "cardroom_test",
        "user": "postgres", "target_session_attrs": "read-write"}


@pytest.mark.parametrize("conninfo", [MULTI_HOST, KEYWORDS])
def test_the_application_login_keeps_every_host(conninfo):
    derived = conninfo_to_dict(with_login(conninfo, "cardroom_app", "p@ss w'rd,/:"))
    assert derived["user"] == "cardroom_app" and derived["password"] == "p@ss w'rd,/:"
    assert derived["host"] == "127.0.0.1,127.0.0.1" and derived["port"] == "1,5432"
    assert derived["dbname"] == "db" and derived["target_session_attrs"] == "read-write"


def test_the_migrations_role_is_added_to_the_strings_own_server_options():
    conninfo = "postgresql://u@h/db?options=-c%20statement_timeout%3D0"
    assert conninfo_to_dict(with_server_option(conninfo, "-c role=owner"))["options"] == (
        "-c statement_timeout=0 -c role=owner")
    assert conninfo_to_dict(with_server_option("host=h", "-c role=owner"))["options"] == "-c role=owner"


def test_the_user_comes_from_the_string_else_from_pguser(monkeypatch):
    monkeypatch.delenv("PGUSER", raising=False)
    assert user_of(MULTI_HOST) == "postgres"
    assert user_of("host=h dbname=db") is None
    monkeypatch.setenv("PGUSER", "from_env")
    assert user_of("postgresql:///db") == "from_env"


@pytest.mark.parametrize("conninfo, reason", [
    ("mysql://root:secret@db/x", 'missing "=" after "..."'),
    ("host=db colour=blue", 'invalid connection option "..."'),
    ("postgresql://u@db1:5432,db2:54x/db", "port '54x' is not a number"),
])
def test_what_libpq_would_refuse_is_said_without_the_string(conninfo, reason):
    assert reason in problem(conninfo)


@pytest.mark.parametrize("conninfo", [MULTI_HOST, KEYWORDS, "postgresql://", "service=cardroom", "dbname=x port="])
def test_what_libpq_takes_is_no_problem(conninfo):
    assert problem(conninfo) is None
