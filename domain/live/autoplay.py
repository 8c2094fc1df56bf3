"""The computer player: what is played for a player who lets their clock run out, or who
is away from the table.

Two policies, both deterministic so a replay and a floor review reach the same action:
- on a timeout (tournaments.md "Clocks", TDA 2024 29): check if possible, else fold; on a draw,
  stand pat;
- standing in for an absent player (five-card-draw.md "Seats and absence"): check when
  possible, call a small bet (at most one big blind / unit) with a pair or better, else
  fold; on a draw, the game's own draw advice.
At a tournament's table an away player's hand is dead (TDA 2024 30: a player not at their
seat when the last card of the initial hands is dealt has no live hand): their blinds and
antes are posted and the hand is folded at their first turn, a free check or not
(`holdem_dead_hand`), so it is never shown down and never wins a pot.

A game with its own idea of this (draw's `auto_action(state, seat, timed_out)`) is asked
through that hook by domain.live.table; this module covers the betting games (hold'em, Omaha).
"""
from __future__ import annotations

from collections.abc import Sequence

from domain.games import holdem
from domain.games.hand_events import PostAction
from domain.rules.betting import Amount, LegalActions
from domain.rules.evaluation import evaluate_holdem, evaluate_omaha

CHECK = "check"
CALL = "call"
FOLD = "fold"


def betting_choice(legal: LegalActions, small_bet: Amount, pair_or_better: bool, *, timed_out: bool) -> str:
    """check | call | fold: never a bet or a raise, so the computer never builds a pot for
    someone who is not there."""
    if legal.check:
        return CHECK
    if not timed_out and pair_or_better and legal.call is not None and legal.call.adds <= small_bet:
        return CALL
    return FOLD


def holds_pair_or_better(hole: Sequence[int], board: Sequence[int], variant: str) -> bool:
    """Before the flop: a pair among the hole cards; after it, the made hand."""
    if not board:
        ranks = [card >> 2 for card in hole]
        return len(set(ranks)) < len(ranks)
    evaluate = evaluate_omaha if variant == "omaha" else evaluate_holdem
    return evaluate(hole, board).category != "high_card"


def holdem_auto_action(hand: holdem.HandState, position: int, timed_out: bool) -> holdem.Command:
    """The command played for `position` in a hold'em or Omaha hand (their turn): at
    a declared showdown, show or muck as the cards speak (holdem.showdown_command)."""
    if hand.to_show == position:
        return holdem.showdown_command(hand, position)
    legal = holdem.legal_actions(hand)
    assert legal is not None and hand.to_act == position, "the computer acts only on its own turn"
    hole = hand.hole[position] or ()
    pair = holds_pair_or_better(hole, hand.board, hand.variant)
    small_bet = hand.betting.structure.opening_minimum
    return PostAction(position, betting_choice(legal, small_bet, pair, timed_out=timed_out))


def holdem_dead_hand(hand: holdem.HandState, position: int) -> holdem.Command:
    """The command that kills an away player's hold'em or Omaha hand at their turn (TDA
    2024 30): a fold, even with a check free; mucked if it is their turn to show."""
    if hand.to_show == position:
        return holdem.Muck(position)
    assert hand.to_act == position, "the computer acts only on its own turn"
    return PostAction(position, FOLD)
