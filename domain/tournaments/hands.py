"""The tables' hands: the deal, the hand's end with its busts, busts and counts the floor
reports, and colour-up races.
"""
from __future__ import annotations

import random
from dataclasses import replace
from functools import reduce

from domain.tournaments.chips import chip_race
from domain.tournaments.clock import read_clock
from domain.tournaments.commands import TABLES_PHYSICAL, Bust, ChipCount, DealHand, Eliminate, FinishHand, RaceChips, ReportChipCounts
from domain.tournaments.events import ChipsRaced, HandDealt, HandFinished, PlayersBusted
from domain.tournaments.evolver import evolve
from domain.tournaments.placing import busts_of, chips_counted, place_busts, place_round, split_rebuyers
from domain.tournaments.seating import next_positions
from domain.tournaments.settling import settle
from domain.tournaments.tournament import Tournament, refuse


def deal_hand(state: Tournament, command: DealHand) -> list[object]:
    table = state.seating.table(command.table)
    if command.table in state.hands_in_progress:
        raise refuse("hand_in_progress", f"table {command.table} is already playing a hand", table=command.table)
    if state.hand_for_hand and command.table in state.dealt_this_round:
        raise refuse("hand_for_hand", f"table {command.table} waits for every table to finish this hand",
                     table=command.table)
    reading = read_clock(state.clock, command.at)
    if reading.on_break or reading.paused:
        raise refuse("clock_stopped", "no hand is dealt on a break or while the clock is paused",
                     on_break=reading.on_break, paused=reading.paused)
    due = state.colour_up_due(command.table, command.at)
    if due is not None:
        raise refuse("colour_up_due", f"table {command.table} races off its chips below {due} before its next hand",
                     table=command.table, colour_up=due)
    for move in state.pending_moves:
        mover = state.seating.where.get(move.player_id)
        tables = {move.to_table, mover[0] if mover else move.to_table}
        if command.table in tables and tables & state.hands_in_progress:
            raise refuse("move_pending", f"table {command.table} waits for the hand at table "
                         f"{min(tables & state.hands_in_progress)} to move {move.player_id}",
                         table=command.table, move_id=move.move_id)
    assert table.positions is not None and reading.period_index is not None
    # A busted player waiting to rebuy keeps the seat but has no chips to be dealt in.
    waiting = state.awaiting_players
    positions = next_positions(tuple(None if p in waiting else p for p in table.seats), table.positions)
    return [HandDealt(command.table, positions, reading.period_index, command.at)]


def finish_hand(state: Tournament, command: FinishHand) -> list[object]:
    if command.table not in state.hands_in_progress:
        raise refuse("no_hand_in_progress", f"table {command.table} has no hand in progress", table=command.table)
    _check_hand_report(state, command)
    # A player who rebought during the hand plays on with those chips.
    busted = tuple(replace(b, table=command.table) for b in command.busted
                   if not state.credits_in_hand.get(b.player_id))
    finished = HandFinished(command.table, command.at, command.stacks)
    after = evolve(state, finished)
    if not state.hand_for_hand:
        # Busted earlier and not rebought by the end of this, the next hand at their table.
        waited = tuple(a for a in after.awaiting_rebuy if a.player_id in after.dealt_since_bust
                       and after.seating.where[a.player_id][0] == command.table)
        events: list[object] = [finished, *place_busts(after, busts_of(after, waited), command.at, share_all=False)]
        after = reduce(evolve, events[1:], after)
        awaited, out = split_rebuyers(after, busted, command.at)
        placed = [*awaited, *place_busts(reduce(evolve, awaited, after), out, command.at, share_all=False)]
        events += placed
        after = reduce(evolve, placed, after)
        return events + settle(after, command.at, command.seed)
    if after.dealt_this_round:
        # Hand-for-hand, other tables still play this round: out now, placed at its end;
        # nobody moves until then (a moved player could play the round's hand twice).
        return [finished, PlayersBusted(busted, command.at)] if busted else [finished]
    placed = place_round(after, busted, command.at, state.announcement_round)
    events = [finished, *placed]
    return events + settle(reduce(evolve, placed, after), command.at, command.seed)


def _check_hand_report(state: Tournament, command: FinishHand) -> None:
    """What the table says of its hand names each of its players at most once among the
    busted and once among the stacks; a busted player ends it with no chips, and a player
    waiting to rebuy (not dealt in) cannot bust."""
    table = command.table
    named: tuple[Bust | ChipCount, ...] = (*command.busted, *command.stacks)
    for name in named:
        where = state.seating.where.get(name.player_id)
        if where is None or where[0] != table:
            raise refuse("not_seated", f"player {name.player_id} is not at table {table}",
                         table=table, player=name.player_id)
    for listed in (command.busted, command.stacks):
        seen: set[str] = set()
        for name in listed:
            if name.player_id in seen:
                raise refuse("duplicate_player", f"player {name.player_id} is named twice in table {table}'s "
                             "report of its hand", table=table, player=name.player_id)
            seen.add(name.player_id)
    busted = {b.player_id for b in command.busted}
    for count in command.stacks:
        if count.chips < 0 or (count.chips and count.player_id in busted):
            code, rule = ("invalid_counts", "a stack is not negative") if count.chips < 0 else \
                ("busted_with_chips", "a busted player ends the hand with no chips")
            raise refuse(code, f"{rule}: player {count.player_id} has {count.chips}", table=table,
                         player=count.player_id, chips=count.chips)
    waiting = sorted(busted & state.awaiting_players)
    if waiting:
        raise refuse("awaiting_rebuy", f"player {waiting[0]} is waiting to rebuy and was not dealt in: they "
                     "cannot bust in this hand", table=table, player=waiting[0])


