"""A request's API key hashed once: the rate limiter counts a key by its hash before
authentication looks the key up by the same hash (service.application.api_keys.key_hash),
and a SHA-256 with its Python calls costs some 8,000 CPU instructions (issue 37)."""
from __future__ import annotations

from flask import Request

from service.application.api_keys import key_hash

_NOTED = "cardroom.key_hash"
"""The request environ's key for (secret, its key_hash), noted by the first to hash it."""


def request_key_hash(served: Request, secret: str) -> str:
    """key_hash(secret) for `secret` sent with `served`, hashed at most once per request."""
    noted = served.environ.get(_NOTED)
    if noted is not None and noted[0] == secret:
        return noted[1]  # type: ignore[no-any-return]
    hashed = key_hash(secret)
    served.environ[_NOTED] = (secret, hashed)
    return hashed
