"""The one table of rule citations: every violation and ruling code to the rule it applies.

A citation always names its edition ("TDA 2024 47-A", "RRP limit 6", "seed 003"), so one
string never means two rules (TDA 2026 renumbers the betting rules: 2024 43, 44, 47, 57
are 2026 45, 46, 49, 59). Code cites a rule only through `cite`; a test checks that every
citation string in the code comes from this table.

A code absent from the table applies no numbered rule (a malformed request, a state, a
house setting): its refusal carries no `rule` at all. The spec pages' sources: TDA 2024
and its Illustration Addendum, Robert's Rules of Poker ("RRP"), and the seeds ("seed
000" five-card draw, "seed 001" Palace Poker, "seed 002" no-limit raises, "seed 003" dice
poker; ../shared/seeds).
"""
from __future__ import annotations

CITATIONS: dict[str, str] = {
    # --- Betting amounts: the minimum bet and raise (TDA 2024 43; seed 002 explains it).
    "bet_below_minimum": "TDA 2024 43",
    "raise_below_minimum": "TDA 2024 43",
    "minimum_raise": "TDA 2024 43",
    # --- Re-opening the bet: no-limit and pot-limit incomplete all-in (47-A); fixed
    # limit, the 50% rule (47-B), whose next raise goes one unit on top of the all-in
    # (Robert's Rules, Betting and Raising 6).
    "raise_not_reopened": "TDA 2024 47-A",
    # Short all-ins that add up to a full raise reopen it (47-A): the raise then follows 43 or 54.
    "raise_reopened": "TDA 2024 47-A",
    "minimum_raise_reopened": "TDA 2024 47-A, 43",
    "pot_limit_reopened": "TDA 2024 47-A, 54",
    "raise_not_reopened_fixed_limit": "TDA 2024 47-B",
    "fixed_limit_all_in_raise": "RRP limit 6",
    # --- Fixed limit: the cap of a bet and three raises (TDA 2024 48).
    "raise_cap_reached": "TDA 2024 48",
    # --- Pot limit: the largest bet is the pot after the call (TDA 2024 54).
    "above_pot_limit": "TDA 2024 54",
    "pot_limit_maximum": "TDA 2024 54",
    # --- Pots: odd chips (board games: the first winner left of the button).
    "odd_chip": "TDA 2024 20",
    # --- The showdown at live tables (declarations.md "Showdown"; domain.rules.showdown_order).
    "all_in_face_up": "TDA 2024 16",
    "order_of_show": "TDA 2024 17",
    # Who shows first (POST /v1/rulings/showdown-order): the last aggressor, else the first to act.
    "show_first": "TDA 2024 17-A",
    "not_your_turn_to_show": "TDA 2024 17",
    "last_live_hand": "TDA 2024 17-B",
    "no_right_to_see": "TDA 2024 18-B",
    "ask_to_see_discretion": "TDA 2024 18",
    # --- Chips pushed and words said (domain.rules.declarations; declarations.md)
    "declaration_unclear": "TDA 2024 1, 40-A",
    "verbal_binding": "TDA 2024 40-A",
    "bare_amount": "TDA 2024 40-C",
    "raise_amount": "TDA 2024 43-B",
    "single_chip_call": "TDA 2024 44",
    "single_chip_bet": "TDA 2024 44",
    "raise_with_chips": "TDA 2024 40-A, 44",
    # Several chips after "raise": no call however many are needed (43-A, 45-A "unless
    # raise is declared first").
    "raise_with_several_chips": "TDA 2024 40-A, 43-A, 45-A",
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
    # --- Five-card draw openers (domain.games.draw; declarations.md)
    "split_openers": "RRP draw: splitting openers",
    "false_openers": "RRP draw: false openers",
    # --- Tournaments.
    # A table waits for every table to finish the round's hand (hand-for-hand).
    "hand_for_hand": "TDA 2024 RP-8",
    # Every player out in the hand during which hand-for-hand is announced shares.
    "hand_for_hand_busts": "TDA 2024 RP-8-A",
    # A scheduled colour-up races the chips off before the table's next hand.
    "colour_up_due": "TDA 2024 24",
    "no_colour_up_due": "TDA 2024 24",
    # A hand started on a break: levels and hands (a new level applies from the next hand).
    "on_break": "TDA 2024 23",
    # Players move for balance between hands only.
    "balance_between_hands": "TDA 2024 11",
    # A player away from the seat when the hand is dealt has a dead hand (at your seat).
    "dead_hand": "TDA 2024 30",
    # --- Seven-card stud: an open pair on fourth street may bet the big bet.
    "open_pair_big_bet": "RRP seven-card stud 4",
    # Stud deals to at most eight players (seven cards each and the common card when the
    # deck runs out on seventh street): a hand of more is refused at its start.
    "stud_at_most_eight": "RRP seven-card stud",
    # --- The games' own rule books (the seeds).
    "five_card_draw": "seed 000",
    "palace_poker": "seed 001",
    "dice_poker": "seed 003",
}


def cite(code: str) -> str:
    """The citation for a violation or ruling code (KeyError for a code with no rule)."""
    return CITATIONS[code]


def rule_for(code: str) -> str:
    """The citation for a code, or "" when the code applies no numbered rule."""
    return CITATIONS.get(code, "")