def eliminate_reported(state: Tournament, command: Eliminate) -> list[object]:
    """Busts reported by the floor: refused for anyone who still has chips (on the
    service's tables every bust is the table's own report, so a player there always has)."""
    settings = state.required_settings
    if not command.busted:
        raise refuse("nobody_busted", "an elimination names at least one player")
    names = [b.player_id for b in command.busted]
    if len(set(names)) != len(names):
        raise refuse("duplicate_player", "a player is listed twice among the busted")
    for name in names:
        if name not in state.seating.where:
            raise refuse("not_seated", f"player {name} is not in the tournament", player=name)
    for bust in command.busted:
        for winner in (bust.busted_by, *bust.also_busted_by):
            if winner is not None and (winner in names or winner not in state.seating.where):
                raise refuse("invalid_busted_by", f"{winner} is not a player still in who could bust "
                             f"{bust.player_id}", player=bust.player_id, busted_by=winner)
        if bust.also_busted_by and any(state.seating.where[w][0] != state.seating.where[bust.player_id][0]
                                       for w in (bust.busted_by, *bust.also_busted_by) if w is not None):
            raise refuse("invalid_busted_by", f"the winners of the pot that busted {bust.player_id} sit at "
                         "their table", player=bust.player_id)
        if settings.bounty_kind and settings.tables == TABLES_PHYSICAL and bust.busted_by is None:
            raise refuse("busted_by_required", f"a bounty is on {bust.player_id}'s head: name who busted them",
                         player=bust.player_id)
    events: list[object] = []
    if command.counts:
        if settings.tables != TABLES_PHYSICAL:
            raise refuse("service_tables", "the service deals this tournament's tables and knows their chips")
        events.append(chips_counted(state, command.counts, command.at))
        state = evolve(state, events[0])
    if settings.tables != TABLES_PHYSICAL:
        # A service table reports its own busts; the floor names only players it shows out.
        for name in names:
            if state.stack_of(name) > 0:
                raise refuse("player_has_chips", f"player {name} still has {state.stack_of(name)} chips: "
                             "a player is out once they have none", player_id=name, stack=state.stack_of(name))
    for name in names:
        if name in state.awaiting_players:
            raise refuse("awaiting_rebuy", f"player {name} is out of chips and may still rebuy: "
                         "decline the rebuy instead", player=name)
    if len(names) >= state.players_with_chips:
        raise refuse("last_player", "the last player standing cannot be eliminated")
    # Physical tables: the floor's word is the fact; the player's chips went to someone at
    # the table and are counted when the floor next counts (chips in play stay exact).
    busted = tuple(replace(b, table=state.seating.where[b.player_id][0],
                           starting_stack=b.starting_stack or state.stack_of(b.player_id))
                   for b in command.busted)
    awaited, out = split_rebuyers(state, busted, command.at)
    placed = [*awaited, *place_busts(reduce(evolve, awaited, state), out, command.at, share_all=False)]
    return events + placed + settle(reduce(evolve, placed, state), command.at, command.seed)


def report_chip_counts(state: Tournament, command: ReportChipCounts) -> list[object]:
    if state.required_settings.tables != TABLES_PHYSICAL:
        raise refuse("service_tables", "the service deals this tournament's tables and knows their chips")
    return [chips_counted(state, command.counts, command.at)]


def race_chips(state: Tournament, command: RaceChips) -> list[object]:
    settings = state.required_settings
    seating_table = state.seating.table(command.table)
    due = state.colour_up_due(command.table, command.at)
    if due is None:
        raise refuse("no_colour_up_due", f"table {command.table} has no colour-up due", table=command.table)
    if command.table in state.hands_in_progress:
        raise refuse("hand_in_progress", f"table {command.table} races its chips between hands", table=command.table)
    smallest = state.smallest_chip.get(command.table, settings.denominations[0])
    stacks = [(seat, p, state.stack_of(p)) for seat, p in enumerate(seating_table.seats) if p is not None]
    raced = chip_race(stacks, smallest, due, random.Random(command.seed))
    removed = sum(r.before - r.after for r in raced)
    return [ChipsRaced(command.table, smallest, due, raced, removed, command.seed, command.at)]
