"""Events as plain records (`type` name + JSON-friendly `data`) and back.

The store keeps JSON; the domain keeps frozen dataclasses. Converting by the dataclass
field annotations keeps every event module free of hand-written serialisers: tuples come
back as tuples, nested event parts as their dataclasses, `Fraction` amounts as strings.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any


def to_record(event: Any) -> tuple[str, dict[str, Any]]:
    return type(event).__name__, _plain(event)


def from_record(event_types: Mapping[str, type], type_name: str, data: Mapping[str, Any]) -> Any:
    return _build(event_types[type_name], data)


# Exact types that are already plain: checked first because events are mostly these, and
# `isinstance(x, typing.Mapping)` below is slow (it goes through typing's generic alias).
_ALREADY_PLAIN = frozenset({str, int, bool, type(None)})


def _plain(value: Any) -> Any:
    kind: type = type(value)
    if kind in _ALREADY_PLAIN:
        return value
    names = _field_names(kind)
    if names is not None:
        # One pass, no comprehension (each is a call of its own): every event recorded comes here.
        plain = {}
        for name in names:
            item = getattr(value, name)
            plain[name] = item if type(item) in _ALREADY_PLAIN else _plain(item)
        return plain
    if isinstance(value, (tuple, list)):
        # Card lists and seat lists: no call per plain element.
        return [item if type(item) in _ALREADY_PLAIN else _plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else value.numerator
    return value


@cache
def _field_names(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type (None for anything else)."""
    if not dataclasses.is_dataclass(kind):
        return None
    return tuple(f.name for f in dataclasses.fields(kind))


@cache
def constructor_fields(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type whose constructor takes every field (None for
    any other type): what rebuilds an instance from its fields (service.application.snapshots)."""
    if not dataclasses.is_dataclass(kind):
        return None
    fields = dataclasses.fields(kind)
    if any(not f.init for f in fields):
        return None
    return tuple(f.name for f in fields)


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _build(cls: type, data: Mapping[str, Any]) -> Any:
    hints = _hints(cls)
    return cls(**{name: _convert(hints[name], value) for name, value in data.items()})


def _convert(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            if option is type(None):
                continue
            try:
                return _convert(option, value)
            except (TypeError, ValueError):
                continue
        return value
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(args[0], v) for v in value)
        if args:
            return tuple(_convert(a, v) for a, v in zip(args, value))
        return tuple(value)
    if origin in (dict, Mapping, typing.Mapping) or hint is dict:
        value_hint = args[1] if len(args) == 2 else Any
        return {k: _convert(value_hint, v) for k, v in value.items()}
    if hint is Fraction:
        return Fraction(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise TypeError(f"{hint.__name__} expects an object")
        return _build(hint, value)
    if hint is int and isinstance(value, str):
        raise ValueError("not an int")
    return value
