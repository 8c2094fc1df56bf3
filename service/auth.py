"""API keys and roles: `Authorization: Bearer <key>`.

A key is a high-entropy secret from `secrets`, shown once; only its sha256 is stored
(api_keys table), so a leaked database does not leak usable keys. A plain hash (no salt,
no slow KDF) is enough because the secret has 256 bits of entropy, and it keeps the
lookup a single indexed equality. `CARDROOM_ADMIN_KEY` works as a master admin key.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from contextvars import ContextVar
from copy import deepcopy
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any, Callable, TypeVar

from flask import request
from psycopg_pool import ConnectionPool

from service.api import SECURITY_SCHEME, resources
from service.problems import Problem

ROLES = ("admin", "organiser", "floor", "player", "spectator")
KEY_PREFIX = "crd_"

View = TypeVar("View", bound=Callable[..., Any])


@dataclass(frozen=True)
class Principal:
    role: str
    player_id: str | None = None


def new_secret() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


KNOWN_KEYS_KEPT = 4096


class _UnknownKey(Exception):
    """Raised inside the remembered lookup, so an unknown key is never remembered."""


class ApiKeys:
    """The api_keys table (migration 0002).

    Keys found are remembered by hash (up to KNOWN_KEYS_KEPT, least recently used out), so a
    player's every request does not cost a database round trip. That is sound only because
    a key row never changes and is never deleted: whoever adds revocation must drop or
    expire this memory. Unknown keys are not remembered, so a key works once it is created.
    """

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool
        self._principal_of_hash = lru_cache(maxsize=KNOWN_KEYS_KEPT)(self._look_up)

    def create(self, role: str, player_id: str | None = None) -> str:
        """Store a new key and return its secret: the only time it is ever visible."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        if (role == "player") != (player_id is not None):
            raise ValueError("a player key needs a player id, and only a player key has one")
        secret = new_secret()
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO api_keys (id, key_hash, role, player_id) VALUES (%s, %s, %s, %s)",
                (str(uuid.uuid4()), key_hash(secret), role, player_id),
            )
        return secret

    def find(self, secret: str) -> Principal | None:
        try:
            return self._principal_of_hash(key_hash(secret))
        except _UnknownKey:
            return None

    def _look_up(self, hashed: str) -> Principal:
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT role, player_id FROM api_keys WHERE key_hash = %s", (hashed,)
            ).fetchone()
        if row is None:
            raise _UnknownKey
        return Principal(role=row[0], player_id=row[1])


def authenticate() -> Principal:
    """The caller's principal, or a 401 problem. `require` asks once per request and
    keeps the answer for the view (`current_principal`)."""
    scheme, _, secret = request.headers.get("Authorization", "").partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise _unauthorized("send an API key as 'Authorization: Bearer <key>'")
    principal = _principal_for(secret)
    if principal is None:
        raise _unauthorized("the API key is not valid")
    return principal


def _principal_for(secret: str) -> Principal | None:
    wired = resources()
    admin_key = wired.config.admin_key
    if admin_key and hmac.compare_digest(secret.encode(), admin_key.encode()):
        return Principal(role="admin")
    # A NUL or a huge header can only be a wrong key; never send it to PostgreSQL.
    if wired.keys is None or "\x00" in secret or len(secret) > 200:
        return None
    return wired.keys.find(secret)


def _unauthorized(detail: str) -> Problem:
    return Problem(
        401, "unauthorized", detail, headers={"WWW-Authenticate": 'Bearer realm="cardroom"'}
    )


# The principal `require` checked, for the view it guards: a context variable (one per
# thread, like the request) read without going through Flask's `g` proxy each time.
_guarded_principal: ContextVar[Principal | None] = ContextVar("guarded_principal", default=None)


def current_principal() -> Principal:
    """The authenticated caller (role, player_id) inside a view guarded by `require`."""
    principal = _guarded_principal.get()
    return principal if principal is not None else authenticate()


def require(*roles: str) -> Callable[[View], View]:
    """Guard a view: 401 without a valid key, 403 when the key's role is not in `roles`.

    Place it directly under `@blp.route` so authentication runs before body parsing:
    an anonymous caller learns nothing about the body's shape. It also documents the
    security requirement and the 401/403 responses in the OpenAPI document.
    """
    unknown = set(roles) - set(ROLES)
    if unknown or not roles:
        raise ValueError(f"require() needs roles from {ROLES}, got {roles}")

    def decorator(view: View) -> View:
        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            principal = authenticate()
            if principal.role not in roles:
                raise Problem(
                    403,
                    "forbidden",
                    f"the {principal.role} role may not do this; allowed: {', '.join(roles)}",
                )
            token = _guarded_principal.set(principal)
            try:
                return view(*args, **kwargs)
            finally:
                _guarded_principal.reset(token)

        apidoc = deepcopy(getattr(guarded, "_apidoc", {}))
        apidoc.setdefault("manual_doc", {})["security"] = [{SECURITY_SCHEME: []}]
        responses = apidoc.setdefault("response", {}).setdefault("responses", {})
        responses.setdefault(401, []).append("UNAUTHORIZED")
        responses.setdefault(403, []).append("FORBIDDEN")
        guarded._apidoc = apidoc  # type: ignore[attr-defined]
        return guarded  # type: ignore[return-value]

    return decorator
