"""One hand of hold'em / Omaha through the decider: given events, when a command, then events."""
from __future__ import annotations

import dataclasses
import random

import pytest

from domain.games import holdem
from domain.games.holdem import (
    BoardDealt,
    DealBoard,
    DealHole,
    HandEnded,
    Muck,
    PostAction,
    PotAwarded,
    SettleShowdown,
    ShowCards,
    StartHand,
    UncalledReturned,
    aggressive_action,
    decide,
    handle,
    replay,
)
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck
from domain.rules.violations import Violation

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)


class Table:
    """Keeps the events of one hand and the state they replay to."""

    def __init__(self, start: StartHand):
        self.events, self.state = handle(None, start)

    def __call__(self, command):
        events, self.state = handle(self.state, command)
        self.events.extend(events)
        return events

    def actions(self, *commands):
        for command in commands:
            self(command)


def phh_table(players, stacks, hole, structure=NL, variant="holdem") -> Table:
    table = Table(StartHand(tuple(players), tuple(stacks), len(players) - 1, structure, variant,
                            odd_chip="split_exactly"))
    for seat, cards in enumerate(hole):
        table(DealHole(seat, cards))
    return table


def test_pluribus_hand_0_reproduces_its_finishing_stacks():
    # pluribus/100/0.phh, verbatim.
    table = phh_table(["MrBlue", "MrBlonde", "MrWhite", "MrPink", "MrBrown", "Pluribus"],
                      [10000] * 6, ["TcQc", "8s4c", "9c3d", "Ah4h", "Th5s", "6c7s"])
    table.actions(PostAction(2, "fold"), PostAction(3, "raise", 210), PostAction(4, "fold"),
                  PostAction(5, "fold"), PostAction(0, "call"), PostAction(1, "fold"),
                  DealBoard("7d5h9d"), PostAction(0, "check"), PostAction(3, "check"),
                  DealBoard("7c"), PostAction(0, "check"), PostAction(3, "check"),
                  DealBoard("Qh"), PostAction(0, "bet", 230))
    events = table(PostAction(3, "fold"))
    assert events[1:] == [UncalledReturned(0, 230),
                          PotAwarded(520, (0,), (0,), (520,)),
                          HandEnded((10310, 9900, 10000, 9790, 10000, 10000), False)]
    assert table.state.over and table.state.to_act is None


def test_dwan_ivey_all_in_runs_out_the_river_and_the_better_straight_wins():
    structure = BettingStructure("no-limit", 1000, 2000, ante=500)
    table = phh_table(["Ivey", "Antonius", "Dwan"], [1125600, 2000000, 553500],
                      ["Ac2d", "KhKd", "7h6h"], structure)
    table.actions(PostAction(2, "raise", 7000), PostAction(0, "raise", 23000),
                  PostAction(1, "fold"), PostAction(2, "call"), DealBoard("Jc3d5c"),
                  PostAction(0, "bet", 35000), PostAction(2, "call"), DealBoard("4h"),
                  PostAction(0, "bet", 90000), PostAction(2, "raise", 232600),
                  PostAction(0, "raise", 1067100), PostAction(2, "call"))
    assert table.state.awaiting == "river"  # no more betting: the board runs out
    table.actions(ShowCards(0), ShowCards(2), DealBoard("Jh"))
    assert table.state.over
    pot = 553500 + 553500 + 2000 + 500
    assert table.state.stacks == (1125600 - 553500, 2000000 - 2500, pot)
    assert sum(table.state.stacks) == 1125600 + 2000000 + 553500


def deck_for(hole: list[str], board: str, seats: int) -> tuple[str, ...]:
    """A deck order dealing `hole` from left of the button and `board` after burns."""
    wanted = [hole[i][j:j + 2] for i in range(seats) for j in (0, 2)]
    flop, turn, river = board[:6], board[6:8], board[8:10]
    rest = [format_card(c) for c in new_deck() if format_card(c) not in "".join(hole) + board]
    order = wanted + [rest.pop()] + [flop[i:i + 2] for i in (0, 2, 4)] + [rest.pop(), turn] \
        + [rest.pop(), river]
    return tuple(order + rest)


def test_live_play_deals_from_the_deck_and_settles_the_showdown_itself():
    # Button seat 2: seat 0 gets the first cards.
    deck = deck_for(["AsAh", "KsKh", "7c2d"], "2s3s9dJcQh", 3)
    table = Table(StartHand(("A", "B", "C"), (1000,) * 3, 2, NL, deck=deck, commitment="abc"))
    assert table.state.hole[0] is not None and table.state.commitment == "abc"
    table.actions(PostAction(2, "fold"), PostAction(0, "call"))
    events = table(PostAction(1, "check"))
    assert isinstance(events[-1], BoardDealt) and events[-1].cards == "2s3s9d"
    for _ in range(3):
        table.actions(PostAction(0, "check"))
        table(PostAction(1, "check"))
    assert table.state.over and table.state.showdown
    assert table.state.stacks == (1100, 900, 1000)


def test_everyone_folding_to_the_big_blind_returns_the_uncalled_chips():
    table = phh_table(["SB", "BB", "BTN"], [1000] * 3, [])
    table.actions(PostAction(2, "fold"))
    events = table(PostAction(0, "fold"))
    assert UncalledReturned(1, 50) in events
    assert table.state.stacks == (950, 1050, 1000)


def test_all_in_pre_flop_waits_for_the_whole_board_without_betting():
    table = phh_table(["BB", "BTN"], [500, 1000], ["AsAh", "KsKh"])
    table.actions(PostAction(1, "raise", 1000), PostAction(0, "call"))
    assert [e for e in table.events if isinstance(e, UncalledReturned)] == [UncalledReturned(1, 500)]
    table.actions(DealBoard("2c3d9h"), DealBoard("Jc"), DealBoard("4s"))
    assert table.state.awaiting == "showdown"
    table(SettleShowdown())
    assert table.state.stacks == (1000, 500)


