"""The application over a test's store, one per store (as a process has one), so what it
caches lives as long as the store: tests that drive the application layer directly (not
through HTTP or a worker) send their commands through `of(store)`."""
from __future__ import annotations

from weakref import WeakKeyDictionary

from service.adapters.store.base import EventStore
from service.application.application import application
from service.application.parts import Application

_built: WeakKeyDictionary[EventStore, Application] = WeakKeyDictionary()


def of(store: EventStore) -> Application:
    built = _built.get(store)
    if built is None:
        built = _built[store] = application(store)
    return built
