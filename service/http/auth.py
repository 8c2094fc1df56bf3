"""Who the caller is: `Authorization: Bearer <key>`, checked against the API keys
(service.application.api_keys: their rows, MACs and revocations), and the guard of every
view (`require`: 401, 403, then the write answered through service.http.api.writes).
"""
from __future__ import annotations

import hmac
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from copy import deepcopy
from functools import wraps
from typing import Any, TypeVar

from flask import Request, request

from service.application.api_keys import MASTER_KEY_ID, REVOKED, ROLES, Principal, Revoked
from service.http.api import SECURITY_SCHEME, resources
from service.http.api.writes import answer_write
from service.http.key_hashes import request_key_hash
from service.http.problems import Problem
from service.http.request_log import note_principal

View = TypeVar("View", bound=Callable[..., Any])


def authenticate() -> Principal:
    """The caller's principal, or a 401 problem. `require` asks once per request and
    keeps the answer for the view (`current_principal`)."""
    # The request itself, not an attribute through its proxy (which misses on the proxy
    # first: an AttributeError raised and formatted each time, issue 37).
    served = request._get_current_object()  # type: ignore[attr-defined]
    # The header read from the environ as `headers.get` reads it, without its name's
    # translation on every read (issue 37; so the other headers read on every request).
    scheme, _, secret = served.environ.get("HTTP_AUTHORIZATION", "").partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise _unauthorized("send an API key as 'Authorization: Bearer <key>'")
    principal = _principal_for(secret, served)
    if principal is None:
        raise _unauthorized("the API key is not valid")
    if principal is REVOKED:
        raise _unauthorized("the API key was revoked", "key_revoked")
    note_principal(principal.key_id, principal.role)  # type: ignore[union-attr]
    return principal  # type: ignore[return-value]


def principal_for_key(secret: str) -> Principal | Revoked | None:
    """What a key typed into a page's sign-in form is, verified as the API verifies a
    bearer key: its principal, REVOKED, or None for a key never issued."""
    return _principal_for(secret.strip())


def _principal_for(secret: str, served: Request | None = None) -> Principal | Revoked | None:
    """`served`: the request that sent the key, whose hash of it the rate limiter may have
    made already (service.http.key_hashes)."""
    wired = resources()
    admin_key = wired.config.admin_key
    if admin_key and hmac.compare_digest(secret.encode(), admin_key.encode()):
        return Principal(role="admin", key_id=MASTER_KEY_ID)
    # A NUL or a huge header can only be a wrong key; never send it to PostgreSQL.
    if wired.keys is None or "\x00" in secret or len(secret) > 200:
        return None
    if served is None:
        return wired.keys.find(secret)
    return wired.keys.find_by_hash(request_key_hash(served, secret))


def _unauthorized(detail: str, code: str = "unauthorized") -> Problem:
    return Problem(
        401, code, detail, headers={"WWW-Authenticate": 'Bearer realm="cardroom"'}
    )


# The principal `require` checked, for the view it guards: a context variable (one per
# thread, like the request) read without going through Flask's `g` proxy each time.
_guarded_principal: ContextVar[Principal | None] = ContextVar("guarded_principal", default=None)


def current_principal() -> Principal:
    """The authenticated caller (role, player_id) inside a view guarded by `require`."""
    principal = _guarded_principal.get()
    return principal if principal is not None else authenticate()


@contextmanager
def acting_as(principal: Principal) -> Iterator[None]:
    """`current_principal()` is `principal` inside: a page view acts as its signed-in
    caller through the same application functions as the API's views."""
    token = _guarded_principal.set(principal)
    try:
        yield
    finally:
        _guarded_principal.reset(token)


def _owner(principal: Principal) -> str:
    """Whose Idempotency-Keys a request's are: its API key's."""
    return principal.key_id or f"{principal.role}:{principal.player_id}"


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
                return answer_write(_owner(principal), view, args, kwargs)
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
