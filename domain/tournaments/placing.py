"""Players out: their places, the bounties on them, the busted players who wait to rebuy,
and the floor's chip counts.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import reduce

from domain.tournaments.bounties import BountyAward, bust_awards, tda20_order
from domain.tournaments.commands import Bust, ChipCount, Settings
from domain.tournaments.events import BountiesWon, ChipsCounted, Elimination, PlayersEliminated, RebuyAwaited
from domain.tournaments.evolver import evolve
from domain.tournaments.payouts import RANK_SHARED, places_for_round
from domain.tournaments.settling import settle
from domain.tournaments.tournament import Tournament, rebuy_open, refuse


def place_busts(state: Tournament, busted: tuple[Bust, ...], at: float, share_all: bool) -> list[object]:
    """Players out together (one hand, or one hand-for-hand round), with their places."""
    if not busted:
        return []
    ordered = sorted(busted, key=lambda b: -b.starting_stack)
    ranking = RANK_SHARED if share_all else state.required_settings.bust_ranking
    places = places_for_round([(b.player_id, b.starting_stack, b.table) for b in ordered],
                              state.seating.players + len(state.round_busts), ranking)
    by = {b.player_id: b for b in busted}
    eliminated = PlayersEliminated(tuple(Elimination(p, place, by[p].busted_by, by[p].also_busted_by)
                                         for p, place in places), at)
    awards = _bounties_for(state, busted)
    return [eliminated, BountiesWon(awards, at)] if awards else [eliminated]


def _bounties_for(state: Tournament, busted: Iterable[Bust]) -> tuple[BountyAward, ...]:
    """The bounties of the players out, to the winners of the pots that busted them (in
    TDA 2024 20's order at the bust's table). A bust with nobody named leaves the bounty
    unclaimed (the cashier still holds it)."""
    s = state.required_settings
    if not s.bounty_kind:
        return ()
    awards: list[BountyAward] = []
    out = {b.player_id for b in busted}
    for bust in busted:
        winners = [w for w in dict.fromkeys(filter(None, (bust.busted_by, *bust.also_busted_by)))
                   if w in state.seating.where and w not in out]
        if not winners:
            continue
        table = state.seating.tables[bust.table - 1] if 0 < bust.table <= len(state.seating.tables) else None
        button = table.positions.button if table is not None and table.positions is not None else 0
        # The floor names split pots' winners at the bust's table only (eliminate_reported).
        ordered = tda20_order(winners, {w: state.seating.where[w][1] for w in winners}, button, s.table_size)
        awards += bust_awards(s.bounty_kind, state.bounty_heads.get(bust.player_id, 0), bust.player_id, ordered,
                              s.bounty_cash_percent)
    return tuple(awards)


def place_round(state: Tournament, busted: tuple[Bust, ...], at: float, share_all: bool) -> list[object]:
    """Everyone out in this hand-for-hand round, placed together (TDA 2024 RP-8-A)."""
    return place_busts(state, state.round_busts + busted, at, share_all)


def _may_rebuy(state: Tournament, settings: Settings, player: str, at: float) -> bool:
    taken = state.rebuys_by_player.get(player, 0)
    return rebuy_open(state, settings, at) and (settings.rebuys_allowed == 0 or taken < settings.rebuys_allowed)


def split_rebuyers(state: Tournament, busted: tuple[Bust, ...], at: float) -> tuple[list[object], tuple[Bust, ...]]:
    """During the rebuy period a busted player who may still rebuy keeps the seat
    (RebuyAwaited); the others are out."""
    settings = state.required_settings
    awaited = [RebuyAwaited(b.player_id, b.table, b.starting_stack, at, b.busted_by, b.also_busted_by)
               for b in busted if _may_rebuy(state, settings, b.player_id, at)]
    waiting = {a.player_id for a in awaited}
    return [*awaited], tuple(b for b in busted if b.player_id not in waiting)


def busts_of(state: Tournament, awaited: Iterable[RebuyAwaited]) -> tuple[Bust, ...]:
    return tuple(Bust(a.player_id, a.starting_stack, state.seating.where[a.player_id][0], a.busted_by,
                      a.also_busted_by) for a in awaited)


def out_after_waiting(state: Tournament, awaited: tuple[RebuyAwaited, ...], at: float, seed: int) -> list[object]:
    """Busted players who did not rebuy: placed now (below everyone still in), then the
    tables are balanced as usual."""
    placed = place_busts(state, busts_of(state, awaited), at, share_all=False)
    return placed + settle(reduce(evolve, placed, state), at, seed)


def chips_counted(state: Tournament, counts: tuple[ChipCount, ...], at: float) -> ChipsCounted:
    """Counts the floor has, for any players (a table, or a few stacks). Chips in play
    are known from the ledger, so the counts can never hold more; a whole table counted
    while every chip is accounted for (no bust's chips left uncounted) must hold exactly
    what it had."""
    names = [c.player_id for c in counts]
    if not counts or len(set(names)) != len(names):
        raise refuse("invalid_counts", "a count names each player once")
    for count in counts:
        if count.player_id not in state.seating.where:
            raise refuse("not_seated", f"player {count.player_id} is not in the tournament", player=count.player_id)
        if count.chips < 0:
            raise refuse("invalid_counts", f"{count.player_id} cannot have {count.chips} chips")
    uncounted = state.chips_in_play - state.chips_known
    change = sum(c.chips - state.stack_of(c.player_id) for c in counts)
    if change > uncounted:
        raise refuse("chips_not_conserved", f"the counts add {change} chips; only {max(uncounted, 0)} are in "
                     f"play and not yet counted ({state.chips_in_play} in play)",
                     counted=sum(c.chips for c in counts), expected=sum(state.stack_of(p) for p in names) + max(uncounted, 0),
                     chips_in_play=state.chips_in_play)
    tables = {state.seating.where[name][0] for name in names}
    if uncounted == 0 and len(tables) == 1:
        table = tables.pop()
        at_table = {p for p in state.seating.table(table).seats if p is not None}
        expected = sum(state.stack_of(p) for p in at_table)
        counted = sum(c.chips for c in counts) + sum(state.stack_of(p) for p in at_table - set(names))
        if set(names) == at_table and counted != expected:
            raise refuse("chips_not_conserved", f"table {table} counts {counted} chips; it had {expected}",
                         table=table, counted=counted, expected=expected)
    return ChipsCounted(counts, at)
