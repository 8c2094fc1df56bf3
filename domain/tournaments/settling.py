"""After players left or a hand ended: the queued disqualifications and moves, balancing
and breaking, hand-for-hand at the bubble, and the end of the tournament.
"""
from __future__ import annotations

import random
from dataclasses import replace
from functools import reduce

from domain.rules.violations import Violation
from domain.tournaments.bounties import BountyAward
from domain.tournaments.events import (
    BalancePending,
    BountiesWon,
    FinalTableReached,
    HandForHandStarted,
    HandForHandStopped,
    MoveCancelled,
    MoveQueued,
    PlayerDisqualified,
    PlayerMoved,
    TableBroken,
    TournamentFinished,
)
from domain.tournaments.evolver import evolve
from domain.tournaments.seating import BalancePolicy, floor_move, rebalance
from domain.tournaments.tournament import FINISHED, Tournament


def settle(state: Tournament, at: float, seed: int) -> list[object]:
    """After players left or a hand ended: the tournament's end, or the queued
    disqualifications and moves, balancing and breaking, and hand-for-hand at the bubble."""
    if state.seating.players == 1:
        return _finishing(state, at)
    events: list[object] = []
    for pending in state.pending_disqualifications:
        if pending.player_id in state.seating.where and state.seating.players > 1 \
                and state.seating.where[pending.player_id][0] not in state.hands_in_progress:
            event = disqualified(state, pending.player_id, pending.reason, at)
            events.append(event)
            state = evolve(state, event)
    if state.seating.players == 1:
        return [*events, *_finishing(state, at)]
    for queued in state.pending_moves:
        moved = _queued_move(state, queued, at)
        if moved is not None:
            events.append(moved)
            state = evolve(state, moved)
    balanced = balance(state, seed, at)
    state = reduce(evolve, balanced, state)
    # A queued move whose seat balancing or a break just gave away can never be made: cancelled
    # now, as it would be once both tables are between hands, so that its destination is
    # not held back from dealing (move_pending) for a move that cannot happen.
    lost_seats = [cancelled for pending in state.pending_moves if (cancelled := _seat_lost(state, pending))]
    return events + balanced + lost_seats + _bubble(state, at)


def _seat_lost(state: Tournament, pending: MoveQueued) -> MoveCancelled | None:
    """The cancellation of a queued move whose destination is gone (its seat taken, its
    table broken), as the move itself would be refused; None while it can still be made."""
    if pending.player_id not in state.seating.where:
        return None  # out: cancelled as player_out by the next settling
    try:
        floor_move(state.seating, pending.player_id, pending.to_table, pending.to_seat)
    except Violation as refused:
        return MoveCancelled(pending.move_id, refused.code)
    return None


def _queued_move(state: Tournament, pending: MoveQueued, at: float) -> object | None:
    if pending.player_id not in state.seating.where:
        return MoveCancelled(pending.move_id, "player_out")
    if pending.player_id in state.awaiting_players:
        return MoveCancelled(pending.move_id, "awaiting_rebuy")
    if not may_move(state, state.seating.where[pending.player_id][0], pending.to_table):
        return None
    try:
        move = floor_move(state.seating, pending.player_id, pending.to_table, pending.to_seat)
    except Violation as refused:
        return MoveCancelled(pending.move_id, refused.code)
    return PlayerMoved(move, seed=0, move_id=pending.move_id, at=at)


def _bubble(state: Tournament, at: float) -> list[object]:
    """Hand-for-hand by itself: with the setting, on when the next bust is the bubble and
    off once it has burst; however it began, off once one table is left, where every hand
    is played hand for hand anyway (a round would only hold the deals back)."""
    if state.round_busts:
        return []
    if state.hand_for_hand and state.seating.open_tables <= 1:
        return [HandForHandStopped(at)]
    if not state.required_settings.hand_for_hand_at_bubble:
        return []
    paid = len(state.payout_table())
    if not state.hand_for_hand and state.seating.players == paid + 1 and state.seating.open_tables > 1:
        return [HandForHandStarted(at)]
    if state.hand_for_hand and state.seating.players <= paid:
        return [HandForHandStopped(at)]
    return []


def balance(state: Tournament, seed: int, at: float) -> list[object]:
    settings = state.required_settings
    policy = BalancePolicy(settings.balance_tolerance, settings.break_order)
    # A table where a busted player waits to rebuy keeps its players until that is settled
    # (they count as seated; their seat is not given away).
    waiting = {state.seating.where[a.player_id][0] for a in state.awaiting_rebuy}
    result = rebalance(state.seating, random.Random(seed), policy, busy=state.hands_in_progress | waiting)
    events: list[object] = [PlayerMoved(m, seed, move_id=state.moves_queued + n, at=at)
                            for n, m in enumerate(result.moves, start=1)]
    events += [TableBroken(number, seed) for number in result.broken]
    if result.deferred != (state.balance_pending if not events else ()):
        events.append(BalancePending(result.deferred))
    if result.seating.open_tables == 1 and not state.final_table_reached:
        events.append(FinalTableReached(result.seating.open_table_numbers()[0], result.seating.players))
    return events


def _finishing(state: Tournament, at: float) -> list[object]:
    """The last player standing collects their own bounty, and the tournament is over."""
    winner = next(iter(state.seating.where))
    head = state.bounty_heads.get(winner, 0)
    own = [BountiesWon((BountyAward(winner, winner, head),), at)] if head else []
    return [*own, _finished(reduce(evolve, own, state), at)]


def _finished(state: Tournament, at: float) -> TournamentFinished:
    finished = replace(state, status=FINISHED)
    return TournamentFinished(winner=finished.finishing_order()[0].player_id, prize_pool=state.prize_pool,
                              prizes=finished.prizes(), at=at)


def disqualified(state: Tournament, player: str, reason: str, at: float) -> PlayerDisqualified:
    return PlayerDisqualified(player, reason, state.seating.players, at, state.stack_of(player))


def may_move(state: Tournament, *tables: int) -> bool:
    """Players move between hands only, and not in an unfinished hand-for-hand round."""
    if state.hand_for_hand and (state.dealt_this_round or state.round_busts):
        return False
    return not set(tables) & state.hands_in_progress
