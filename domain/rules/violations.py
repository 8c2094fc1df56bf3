"""A rule broken: a stable machine code, the numbers that explain it, and the rule's name.

The domain raises `Violation`; the HTTP layer only translates it into a problem document.
`rule` is the citation of domain.rules.citations: given (`cite(code)`) where the rule applied
depends on more than the code, else looked up by the code itself; "" when none applies.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.rules.citations import rule_for


@dataclass
class Violation(Exception):
    code: str
    detail: str
    rule: str = ""
    numbers: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.rule:
            self.rule = rule_for(self.code)

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"
