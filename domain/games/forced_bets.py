"""Forced bets posted where a hand record puts them (PHH's `antes` and
`blinds_or_straddles`, by seat), as the mixed games' decider (domain.games.mixed) opens a
hand unless it posts the structure's own (domain.rules.betting.open_hand, hold'em's).
"""
from __future__ import annotations

from domain.rules.betting import Amount, BettingState, BettingStructure, next_to_act, with_changes


def post_by_position(structure: BettingStructure, players: tuple[str, ...], stacks_before: tuple[Amount, ...],
                     button: int, antes: tuple[Amount, ...], blinds: tuple[Amount, ...],
                     dead_antes: bool) -> BettingState:
    """Antes and blinds posted by position (`antes[i]`, `blinds[i]` for seat i; heads-up
    the blinds read reversed: the button posts the small one), each trimmed to the stack;
    `dead_antes`: the antes are dead money, posted after the blinds (the big-blind ante).
    The structure's own blinds and antes are unused. `to_act`: the first round's opener,
    the seat after the biggest blind (the last of equal ones; the button's left without),
    as domain.rules.betting.open_hand gives it."""
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
    posted = BettingState(
        structure=structure, players=players, button=button,
        stacks=tuple(stacks), bets=tuple(bets), committed=tuple(committed), dead=dead,
        folded=(False,) * n, faced=(None,) * n, highest=highest,
        full_increment=structure.unit(late=False), full_level=highest,
        raises=1 if any_blind else 0, capped_multiway=False, late=False, phantom=0,
        to_act=None)
    after = max(range(n), key=lambda seat: (bets[seat], seat)) if any_blind else button
    return with_changes(posted, to_act=next_to_act(posted, after))
