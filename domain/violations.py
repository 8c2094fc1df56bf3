"""A rule broken: a stable machine code, the numbers that explain it, and the rule's name.

The domain raises `Violation`; the HTTP layer only translates it into a problem document.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass
class Violation(Exception):
    code: str
    detail: str
    rule: str = ""
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"
