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
    # chips pushed and words said (domain.declarations; declarations.md)
    "declaration_unclear": "TDA 2024 1, 40-A",
    "verbal_binding": "TDA 2024 40-A",
    "bare_amount": "TDA 2024 40-C",
    "raise_amount": "TDA 2024 43-B",
    "single_chip_call": "TDA 2024 44",
    "single_chip_bet": "TDA 2024 44",
    "raise_with_chips": "TDA 2024 40-A, 44",
    "chips_bet": "TDA 2024 45",
    "chips_all_needed": "TDA 2024 45-A",
    "chips_fifty_percent": "TDA 2024 45-B, 43-A",
    "last_chips_all_in": "TDA 2024 45-B-2",
    "chips_already_out": "TDA 2024 46",
    "chips_not_reopened": "TDA 2024 47-A",
    "undercall": "TDA 2024 51-B",
    "undercall_floor": "TDA 2024 1, 51-B",
    "pot_pot_limit": "TDA 2024 3, 54",
    "pot_no_limit": "TDA 2024 54-D",
    "pot_fixed_limit": "TDA 2024 54-D",
    "bet_five": "TDA 2024 57",
    "over_bet_change": "TDA 2024 61",
    "spoken_amount_wins": "RRP verbal declarations",
    # five-card draw openers (domain.games.draw; declarations.md)
    "split_openers": "RRP draw: splitting openers",
    "false_openers": "RRP draw: false openers",
}


def cite(code: str) -> str:
    """The citation for a violation or ruling code (KeyError for a code with no rule)."""
    return CITATIONS[code]
