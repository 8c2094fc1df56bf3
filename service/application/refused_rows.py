"""The rows the application's login could have written but the service did not: key rows,
revocations, page sessions, idempotency answers and followers' checkpoints whose MAC
(service.adapters.row_macs) fails, for `GET /v1/status` (`refused_rows`)."""
from __future__ import annotations

from typing import Any

from service.adapters.row_macs import RowSigners
from service.adapters.store.idempotency import refused_records
from service.adapters.store.trackings import refused_trackings
from service.application.api_keys import ApiKeys
from service.application.page_sessions import PageSessions


class RefusedRows:
    def __init__(self, keys: ApiKeys, sessions: PageSessions, signers: RowSigners) -> None:
        self._keys = keys
        self._sessions = sessions
        self._signers = signers

    def listed(self, connection: Any) -> list[dict[str, str]]:
        """Every such row: {"table", "row"}, read on `connection` (and the pool's)."""
        return (self._keys.refused_rows() + self._sessions.refused_rows()
                + refused_records(connection, self._signers.idempotency_records)
                + refused_trackings(connection, self._signers.process_trackings))