def test_a_player_whose_cards_are_unknown_at_showdown_cannot_win():
    table = phh_table(["BB", "BTN"], [1000, 1000], ["AsAh"])
    table.actions(PostAction(1, "call"), PostAction(0, "check"))
    for board in ("2c3d9h", "Jc", "4s"):
        table(DealBoard(board))
        table.actions(PostAction(0, "check"), PostAction(1, "check"))
    table(SettleShowdown())
    assert table.state.stacks == (1100, 900)


def test_a_mucked_hand_loses_even_when_it_was_better():
    table = phh_table(["BB", "BTN"], [1000, 1000], ["AsAh", "7c2d"])
    table.actions(PostAction(1, "call"), PostAction(0, "check"))
    for board in ("2c3d9h", "Jc", "4s"):
        table(DealBoard(board))
        table.actions(PostAction(0, "check"), PostAction(1, "check"))
    table.actions(ShowCards(1), Muck(0))
    assert table.state.over and table.state.stacks == (900, 1100)


def test_a_split_pot_gives_the_odd_chip_left_of_the_button():
    structure = BettingStructure("no-limit", 25, 51)
    table = Table(StartHand(("BB", "BTN"), (1000, 1000), 1, structure))
    table.actions(DealHole(0, "AsKd"), DealHole(1, "AhKc"))
    table.actions(PostAction(1, "raise", 102), PostAction(0, "raise", 203), PostAction(1, "call"))
    for board in ("2c3d9h", "Jc", "4s"):
        table(DealBoard(board))
        table.actions(PostAction(0, "check"), PostAction(1, "check"))
    table(SettleShowdown())
    assert table.state.stacks == (1000, 1000)  # 406 splits evenly
    odd = Table(StartHand(("SB", "BB", "BTN"), (1000,) * 3, 2, NL))
    odd.actions(DealHole(0, "AsKd"), DealHole(1, "AhKc"), DealHole(2, "7c2d"))
    odd.actions(PostAction(2, "call"), PostAction(0, "call"), PostAction(1, "check"))
    for board in ("2c3d9h", "Jc", "4s"):
        odd(DealBoard(board))
        odd.actions(PostAction(0, "bet", 101) if board == "4s" else PostAction(0, "check"),
                    *( [PostAction(1, "call"), PostAction(2, "fold")] if board == "4s"
                       else [PostAction(1, "check"), PostAction(2, "check")]))
    odd(SettleShowdown())
    # 300 + 202 = 502: 251 each; SB is first left of the button.
    assert odd.state.stacks == (1000 - 201 + 251, 1000 - 201 + 251, 900)


def test_omaha_uses_exactly_two_hole_cards():
    table = phh_table(["BB", "BTN"], [1000, 1000], ["AsAhKsKh", "7c2d8h9c"],
                      BettingStructure("pot-limit", 50, 100), "omaha")
    table.actions(PostAction(1, "call"), PostAction(0, "check"))
    # Four spades on board: BB's As Ks make the nut flush only with two hole cards.
    for board in ("2s3s9s", "Js", "4d"):
        table(DealBoard(board))
        table.actions(PostAction(0, "check"), PostAction(1, "check"))
    table(SettleShowdown())
    assert table.state.stacks == (1100, 900)


def test_commands_after_the_hand_is_over_are_rejected():
    table = phh_table(["BB", "BTN"], [1000, 1000], [])
    table(PostAction(1, "fold"))
    with pytest.raises(Violation) as caught:
        decide(table.state, PostAction(0, "check"))
    assert caught.value.code == "hand_over"


def test_board_cards_cannot_be_dealt_during_a_betting_round():
    table = phh_table(["BB", "BTN"], [1000, 1000], [])
    with pytest.raises(Violation) as caught:
        decide(table.state, DealBoard("2c3d9h"))
    assert caught.value.code == "illegal_action"


def test_a_card_cannot_be_dealt_twice():
    table = phh_table(["BB", "BTN"], [1000, 1000], ["AsAh"])
    with pytest.raises(Violation) as caught:
        decide(table.state, DealHole(1, "AsKd"))
    assert caught.value.code == "duplicate_card"


def test_aggressive_action_names_bet_or_raise_for_phh_cbr():
    table = phh_table(["BB", "BTN"], [1000, 1000], [])
    assert aggressive_action(table.state) == "raise"
    table.actions(PostAction(1, "call"), PostAction(0, "check"), DealBoard("2c3d9h"))
    assert aggressive_action(table.state) == "bet"


def test_replaying_the_events_and_their_store_records_gives_the_same_state():
    deck = tuple(format_card(c) for c in random.Random(7).sample(range(52), 52))
    table = Table(StartHand(("A", "B", "C", "D"), (500, 1000, 1500, 2000), 0, NL, deck=deck))
    rng = random.Random(3)
    while not table.state.over:
        legal = holdem.legal_actions(table.state)
        seat = table.state.to_act
        choice = rng.choice(["fold", "call", "raise"] if legal.raise_ else ["fold", "call"])
        if choice == "call" and legal.call is None:
            choice = "check"
        if choice == "raise":
            table(PostAction(seat, "raise", legal.raise_.max_to))
        elif choice == "fold" and legal.check:
            table(PostAction(seat, "check"))
        else:
            table(PostAction(seat, choice))
    assert replay(table.events) == table.state
    records = [(type(e).__name__, dataclasses.asdict(e)) for e in table.events]
    rebuilt = [holdem.event_from_record(name, data) for name, data in records]
    assert replay(rebuilt) == table.state
    assert sum(table.state.stacks) == 5000
