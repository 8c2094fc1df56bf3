"""The event store: the contract (base), an in-memory store and the PostgreSQL store."""
from service.adapters.store.base import AppendResult, Checkpoint, EventStore, NewEvent, RecordedEvent, Verification, VersionConflict
from service.adapters.store.memory import InMemoryEventStore

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
