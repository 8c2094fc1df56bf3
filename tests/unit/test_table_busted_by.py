"""Who busted a player at the service's tables (issue 32): HandClosed names the winners of
the highest-numbered pot the busted player was in, for bounties."""
from __future__ import annotations

from domain.live.table import event_types, handle
from domain.live.table_commands import Act, StartNextHand
from domain.live.table_events import HandClosed, PotWinners
from domain.records import from_record, to_record
from domain.rules.violations import Violation
from tests.unit.test_cash_table import SALT, cash_table
from tests.unit.test_holdem import deck_for


def play_all_in(stacks: tuple[int, ...], hole: list[str], board: str) -> list[object]:
    """P0 (the first hand's button, first to act three-handed) moves all in, the others call
    and check it down. `hole` is dealt from left of the button: P1, P2, P0."""
    state = handle(cash_table(*stacks, seats=3), StartNextHand(deck_for(hole, board, 3), SALT))[1]
    events: list[object] = []
    while state.hand_in_progress:
        player = state.to_act
        choices = [Act(player, "raise", stacks[0])] if player == "P0" and not events else []
        for action in (*choices, Act(player, "call"), Act(player, "check")):
            try:
                new, state = handle(state, action)
            except Violation:
                continue
            events += new
            break
    return events


def test_a_player_busted_in_a_split_pot_is_busted_by_both_winners() -> None:
    # P1 and P2 both hold ace-king: they split the pot P0's 200 chips went to.
    events = play_all_in((200, 500, 500), ["AsKd", "AhKc", "7c2d"], "Qs9h4c3d8s")
    closed = next(e for e in events if isinstance(e, HandClosed))
    assert closed.busted == ("P0",) and closed.busted_by == (PotWinners("P0", ("P1", "P2")),)
    again = from_record(event_types("holdem"), *to_record(closed))
    assert again == closed


def test_a_player_beaten_in_the_main_pot_is_busted_by_its_winner() -> None:
    events = play_all_in((200, 500, 500), ["AsAd", "KhKc", "7c2d"], "Qs9h4c3d8s")
    closed = next(e for e in events if isinstance(e, HandClosed))
    assert closed.busted_by == (PotWinners("P0", ("P1",)),)
