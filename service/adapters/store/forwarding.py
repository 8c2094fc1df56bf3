"""Names a store wrapper (service.adapters.store.metered, .upcasting) passes on to the store
it wraps, found on the wrapper's class.

A wrapper's `__getattr__` forwards whatever it does not define, but Python calls it only
after the usual lookup has missed, and that miss raises an AttributeError, its message
formatted, each time: an Idempotency-Key's write asks the store for `transaction`,
`claim_key_later`, `settled_claim`, `record_answer` and `refuse_failed` through two
wrappers, ten misses a table action (issue 37: about 4,000 CPU instructions each, callgrind).
A `Forwarded` name is found on the class, and reads the wrapped store's attribute on each
use, exactly what `__getattr__` gives (a store patched later is still the one reached).
"""
from __future__ import annotations

import operator
from typing import Any


class Forwarded:
    """The attribute of the same name of the store in the wrapper's attribute `inner`."""

    def __init__(self, inner: str) -> None:
        self._inner = inner
        self._read = operator.attrgetter(inner)

    def __set_name__(self, owner: type, name: str) -> None:
        self._read = operator.attrgetter(f"{self._inner}.{name}")

    def __get__(self, wrapper: Any, owner: type | None = None) -> Any:
        return self if wrapper is None else self._read(wrapper)
