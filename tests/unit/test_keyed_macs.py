"""The chain's and the rows' MACs made from a key set up once (issue 37) are the HMACs
hmac.new makes, message after message, whatever the key's length."""
from __future__ import annotations

import hashlib
import hmac

import pytest

from service.adapters.row_macs import RowSigner
from service.adapters.store import base
from service.adapters.store.base import ChainSigner, keyed_sha256, mac_hex


@pytest.mark.parametrize("openssl", [True, False], ids=["openssl's HMAC", "hmac's, without OpenSSL"])
def test_a_mac_from_the_key_set_up_once_is_the_hmac_of_its_message(openssl, monkeypatch):
    if not openssl:
        monkeypatch.setattr(base, "_openssl_hmac", None)
    for key in (b"k" * 16, b"\x00" * 32, bytes(range(64)), b"long" * 40):
        keyed = keyed_sha256(key)
        for message in (b"", b"table-1\n3\n" + b"a" * 64, b"x" * 200, "caf\u00e9".encode()):
            assert mac_hex(keyed, message) == hmac.new(key, message, hashlib.sha256).hexdigest()
            assert mac_hex(keyed, message) == mac_hex(keyed, message)  # `keyed` is left as it was


def test_the_chain_and_a_table_sign_as_before():
    key = b"chain key of 32 bytes, for tests"
    chain = ChainSigner(key)
    assert chain.sign("table-1", 7, "ab" * 32) == hmac.new(key, b"table-1\n7\n" + b"ab" * 32, hashlib.sha256).hexdigest()
    rows = RowSigner(chain, "api_keys")
    derived = chain.derived_key("rows of api_keys")
    assert rows.sign("k1", 5, None) == hmac.new(derived, b'["k1",5,null]', hashlib.sha256).hexdigest()
    assert rows.valid(rows.sign("k1", 5, None), "k1", 5, None)
