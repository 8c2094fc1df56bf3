"""Who may read each field of an event, declared on the event's own dataclass field.

A field that holds cards, a deck, an order, a salt or a pending roll says so with its
`dataclasses.field(metadata=...)`, as PokerKit declares up and down cards in a game's data:

- `PUBLIC`: anyone (the board, cards shown down, a die rolled);
- `OWNER_ONLY`: the player the event is about, and the floor. The owner is named by the
  event's `visible_to` field when it has one (the players allowed), else by its `position`
  (the player at that place in the hand);
- `SEALED`: committed to, read by nobody, the floor included, until the hand is closed;
  then the floor's alone in a hand committed card by card (domain.rules.deal_commitment:
  the others get per-card openings), everyone's in a hand committed whole.

The application reads these declarations (service.application.sealing, views, commands)
to seal, reveal and redact, and the store to encrypt at rest; no table of event names
says it again. Records name their type only, and one name may be several games' classes
(`HandStarted`), so a lookup by name answers for every class registered under it: a
field secret in one of them is secret in the record.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


class Secrecy(enum.Enum):
    PUBLIC = "public"
    OWNER_ONLY = "owner_only"
    SEALED = "sealed"


_KEY = "secrecy"
PUBLIC: Mapping[str, Any] = MappingProxyType({_KEY: Secrecy.PUBLIC})
OWNER_ONLY: Mapping[str, Any] = MappingProxyType({_KEY: Secrecy.OWNER_ONLY})
SEALED: Mapping[str, Any] = MappingProxyType({_KEY: Secrecy.SEALED})

OWNER_BY_LIST = "visible_to"
"""The field listing the players who may read an owner-only field (Palace Poker)."""
OWNER_BY_POSITION = "position"
"""Else the field naming the owner's place in the hand."""


def declared(cls: type, name: str) -> Secrecy | None:
    """The secrecy declared on field `name` of the event class (None: none declared)."""
    for item in dataclasses.fields(cls):
        if item.name == name:
            return item.metadata.get(_KEY)
    raise KeyError(f"{cls.__name__} has no field {name!r}")


@dataclass(frozen=True)
class Secrets:
    """An event type's secret fields, in declaration order."""
    owner_only: tuple[str, ...] = ()
    sealed: tuple[str, ...] = ()
    owner: str | None = None
    """The field naming who may read the owner-only ones (OWNER_BY_LIST or OWNER_BY_POSITION)."""

    @property
    def at_rest(self) -> tuple[str, ...]:
        """The fields kept unreadable in the store: every one but the public."""
        return self.owner_only + self.sealed


NONE = Secrets()


@functools.cache
def secrets_of(cls: type) -> Secrets:
    """One event class's declarations."""
    fields = dataclasses.fields(cls)
    of = {item.name: item.metadata.get(_KEY) for item in fields}
    owner_only = tuple(name for name, kind in of.items() if kind is Secrecy.OWNER_ONLY)
    owner = None
    if owner_only:
        owner = OWNER_BY_LIST if OWNER_BY_LIST in of else OWNER_BY_POSITION if OWNER_BY_POSITION in of else None
        if owner is None:
            raise TypeError(f"{cls.__name__} has owner-only fields but names no owner "
                            f"({OWNER_BY_LIST} or {OWNER_BY_POSITION})")
    return Secrets(owner_only, tuple(name for name, kind in of.items() if kind is Secrecy.SEALED), owner)


_REGISTERED: dict[str, list[type]] = {}
_BY_NAME: dict[str, Secrets] = {}


def register(classes: Iterable[type]) -> None:
    """Make these event classes' declarations what records of their names are read by."""
    for cls in classes:
        secrets_of(cls)  # refuse a bad declaration when registered, not when read
        registered = _REGISTERED.setdefault(cls.__name__, [])
        if cls not in registered:
            registered.append(cls)
            _BY_NAME.pop(cls.__name__, None)


def registered() -> dict[str, tuple[type, ...]]:
    return {name: tuple(classes) for name, classes in _REGISTERED.items()}


def secrets_named(type_name: str) -> Secrets:
    """The secret fields of a record of this type: the union over every class registered
    under the name (NONE for a name nobody registered: a tournament's, a player's)."""
    found = _BY_NAME.get(type_name)
    if found is not None:
        return found
    owner_only: list[str] = []
    sealed: list[str] = []
    owner = None
    for cls in _REGISTERED.get(type_name, ()):
        declared = secrets_of(cls)
        owner_only += [name for name in declared.owner_only if name not in owner_only]
        sealed += [name for name in declared.sealed if name not in sealed]
        owner = owner or declared.owner
    found = _BY_NAME[type_name] = Secrets(tuple(owner_only), tuple(sealed), owner)
    return found
