"""`with_changes` with its type: a copy of a frozen state is of the state's type.

domain.rules.betting.with_changes (the fast copy every decider uses: dataclasses.replace
re-runs __init__, about 20 times the cost) is declared `(Any, ...) -> Any`, which makes
every evolver return Any under mypy strict. The deciders import it from here: the same
function at run time, a generic signature for the type checker. Once betting's own
declaration is generic this module is only an alias.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

State = TypeVar("State")

if TYPE_CHECKING:
    def with_changes(obj: State, **changes: Any) -> State:
        """A copy of `obj` (a plain frozen dataclass) with some fields changed."""
else:
    from domain.rules.betting import with_changes

__all__ = ["with_changes"]
