"""Keys found are remembered, so a player's requests do not each cost a database lookup."""
from __future__ import annotations

from contextlib import contextmanager

from service import auth
from service.auth import ApiKeys, Principal, key_hash


class _Rows:
    """A stand-in for the pool: the api_keys rows by hash, and every lookup it answered."""

    def __init__(self, rows: dict[str, tuple[str, str | None]]) -> None:
        self.rows = rows
        self.lookups: list[str] = []

    @contextmanager
    def connection(self):
        yield self

    def execute(self, query: str, params: tuple[str]):
        self.lookups.append(params[0])
        row = self.rows.get(params[0])
        return type("Result", (), {"fetchone": staticmethod(lambda: row)})()


def test_a_key_found_once_is_not_looked_up_again():
    rows = _Rows({key_hash("crd_ann"): ("player", "ann")})
    keys = ApiKeys(rows)  # type: ignore[arg-type]

    assert keys.find("crd_ann") == Principal("player", "ann")
    assert keys.find("crd_ann") == Principal("player", "ann")
    assert rows.lookups == [key_hash("crd_ann")]


def test_an_unknown_key_is_looked_up_every_time_so_a_new_key_works_at_once():
    rows = _Rows({})
    keys = ApiKeys(rows)  # type: ignore[arg-type]

    assert keys.find("crd_new") is None
    rows.rows[key_hash("crd_new")] = ("spectator", None)
    assert keys.find("crd_new") == Principal("spectator")
    assert len(rows.lookups) == 2


def test_only_the_most_recently_used_keys_are_kept(monkeypatch):
    monkeypatch.setattr(auth, "KNOWN_KEYS_KEPT", 2)
    rows = _Rows({key_hash(f"crd_{n}"): ("spectator", None) for n in range(3)})
    keys = ApiKeys(rows)  # type: ignore[arg-type]

    for n in (0, 1, 0, 2):  # 1 is the least recently used when 2 arrives
        keys.find(f"crd_{n}")
    rows.lookups.clear()
    keys.find("crd_0")
    keys.find("crd_2")
    keys.find("crd_1")
    assert rows.lookups == [key_hash("crd_1")]
