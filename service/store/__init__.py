"""The event store: the contract (base), an in-memory store and the PostgreSQL store."""
from service.store.base import (
    AppendResult,
    Checkpoint,
    EventStore,
    NewEvent,
    RecordedEvent,
    Verification,
    VersionConflict,
)
from service.store.memory import InMemoryEventStore

__all__ = [
    "AppendResult",
    "Checkpoint",
    "EventStore",
    "InMemoryEventStore",
    "NewEvent",
    "RecordedEvent",
    "Verification",
    "VersionConflict",
]
