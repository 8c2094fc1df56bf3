"""Pots: main and side pots from contribution levels, and awarding them.

Folded players' chips stay in the pots they reached but folded players win nothing.
Odd chips: "left_of_button" gives them one at a time to the winners starting from the
first seat left of the button (live play); "split_exactly" divides exactly, possibly
into fractions.Fraction (PHH replay, where recorded hands split an odd chip in halves).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

Amount = int | Fraction

LEFT_OF_BUTTON = "left_of_button"
SPLIT_EXACTLY = "split_exactly"
ODD_CHIP_POLICIES = (LEFT_OF_BUTTON, SPLIT_EXACTLY)


@dataclass(frozen=True)
class Pot:
    amount: Amount
    eligible: tuple[int, ...]


@dataclass(frozen=True)
class PotAward:
    """One pot settled: who shared it and how much each got (same order as winners)."""
    amount: Amount
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[Amount, ...]


def build_pots(committed: Sequence[Amount], folded: Sequence[bool], all_in: Sequence[bool],
               dead: Amount = 0) -> tuple[Pot, ...]:
    """Main pot first, then one side pot above each all-in contender's contribution level.

    A contender who is not all-in is eligible for every pot (they can still match it).
    `dead` (big-blind ante) belongs to the main pot; chips of folded players count in the
    pots their contribution reached.
    """
    contenders = tuple(i for i, f in enumerate(folded) if not f)
    levels = sorted({committed[i] for i in contenders if all_in[i] and committed[i] > 0})
    pots: list[Pot] = []
    previous: Amount = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        eligible = tuple(i for i in contenders if committed[i] >= level or not all_in[i])
        pots.append(Pot(amount, eligible))
        previous = level
    above = sum(c - previous for c in committed if c > previous)
    eligible = tuple(i for i in contenders if committed[i] > previous or not all_in[i])
    if above or not pots:
        if eligible or not pots:
            pots.append(Pot(above, eligible or contenders))
        else:  # folded chips above every live level stay with the last pot they reached
            pots[-1] = Pot(pots[-1].amount + above, pots[-1].eligible)
    if dead:
        pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
    return tuple(p for p in pots if p.amount or len(pots) == 1)


def seats_from_left_of_button(seats: Sequence[int], button: int, seat_count: int) -> tuple[int, ...]:
    """Seats ordered clockwise starting from the first seat left of the button."""
    if len(seats) == 1:
        return tuple(seats)
    return tuple(sorted(seats, key=lambda seat: (seat - button - 1) % seat_count))


def split(amount: Amount, winners: Sequence[int], button: int, seat_count: int,
          odd_chip: str = LEFT_OF_BUTTON) -> tuple[tuple[int, ...], tuple[Amount, ...]]:
    """Share a pot equally: (winners from left of the button, their shares)."""
    ordered = seats_from_left_of_button(winners, button, seat_count)
    count = len(ordered)
    if odd_chip == SPLIT_EXACTLY:
        if amount % count == 0:  # whole shares (the usual case) need no Fraction arithmetic
            return ordered, (amount // count,) * count
        return ordered, (Fraction(amount) / count,) * count
    if odd_chip != LEFT_OF_BUTTON:
        raise ValueError(f"unknown odd chip policy {odd_chip!r}")
    share = amount // count
    odd = amount - share * count
    return ordered, tuple(share + (1 if k < odd else 0) for k in range(count))


def award_pots(pots: Sequence[Pot], strengths: Mapping[int, int], button: int, seat_count: int,
               odd_chip: str = LEFT_OF_BUTTON) -> tuple[PotAward, ...]:
    """Give each pot to the best hand among its eligible seats (higher strength wins).

    `strengths` holds the seats whose hands count (shown). A pot with a single eligible
    seat goes to it; when no eligible seat has a hand that counts, it is split among them.
    """
    awards = []
    for pot in pots:
        candidates = [s for s in pot.eligible if s in strengths]
        if len(pot.eligible) == 1 or not candidates:
            winners = list(pot.eligible)
        else:
            best = max(strengths[s] for s in candidates)
            winners = [s for s in candidates if strengths[s] == best]
        ordered, shares = split(pot.amount, winners, button, seat_count, odd_chip)
        awards.append(PotAward(pot.amount, pot.eligible, ordered, shares))
    return tuple(awards)
