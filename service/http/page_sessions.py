"""The pages' sign-in sessions (migration 0012's page_sessions table); who a request's
session says the caller is, service.http.auth. Kept apart from the pages' views
(service.http.pages.session) because the API's streams read sessions too: a browser's
EventSource sends no Authorization header, so a stream accepts the session cookie (live.md).
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from psycopg_pool import ConnectionPool

from service.adapters.row_macs import RowSigner
from service.http.api_keys import MASTER_KEY_ID, ApiKeys, Principal

SESSION_COOKIE = "cardroom_session"
SESSION_TTL_S = 12 * 3600
"""A shift at the floor desk; then the key is asked again."""


@dataclass(frozen=True)
class PageSession:
    principal: Principal
    csrf_token: str
    expires_at: datetime


def _hashed(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class PageSessions:
    """The page_sessions table (migrations 0012 and 0016).

    Each row carries a MAC (service.adapters.row_macs) over everything it says: a row the
    application's login inserts (a floor session opened in SQL) is refused and reported,
    and so is a session whose key row fails its own MAC."""

    def __init__(self, pool: ConnectionPool, signer: RowSigner, keys: ApiKeys) -> None:
        self._pool = pool
        self._signer = signer
        self._keys = keys

    def open(self, principal: Principal, ttl_s: int = SESSION_TTL_S) -> tuple[str, PageSession]:
        """A new session for `principal`: (its id for the cookie, the session). Sessions
        past their expiry are deleted on the way (sign-ins are rare; no sweeper needed)."""
        session_id = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        assert principal.key_id is not None
        hashed = _hashed(session_id)
        with self._pool.connection() as conn:
            conn.execute("DELETE FROM page_sessions WHERE expires_at < now()")
            expiry = conn.execute("SELECT now() + make_interval(secs => %s)", (ttl_s,)).fetchone()
            assert expiry is not None
            expires_at = expiry[0]
            conn.execute(
                "INSERT INTO page_sessions (id_hash, key_id, role, player_id, csrf_token, expires_at, mac)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (hashed, principal.key_id, principal.role, principal.player_id, csrf, expires_at,
                 self._signer.sign(hashed, principal.key_id, principal.role, principal.player_id, csrf, expires_at)),
            )
        return session_id, PageSession(principal, csrf, expires_at)


    def find(self, session_id: str, *, master_key_configured: bool) -> PageSession | None:
        """The live session with this id: not expired, its row and its key's row as the
        service wrote them (MACs), and its key not revoked (a session of CARDROOM_ADMIN_KEY
        lives while a master key is configured)."""
        hashed = _hashed(session_id)
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT s.key_id, s.role, s.player_id, s.csrf_token, s.expires_at, s.mac,"
                "       k.key_hash, k.role, k.player_id, k.mac, r.key_id IS NOT NULL"
                "  FROM page_sessions s LEFT JOIN api_keys k ON k.id = s.key_id"
                "  LEFT JOIN key_revocations r ON r.key_id = s.key_id"
                " WHERE s.id_hash = %s AND s.expires_at > now()",
                (hashed,),
            ).fetchone()
        if row is None:
            return None
        key_id, role, player_id, csrf, expires_at, mac, key_hash, key_role, key_player, key_mac, revoked = row
        if not self._signer.valid(mac, hashed, key_id, role, player_id, csrf, expires_at):
            self._signer.refused(f"session of key {key_id}")
            return None
        if key_id == MASTER_KEY_ID:
            live = master_key_configured
        else:
            live = (key_hash is not None and not revoked and (key_role, key_player) == (role, player_id)
                    and self._keys.valid_row(key_id, key_hash, key_role, key_player, key_mac))
        return PageSession(Principal(role=role, player_id=player_id, key_id=key_id), csrf, expires_at) if live else None

    def refused_rows(self) -> list[dict[str, str]]:
        """Every live session whose MAC fails (for GET /v1/status)."""
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT id_hash, key_id, role, player_id, csrf_token, expires_at, mac"
                                "  FROM page_sessions WHERE expires_at > now()").fetchall()
        return [{"table": "page_sessions", "row": f"session of key {key_id}"}
                for hashed, key_id, role, player_id, csrf, expires_at, mac in rows
                if not self._signer.valid(mac, hashed, key_id, role, player_id, csrf, expires_at)]

    def close(self, session_id: str) -> None:
        with self._pool.connection() as conn:
            conn.execute("DELETE FROM page_sessions WHERE id_hash = %s", (_hashed(session_id),))
