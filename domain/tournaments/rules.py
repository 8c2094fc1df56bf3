"""The rules tournament refusals cite, in one table: code -> citation (edition named,
spec README "Rule numbers"). A refusal whose code is not here applies no numbered rule
and carries none (house settings, malformed requests, states)."""
from __future__ import annotations

CITATIONS: dict[str, str] = {
    # A table waits for every table to finish the round's hand (hand-for-hand).
    "hand_for_hand": "TDA 2024 RP-8",
    # A scheduled colour-up races the chips off before the table's next hand.
    "colour_up_due": "TDA 2024 24",
    "no_colour_up_due": "TDA 2024 24",
    # A hand started on a break: levels and hands (a new level applies from the next hand).
    "on_break": "TDA 2024 23",
}


def rule_for(code: str) -> str:
    return CITATIONS.get(code, "")
