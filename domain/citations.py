"""The one table of rule citations: every violation and ruling code to the rule it applies.

A citation always names its edition ("TDA 2024 47-A", "RRP limit 6", "seed 003"), so one
string never means two rules (TDA 2026 renumbers the betting rules: 2024 43, 44, 47, 57
are 2026 45, 46, 49, 59). Code cites a rule only through `cite`; a test checks that every
citation string in the code comes from this table.
"""
from __future__ import annotations

CITATIONS: dict[str, str] = {
}


def cite(code: str) -> str:
    """The citation for a violation or ruling code (KeyError for a code with no rule)."""
    return CITATIONS[code]
