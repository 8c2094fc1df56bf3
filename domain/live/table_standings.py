"""How a table's players place: who busted whom in a hand (HandClosed.busted_by), the
standings when a table finishes, and the results rated from them."""
from __future__ import annotations

from domain.live.table_events import PotWinners, Result, Standing
from domain.live.table_state import TableState, game_rules


def busted_by(state: TableState, busted: tuple[str, ...]) -> tuple[PotWinners, ...]:
    """For each busted player, the winners of the last pot awarded that they were eligible
    for (pots are awarded main pot first: the last is the highest-numbered)."""
    awards = getattr(state.hand, "awards", ())
    named = []
    for player in busted:
        position = next(p for p, seat in enumerate(state.hand_seats) if state.players[seat] == player)
        last = next((a for a in reversed(awards) if position in a.eligible), None)
        if last is not None:
            named.append(PotWinners(player, tuple(state.players[state.hand_seats[w]] for w in last.winners)))
    return tuple(named)


def standings(state: TableState) -> tuple[Standing, ...]:
    """Players with chips first (by stack), then the eliminated by place; in a game for
    points, everyone by points. Level players share a place."""
    seats = range(len(state.players))
    if not game_rules(state.game).plays_for_chips(state.settings):
        scores = state.points or (0,) * len(state.players)
        return tuple(Standing(state.players[s], 1 + sum(1 for o in scores if o > scores[s]), state.stacks[s])
                     for s in sorted(seats, key=lambda s: (-scores[s], s)))
    alive = [s for s in seats if state.stacks[s] > 0]
    ranked = [Standing(state.players[s], 1 + sum(1 for o in alive if state.stacks[o] > state.stacks[s]),
                       state.stacks[s]) for s in sorted(alive, key=lambda s: (-state.stacks[s], s))]
    out = sorted(state.eliminated, key=lambda s: s.place)
    return tuple(ranked + out)


def results_of(final: tuple[Standing, ...]) -> tuple[Result, ...]:
    """Win for the one player in first place, draw for each of several, loss for the rest."""
    leaders = sum(1 for s in final if s.place == 1)
    return tuple(Result(s.player_id, s.place, "loss" if s.place > 1 else ("win" if leaders == 1 else "draw"))
                 for s in final)
