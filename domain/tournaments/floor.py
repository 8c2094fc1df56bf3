"""The floor's word: disqualifications, moves, hand-for-hand, the clock and undo."""
from __future__ import annotations

from dataclasses import replace
from functools import reduce

from domain.tournaments.clock import Clock, ClockAdjusted, ClockPaused, ClockResumed, LevelSet, LevelStarted, check_adjustment, read_clock
from domain.tournaments.commands import (
    TABLES_SERVICE,
    AdjustClock,
    CancelMove,
    ConfirmSeated,
    Disqualify,
    MovePlayer,
    PauseClock,
    ResumeClock,
    SetLevel,
    StartHandForHand,
    StartLevel,
    StopHandForHand,
    Undo,
)
from domain.tournaments.events import (
    BountiesReversed,
    ClockChangeUndone,
    DisqualificationQueued,
    EliminationUndone,
    HandForHandStarted,
    HandForHandStopped,
    MoveCancelled,
    MoveQueued,
    MoveSeated,
    PlayerMoved,
    RebuyTaken,
    RebuyUndone,
    RestoredSeat,
)
from domain.tournaments.evolver import evolve
from domain.tournaments.placing import place_round
from domain.tournaments.seating import floor_move
from domain.tournaments.settling import disqualified, may_move, settle
from domain.tournaments.tournament import Tournament, iso, refuse


def disqualify(state: Tournament, command: Disqualify) -> list[object]:
    if command.player_id not in state.seating.where:
        raise refuse("not_seated", f"player {command.player_id} is not in the tournament",
                     player=command.player_id)
    if state.seating.players == 1:
        raise refuse("last_player", "the last player standing cannot be disqualified")
    if state.seating.where[command.player_id][0] in state.hands_in_progress:
        if any(d.player_id == command.player_id for d in state.pending_disqualifications):
            raise refuse("already_disqualified", f"player {command.player_id} is disqualified after this hand")
        return [DisqualificationQueued(command.player_id, command.reason, command.at)]
    event = disqualified(state, command.player_id, command.reason, command.at)
    return [event, *settle(evolve(state, event), command.at, command.seed)]


def move_player(state: Tournament, command: MovePlayer) -> list[object]:
    if command.player_id in state.awaiting_players:
        raise refuse("awaiting_rebuy", f"player {command.player_id} is out of chips and keeps the seat only to "
                     "rebuy: they move once they have", player=command.player_id)
    move = floor_move(state.seating, command.player_id, command.to_table, command.to_seat)
    for pending in state.pending_moves:
        if pending.player_id == command.player_id:
            raise refuse("move_pending", f"player {command.player_id} already has move {pending.move_id} pending",
                         move_id=pending.move_id)
        if (pending.to_table, pending.to_seat) == (command.to_table, command.to_seat):
            raise refuse("seat_reserved", f"seat {command.to_seat + 1} at table {command.to_table} is kept for "
                         f"move {pending.move_id}", move_id=pending.move_id, seat=command.to_seat + 1)
    if may_move(state, move.from_table, move.to_table):
        return [PlayerMoved(move, seed=0, move_id=state.moves_queued + 1, at=command.at)]
    return [MoveQueued(state.moves_queued + 1, command.player_id, command.to_table, command.to_seat, command.at)]


def cancel_move(state: Tournament, command: CancelMove) -> list[object]:
    if not any(m.move_id == command.move_id for m in state.pending_moves):
        raise refuse("unknown_move", f"no pending move {command.move_id}", move_id=command.move_id)
    return [MoveCancelled(command.move_id, "cancelled")]


def confirm_seated(state: Tournament, command: ConfirmSeated) -> list[object]:
    call = next((c for c in state.move_calls if c.move_id == command.move_id), None)
    if call is None:
        raise refuse("unknown_move", f"no move {command.move_id} among the recent moves", move_id=command.move_id)
    if call.seated_at is not None:
        raise refuse("already_seated", f"move {command.move_id} was confirmed at {iso(call.seated_at)}",
                     move_id=command.move_id)
    return [MoveSeated(command.move_id, command.at)]


def start_hand_for_hand(state: Tournament, command: StartHandForHand) -> list[object]:
    if state.hand_for_hand:
        raise refuse("already_hand_for_hand", "hand-for-hand is already on")
    return [HandForHandStarted(command.at)]


def stop_hand_for_hand(state: Tournament, command: StopHandForHand) -> list[object]:
    if not state.hand_for_hand:
        raise refuse("not_hand_for_hand", "hand-for-hand is not on")
    # Players out in the unfinished round are placed together now.
    placed = place_round(state, (), command.at, state.announcement_round)
    stopped = HandForHandStopped(command.at)
    events = [*placed, stopped]
    return events + settle(reduce(evolve, events, state), command.at, command.seed)


def pause_clock(state: Tournament, command: PauseClock) -> list[object]:
    if state.clock.paused:
        raise refuse("clock_paused", "the clock is already paused")
    return [ClockPaused(command.at)]


def resume_clock(state: Tournament, command: ResumeClock) -> list[object]:
    if not state.clock.paused:
        raise refuse("clock_running", "the clock is not paused")
    return [ClockResumed(command.at)]


