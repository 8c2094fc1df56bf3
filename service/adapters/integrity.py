"""The log's keyed integrity, wired from the configuration: the chain key every event
store of this deployment uses (the app and the workers alike).

The chain key is CARDROOM_CHAIN_KEY when set (production: from a secret store, the same
on every host), else a key created once in <data dir>/chain-key (mode 0600). It must
never be given to PostgreSQL: whoever holds it can forge a chain that verifies.

The data key is CARDROOM_DATA_KEY, else <data dir>/data-key, made the same way: the events'
secrets and the snapshots are encrypted under it (service.adapters.store.cipher). It must
never be given to PostgreSQL either: whoever holds it and the database reads every card.
Retired data keys (CARDROOM_DATA_KEYS_OLD, and the files of <data dir>/data-keys/, which
`cardroom data-key new` moves the old key into) only open what they sealed: with the data
key they make the key ring (service.adapters.store.cipher.FieldCipher).
"""
from __future__ import annotations

import os
import secrets
import string
from pathlib import Path

from psycopg_pool import ConnectionPool

from service.adapters.store.base import ChainSigner, EventStore
from service.adapters.store.cipher import FieldCipher, key_id
from service.adapters.store.metered import MeteredStore
from service.adapters.store.postgres import PostgresEventStore
from service.config import Config


def chain_signer(config: Config) -> ChainSigner:
    if config.chain_key:
        return ChainSigner(config.chain_key.encode())
    return ChainSigner(bytes.fromhex(_key_file(config.data_dir / "chain-key")))


RETIRED_DATA_KEYS = "data-keys"
"""The folder of the data directory holding retired data keys, a file each."""


def data_cipher(config: Config) -> FieldCipher:
    """The key ring of the secrets at rest (service.adapters.store.cipher): CARDROOM_DATA_KEY
    (64 hex digits) when set, else a key created once in <data dir>/data-key, seals; the
    retired keys of CARDROOM_DATA_KEYS_OLD and <data dir>/data-keys/ only open."""
    key = config.data_key or _key_file(config.data_dir / "data-key")
    retired = retired_data_keys(config)
    try:
        return FieldCipher(bytes.fromhex(key), [bytes.fromhex(old) for old in retired])
    except ValueError:
        raise ValueError("CARDROOM_DATA_KEY and each retired data key must be 64 hex digits "
                         "(a 256-bit AES key)") from None


def retired_data_keys(config: Config) -> list[str]:
    """The retired data keys, hex: CARDROOM_DATA_KEYS_OLD's, then each file of <data dir>/data-keys/."""
    folder = config.data_dir / RETIRED_DATA_KEYS
    files = sorted(path for path in folder.iterdir() if path.is_file()) if folder.is_dir() else []
    keys = [path.read_text().strip() for path in files]
    for path, key in zip(files, keys):
        if len(key) != 64 or any(c not in string.hexdigits for c in key):  # named, never shown
            raise ValueError(f"{path} does not hold a retired data key (64 hex digits)")
    return [*config.data_keys_old, *keys]


def rotate_data_key(config: Config) -> tuple[str, str]:
    """<data dir>/data-key moved into <data dir>/data-keys/ (named for its key id) and a new
    key made in its place as the first one was (_key_file: a process starting meanwhile
    reads the same new key); the ids of the retired key and of the new one."""
    current = config.data_dir / "data-key"
    old = bytes.fromhex(_key_file(current))
    folder = config.data_dir / RETIRED_DATA_KEYS
    folder.mkdir(mode=0o700, exist_ok=True)
    retired = folder / key_id(old)
    # Kept first, removed after: a crash between the two leaves the old key in both places, never lost.
    descriptor = os.open(retired, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(old.hex() + "\n")
    current.unlink()
    return key_id(old), key_id(bytes.fromhex(_key_file(current)))


def _key_file(path: Path) -> str:
    """The key in `path`, created (32 random bytes, hex) by whichever process comes first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_complete(path)
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_hex(32) + "\n")
    return _read_complete(path)


def _read_complete(path: Path) -> str:
    """A key another process is still writing reads short for a moment: wait for it."""
    for _ in range(100):
        text = path.read_text().strip()
        if len(text) == 64:
            return text
        os.sched_yield()
    raise RuntimeError(f"{path} does not hold a 64-digit hex key")


def open_store(pool: ConnectionPool, config: Config) -> EventStore:
    """The deployment's store, its appends counted for /metrics."""
    return MeteredStore(PostgresEventStore(pool, signer=chain_signer(config)))  # type: ignore[return-value]
