"""The one table of rule citations: every violation and ruling code to the rule it applies.

A citation always names its edition ("TDA 2024 47-A", "RRP limit 6", "seed 003"), so one
string never means two rules (TDA 2026 renumbers the betting rules: 2024 43, 44, 47, 57
are 2026 45, 46, 49, 59). Code cites a rule only through `cite`; a test checks that every
citation string in the code comes from this table.
"""
from __future__ import annotations

CITATIONS: dict[str, str] = {
    # The showdown at live tables (declarations.md "Showdown"; domain.showdown_order).
    "all_in_face_up": "TDA 2024 16",
    "order_of_show": "TDA 2024 17",
    "not_your_turn_to_show": "TDA 2024 17",
    "last_live_hand": "TDA 2024 17-B",
    "no_right_to_see": "TDA 2024 18-B",
    "ask_to_see_discretion": "TDA 2024 18",
}


def cite(code: str) -> str:
    """The citation for a violation or ruling code (KeyError for a code with no rule)."""
    return CITATIONS[code]