def adjust_clock(state: Tournament, command: AdjustClock) -> list[object]:
    clock = state.clock
    check_adjustment(clock, int(command.seconds), command.at)
    reading = read_clock(clock, command.at)
    assert reading.period_index is not None
    length = clock.periods[reading.period_index].length_s
    after = int(reading.remaining_s) + int(command.seconds)
    if command.seconds > 0 and after > length and not command.confirm:
        # +6000 s on a 20-minute level is a typo more often than a decision.
        raise refuse("adjust_past_level_length", f"adding {int(command.seconds)} s leaves {after} s in a "
                     f"period of {length} s: confirm it to go past the level's length",
                     seconds=int(command.seconds), remaining_s=int(reading.remaining_s), length_s=length,
                     would_leave_s=after, period=reading.period_index + 1, level=reading.level)
    return [ClockAdjusted(command.seconds, command.at)]


def _check_period(clock: Clock, period_index: int) -> None:
    if not 0 <= period_index < len(clock.periods):
        raise refuse("unknown_level", f"the structure has no period {period_index + 1}",
                     period=period_index + 1, periods=len(clock.periods))


def set_level(state: Tournament, command: SetLevel) -> list[object]:
    _check_period(state.clock, command.period_index)
    full = state.clock.periods[command.period_index].length_s
    # Back to a period the clock left early (a mistaken "next"): the time it had then
    # (TDA practice restores the level as it was); forward, or never left: its full time.
    left_with = state.left_periods.get(command.period_index)
    remaining = command.remaining_s if command.remaining_s is not None else left_with or full
    if not 0 < remaining <= full:
        raise refuse("invalid_remaining", f"a period of {full} s can have 1 to {full} s left, not {remaining}",
                     remaining_s=remaining, length_s=full)
    return [LevelSet(command.period_index, remaining, command.at)]


def start_level(state: Tournament, command: StartLevel) -> list[object]:
    _check_period(state.clock, command.period_index)
    return [LevelStarted(command.period_index, command.at)]


def undo(state: Tournament, command: Undo) -> list[object]:
    """The last elimination, rebuy or clock change, reversed by compensating events, while
    nothing later depends on it (a move, a hand dealt, a count, a finish...)."""
    settings = state.required_settings
    act = state.undoable
    if act is None:
        raise refuse("nothing_to_undo", "there is no elimination, rebuy or clock change to undo")
    if state.undo_blocked_by is not None:
        raise refuse("undo_blocked", f"the last {act.kind} cannot be undone: a {state.undo_blocked_by} "
                     "followed it", undoing=act.kind, depends=state.undo_blocked_by)
    if act.kind == "elimination":
        if settings.tables == TABLES_SERVICE:
            raise refuse("undo_blocked", "a service table decided this elimination in its hand: it stands",
                         undoing=act.kind, depends="HandFinished")
        # Each player back once (an older stream may name one twice), in the seat they left.
        seats = tuple({s.player_id: s for s in act.seats}.values())
        _check_seats_free(state, seats)
        events: list[object] = [EliminationUndone(seats, command.at)]
        if act.bounties:
            events.append(BountiesReversed(act.bounties, command.at))
        waited = {a.player_id: a for a in act.awaiting if a.player_id in {s.player_id for s in seats}}
        return events + [replace(a, at=command.at) for a in waited.values()]
    if act.kind == "rebuy":
        taken = act.event
        assert isinstance(taken, RebuyTaken)
        if state.stack_of(taken.player_id) < taken.chips:
            raise refuse("undo_blocked", f"player {taken.player_id} no longer has the {taken.chips} chips of the "
                         "rebuy", undoing=act.kind, depends="chips")
        return [RebuyUndone(taken.player_id, taken.chips, taken.count, command.at), *act.awaiting]
    assert act.clock_before is not None
    before = read_clock(act.clock_before, command.at)
    now = read_clock(state.clock, command.at)
    events = []
    if before.paused and not now.paused:
        events.append(ClockPaused(command.at))
    elif now.paused and not before.paused:
        events.append(ClockResumed(command.at))
    assert before.period_index is not None
    events.append(LevelSet(before.period_index, max(1, int(before.remaining_s)), command.at))
    return [*events, ClockChangeUndone(type(act.event).__name__, command.at)]


def _check_seats_free(state: Tournament, seats: tuple[RestoredSeat, ...]) -> None:
    """What replaying EliminationUndone needs: each player out of their seat's table still
    open, and the seat empty. The floor gives a player back the seat they left; one another
    player holds (whoever put them there) is not taken from them: the undo is refused."""
    for restored in seats:
        table = state.seating.tables[restored.table - 1] if 0 < restored.table <= len(state.seating.tables) else None
        holder = table.seats[restored.seat] if table is not None and 0 <= restored.seat < len(table.seats) else None
        why = ("the table is closed" if table is None else f"{holder} sits there" if holder is not None
               else "they are seated again" if restored.player_id in state.seating.where else "")
        if why:
            raise refuse("undo_blocked", f"player {restored.player_id} cannot be given back seat {restored.seat + 1} "
                         f"at table {restored.table}: {why}",
                         undoing="elimination", depends="seat_taken", player=restored.player_id,
                         table=restored.table, seat=restored.seat + 1, held_by=holder)
