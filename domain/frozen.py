"""Frozen dataclasses that every action makes, made as cheaply as a plain object.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`
(plain assignment is what `frozen` forbids): a global lookup, an attribute lookup and a
call per field. A table action makes a dozen such objects (its move, the game's command,
the clock's event, each record, the legal actions of its answer), and that was a
measurable share of the decider (issue 37). `made_at_once` gives a class an `__init__`
with the same parameters, order and defaults that sets the instance's `__dict__` in one
call: the same object, `==`, `repr` and hash as before, the same refusals of a missing or
unknown argument. The class stays a frozen dataclass for readers and for mypy.
"""
from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

Class = TypeVar("Class", bound=type)
_FACTORY = object()
"""The default of a parameter whose field has a default factory: the factory is called."""


def made_at_once(cls: Class) -> Class:
    """`cls` (a frozen dataclass: put this above `@dataclass(frozen=True)`) with the fast
    `__init__`. Refused at import for what it would get wrong: slots, `__post_init__` and
    a default factory of a field outside `__init__`."""
    if not is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: made_at_once is for frozen dataclasses")
    if any(vars(base).get("__slots__") for base in cls.__mro__) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: made_at_once cannot keep slots or __post_init__")
    positional: list[str] = []
    keyword_only: list[str] = []
    entries: list[str] = []
    namespace: dict[str, Any] = {"_SET": object.__setattr__, "_FACTORY": _FACTORY}
    for field in fields(cls):
        if not field.init:
            if field.default_factory is not MISSING:
                raise TypeError(f"{cls.__name__}.{field.name}: made_at_once takes no factory outside __init__")
            continue  # as the dataclass's __init__: its default is the class's attribute
        default, value = f"_default_{field.name}", field.name
        if field.default_factory is not MISSING:
            # As the dataclass's: a marker default, the factory called when it is left.
            namespace[default], namespace[f"_factory_{field.name}"] = _FACTORY, field.default_factory
            value = f"_factory_{field.name}() if {field.name} is _FACTORY else {field.name}"
        elif field.default is not MISSING:
            namespace[default] = field.default
        has_default = field.default is not MISSING or field.default_factory is not MISSING
        parameter = f"{field.name}={default}" if has_default else field.name
        (keyword_only if field.kw_only else positional).append(parameter)
        entries.append(f"{field.name!r}: {value}")
    parameters = ["self", *positional, *(["*", *keyword_only] if keyword_only else [])]
    source = (f"def __init__({', '.join(parameters)}):\n"
              f"    _SET(self, '__dict__', {{{', '.join(entries)}}})\n")
    exec(source, namespace)  # noqa: S102 - as dataclasses makes __init__: the source is ours
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
