"""MACs on the rows that grant or answer (migration 0016): API keys, their revocations, the
pages' sessions, the idempotency records and the followers' tracking records.

The application's database login may INSERT into these tables, and a superuser may change
any row: without a MAC, whoever holds either could mint an admin key, open a floor
session, or have a stored answer replayed as they wrote it. Each row carries an
HMAC-SHA256 of its fields under a key of its table, derived from the chain key
(service.adapters.integrity), which the database never holds. A row whose MAC does not
verify is refused and reported: logged, counted in /metrics
(`cardroom_rows_refused_total{table}`) and listed by `GET /v1/status`.
"""
from __future__ import annotations

import hmac
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from prometheus_client import Counter

from service import json_text
from service.adapters.store.base import ChainSigner, keyed_sha256, mac_hex

ROWS_REFUSED = Counter("cardroom_rows_refused_total",
                       "Key, revocation, session, idempotency and tracking rows refused: their MAC did not verify",
                       ["table"])
_log = logging.getLogger("cardroom.integrity")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Field = str | int | bytes | datetime | None
# One encoder for every message (service.json_text: json.dumps with an option builds a new
# one each call, JSONEncoder.encode a new C encoder).
_MESSAGE = json_text.encoder(separators=(",", ":"))


def _plain(field: Field) -> str | int | None:
    """A field as the MAC's message holds it: a time as microseconds since the epoch (as
    exact as PostgreSQL keeps it), bytes as hex."""
    if isinstance(field, datetime):
        return (field - _EPOCH) // timedelta(microseconds=1)
    if isinstance(field, bytes):
        return field.hex()
    return field


class RowSigner:
    """Signs and checks the rows of one table, under a key of that table: a MAC of one
    table's row is never valid for another's."""

    def __init__(self, chain: ChainSigner, table: str) -> None:
        self.table = table
        self._keyed = keyed_sha256(chain.derived_key(f"rows of {table}"))

    def sign(self, *fields: Field) -> str:
        message = _MESSAGE([_plain(field) for field in fields])
        return mac_hex(self._keyed, message.encode("utf-8", "surrogatepass"))

    def valid(self, mac: str | None, *fields: Field) -> bool:
        return mac is not None and hmac.compare_digest(self.sign(*fields).encode(),
                                                       mac.encode("utf-8", "surrogatepass"))

    def refused(self, row: str, why: str = "its MAC does not verify") -> None:
        """Say that a row of this table was refused (the log and /metrics)."""
        ROWS_REFUSED.labels(self.table).inc()
        _log.warning("refused a row of %s (%s): %s; it was inserted or changed in the database "
                     "without the chain key", self.table, row, why)


@dataclass(frozen=True)
class RowSigners:
    """A signer for each table whose rows carry a MAC."""

    api_keys: RowSigner
    key_revocations: RowSigner
    page_sessions: RowSigner
    idempotency_records: RowSigner
    process_trackings: RowSigner

    @classmethod
    def under(cls, chain: ChainSigner) -> RowSigners:
        return cls(*(RowSigner(chain, table) for table in
                     ("api_keys", "key_revocations", "page_sessions", "idempotency_records",
                      "process_trackings")))
