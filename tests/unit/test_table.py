"""The live table: given a table's events, when a command, then events (or a violation)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.live.table import event_types, handle
from domain.live.table_commands import Act, CreateTable, StartNextHand, TableSeat
from domain.live.table_events import HandClosed, HandOpened, TableCreated, TableFinished
from domain.live.table_state import hand_id_for, replay, table_id_of_hand
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.deal_commitment import SCHEME, deal_root
from domain.rules.violations import Violation

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SALT = "ab" * 32


def deck(seed: int = 1) -> tuple[str, ...]:
    return tuple(format_card(c) for c in shuffled(new_deck(), random.Random(seed)))


class Table:
    """A table's events and the state they replay to."""

    def __init__(self, stacks=(1000, 1000, 1000), game="holdem", ranked=False):
        seats = tuple(TableSeat(f"P{i}", stack) for i, stack in enumerate(stacks))
        self.events, self.state = handle(None, CreateTable("t1", game, {}, NL, seats, ranked))

    def __call__(self, command):
        events, self.state = handle(self.state, command)
        self.events.extend(events)
        return events

    def start(self, seed: int = 1):
        return self(StartNextHand(deck(seed), SALT))

    def fold_around(self):
        """Everyone folds to the big blind."""
        while self.state.hand_in_progress:
            self(Act(self.state.to_act, "fold"))


def test_the_hand_opens_with_the_commitment_before_any_card_is_dealt():
    table = Table()
    events = table.start(seed=7)
    opened = events[0]
    assert isinstance(opened, HandOpened)
    assert opened.hand_id == hand_id_for("t1", 1) == "t1.1"
    assert opened.scheme == SCHEME
    assert opened.commitment == deal_root(deck(7), bytes.fromhex(SALT))
    assert isinstance(events[1], holdem.HandStarted) and events[1].commitment == opened.commitment
    assert [type(e) for e in events[2:]] == [holdem.HoleCardsDealt] * 3


def test_the_first_button_is_the_first_seat_and_then_moves_clockwise():
    table = Table()
    table.start()
    assert table.state.button == 0
    table.fold_around()
    table.start()
    assert table.state.button == 1
    table.fold_around()
    table.start()
    assert table.state.button == 2
    table.fold_around()
    table.start()
    assert table.state.button == 0


def test_stacks_carry_over_from_one_hand_to_the_next():
    table = Table()
    table.start()  # button P0, blinds P1 50 and P2 100; P0 to act
    table(Act("P0", "fold"))
    table(Act("P1", "fold"))
    closed = table.events[-1]
    assert isinstance(closed, HandClosed)
    assert [(e.seat, e.player_id, e.stack) for e in closed.stacks] == [(0, "P0", 1000), (1, "P1", 950), (2, "P2", 1050)]
    table.start()
    started = next(e for e in table.events[::-1] if isinstance(e, holdem.HandStarted))
    assert started.stacks == (1000, 950, 1050)


def test_acting_out_of_turn_is_not_your_turn_and_changes_nothing():
    table = Table()
    table.start()
    before = table.state
    with pytest.raises(Violation) as raised:
        table(Act("P1", "call"))
    assert raised.value.code == "not_your_turn"
    assert table.state is before


def test_a_player_not_dealt_in_cannot_act():
    table = Table()
    table.start()
    with pytest.raises(Violation) as raised:
        table(Act("stranger", "fold"))
    assert raised.value.code == "not_your_turn"


def test_the_next_hand_cannot_start_while_one_is_being_played():
    table = Table()
    table.start()
    with pytest.raises(Violation) as raised:
        table.start()
    assert raised.value.code == "hand_in_progress"


def test_a_deck_missing_a_card_is_refused():
    table = Table()
    with pytest.raises(Violation) as raised:
        table(StartNextHand(deck()[:-1], SALT))
    assert raised.value.code == "invalid_deal"


