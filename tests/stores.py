"""A store for a test's own process beside the apps it runs: wired as theirs are
(service.wiring.event_store), under the same chain key and data key, so the events it
writes carry the MACs their reads check and it opens the secrets they sealed."""
from __future__ import annotations

from typing import Any

from service.adapters.store.base import EventStore


def store_as_the_apps(pool: Any, config: Any) -> EventStore:
    """`config`: the apps' (its data directory, or CARDROOM_CHAIN_KEY and CARDROOM_DATA_KEY)."""
    from service.adapters.integrity import chain_signer, data_cipher
    from service.adapters.store.postgres import PostgresEventStore
    from service.adapters.store.upcasting import UpcastingStore
    from service.application.commands import STREAM_PREFIX as TABLE_STREAM_PREFIX
    from service.application.replay import IMPORTED_HAND_PREFIX

    return UpcastingStore(PostgresEventStore(pool, signer=chain_signer(config)),  # type: ignore[return-value]
                          TABLE_STREAM_PREFIX, IMPORTED_HAND_PREFIX, data_cipher(config))
