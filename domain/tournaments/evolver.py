"""evolve: a tournament's state after one event, by a table of small functions keyed by the
event's type; and replay.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from functools import reduce
from typing import Any, TypeVar

from domain.tournaments.clock import ClockAdjusted, ClockPaused, ClockResumed, LevelSet, LevelStarted, evolve_clock, new_clock, read_clock
from domain.tournaments.commands import TABLES_SERVICE
from domain.tournaments.events import (
    AddOnTaken,
    BalancePending,
    BountiesReversed,
    BountiesWon,
    ChipChange,
    ChipsCounted,
    ChipsRaced,
    ClockChangeUndone,
    DealRecorded,
    DisqualificationQueued,
    Elimination,
    EliminationUndone,
    FinalTableReached,
    HandDealt,
    HandFinished,
    HandForHandStarted,
    HandForHandStopped,
    MoveCancelled,
    MoveQueued,
    MoveSeated,
    PlayerDisqualified,
    PlayerMoved,
    PlayerRegistered,
    PlayersBusted,
    PlayerSeated,
    PlayersEliminated,
    PlayerUnregistered,
    RebuyAwaited,
    RebuyDeclined,
    RebuyTaken,
    RebuyUndone,
    RestoredSeat,
    TableBroken,
    TournamentCreated,
    TournamentFinished,
    TournamentStarted,
)
from domain.tournaments.seating import Seat, apply_break, apply_move, apply_positions, apply_seat, empty_seating, remove_player, seated
from domain.tournaments.tournament import FINISHED, INITIAL, RECENT_MOVES, REGISTERING, RUNNING, MoveCall, Tournament, UndoableAct

K = TypeVar("K")  # a mapping's key: a player, or a period
# Events after an elimination, rebuy or clock change that leave it undoable.
UNDO_TRANSPARENT = ("LevelStarted", "MoveSeated", "BalancePending", "ClockChangeUndone", "BountiesWon")


# The instants a date can show (years 1 to 9999, UTC): every instant a tournament's clock
# reaches lies between them.
FIRST_SHOWN_INSTANT = int(datetime(1, 1, 1, tzinfo=UTC).timestamp())

LAST_SHOWN_INSTANT = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp())


def _plus(values: Mapping[str, int], key: str, amount: int) -> dict[str, int]:
    """For the small mappings (credits during a hand, rebuys and add-ons by player)."""
    changed = dict(values)
    changed[key] = changed.get(key, 0) + amount
    return changed


def _without(values: Mapping[K, int], keys: Iterable[K]) -> Mapping[K, int]:
    gone = set(keys)
    if not gone & set(values):
        return values
    return {k: v for k, v in values.items() if k not in gone}


def _changes(state: Tournament, *changes: tuple[str, int, str]) -> tuple[ChipChange, ...]:
    """Service tables apply chip changes between hands; physical tables need none."""
    if state.required_settings.tables != TABLES_SERVICE:
        return state.chip_changes
    start = len(state.chip_changes) + 1
    return state.chip_changes + tuple(ChipChange(start + i, p, amount, reason)
                                      for i, (p, amount, reason) in enumerate(c for c in changes if c[1]))


def _leaving(state: Tournament, players: Iterable[str]) -> Tournament:
    players = tuple(players)
    gone = set(players)
    return replace(
        state, stacks=state.stacks.updated(dict.fromkeys(players)),
        credits_in_hand=_without(state.credits_in_hand, players),
        awaiting_rebuy=tuple(a for a in state.awaiting_rebuy if a.player_id not in gone),
        dealt_since_bust=state.dealt_since_bust - gone,
        pending_disqualifications=tuple(d for d in state.pending_disqualifications if d.player_id not in players),
    )


def evolve(state: Tournament, event: object) -> Tournament:
    return _track_undo(state, _evolve(state, event), event)


def _track_undo(before: Tournament, after: Tournament, event: object) -> Tournament:
    """Remember the last elimination, rebuy or clock change, and what came after it."""
    if isinstance(event, PlayersEliminated):
        seats = tuple(RestoredSeat(e.player_id, *before.seating.where[e.player_id], before.stack_of(e.player_id), e.place)
                      for e in event.eliminations if e.player_id in before.seating.where)
        return replace(after, undoable=UndoableAct("elimination", event, seats=seats, awaiting=before.awaiting_rebuy),
                       undo_blocked_by=None)
    if isinstance(event, RebuyTaken):
        waited = tuple(a for a in before.awaiting_rebuy if a.player_id == event.player_id)
        return replace(after, undoable=UndoableAct("rebuy", event, awaiting=waited), undo_blocked_by=None)
    if isinstance(event, (ClockPaused, ClockResumed, ClockAdjusted, LevelSet)):
        return replace(after, undoable=UndoableAct("clock", event, clock_before=before.clock), undo_blocked_by=None)
    if isinstance(event, BountiesWon) and before.undoable is not None and before.undoable.kind == "elimination" \
            and before.undo_blocked_by is None:
        return replace(after, undoable=replace(before.undoable, bounties=before.undoable.bounties + event.awards))
    if isinstance(event, (EliminationUndone, RebuyUndone, ClockChangeUndone)):
        return replace(after, undoable=None, undo_blocked_by=None)
    if before.undoable is not None and before.undo_blocked_by is None \
            and type(event).__name__ not in UNDO_TRANSPARENT \
            and not (isinstance(event, RebuyAwaited) and before.undoable.kind != "clock"):
        return replace(after, undo_blocked_by=type(event).__name__)
    return after


def _created(state: Tournament, event: TournamentCreated) -> Tournament:
    s = event.settings
    ends = s.starts_at + sum(p.length_s for p in s.structure)
    if not FIRST_SHOWN_INSTANT <= s.starts_at <= ends <= LAST_SHOWN_INSTANT:
        # Only a tournament stored before the start was limited (CreateTournament
        # refuses it): its clock would reach instants no date shows.
        raise ValueError(f"starts_at {s.starts_at} and the structure's end {ends} lie outside "
                         f"years 1-9999 ({FIRST_SHOWN_INSTANT} to {LAST_SHOWN_INSTANT})")
    return replace(
        state, tournament_id=event.tournament_id, settings=s, status=REGISTERING,
        seating=empty_seating(s.table_size), clock=new_clock(s.structure),
    )


def _registered(state: Tournament, event: PlayerRegistered) -> Tournament:
    entries = dict(state.entries_by_player)
    entries[event.player_id] = entries.get(event.player_id, 0) + 1
    standings = tuple(e for e in state.standings if e.player_id != event.player_id)
    registered = state.registered if state.status == RUNNING else state.registered + (event.player_id,)
    settings = state.required_settings
    return replace(
        state, registered=registered, entries_by_player=entries, standings=standings,
        re_entries=state.re_entries + event.re_entry,
        bounty_heads=_plus(state.bounty_heads, event.player_id, settings.bounty)
        if settings.bounty_kind else state.bounty_heads,
    )


def _unregistered(state: Tournament, event: PlayerUnregistered) -> Tournament:
    entries = dict(state.entries_by_player)
    entries.pop(event.player_id, None)
    return replace(
        state, registered=tuple(p for p in state.registered if p != event.player_id),
        entries_by_player=entries, bounty_heads=_without(state.bounty_heads, (event.player_id,)),
    )


def _bounties_won(state: Tournament, event: BountiesWon) -> Tournament:
    heads = {**state.bounty_heads, **{a.busted: 0 for a in event.awards}}
    for award in event.awards:
        heads[award.winner] = heads.get(award.winner, 0) + award.head
    return replace(state, bounty_heads=heads, bounties_won=state.bounties_won + event.awards)


def _bounties_reversed(state: Tournament, event: BountiesReversed) -> Tournament:
    heads = dict(state.bounty_heads)
    for award in event.awards:
        heads[award.winner] -= award.head
        heads[award.busted] = heads.get(award.busted, 0) + award.cash + award.head
    # Undone while nothing followed: its awards are the ledger's last.
    return replace(state, bounty_heads=heads, bounties_won=state.bounties_won[: -len(event.awards)])


def _deal_recorded(state: Tournament, event: DealRecorded) -> Tournament:
    return replace(state, deal=event)


def _started(state: Tournament, event: TournamentStarted) -> Tournament:
    settings = state.required_settings
    seating = seated(settings.table_size, event.seats, event.buttons)
    stack = settings.starting_stack
    return replace(state, status=RUNNING, seating=seating, final_table_reached=seating.open_tables == 1,
                   stacks=state.stacks.updated({seat.player_id: stack for seat in event.seats}))


def _level_set(state: Tournament, event: LevelSet) -> Tournament:
    left = read_clock(state.clock, event.at)
    periods = dict(state.left_periods)
    if left.period_index is not None and left.period_index != event.period_index:
        periods[left.period_index] = int(left.remaining_s)
    periods.pop(event.period_index, None)
    return replace(state, clock=evolve_clock(state.clock, event), left_periods=periods)


def _level_started(state: Tournament, event: LevelStarted) -> Tournament:
    return replace(state, clock=evolve_clock(state.clock, event),
                   left_periods=_without(state.left_periods, (event.period_index,)))


def _clock_changed(state: Tournament, event: ClockPaused | ClockResumed | ClockAdjusted) -> Tournament:
    return replace(state, clock=evolve_clock(state.clock, event))


def _rebuy_awaited(state: Tournament, event: RebuyAwaited) -> Tournament:
    return replace(state, awaiting_rebuy=state.awaiting_rebuy + (event,),
                   stacks=state.stacks.updated({event.player_id: 0}),
                   credits_in_hand=_without(state.credits_in_hand, (event.player_id,)))


def _unchanged(state: Tournament, event: RebuyDeclined | ClockChangeUndone) -> Tournament:
    return state


def _move_seated(state: Tournament, event: MoveSeated) -> Tournament:
    return replace(state, move_calls=tuple(replace(c, seated_at=event.at) if c.move_id == event.move_id else c
                                           for c in state.move_calls))


def _elimination_undone(state: Tournament, event: EliminationUndone) -> Tournament:
    seating = state.seating
    for restored in event.seats:
        seating = apply_seat(seating, Seat(restored.player_id, restored.table, restored.seat))
    back = {(r.player_id, r.place) for r in event.seats}
    return replace(state, seating=seating, standings=tuple(e for e in state.standings
                                                           if (e.player_id, e.place) not in back),
                   stacks=state.stacks.updated({r.player_id: r.chips for r in event.seats}))


def _rebuy_undone(state: Tournament, event: RebuyUndone) -> Tournament:
    player = event.player_id
    in_hand = state.credits_in_hand.get(player, 0) >= event.chips
    return replace(
        state, rebuys=state.rebuys - event.count,
        rebuys_by_player=_plus(state.rebuys_by_player, player, -event.count),
        credits_in_hand=_plus(state.credits_in_hand, player, -event.chips) if in_hand else state.credits_in_hand,
        stacks=state.stacks if in_hand else state.stacks.updated({player: state.stacks.get(player, 0) - event.chips}),
        chip_changes=_changes(state, (player, -event.chips, "rebuy undone")),
    )


def _seated(state: Tournament, event: PlayerSeated) -> Tournament:
    return replace(state, seating=apply_seat(state.seating, event.seat),
                   stacks=state.stacks.updated({event.seat.player_id: state.required_settings.starting_stack}))


def _hand_dealt(state: Tournament, event: HandDealt) -> Tournament:
    waiting_here = {a.player_id for a in state.awaiting_rebuy if state.seating.where[a.player_id][0] == event.table}
    return replace(
        state, dealt_since_bust=state.dealt_since_bust | waiting_here,
        seating=apply_positions(state.seating, event.table, event.positions),
        hands_in_progress=state.hands_in_progress | {event.table},
        dealt_this_round=state.dealt_this_round | {event.table} if state.hand_for_hand else frozenset(),
    )


def _hand_finished(state: Tournament, event: HandFinished) -> Tournament:
    # The table's chips after the hand; rebuys and add-ons taken during it are added
    # to the table before its next deal.
    # The table's own seats, not a scan of every player's (10,000 players, 9 seats).
    seats = state.seating.tables[event.table - 1] if 0 < event.table <= len(state.seating.tables) else None
    at_table = [] if seats is None else [p for p in seats.seats if p is not None]
    stacks: dict[str, int | None] = {c.player_id: c.chips for c in event.stacks}
    for player in at_table:
        chips = stacks[player] if player in stacks else state.stacks.get(player, 0)
        stacks[player] = (chips or 0) + state.credits_in_hand.get(player, 0)
    return _round_checked(replace(
        state, hands_in_progress=state.hands_in_progress - {event.table}, stacks=state.stacks.updated(stacks),
        credits_in_hand=_without(state.credits_in_hand, at_table),
    ))


def _busted(state: Tournament, event: PlayersBusted) -> Tournament:
    seating = state.seating
    for bust in event.busted:
        seating = remove_player(seating, bust.player_id)
    return _leaving(replace(state, seating=seating, round_busts=state.round_busts + event.busted),
                    (b.player_id for b in event.busted))


def _eliminated(state: Tournament, event: PlayersEliminated) -> Tournament:
    seating = state.seating
    for elimination in event.eliminations:
        if elimination.player_id in seating.where:  # round busts already left their seats
            seating = remove_player(seating, elimination.player_id)
    return _leaving(replace(state, seating=seating, standings=state.standings + event.eliminations,
                            round_busts=(), announcement_round=False),
                    (e.player_id for e in event.eliminations))


def _disqualified(state: Tournament, event: PlayerDisqualified) -> Tournament:
    return _leaving(replace(
        state, seating=remove_player(state.seating, event.player_id),
        standings=state.standings + (Elimination(event.player_id, event.place),),
        chips_removed=state.chips_removed + event.chips_removed,
    ), (event.player_id,))


def _disqualification_queued(state: Tournament, event: DisqualificationQueued) -> Tournament:
    return replace(state, pending_disqualifications=state.pending_disqualifications + (event,))


def _moved(state: Tournament, event: PlayerMoved) -> Tournament:
    pending = state.balance_pending if event.move.reason == "floor" else ()
    m = event.move
    calls = state.move_calls
    if event.move_id:
        calls = (calls + (MoveCall(event.move_id, m.player_id, m.from_table, m.from_seat, m.to_table, m.to_seat,
                                   m.reason, event.at),))[-RECENT_MOVES:]
    return replace(state, seating=apply_move(state.seating, event.move), balance_pending=pending,
                   pending_moves=tuple(m for m in state.pending_moves if m.move_id != event.move_id),
                   move_calls=calls, moves_queued=max(state.moves_queued, event.move_id))


def _move_queued(state: Tournament, event: MoveQueued) -> Tournament:
    return replace(state, pending_moves=state.pending_moves + (event,), moves_queued=event.move_id)


def _move_cancelled(state: Tournament, event: MoveCancelled) -> Tournament:
    return replace(state, pending_moves=tuple(m for m in state.pending_moves if m.move_id != event.move_id))


def _balance_pending(state: Tournament, event: BalancePending) -> Tournament:
    return replace(state, balance_pending=event.tables)


def _table_broken(state: Tournament, event: TableBroken) -> Tournament:
    return _round_checked(replace(
        state, seating=apply_break(state.seating, event.table),
        dealt_this_round=state.dealt_this_round - {event.table}, balance_pending=(),
    ))


def _final_table(state: Tournament, event: FinalTableReached) -> Tournament:
    return replace(state, final_table_reached=True)


def _hand_for_hand_started(state: Tournament, event: HandForHandStarted) -> Tournament:
    # The hands being played when it is announced are its first round (TDA 2024 RP-8-A).
    return replace(state, hand_for_hand=True, dealt_this_round=state.hands_in_progress,
                   announcement_round=bool(state.hands_in_progress))


def _hand_for_hand_stopped(state: Tournament, event: HandForHandStopped) -> Tournament:
    return replace(state, hand_for_hand=False, dealt_this_round=frozenset(), announcement_round=False)


def _credited(state: Tournament, player: str, chips: int, **counts: Any) -> Tournament:
    """Chips bought: on the table now, or (during the player's hand) after it."""
    if state.seating.where[player][0] in state.hands_in_progress:
        return replace(state, credits_in_hand=_plus(state.credits_in_hand, player, chips), **counts)
    return replace(state, stacks=state.stacks.updated({player: state.stacks.get(player, 0) + chips}), **counts)


def _rebuy_taken(state: Tournament, event: RebuyTaken) -> Tournament:
    player = event.player_id
    return _credited(
        state, player, event.chips, rebuys=state.rebuys + event.count,
        rebuys_by_player=_plus(state.rebuys_by_player, player, event.count),
        chip_changes=_changes(state, (player, event.chips, "rebuy")),
        awaiting_rebuy=tuple(a for a in state.awaiting_rebuy if a.player_id != player),
        dealt_since_bust=state.dealt_since_bust - {player},
    )


def _add_on_taken(state: Tournament, event: AddOnTaken) -> Tournament:
    player = event.player_id
    return _credited(
        state, player, event.chips, add_ons=state.add_ons + 1,
        add_ons_by_player=_plus(state.add_ons_by_player, player, 1),
        chip_changes=_changes(state, (player, event.chips, "add-on")),
    )


def _counted(state: Tournament, event: ChipsCounted) -> Tournament:
    return replace(state, stacks=state.stacks.updated({c.player_id: c.chips for c in event.counts}))


def _raced(state: Tournament, event: ChipsRaced) -> Tournament:
    return replace(
        state, stacks=state.stacks.updated({r.player_id: r.after for r in event.stacks}),
        chips_removed=state.chips_removed + event.removed,
        smallest_chip={**state.smallest_chip, event.table: event.smallest},
        chip_changes=_changes(state, *((r.player_id, r.after - r.before, "colour-up") for r in event.stacks)),
    )


def _finished(state: Tournament, event: TournamentFinished) -> Tournament:
    return replace(state, status=FINISHED, final_prizes=event.prizes)


# Each event type's own step; every type of EVENT_TYPES has one.
EVOLVERS: dict[type, Callable[[Tournament, Any], Tournament]] = {
    TournamentCreated: _created,
    PlayerRegistered: _registered,
    PlayerUnregistered: _unregistered,
    BountiesWon: _bounties_won,
    BountiesReversed: _bounties_reversed,
    DealRecorded: _deal_recorded,
    TournamentStarted: _started,
    LevelSet: _level_set,
    LevelStarted: _level_started,
    ClockPaused: _clock_changed,
    ClockResumed: _clock_changed,
    ClockAdjusted: _clock_changed,
    RebuyAwaited: _rebuy_awaited,
    RebuyDeclined: _unchanged,
    ClockChangeUndone: _unchanged,
    MoveSeated: _move_seated,
    EliminationUndone: _elimination_undone,
    RebuyUndone: _rebuy_undone,
    PlayerSeated: _seated,
    HandDealt: _hand_dealt,
    HandFinished: _hand_finished,
    PlayersBusted: _busted,
    PlayersEliminated: _eliminated,
    PlayerDisqualified: _disqualified,
    DisqualificationQueued: _disqualification_queued,
    PlayerMoved: _moved,
    MoveQueued: _move_queued,
    MoveCancelled: _move_cancelled,
    BalancePending: _balance_pending,
    TableBroken: _table_broken,
    FinalTableReached: _final_table,
    HandForHandStarted: _hand_for_hand_started,
    HandForHandStopped: _hand_for_hand_stopped,
    RebuyTaken: _rebuy_taken,
    AddOnTaken: _add_on_taken,
    ChipsCounted: _counted,
    ChipsRaced: _raced,
    TournamentFinished: _finished,
}


def _evolve(state: Tournament, event: object) -> Tournament:
    step = EVOLVERS.get(type(event))
    if step is None:
        raise TypeError(f"unknown event {type(event).__name__}")
    return step(state, event)


def _round_checked(state: Tournament) -> Tournament:
    """Hand-for-hand: once every table that can play has played this round's hand and
    none is still playing, the next round begins."""
    # Judged on the open tables only in a round (hand-for-hand) that no table still plays.
    if not state.dealt_this_round or state.hands_in_progress:
        return state
    playing = {n for n in state.seating.open_table_numbers() if state.seating.counts[n - 1] >= 2}
    if state.dealt_this_round >= playing:
        return replace(state, dealt_this_round=frozenset(), announcement_round=False)
    return state


def replay(events: Iterable[object]) -> Tournament:
    return reduce(evolve, events, INITIAL)
