"""Forced bets posted where a hand record puts them (PHH's `antes` and
`blinds_or_straddles`, by seat), as the mixed games' decider (domain.games.mixed) opens a
hand; hold'em's decider posts them from its betting structure (domain.rules.betting.open_hand).
"""
from __future__ import annotations

from domain.rules.betting import Amount, BettingState, BettingStructure


def post_by_position(structure: BettingStructure, players: tuple[str, ...], stacks_before: tuple[Amount, ...],
                     button: int, antes: tuple[Amount, ...], blinds: tuple[Amount, ...],
                     dead_antes: bool) -> BettingState:
    """Antes and blinds posted by position (`antes[i]`, `blinds[i]` for seat i; heads-up
    the blinds read reversed: the button posts the small one), each trimmed to the stack;
    `dead_antes`: the antes are dead money, posted after the blinds (the big-blind ante).
    The structure's own blinds and antes are unused. Nobody is to act before the cards
    are out."""
    n = len(players)
    stacks: list[Amount] = list(stacks_before)
    bets: list[Amount] = [0] * n
    committed: list[Amount] = [0] * n
    dead: Amount = 0

    def post_antes() -> Amount:
        posted: Amount = 0
        for seat, ante in enumerate(antes):
            paid = min(ante, stacks[seat])
            stacks[seat] -= paid
            if dead_antes:
                posted += paid
            else:
                committed[seat] += paid
        return posted

    if not dead_antes:
        post_antes()
    for seat, blind in enumerate(blinds[::-1] if n == 2 else blinds):
        paid = min(blind, stacks[seat])
        stacks[seat] -= paid
        bets[seat] += paid
        committed[seat] += paid
    if dead_antes:
        dead = post_antes()
    highest = max(bets)
    any_blind = highest > 0
    return BettingState(
        structure=structure, players=players, button=button,
        stacks=tuple(stacks), bets=tuple(bets), committed=tuple(committed), dead=dead,
        folded=(False,) * n, faced=(None,) * n, highest=highest,
        full_increment=structure.unit(late=False), full_level=highest,
        raises=1 if any_blind else 0, capped_multiway=False, late=False, phantom=0,
        to_act=None)
