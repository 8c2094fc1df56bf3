"""The app's pool lends no connection to a server that is no longer the primary when its
connection string asks for the primary: a connection to a demoted primary (now a standby,
reported by the server as `in_hot_standby`, PostgreSQL 14+) is dropped before it is lent,
without a round trip, so the pool's next connection goes through libpq's host list again
(with `target_session_attrs=read-write`, to the new primary). A string that asks for any
server keeps it."""
from __future__ import annotations

import socket
from types import SimpleNamespace

import psycopg
import pytest

from service.wiring import check_idle_connection


class _Info:
    host, port = "db1", 5432

    def __init__(self, in_hot_standby: str, target_session_attrs: str | None) -> None:
        self._in_hot_standby = in_hot_standby
        self._target_session_attrs = target_session_attrs

    def parameter_status(self, name: str) -> str | None:
        return self._in_hot_standby if name == "in_hot_standby" else None

    def get_parameters(self) -> dict[str, str]:
        return {} if self._target_session_attrs is None else {"target_session_attrs": self._target_session_attrs}


@pytest.fixture
def quiet_socket():
    """A socket with nothing waiting on it: the connection looks alive."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        yield ours


def idle_connection(quiet_socket: socket.socket, in_hot_standby: str,
                    target_session_attrs: str | None = "read-write") -> SimpleNamespace:
    return SimpleNamespace(closed=False, fileno=quiet_socket.fileno, info=_Info(in_hot_standby, target_session_attrs))


def test_a_connection_to_the_primary_is_lent_without_a_round_trip(quiet_socket):
    check_idle_connection(idle_connection(quiet_socket, "off"))  # no execute(): the fake has none


@pytest.mark.parametrize("wanted", ["read-write", "primary"])
def test_a_connection_to_a_demoted_primary_is_dropped(quiet_socket, wanted):
    with pytest.raises(psycopg.OperationalError, match="db1:5432 is a standby now"):
        check_idle_connection(idle_connection(quiet_socket, "on", wanted))


@pytest.mark.parametrize("wanted", [None, "any", "read-only"])
def test_a_standby_asked_for_is_kept(quiet_socket, wanted):
    check_idle_connection(idle_connection(quiet_socket, "on", wanted))
