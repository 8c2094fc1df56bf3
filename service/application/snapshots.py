"""Snapshots of a table's state, so a cold load or a hand read costs the newest hand, not
the table's history.

A snapshot is the state right after a hand's HandClosed event, the idempotency keys
recorded up to that version, and nothing else: between hands, so it never holds the
secrets of a hand still being played (an auto-deal table's next deal comes after it).
It is written in the append's own transaction when there is one (a rolled-back write
leaves no snapshot ahead of the log) and is a cache: losing one costs a longer replay.

The body is canonical JSON, never pickle: ints, strings, booleans and null as themselves,
tuples as arrays, and every other value as an object whose "@" names what it is: a domain
dataclass by module and name ("domain.games.holdem:HandState", its fields beside), "dict"
(its items as pairs, since keys need not be strings), "frozenset" (sorted items),
"Fraction", and "constant": a rule table's entry that holds code (a mixed game and its
ranking functions) by the module and name it is kept under. Decoding builds only dataclasses of the `domain` package, through their own
constructors. Anything else in a state is refused when encoding, and no snapshot is
written.

Each snapshot carries `SCHEMA`, the codec's format version and a digest of the domain's
source: a snapshot written by other code (another layout, another `evolve`) is ignored and
the stream replayed, so a deploy needs no migration of snapshots, only a replay of each
table once (the next hand's close writes a new one).
"""
from __future__ import annotations

import hashlib
import importlib
import json
import sys
import typing
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import domain
from domain.records import constructor_fields

FORMAT = 1
"""The encoding below; bump it when it changes."""

_PLAIN = frozenset({str, int, bool, type(None)})
_DOMAIN = "domain."


def _domain_digest() -> str:
    """SHA-256 over the domain package's source, file by file in path order."""
    root = Path(domain.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


SCHEMA = f"table-state/{FORMAT}/{_domain_digest()}"
"""The tag every snapshot is stored under; only snapshots with this very tag are read."""


class NotSnapshottable(TypeError):
    """The state holds a value this encoding does not know (no snapshot is written)."""


def encode(state: Any, idempotency_keys: Mapping[str, tuple[int, int]],
           first_metadata: Mapping[str, Any] | None = None) -> str:
    """The snapshot body of a stream's state, the keys recorded up to it and its first
    event's metadata (plain JSON)."""
    document = {"state": _plain(state),
                "idempotency_keys": {key: list(versions) for key, versions in idempotency_keys.items()},
                "first_metadata": dict(first_metadata or {})}
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decode(body: str) -> tuple[Any, dict[str, tuple[int, int]], dict[str, Any]]:
    """(state, idempotency keys, first metadata) of a snapshot body written by `encode`
    under `SCHEMA`. Raises ValueError (or TypeError, KeyError) on a body this code cannot
    have written."""
    document = json.loads(body)
    keys = {key: (int(first), int(last)) for key, (first, last) in document["idempotency_keys"].items()}
    return _built(document["state"]), keys, dict(document["first_metadata"])


def _plain(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple:
        return [item if type(item) in _PLAIN else _plain(item) for item in value]
    names = _field_names(kind)
    if names is not None:
        try:
            encoded = {name: _plain(getattr(value, name)) for name in names}
        except NotSnapshottable:
            return _constant(value)
        encoded["@"] = _class_name(kind)
        return encoded
    if kind is dict:
        return {"@": "dict", "items": [[_plain(k), _plain(v)] for k, v in value.items()]}
    if kind is frozenset:
        items = [_plain(item) for item in value]
        # Sorted by their JSON text: the same body whatever order the set iterates in.
        return {"@": "frozenset", "items": sorted(items, key=_sort_key)}
    if kind is Fraction:
        return {"@": "Fraction", "value": str(value)}
    raise NotSnapshottable(f"a table state holds a {kind.__module__}.{kind.__qualname__}, "
                           f"which snapshots do not encode")


def _constant(value: Any) -> dict[str, Any]:
    """A value of the domain's own rule tables that holds code (a mixed game with its
    ranking functions), by where its module keeps it: a module attribute, or an entry of
    a module-level dict."""
    module = sys.modules[type(value).__module__]
    for name, held in vars(module).items():
        if held is value:
            return {"@": "constant", "module": module.__name__, "name": name}
        if type(held) is dict:
            for key, item in held.items():
                if item is value and type(key) is str:
                    return {"@": "constant", "module": module.__name__, "name": name, "key": key}
    raise NotSnapshottable(f"a table state holds a {type(value).__qualname__} with code in it "
                           f"that its module does not keep by name")


def _sort_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, separators=(",", ":"))


def _field_names(kind: type) -> tuple[str, ...] | None:
    """A domain dataclass's fields (None for any other type), read once per type
    (domain.records.constructor_fields), as a snapshot asks it of every value it holds."""
    if not kind.__module__.startswith(_DOMAIN) or not kind.__qualname__.isidentifier():
        return None
    return constructor_fields(kind)


def _class_name(kind: type) -> str:
    return f"{kind.__module__}:{kind.__qualname__}"


def _built(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return tuple(item if type(item) in _PLAIN else _built(item) for item in value)
    if kind is not dict:
        raise ValueError(f"a snapshot holds a {kind.__name__}")
    tag = value["@"]
    if tag == "dict":
        return {_built(k): _built(v) for k, v in value["items"]}
    if tag == "frozenset":
        return frozenset(_built(item) for item in value["items"])
    if tag == "Fraction":
        return Fraction(value["value"])
    if tag == "constant":
        return _kept_constant(value["module"], value["name"], value.get("key"))
    cls = _domain_class(tag)
    return cls(**{name: _built(item) for name, item in value.items() if name != "@"})


def _kept_constant(module_name: str, name: str, key: str | None) -> Any:
    if not module_name.startswith(_DOMAIN):
        raise ValueError(f"a snapshot names a constant of {module_name!r}, which is not the domain's")
    held = getattr(importlib.import_module(module_name), name)
    found = held if key is None else held[key]
    if _field_names(type(found)) is None:
        raise ValueError(f"a snapshot names {module_name}.{name}, which is no domain dataclass")
    return found


def _domain_class(tag: str) -> type:
    """The dataclass a tag names: only the domain's, never anything else importable."""
    module_name, _, qualname = tag.partition(":")
    if not module_name.startswith(_DOMAIN) or not qualname.isidentifier():
        raise ValueError(f"a snapshot names {tag!r}, which is no domain dataclass")
    found = getattr(importlib.import_module(module_name), qualname, None)
    if not isinstance(found, type) or _field_names(found) is None:
        raise ValueError(f"a snapshot names {tag!r}, which is no domain dataclass")
    return typing.cast(type, found)
