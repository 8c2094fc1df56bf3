"""Keys found are remembered, so a player's requests do not each cost a database lookup;
every api_keys.KEY_CACHE_TTL_S a worker asks which keys were revoked since it last asked, so a
revocation reaches every worker within that moment."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from service.adapters.row_macs import RowSigners
from service.adapters.store.base import ChainSigner
from service.application import api_keys
from service.application.api_keys import REVOKED, ApiKeys, Principal, key_hash

START = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
SIGNERS = RowSigners.under(ChainSigner(b"k" * 32))


class _Rows:
    """A stand-in for the pool: the api_keys rows by hash (role, player, revoked at, id), the
    database's clock, and every lookup and every ask for revocations it answered."""

    def __init__(self, rows: dict[str, tuple[str, str | None, datetime | None, str]]) -> None:
        self.rows = rows
        self.now = START
        self.lookups: list[str] = []
        self.asks: list[datetime | str] = []

    @contextmanager
    def connection(self):
        yield self

    def execute(self, query: str, params: tuple):
        if "statement_timestamp()" in query:
            since = params[0]
            self.asks.append(since)
            revoked = [hashed for hashed, (_, _, at, _) in self.rows.items()
                       if at is not None and since != "infinity" and at >= since]
            row = (self.now, revoked)
        else:
            hashed = params[0]
            self.lookups.append(hashed)
            found = self.rows.get(hashed)
            if found is None:
                row = None
            else:
                role, player, revoked_at, key_id = found
                row = (key_id, role, player, SIGNERS.api_keys.sign(key_id, hashed, role, player),
                       revoked_at is not None, SIGNERS.key_revocations.sign(key_id))
        return type("Result", (), {"fetchone": staticmethod(lambda: row)})()

    def revoke(self, secret: str) -> None:
        role, player, _, key_id = self.rows[key_hash(secret)]
        self.rows[key_hash(secret)] = (role, player, self.now, key_id)


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _later(rows: _Rows, clock: _Clock, seconds: float) -> None:
    clock.now += seconds
    rows.now += timedelta(seconds=seconds)


def test_a_key_found_is_not_looked_up_again():
    rows, clock = _Rows({key_hash("crd_ann"): ("player", "ann", None, "k-ann")}), _Clock()
    keys = ApiKeys(rows, SIGNERS, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]

    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")
    for _ in range(10):
        _later(rows, clock, 0.3)
        assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")
    assert rows.lookups == [key_hash("crd_ann")]


def test_revocations_are_asked_for_once_a_period_however_many_keys_are_used():
    rows = _Rows({key_hash(f"crd_{n}"): ("spectator", None, None, f"k-{n}") for n in range(50)})
    clock = _Clock()
    keys = ApiKeys(rows, SIGNERS, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]

    for _ in range(4):
        for n in range(50):
            keys.find(f"crd_{n}")
        _later(rows, clock, 0.25)
    assert len(rows.asks) == 2
    assert len(rows.lookups) == 50


def test_a_key_revoked_elsewhere_is_refused_once_the_period_has_passed():
    rows, clock = _Rows({key_hash("crd_ann"): ("player", "ann", None, "k-ann")}), _Clock()
    keys = ApiKeys(rows, SIGNERS, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]
    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")

    _later(rows, clock, 0.1)
    rows.revoke("crd_ann")  # another worker revoked it
    assert keys.find("crd_ann") == Principal("player", "ann", "k-ann")  # within the period
    _later(rows, clock, 0.4)
    assert keys.find("crd_ann") is REVOKED
    assert keys.find("crd_ann") is REVOKED
    assert rows.lookups == [key_hash("crd_ann")]


def test_an_ask_reaches_back_over_revocations_that_committed_after_the_last_one():
    rows, clock = _Rows({key_hash("crd_ann"): ("player", "ann", None, "k-ann")}), _Clock()
    keys = ApiKeys(rows, SIGNERS, ttl_s=0.5, clock=clock)  # type: ignore[arg-type]
    keys.find("crd_ann")

    _later(rows, clock, 0.6)
    began = rows.now - timedelta(seconds=1)  # its transaction began before the last ask
    rows.rows[key_hash("crd_ann")] = ("player", "ann", began, "k-ann")
    assert keys.find("crd_ann") is REVOKED


def test_an_unknown_key_is_looked_up_every_time_so_a_new_key_works_at_once():
    rows = _Rows({})
    keys = ApiKeys(rows, SIGNERS)  # type: ignore[arg-type]

    assert keys.find("crd_new") is None
    rows.rows[key_hash("crd_new")] = ("spectator", None, None, "k-new")
    assert keys.find("crd_new") == Principal("spectator", key_id="k-new")
    assert len(rows.lookups) == 2


def test_the_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(api_keys, "KNOWN_KEYS_KEPT", 2)
    rows = _Rows({key_hash(f"crd_{n}"): ("spectator", None, None, "k-new") for n in range(3)})
    keys = ApiKeys(rows, SIGNERS)  # type: ignore[arg-type]

    for n in range(3):
        keys.find(f"crd_{n}")
    assert len(keys._known) <= 2


def test_a_key_row_without_the_services_mac_is_refused(caplog):
    """A row the database's login inserted (an admin key minted in SQL): no MAC of the
    service's, so it works nowhere and is reported."""
    rows = _Rows({key_hash("crd_minted"): ("admin", None, None, "k-minted")})
    forged = ApiKeys(rows, RowSigners.under(ChainSigner(b"another key of 32 bytes........")))  # type: ignore[arg-type]

    assert forged.find("crd_minted") is None
    assert "refused a row of api_keys (key k-minted)" in caplog.text
