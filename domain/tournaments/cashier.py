"""The cashier's reconciliation of one event (running-events.md, Money): what came in,
what the house keeps, what it adds, what was paid out and what it still holds.

collected = prize-pool contributions + fees + bounties paid in
left      = collected - fees + overlay - paid (prizes of players out, bounties won)
          = prize money still to pay + bounties still on heads (unclaimed ones included)
"""
from __future__ import annotations

from dataclasses import dataclass

from domain.tournaments.tournament import Tournament


@dataclass(frozen=True)
class Reconciliation:
    contributions: int  # buy-ins, rebuys and add-ons into the prize pool
    fees: int  # the house's
    bounties: int  # bounties paid in with the entries
    overlay: int  # the house's money added to reach the guarantee
    prize_pool: int
    prizes_paid: int  # to players whose place is final
    bounties_paid: int

    @property
    def collected(self) -> int:
        return self.contributions + self.fees + self.bounties

    @property
    def paid(self) -> int:
        return self.prizes_paid + self.bounties_paid

    @property
    def left(self) -> int:
        return self.collected - self.fees + self.overlay - self.paid


def reconcile(state: Tournament) -> Reconciliation:
    return Reconciliation(
        contributions=state.contributions, fees=state.fees, bounties=state.bounties_collected,
        overlay=state.overlay, prize_pool=state.prize_pool,
        prizes_paid=sum(prize.amount for prize in state.prizes()),
        bounties_paid=sum(award.cash for award in state.bounties_won),
    )
