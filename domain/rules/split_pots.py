"""High-low split pots (Omaha hi-lo, stud hi-lo, eight or better).

Each pot, main and side alike, is settled on its own among the players eligible for it:
- when none of them has a qualifying low, the best high hand takes all of it;
- otherwise half goes to the best high hand and half to the best low; one player may win
  both halves (scoop), and equal hands share their half (two equal lows each get a quarter
  of the pot: quartering);
- odd chips (TDA 2024 rule 20): with whole chips the odd chip of the pot goes to the high
  half; an odd chip left in a half shared by equal hands goes, in flop games, to the first
  of them left of the button, and in stud games to the one holding the highest card by
  suit (spades, hearts, diamonds, clubs). The "split_exactly" policy (PHH replay) divides
  exactly instead.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from domain.rules.pots import SPLIT_EXACTLY, Amount, Pot, PotAward, split

# Orders tied winners for odd chips (None: from the left of the button, domain.rules.pots.split).
OddChipOrder = Callable[[Sequence[int]], Sequence[int]] | None


def _share(amount: Amount, winners: Sequence[int], button: int, seat_count: int,
           odd_chip: str, order: OddChipOrder) -> tuple[tuple[int, ...], tuple[Amount, ...]]:
    if order is None or odd_chip == SPLIT_EXACTLY or len(winners) == 1:
        return split(amount, winners, button, seat_count, odd_chip)
    ordered = tuple(order(winners))
    share = amount // len(ordered)
    odd = amount - share * len(ordered)
    return ordered, tuple(share + (1 if k < odd else 0) for k in range(len(ordered)))


def _best(candidates: Sequence[int], strengths: Mapping[int, int]) -> list[int]:
    best = max(strengths[s] for s in candidates)
    return [s for s in candidates if strengths[s] == best]


def award_high_low(pots: Sequence[Pot], highs: Mapping[int, int], lows: Mapping[int, int],
                   button: int, seat_count: int, odd_chip: str,
                   order: OddChipOrder = None) -> tuple[PotAward, ...]:
    """Settle every pot high-low. `highs` holds the hands that count (shown), `lows` the
    qualifying lows among them (strength > 0, higher better). A pot yields one award when
    one side takes it all, else two: the high half, then the low half."""
    awards: list[PotAward] = []
    for pot in pots:
        candidates = [s for s in pot.eligible if s in highs]
        if len(pot.eligible) == 1 or not candidates:
            winners = list(pot.eligible)
            ordered, shares = _share(pot.amount, winners, button, seat_count, odd_chip, order)
            awards.append(PotAward(pot.amount, pot.eligible, ordered, shares))
            continue
        high_winners = _best(candidates, highs)
        low_candidates = [s for s in candidates if lows.get(s, 0) > 0]
        if not low_candidates:
            ordered, shares = _share(pot.amount, high_winners, button, seat_count, odd_chip, order)
            awards.append(PotAward(pot.amount, pot.eligible, ordered, shares))
            continue
        if odd_chip == SPLIT_EXACTLY and pot.amount % 2:
            low_half: Amount = Fraction(pot.amount) / 2
        else:
            low_half = pot.amount // 2  # the odd chip stays with the high half
        high_half = pot.amount - low_half
        for amount, winners in ((high_half, high_winners),
                                (low_half, _best(low_candidates, lows))):
            ordered, shares = _share(amount, winners, button, seat_count, odd_chip, order)
            awards.append(PotAward(amount, pot.eligible, ordered, shares))
    return tuple(awards)
