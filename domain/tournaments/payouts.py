"""Prize pool, payout table (percentages, fixed amounts or the field-size preset), places
shared by players busting on the same hand, and the figures of a deal at the end (ICM and
chip chop).

Remainder rule (running-events.md): each place gets its percentage of the pool rounded
down to the payout unit (a house setting, default 1); everything left over goes to first
place. The amounts then sum to the pool exactly and never increase down the table. Fixed
amounts are paid as set; a pool larger than their sum pays the rest to first place.
Splitting shared places: equal shares, the odd chips one each to the players in the order
given (the tournament passes the larger starting stack first).

The preset by field size (the project's own formula, not a vendor's table): a field of N
entries pays P = ceil(N * 15 / 100) places (at least one), and place k of P is paid in
proportion to 1/k: its percentage is 100 * (1/k) / (1 + 1/2 + ... + 1/P), exact.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from math import ceil
from typing import Any

from domain.rules.betting import chips
from domain.rules.violations import Violation

RANK_SHARED = "shared"  # busting on the same hand shares the places reached
RANK_BY_STARTING_STACK = "starting_stack"  # the larger stack at the start of the hand places higher (default)


def prize_pool(
    buy_in: int,
    entries: int,
    re_entries: int = 0,
    rebuys: int = 0,
    rebuy_price: int = 0,
    add_ons: int = 0,
    add_on_price: int = 0,
) -> int:
    """The chips paid out: every entry and re-entry at the buy-in, plus rebuys and add-ons
    (fees are not part of these prices)."""
    figures = (buy_in, entries, re_entries, rebuys, rebuy_price, add_ons, add_on_price)
    if any(figure < 0 for figure in figures):
        raise Violation("invalid_prize_pool", "buy-ins, prices and counts cannot be negative")
    return buy_in * (entries + re_entries) + rebuys * rebuy_price + add_ons * add_on_price


def parse_percentages(percentages: Sequence[int | str | Fraction]) -> tuple[Fraction, ...]:
    """Percentages by place, exact: they must sum to 100 and never increase."""
    exact = tuple(Fraction(p) for p in percentages)
    if not exact:
        raise Violation("invalid_payouts", "a payout table pays at least one place")
    if any(p <= 0 for p in exact):
        raise Violation("invalid_payouts", "every paid place gets a positive percentage")
    if sum(exact) != 100:
        raise Violation(
            "invalid_payouts",
            f"the payout percentages sum to {float(sum(exact)):g}, not 100",
            numbers={"sum": float(sum(exact))},
        )
    for place, (higher, lower) in enumerate(zip(exact, exact[1:]), start=2):
        if lower > higher:
            raise Violation(
                "invalid_payouts",
                f"place {place} would pay {float(lower):g}%, more than place {place - 1}'s {float(higher):g}%",
                numbers={"place": place},
            )
    return exact


def payout_amounts(pool: int, percentages: Sequence[int | str | Fraction], unit: int = 1) -> tuple[int, ...]:
    """Amounts by place, each a multiple of `unit` but first place's, summing to `pool`
    exactly (remainder rule above)."""
    exact = parse_percentages(percentages)
    if unit < 1:
        raise Violation("invalid_payouts", f"the payout unit is at least 1, not {unit}", numbers={"unit": unit})
    amounts = [pool * p.numerator // (100 * p.denominator) // unit * unit for p in exact]
    amounts[0] += pool - sum(amounts)
    return tuple(amounts)


def parse_fixed_amounts(amounts: Sequence[int]) -> tuple[int, ...]:
    """Fixed amounts by place: at least one, positive, never increasing."""
    if not amounts:
        raise Violation("invalid_payouts", "a payout table pays at least one place")
    if any(a <= 0 for a in amounts):
        raise Violation("invalid_payouts", "every paid place gets a positive amount")
    for place, (higher, lower) in enumerate(zip(amounts, amounts[1:]), start=2):
        if lower > higher:
            raise Violation("invalid_payouts", f"place {place} would pay {lower}, more than place {place - 1}'s "
                            f"{higher}", numbers={"place": place, "amount": lower, "above": higher})
    return tuple(amounts)


def fixed_payout_amounts(pool: int, amounts: Sequence[int]) -> tuple[int, ...]:
    """The fixed amounts, the pool's excess over them to first place. The pool is never
    less than their sum: the tournament counts them as a guarantee."""
    fixed = parse_fixed_amounts(amounts)
    if pool < sum(fixed):
        raise Violation("invalid_payouts", f"the pool {chips(pool)} is less than the fixed amounts' {chips(sum(fixed))}",
                        numbers={"pool": pool, "fixed": sum(fixed)})
    return (fixed[0] + pool - sum(fixed), *fixed[1:])


PRESET_PAID_PERCENT = 15  # the preset pays about this share of the field


def preset_percentages(entries: int) -> tuple[Fraction, ...]:
    """The preset payout table for a field of `entries` (the formula above)."""
    paid = max(1, ceil(entries * PRESET_PAID_PERCENT / 100))
    harmonic = sum(Fraction(1, k) for k in range(1, paid + 1))
    return tuple(100 * Fraction(1, k) / harmonic for k in range(1, paid + 1))


def places_for_bust(
    busted: Sequence[tuple[str, int]], players_before: int, ranking: str = RANK_SHARED
) -> tuple[tuple[str, int], ...]:
    """Finishing places of players who bust on the same hand, given as (player, starting
    stack for that hand) with `players_before` left before the hand. They reach places
    players_before - k + 1 .. players_before. Shared: all take the best of them; by
    starting stack: the larger stack places higher and equal stacks share."""
    return places_for_round([(player, stack, 0) for player, stack in busted], players_before, ranking)


def places_for_round(
    busted: Sequence[tuple[str, int, int]], players_before: int, ranking: str = RANK_BY_STARTING_STACK
) -> tuple[tuple[str, int], ...]:
    """Places of players out together, given as (player, starting stack, table): on one
    hand at one table, or in one hand-for-hand round at several. At each table the larger
    starting stack finishes higher and equal stacks share; busts of the same rank at
    different tables share (TDA 2024 RP-8-A: out in the same hand-for-hand round at
    different tables, they tie). Shared ranking: everybody shares the best place reached.
    Best place first; the order given is kept among players sharing a place."""
    if not busted:
        return ()
    best = players_before - len(busted) + 1
    if ranking == RANK_SHARED:
        return tuple((player, best) for player, _, _ in busted)
    if ranking != RANK_BY_STARTING_STACK:
        raise Violation("invalid_setting", f"unknown bust ranking {ranking!r}")
    rank: dict[str, int] = {}
    for table in {t for _, _, t in busted}:
        stacks = sorted({stack for _, stack, t in busted if t == table}, reverse=True)
        for player, stack, t in busted:
            if t == table:
                rank[player] = stacks.index(stack)
    ordered = sorted(busted, key=lambda entry: rank[entry[0]])
    places: list[tuple[str, int]] = []
    for index, (player, _, _) in enumerate(ordered):
        tied_with_previous = index > 0 and rank[player] == rank[ordered[index - 1][0]]
        places.append((player, places[-1][1] if tied_with_previous else best + index))
    return tuple(places)


def prizes_for_places(amounts: Sequence[int], places: Sequence[int]) -> tuple[int, ...]:
    """Each player's prize for the places given (players sharing a place p, g of them,
    split the amounts of places p .. p + g - 1 equally; unpaid places are worth 0)."""
    prizes = [0] * len(places)
    groups: dict[int, list[int]] = {}
    for index, place in enumerate(places):
        groups.setdefault(place, []).append(index)
    for place, members in groups.items():
        reached = range(place, place + len(members))
        pot = sum(amounts[p - 1] for p in reached if 0 < p <= len(amounts))
        share, odd = divmod(pot, len(members))
        for rank, index in enumerate(members):
            prizes[index] = share + (1 if rank < odd else 0)
    return tuple(prizes)


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[float, ...]:
    """Malmuth-Harville: the chance to finish in each place is the stack's share of the
    chips still in play, place by place. Exponential in the players: for a final table."""
    if len(stacks) > 12:
        raise Violation("too_many_players", "an ICM chop is for at most 12 players")
    if any(s <= 0 for s in stacks):
        raise Violation("invalid_stacks", "every player in a chop has chips")
    paid = tuple(prizes[: len(stacks)])
    total_players = len(stacks)

    @cache
    def equity_from(remaining: frozenset[int]) -> tuple[float, ...]:
        # Expected prize of each player when the places from `place` on are still open.
        place = total_players - len(remaining)
        result = [0.0] * total_players
        if place >= len(paid) or not remaining:
            return tuple(result)
        chips = sum(stacks[i] for i in remaining)
        for winner in remaining:
            chance = stacks[winner] / chips
            result[winner] += chance * paid[place]
            for i, value in enumerate(equity_from(remaining - {winner})):
                result[i] += chance * value
        return tuple(result)

    return equity_from(frozenset(range(total_players)))


def icm_chop(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[int, ...]:
    """Whole-chip ICM deal summing exactly to the prizes still to pay: floors, then the
    leftover chips to the largest fractional parts (larger stack first on equal parts)."""
    equities = icm_equities(stacks, prizes)
    amounts = [int(e) for e in equities]
    left = sum(prizes[: len(stacks)]) - sum(amounts)
    order = sorted(range(len(stacks)), key=lambda i: (-(equities[i] - amounts[i]), -stacks[i], i))
    for index in order[:left]:
        amounts[index] += 1
    return tuple(amounts)


def chip_chop(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[int, ...]:
    """The chip chop among the players left: each gets the smallest prize still open plus
    a share of the rest in proportion to their chips, never more than first prize (what a
    share would pay beyond it goes to the others, by their chips). Whole chips summing to
    the prizes still to pay: floors, then the chips left one each to the largest fractional
    parts (the larger stack first on equal parts)."""
    if any(s <= 0 for s in stacks):
        raise Violation("invalid_stacks", "every player in a chop has chips")
    paid = list(prizes[: len(stacks)]) + [0] * max(0, len(stacks) - len(prizes))
    floor_prize, first = paid[-1], paid[0]
    exact = [Fraction(floor_prize)] * len(stacks)
    rest = Fraction(sum(paid) - floor_prize * len(stacks))
    open_players = set(range(len(stacks)))
    while rest > 0 and open_players:
        chips = sum(stacks[i] for i in open_players)
        shares = {i: rest * stacks[i] / chips for i in open_players}
        capped = {i for i in open_players if exact[i] + shares[i] >= first}
        if not capped:
            for i, share in shares.items():
                exact[i] += share
            break
        for i in capped:
            rest -= first - exact[i]
            exact[i] = Fraction(first)
        open_players -= capped
    amounts = [int(e) for e in exact]
    left = sum(paid) - sum(amounts)
    order = sorted(range(len(stacks)), key=lambda i: (-(exact[i] - amounts[i]), -stacks[i], i))
    for index in order[:left]:
        amounts[index] += 1
    return tuple(amounts)


def icm_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """A deal at the end of a tournament (the optional ICM chop): each player's ICM equity
    in the prizes still to pay, and the whole-chip deal that adds up to exactly those.
    request: {"stacks": {player: chips}, "prizes": [first place, second, ...]}; places
    beyond the prizes pay nothing, prizes beyond the players are not in the deal."""
    stacks: Mapping[str, int] = request["stacks"]
    prizes: Sequence[int] = request["prizes"]
    if len(stacks) < 2:
        raise Violation("invalid_stacks", f"a chop is between 2 players or more, not {len(stacks)}",
                        numbers={"players": len(stacks)})
    if any(prize < 0 for prize in prizes) or any(later > earlier for earlier, later in zip(prizes, prizes[1:])):
        raise Violation("invalid_prizes", f"prizes go from first place down and are never negative: {list(prizes)}",
                        numbers={"prizes": list(prizes)})
    players = list(stacks)
    chips = [stacks[player] for player in players]
    equities = icm_equities(chips, prizes)
    deal = icm_chop(chips, prizes)
    return {
        "prizes_to_pay": sum(prizes[: len(players)]),
        "equities": {player: round(equity, 2) for player, equity in zip(players, equities)},
        "deal": dict(zip(players, deal)),
    }
