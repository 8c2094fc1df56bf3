"""The tournament decider: registration, the draw, hands dealt with the level in force
(TDA 2024 23) and a dead button (TDA 2024 32), eliminations with balancing and breaking (TDA 2024 10,
11), hand-for-hand, the level clock, floor moves, disqualification, rebuys, add-ons and
colour-ups, finishing order and prizes, and the money (fees, a guarantee, payouts as rooms
set them, bounties and deals: docs/tournaments-money.md).

Players leave a table between hands only: balancing and breaking (after every hand's end,
elimination, disqualification or late entry) never take a player from a table with a hand
in progress; what must wait is recorded (BalancePending) and done when that table's
FinishHand arrives. A floor move (or seat change) asked while either table plays a hand
is queued (MoveQueued, with an id) and made after that hand, before the table's next
deal; a disqualification during the player's hand likewise.

Places. Players out on one hand at one table: the larger starting stack finishes higher,
equal stacks share (`bust_ranking` "starting_stack", the default; "shared" makes them all
share). Hand-for-hand, everyone out in one round is placed when the round is over: each
table's busts ranked as above, and busts of the same rank at different tables share
(one out at each of two tables: they share; two at table A and one at table B: B's
shares with A's larger stack and A's smaller stack finishes below them). Everyone out on
the hand during which hand-for-hand is announced shares, whatever the stacks (TDA 2024
RP-8-A). With `hand_for_hand_at_bubble`, hand-for-hand starts by itself when the next
bust is the bubble and stops once it has burst.

Chips. The tournament keeps every player's chips as last known: the starting stack on
entry, the stacks each hand ends with (FinishHand, from the service's tables) or the
counts the floor reports (physical tables), rebuy and add-on chips, colour-up races.
Chips in play = entries x starting stack + rebuys x rebuy chips + add-ons x add-on chips
- chips removed (colour-up races and disqualifications, each an event with its amount).
On the service's tables the chips a rebuy, add-on or race gives or takes are chip
changes (numbered) that the table applies between hands, before its next deal.

Money. The prize pool is what the prices paid in, at least the guarantee; fees and
bounties are apart. A bust pays the busted player's bounty to the winners of the pot that
busted them (BountiesWon, right after the PlayersEliminated; an undone bust compensates
it with BountiesReversed). A deal (DealRecorded) fixes what its players are paid, whatever
their places. `Tournament.prizes()` is the one place prizes are worked out.

Every random draw (seats, balancing ties, broken tables' seats, chip races) uses a seed
carried by the command and recorded in the events; replay applies the recorded seats and
never draws again. Times are seconds since the epoch, carried by the commands; problems
speak of them as ISO 8601 instants.

"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.tournaments.commands import (
    AddOn,
    AdjustClock,
    CancelMove,
    ConfirmSeated,
    CreateTournament,
    DealHand,
    DeclineRebuy,
    Disqualify,
    Eliminate,
    ExpireRebuys,
    FinishHand,
    MovePlayer,
    PauseClock,
    RaceChips,
    Rebuy,
    RecordDeal,
    Register,
    ReportChipCounts,
    ResumeClock,
    SetLevel,
    StartHandForHand,
    StartLevel,
    StartTournament,
    StopHandForHand,
    Undo,
    Unregister,
)
from domain.tournaments.creating import create
from domain.tournaments.entering import decline_rebuy, expire_rebuys, rebuy_or_add_on, record_deal, register, start, unregister
from domain.tournaments.floor import (
    adjust_clock,
    cancel_move,
    confirm_seated,
    disqualify,
    move_player,
    pause_clock,
    resume_clock,
    set_level,
    start_hand_for_hand,
    start_level,
    stop_hand_for_hand,
    undo,
)
from domain.tournaments.hands import deal_hand, eliminate_reported, finish_hand, race_chips, report_chip_counts
from domain.tournaments.tournament import RUNNING, Tournament, refuse

# Commands a tournament answers before it runs (each checks the status it needs).
BEFORE_START: dict[type, Callable[[Tournament, Any], list[object]]] = {
    Register: register,
    Unregister: unregister,
    StartTournament: start,
}
# Commands a running tournament answers.
WHILE_RUNNING: dict[type, Callable[[Tournament, Any], list[object]]] = {
    DealHand: deal_hand,
    FinishHand: finish_hand,
    Eliminate: eliminate_reported,
    ReportChipCounts: report_chip_counts,
    RaceChips: race_chips,
    Disqualify: disqualify,
    MovePlayer: move_player,
    CancelMove: cancel_move,
    StartHandForHand: start_hand_for_hand,
    StopHandForHand: stop_hand_for_hand,
    PauseClock: pause_clock,
    ResumeClock: resume_clock,
    AdjustClock: adjust_clock,
    StartLevel: start_level,
    SetLevel: set_level,
    Rebuy: rebuy_or_add_on,
    AddOn: rebuy_or_add_on,
    DeclineRebuy: decline_rebuy,
    ExpireRebuys: expire_rebuys,
    ConfirmSeated: confirm_seated,
    Undo: undo,
    RecordDeal: record_deal,
}


def decide(state: Tournament, command: object) -> list[object]:
    if isinstance(command, CreateTournament):
        return create(state, command)
    state.required_settings  # noqa: B018 - refuses a tournament not created
    before_start = BEFORE_START.get(type(command))
    if before_start is not None:
        return before_start(state, command)
    if state.status != RUNNING:
        raise refuse("not_running", f"the tournament is {state.status}, not running", status=state.status)
    handler = WHILE_RUNNING.get(type(command))
    if handler is None:
        raise refuse("unknown_command", f"unknown command {type(command).__name__}")
    return handler(state, command)
