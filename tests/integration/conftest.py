"""Fixtures for the event-store contract suite: every test runs against both stores.

The events table refuses DELETE and TRUNCATE, so tests never clean up: each one writes to
streams of its own (`stream_id`), and global readers start from the current end.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from psycopg_pool import ConnectionPool

from service.store.base import EventStore
from service.store.memory import InMemoryEventStore


@pytest.fixture(scope="session")
def postgres_pool(database_url: str) -> Iterator[ConnectionPool]:
    from service.store.postgres import open_pool

    # Enough connections for the 16-writer race plus a reader.
    pool = open_pool(database_url, max_size=20)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(params=["memory", "postgres"])
def store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return InMemoryEventStore()
    from service.store.postgres import PostgresEventStore

    return PostgresEventStore(request.getfixturevalue("postgres_pool"))


@pytest.fixture
def stream_id(request: pytest.FixtureRequest) -> str:
    return f"test-{request.node.originalname}-{uuid.uuid4().hex[:12]}"

