"""The event log as the application's callers name it: the store's contract, its records,
heads and receipts, and its refusals. They are defined with the store
(service.adapters.store.base) and handed on from here, so that the HTTP layer speaks to the
application alone and never imports an adapter."""
from __future__ import annotations

from service.adapters.store.base import (
                                         EventStore,
                                         Head,
                                         IntegrityFailure,
                                         NewEvent,
                                         RecordedEvent,
                                         Reveal,
                                         Verification,
                                         VersionConflict,
                                         check_receipt,
                                         format_recorded_at,
)

__all__ = ["EventStore", "Head", "IntegrityFailure", "NewEvent", "RecordedEvent", "Reveal", "Verification",
           "VersionConflict", "check_receipt", "format_recorded_at"]
