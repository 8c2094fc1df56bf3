"""The log's keyed integrity, wired from the configuration: the chain key and the head
checkpoints every event store of this deployment uses (the app and the workers alike).

The chain key is CARDROOM_CHAIN_KEY when set (production: from a secret store, the same
on every host), else a key created once in <data dir>/chain-key (mode 0600). It must
never be given to PostgreSQL: whoever holds it can forge a chain that verifies.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from psycopg_pool import ConnectionPool

from service.config import Config
from service.adapters.connection_strings import database_key
from service.adapters.store.metered import MeteredStore
from service.adapters.store.base import ChainSigner, EventStore
from service.adapters.store.checkpoints import HeadCheckpoints
from service.adapters.store.postgres import PostgresEventStore


def chain_signer(config: Config) -> ChainSigner:
    if config.chain_key:
        return ChainSigner(config.chain_key.encode())
    return ChainSigner(bytes.fromhex(_key_file(config.data_dir / "chain-key")))


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
    raise RuntimeError(f"{path} does not hold a 64-digit hex chain key")


def checkpoints_path(config: Config) -> Path:
    """One checkpoint file per database (hosts, ports, name; never the password), so two
    databases served from one data directory never mix their heads, and a failover to
    another host of the same connection string keeps the same file."""
    assert config.database_url is not None
    return config.data_dir / f"checkpoints-{database_key(config.database_url)}.sqlite3"


def open_store(pool: ConnectionPool, config: Config) -> EventStore:
    """The deployment's store, its appends counted for /metrics."""
    signer = chain_signer(config)
    return MeteredStore(PostgresEventStore(  # type: ignore[return-value]
        pool, signer=signer, checkpoints=HeadCheckpoints(checkpoints_path(config), signer)))
