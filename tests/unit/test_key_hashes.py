"""A request's API key is hashed once: the rate limiter's count and authentication's
look-up read the same key_hash of the same secret."""
from __future__ import annotations

import hashlib

from flask import Request
from werkzeug.test import EnvironBuilder

from service.application import api_keys
from service.http import key_hashes


def _request(secret: str) -> Request:
    return Request(EnvironBuilder(path="/v1/tables", headers={"Authorization": f"Bearer {secret}"}).get_environ())


def test_the_hash_is_key_hash_made_once_per_request(monkeypatch):
    made = []

    def counted(secret: str) -> str:
        made.append(secret)
        return api_keys.key_hash(secret)

    monkeypatch.setattr(key_hashes, "key_hash", counted)
    served = _request("crd_ann")
    first = key_hashes.request_key_hash(served, "crd_ann")
    assert first == key_hashes.request_key_hash(served, "crd_ann") == hashlib.sha256(b"crd_ann").hexdigest()
    assert made == ["crd_ann"]


def test_another_secret_or_request_is_hashed_anew():
    served = _request("crd_ann")
    assert key_hashes.request_key_hash(served, "crd_ann") == api_keys.key_hash("crd_ann")
    assert key_hashes.request_key_hash(served, "crd_bob") == api_keys.key_hash("crd_bob")
    assert key_hashes.request_key_hash(served, "crd_ann") == api_keys.key_hash("crd_ann")
    assert key_hashes.request_key_hash(_request("crd_cy"), "crd_cy") == api_keys.key_hash("crd_cy")
