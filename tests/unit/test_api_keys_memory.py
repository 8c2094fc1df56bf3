"""Keys found are remembered for a moment (auth.KEY_CACHE_TTL_S), so a player's requests do
not each cost a database lookup, yet a revocation reaches every worker within that moment."""
from __future__ import annotations

from contextlib import contextmanager

from service.http import auth
from service.http.auth import REVOKED, ApiKeys, Principal, key_hash


class _Rows:
    """A stand-in for the pool: the api_keys rows by hash (role, player, revoked, id), and every
    lookup it answered."""

    def __init__(self, rows: dict[str, tuple[str, str | None, bool, str]]) -> None:
        self.rows = rows
        self.lookups: list[str] = []

    @contextmanager
    def connection(self):
        yield self

    def execute(self, query: str, params: tuple[str]):
        self.lookups.append(params[0])
        row = self.rows.get(params[0])
        return type("Result", (), {"fetchone": staticmethod(lambda: row)})()


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_key_found_is_not_looked_up_again_within_the_ttl():
    rows, clock = _Rows({key_hash("crd_ann"): ("player", "ann", False, "k-ann")}), _Clock()
    keys = ApiKeys(rows, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]

    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")
    clock.now += 0.49
    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")
    assert rows.lookups == [key_hash("crd_ann")]


def test_a_key_revoked_elsewhere_is_refused_once_the_ttl_has_passed():
    rows, clock = _Rows({key_hash("crd_ann"): ("player", "ann", False, "k-ann")}), _Clock()
    keys = ApiKeys(rows, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]
    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")

    rows.rows[key_hash("crd_ann")] = ("player", "ann", True, "k-ann")  # another worker revoked it
    clock.now += 0.5
    assert keys.find("crd_ann") is REVOKED
    assert keys.find("crd_ann") is REVOKED
    assert len(rows.lookups) == 2


def test_an_unknown_key_is_looked_up_every_time_so_a_new_key_works_at_once():
    rows = _Rows({})
    keys = ApiKeys(rows)  # type: ignore[arg-type]

    assert keys.find("crd_new") is None
    rows.rows[key_hash("crd_new")] = ("spectator", None, False, "k-new")
    assert keys.find("crd_new") == Principal("spectator", key_id="k-new")
    assert len(rows.lookups) == 2


def test_the_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(auth, "KNOWN_KEYS_KEPT", 2)
    rows = _Rows({key_hash(f"crd_{n}"): ("spectator", None, False, "k-new") for n in range(3)})
    keys = ApiKeys(rows)  # type: ignore[arg-type]

    for n in range(3):
        keys.find(f"crd_{n}")
    assert len(keys._known) <= 2