def test_a_player_without_chips_is_out_and_the_button_skips_the_seat():
    table = Table(stacks=(1000, 100, 1000))
    table.start()  # button P0; P1 posts 50, P2 100
    table(Act("P0", "call"))
    table(Act("P1", "call"))  # P1 all-in for 100
    while table.state.hand_in_progress:
        to_act = table.state.to_act
        table(Act(to_act, "check"))
    closed = table.events[-1] if isinstance(table.events[-1], HandClosed) else table.events[-2]
    assert closed.busted == ("P1",), "with deck 1 P1's all-in loses"
    table.start()
    assert table.state.button == 2, "the button passes the empty seat"
    assert table.state.hand_seats == (0, 2)


def test_heads_up_to_the_last_chip_finishes_the_table_with_standings():
    table = Table(stacks=(1000, 1000), ranked=True)
    hands = 0
    while not table.state.finished:
        hands += 1
        table.start(seed=hands)
        while table.state.hand_in_progress:
            legal = holdem.legal_actions(table.state.hand)
            player = table.state.to_act
            if legal.raise_:
                table(Act(player, "raise", legal.raise_.max_to))
            elif legal.bet:
                table(Act(player, "bet", legal.bet.max_to))
            else:
                table(Act(player, "call" if legal.call else "check"))
        assert hands < 50
    finished = table.events[-1]
    assert isinstance(finished, TableFinished)
    assert [s.place for s in finished.standings] == [1, 2]
    assert finished.standings[0].stack == 2000 and finished.standings[1].stack == 0
    with pytest.raises(Violation) as raised:
        table.start()
    assert raised.value.code == "table_finished"


def test_omaha_deals_four_cards_each():
    table = Table(game="omaha")
    events = table.start()
    assert all(len(e.cards) == 8 for e in events if isinstance(e, holdem.HoleCardsDealt))


def test_an_unknown_game_is_refused():
    with pytest.raises(Violation) as raised:
        handle(None, CreateTable("t", "canasta", {}, NL, (TableSeat("a", 1), TableSeat("b", 1))))
    assert raised.value.code == "invalid_table"


def test_one_seat_is_not_a_table():
    with pytest.raises(Violation) as raised:
        handle(None, CreateTable("t", "holdem", {}, NL, (TableSeat("a", 100),)))
    assert raised.value.code == "invalid_table"


def test_a_player_cannot_take_two_seats():
    with pytest.raises(Violation) as raised:
        handle(None, CreateTable("t", "holdem", {}, NL, (TableSeat("a", 100), TableSeat("a", 100))))
    assert raised.value.code == "invalid_table"


def test_hand_ids_name_their_table():
    assert table_id_of_hand(hand_id_for("5b0c-6f4e", 12)) == ("5b0c-6f4e", 12)
    assert table_id_of_hand("nonsense") is None


def random_play(table: Table, rng: random.Random, hands: int) -> None:
    for _ in range(hands):
        if table.state.finished:
            return
        table.start(seed=rng.randrange(1 << 30))
        while table.state.hand_in_progress:
            legal = holdem.legal_actions(table.state.hand)
            player = table.state.to_act
            options = ["fold"] if legal.call else []
            options += ["check"] if legal.check else ["call"]
            options += ["bet"] if legal.bet else []
            options += ["raise"] if legal.raise_ else []
            action = rng.choice(options)
            span = legal.bet if action == "bet" else legal.raise_ if action == "raise" else None
            to = rng.randint(span.min_to, span.max_to) if span else None
            table(Act(player, action, to))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
def test_chips_are_conserved_and_records_replay_to_the_same_table(seed, players):
    table = Table(stacks=tuple(1000 + 100 * i for i in range(players)))
    total = sum(table.state.stacks)
    random_play(table, random.Random(seed), hands=8)
    assert sum(table.state.live_stacks) == total
    types = event_types("holdem")
    records = [to_record(e) for e in table.events]
    rebuilt = [from_record(types, name, data) for name, data in records]
    assert rebuilt == table.events
    assert replay(rebuilt) == table.state
    assert isinstance(table.events[0], TableCreated)
