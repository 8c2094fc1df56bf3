"""Auto-deal tables: the action that closes a hand opens the next one in the same command,
with randomness drawn through the `draws` argument."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.games import holdem
from domain.games.draw.events import HandStarted as DrawHandStarted
from domain.live.table import event_types, fresh_deal, handle
from domain.live.table_commands import Act, CreateTable, SitOut, TableSeat
from domain.live.table_events import AutomaticAction, HandClosed, HandOpened, TableFinished
from domain.live.table_state import replay
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.deal_commitment import deal_root
from domain.rules.violations import Violation
from tests.unit.test_table_games import SeededDraws, _play

NL = BettingStructure("no-limit", small_blind=50, big_blind=100)
SHORT_STACK_LOSES = 1  # a seed whose deal busts P0


class AutoDealTable:
    def __init__(self, stacks=(1000, 1000, 1000), auto_deal=True, seed=1, game="holdem", settings=None):
        seats = tuple(TableSeat(f"P{i}", stack) for i, stack in enumerate(stacks))
        self.draws = SeededDraws(seed)
        self.events, self.state = handle(None, CreateTable("t", game, settings or {}, NL, seats,
                                                           auto_deal=auto_deal))

    def __call__(self, command):
        events, self.state = handle(self.state, command, draws=self.draws)
        self.events.extend(events)
        return events

    def start(self):
        return self(fresh_deal(self.state, self.draws))


def test_the_action_that_closes_a_hand_opens_the_next_with_a_committed_deal():
    table = AutoDealTable()
    table.start()  # button P0; P1 50, P2 100; P0 acts first
    table(Act("P0", "fold"))
    draws_before = table.draws._random.getstate()
    events = table(Act("P1", "fold"))
    kinds = [type(e) for e in events]
    closed_at, opened_at = kinds.index(HandClosed), kinds.index(HandOpened)
    assert closed_at < opened_at
    opened, started = events[opened_at], events[opened_at + 1]
    assert (opened.hand_id, opened.number, opened.button) == ("t.2", 2, 1)
    assert isinstance(started, holdem.HandStarted)
    # The deal is the one drawn through `draws` at that moment, and the commitment holds.
    replayed = SeededDraws(0)
    replayed._random.setstate(draws_before)
    expected = fresh_deal(table.state, replayed)
    assert started.deck == expected.deck and opened.salt == expected.salt
    assert deal_root(started.deck, bytes.fromhex(opened.salt)) == opened.commitment
    # Button P1: P2 posts 50, P0 100, P1 is first to act in the new hand.
    assert table.state.hand_in_progress and table.state.to_act == "P1"
    assert table.state.stacks == (1000, 950, 1050)  # as the new hand began
    assert table.state.live_stacks == (900, 950, 1000)  # the blinds are in


def test_without_auto_deal_the_table_waits_for_the_next_hand():
    table = AutoDealTable(auto_deal=False)
    table.start()
    table(Act("P0", "fold"))
    events = table(Act("P1", "fold"))
    assert type(events[-1]) is HandClosed and not table.state.hand_in_progress
    assert table.state.to_act is None


def test_a_finished_table_deals_no_more():
    table = AutoDealTable(stacks=(100, 1000), seed=SHORT_STACK_LOSES)
    table.start()
    while table.state.hand_in_progress:  # calls and checks: the short stack is all-in
        legal = holdem.legal_actions(table.state.hand)
        table(Act(table.state.to_act, "check" if legal.check else "call"))
    assert isinstance(table.events[-1], TableFinished), "the seed deals P0 the losing hand"
    assert table.state.hands_played == 1 and table.state.finished


def test_starting_a_hand_by_hand_still_works_and_is_refused_while_one_is_played():
    table = AutoDealTable()
    table.start()
    with pytest.raises(Violation) as raised:
        table.start()
    assert raised.value.code == "hand_in_progress"


def test_players_who_are_all_away_play_one_more_hand_per_command_not_hand_after_hand():
    table = AutoDealTable(stacks=(1000, 1000))
    table.start()
    table(SitOut("P1"))
    events = table(SitOut("P0"))  # now nobody is present: the computer plays them both
    opened = [e for e in events if isinstance(e, HandOpened)]
    closed = [e for e in events if isinstance(e, HandClosed)]
    assert [e.number for e in opened] == [2]
    assert [e.hand_id for e in closed] == ["t.1", "t.2"]
    assert isinstance(events[-1], HandClosed) and not table.state.hand_in_progress
    assert any(isinstance(e, AutomaticAction) and e.hand_id == "t.2" for e in events)


def test_a_tournament_table_cannot_auto_deal():
    seats = (TableSeat("a", 100), TableSeat("b", 100))
    with pytest.raises(Violation) as raised:
        handle(None, CreateTable("t", "holdem", {}, NL, seats, tournament_id="x", auto_deal=True))
    assert raised.value.code == "invalid_table"


def test_auto_deal_needs_randomness_from_the_caller():
    table = AutoDealTable(stacks=(1000, 1000))
    table.start()
    with pytest.raises(ValueError, match="draws"):
        handle(table.state, Act("P0", "fold"))


def test_five_card_draw_with_a_joker_auto_deals_its_own_pack_until_the_match_ends():
    draws, rng = SeededDraws(3), random.Random(3)
    seats = (TableSeat("p0", 300), TableSeat("p1", 300))
    events, state = handle(None, CreateTable("t", "five-card-draw", {"hands": 3, "ante": 5, "joker": "wild"},
                                             BettingStructure(), seats, auto_deal=True))
    for _ in range(500):
        if state.finished:
            break
        new, state = handle(state, fresh_deal(state, draws), 0, draws) if not state.hand_in_progress \
            else _play(state, rng, draws)
        events += new
    assert state.finished
    assert [e.number for e in events if isinstance(e, HandOpened)] == [1, 2, 3]
    starts = [e for e in events if isinstance(e, DrawHandStarted)]
    assert len(starts) == 3 and all(sorted(e.deck) == sorted(starts[0].deck) and "Jk" in e.deck for e in starts)
    # Only the first hand needed a StartNextHand: the others came with the closing actions.
    assert sum(isinstance(e, HandClosed) for e in events) == 3


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
def test_chips_are_conserved_and_records_replay_to_the_same_auto_deal_table(seed, players):
    table = AutoDealTable(stacks=tuple(1000 + 100 * i for i in range(players)), seed=seed)
    total = sum(table.state.stacks)
    rng = random.Random(seed)
    table.start()
    for _ in range(300):
        if table.state.finished:
            break
        if not table.state.hand_in_progress:
            # Only a hand dealt and decided at once (all-in on the blinds) leaves the table
            # waiting: one automatic deal per command.
            opened = max(i for i, e in enumerate(table.events) if isinstance(e, HandOpened))
            assert not any(isinstance(e, Act) for e in table.events[opened:])
            assert isinstance(table.events[-1], HandClosed)
            table.start()
            continue
        legal = holdem.legal_actions(table.state.hand)
        options = (["fold"] if legal.call else []) + (["check"] if legal.check else ["call"])
        options += ["raise"] if legal.raise_ else []
        action = rng.choice(options)
        table(Act(table.state.to_act, action, rng.randint(legal.raise_.min_to, legal.raise_.max_to)
                  if action == "raise" else None))
        assert table.state.chips == total  # every stack as the current hand began
    types = event_types("holdem")
    rebuilt = [from_record(types, *to_record(e)) for e in table.events]
    assert replay(rebuilt) == table.state
    numbers = [e.number for e in table.events if isinstance(e, HandOpened)]
    assert numbers == list(range(1, len(numbers) + 1))
    assert table.state.finished or table.state.hand_in_progress


def test_on_a_clocked_table_the_new_hands_first_player_gets_the_clock():
    seats = (TableSeat("P0", 1000), TableSeat("P1", 1000))
    draws, now = SeededDraws(5), 1_700_000_000_000
    _, state = handle(None, CreateTable("t", "holdem", {}, NL, seats, action_clock_s=30, auto_deal=True))
    _, state = handle(state, fresh_deal(state, draws), now, draws)
    events, state = handle(state, Act(state.to_act, "fold"), now + 1000, draws)
    assert [type(e).__name__ for e in events][-1] == "ClockStarted"
    clock = events[-1]
    assert (clock.hand_id, clock.player_id, clock.deadline_at_ms) == ("t.2", state.to_act, now + 1000 + 30_000)
    assert state.clock == clock
