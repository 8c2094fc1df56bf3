"""Settings from the environment: read once, then passed around as a frozen value."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

DEFAULT_PORT = 8000


@dataclass(frozen=True)
class Config:
    # None means "not configured": the app still builds (e.g. to print its OpenAPI
    # document) and /healthz reports the missing dependency as down.
    database_url: str | None = None
    # `make run` only: the application's own login (least privilege), when DATABASE_URL is
    # an administrator's; without it, `cardroom_app` is set up (service.migrate).
    app_database_url: str | None = None
    broker_url: str | None = None
    admin_key: str | None = None
    port: int = DEFAULT_PORT
    data_dir: Path = Path(".data")
    database_pool_size: int = 8
    chain_key: str | None = None
    """The key of the log's HMAC chain (service.integrity); None: <data_dir>/chain-key."""
    request_read_timeout_s: float = 10.0
    """How long the web server waits for a whole request, from its first byte (a new
    connection: from its opening), before it answers 408 and closes."""
    idempotency_window_s: float = 24 * 3600
    """How long an Idempotency-Key's record (and so its first answer) is kept."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            app_database_url=env.get("APP_DATABASE_URL") or None,
            broker_url=env.get("CELERY_BROKER_URL") or None,
            admin_key=env.get("CARDROOM_ADMIN_KEY") or None,
            port=int(env.get("PORT") or DEFAULT_PORT),
            data_dir=Path(env.get("CARDROOM_DATA_DIR") or ".data"),
            database_pool_size=int(env.get("CARDROOM_DB_POOL_SIZE") or 8),
            chain_key=env.get("CARDROOM_CHAIN_KEY") or None,
            request_read_timeout_s=float(env.get("CARDROOM_REQUEST_READ_TIMEOUT_S") or 10.0),
            idempotency_window_s=float(env.get("CARDROOM_IDEMPOTENCY_WINDOW_S") or 24 * 3600),
        )
