"""What the player to act may do in a mixed-game hand (domain.games.mixed), in the `legal`
shape of the betting ruling (api.md), with the two stud additions:

- the bring-in: the seat that brings it in may post it (`bring_in`: the amount) or
  complete the bet (`bet`), never check or fold;
- the open pair on fourth street (seven-card stud only, Robert's Rules of Poker, seven-card
  stud 4): while nobody has bet, an open pair showing lets the opener bet the big bet
  instead of the small one (`bet.open_pair_to`, the one other amount allowed).

The betting ruling and the live table both answer from here, so they never disagree.
"""
from __future__ import annotations

from typing import Any

from domain.games import draw_family, stud
from domain.games.dealt_hand import MixedState, up_cards
from domain.rules.betting import FIXED_LIMIT, legal_actions
from domain.rules.legal_shapes import legal_as_ruled

FOURTH_STREET = 1


def mixed_legal(state: MixedState) -> dict[str, Any] | None:
    """The `legal` shape for the player to act, or None when nobody is."""
    seat = state.to_act
    if seat is None or state.over:
        return None
    b = state.betting
    legal = legal_as_ruled(legal_actions(b) if state.draw_rules is None else draw_family.legal_actions(state))
    if legal is None:
        return None
    if state.bring_in_due:
        legal.update(check=False, fold=False, bring_in=min(state.bring_in, b.stacks[seat]))
    bet = legal.get("bet")
    if bet is not None and open_pair_big_bet_allowed(state):
        big = b.structure.unit(late=True)
        if b.bets[seat] + b.stacks[seat] >= big:
            legal["bet"] = {**bet, "open_pair_to": big}
    return legal


def open_pair_big_bet_allowed(state: MixedState) -> bool:
    """Fourth street of seven-card stud at fixed limit, an open pair showing on a live
    hand, and no bet yet this round."""
    b = state.betting
    return (state.game.open_pair_option and state.street == FOURTH_STREET
            and b.structure.kind == FIXED_LIMIT and b.highest == 0
            and stud.open_pair(up_cards(state)))
