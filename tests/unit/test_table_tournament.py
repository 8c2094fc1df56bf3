"""A tournament's table: empty seats, players seated and removed between hands only,
the tournament's button, blinds and level for each hand (TDA 23, 32, 34-B), no rebuy,
and a table that never finishes by itself."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.live import table, table_commands, table_events, table_state
from domain.rules.betting import BettingStructure
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation

LEVEL_1 = BettingStructure("no-limit", small_blind=25, big_blind=50)
LEVEL_2 = BettingStructure("no-limit", small_blind=100, big_blind=200)
SALT = "ab" * 32
E = table_state.EMPTY_SEAT


def deck(seed: int = 1) -> tuple[str, ...]:
    return tuple(format_card(c) for c in shuffled(new_deck(), random.Random(seed)))


def tournament_table(*seats: tuple[str, int]) -> table_state.TableState:
    command = table_commands.CreateTable("t1-table-1", "holdem", {}, LEVEL_1,
                                         tuple(table_commands.TableSeat(p, s) for p, s in seats), tournament_id="t1")
    return table_state.replay(table.decide(None, command))


def run(state: table_state.TableState, command) -> table_state.TableState:
    events, after = table.handle(state, command)
    return after


def deal(state: table_state.TableState, button: int, small_blind: int, big_blind: int,
         betting: BettingStructure = LEVEL_1, seed: int = 1) -> table_state.TableState:
    return run(state, table_commands.StartNextHand(deck(seed), SALT, button=button, small_blind=small_blind,
                                                   big_blind=big_blind, betting=betting))


def test_a_tournament_table_keeps_empty_seats_where_nobody_sits():
    state = tournament_table(("ann", 1000), (E, 0), ("bob", 1000), ("cat", 1000))
    assert state.players == ("ann", E, "bob", "cat") and state.chips == 3000
    assert table.seats_dealt_in(state) == (0, 2, 3)


def test_only_a_tournament_table_has_empty_seats():
    with pytest.raises(Violation) as refused:
        table.decide(None, table_commands.CreateTable("x", "holdem", {}, LEVEL_1,
                                                      (table_commands.TableSeat("ann", 100), table_commands.TableSeat(E, 0))))
    assert refused.value.code == "invalid_table"


def test_the_blinds_of_the_level_in_force_apply_to_the_next_hand():
    state = deal(tournament_table(("ann", 1000), ("bob", 1000), ("cat", 1000)), 0, 1, 2, betting=LEVEL_2)
    assert state.hand.betting.structure.big_blind == 200
    assert state.live_stacks == (1000, 900, 800)


def test_the_tournament_gives_the_button_and_blinds():
    state = deal(tournament_table(("ann", 1000), ("bob", 1000), ("cat", 1000), ("dan", 1000)), 2, 3, 0)
    assert state.button == 2
    assert state.live_stacks == (950, 1000, 1000, 975)  # dan small blind, ann big blind
    assert state.to_act == "bob"


def test_a_dead_button_sits_on_an_empty_seat_and_the_blinds_are_posted_after_it():
    state = deal(tournament_table(("ann", 1000), (E, 0), ("bob", 1000), ("cat", 1000)), 1, 2, 3)
    assert state.button == 1
    assert state.live_stacks == (1000, 0, 975, 950)
    assert state.to_act == "ann"


def test_a_dead_small_blind_is_not_posted():
    state = deal(tournament_table(("ann", 1000), (E, 0), ("bob", 1000), ("cat", 1000)), 0, 1, 2)
    assert state.live_stacks == (1000, 0, 950, 1000)
    assert state.to_act == "cat"


def test_heads_up_the_button_posts_the_small_blind():
    state = deal(tournament_table((E, 0), ("ann", 1000), (E, 0), ("bob", 1000)), 3, 3, 1)
    assert state.live_stacks == (0, 950, 0, 975)
    assert state.to_act == "bob"


def test_a_big_blind_seat_without_a_player_is_refused():
    with pytest.raises(Violation) as refused:
        deal(tournament_table(("ann", 1000), (E, 0), ("bob", 1000)), 0, 0, 1)
    assert refused.value.code == "invalid_deal"


def test_a_moved_player_sits_in_an_empty_seat_with_the_chips_they_bring():
    state = run(tournament_table(("ann", 1000), (E, 0), ("bob", 1000)), table_commands.SeatPlayer("cat", 1, 1700, 12))
    assert state.players == ("ann", "cat", "bob") and state.stacks == (1000, 1700, 1000)


def test_a_player_leaves_with_their_chips_and_the_departure_is_remembered():
    events, state = table.handle(tournament_table(("ann", 1000), ("bob", 1200), ("cat", 1000)),
                                 table_commands.RemovePlayer("bob", 9))
    assert events == [table_events.PlayerLeftTable(1, "bob", 1200, 9)]
    assert state.players == ("ann", E, "cat") and state.chips == 2000
    assert state.departures == (table_events.PlayerLeftTable(1, "bob", 1200, 9),)


def test_players_move_between_hands_only():
    state = deal(tournament_table(("ann", 1000), (E, 0), ("bob", 1000), ("cat", 1000)), 0, 2, 3)
    for command in (table_commands.SeatPlayer("dan", 1, 1000), table_commands.RemovePlayer("ann")):
        with pytest.raises(Violation) as refused:
            table.decide(state, command)
        assert refused.value.code == "hand_in_progress"


def test_a_seat_already_taken_is_refused():
    with pytest.raises(Violation) as refused:
        table.decide(tournament_table(("ann", 1000), ("bob", 1000)), table_commands.SeatPlayer("cat", 1, 500))
    assert refused.value.code == "seat_taken"


def test_no_player_sits_down_without_chips():
    with pytest.raises(Violation) as refused:
        table.decide(tournament_table(("ann", 1000), (E, 0), ("bob", 1000)), table_commands.SeatPlayer("cat", 1, 0))
    assert refused.value.code == "invalid_stack"


def all_in_to_the_end(state: table_state.TableState) -> table_state.TableState:
    """Everybody raises all in, or calls, to the end of the hand."""
    while state.hand_in_progress:
        legal = table_state.game_rules("holdem").module.legal_actions(state.hand)
        state = run(state, table_commands.Act(state.to_act, "raise", legal.raise_.max_to) if legal.raise_ else
                    table_commands.Act(state.to_act, "call") if legal.call else table_commands.Act(state.to_act, "check"))
    return state


def test_a_player_busted_here_cannot_buy_back_in():
    state = all_in_to_the_end(deal(tournament_table(("ann", 100), ("bob", 1000), (E, 0)), 0, 0, 1))
    busted = [s.player_id for s in state.last_busted]
    assert len(busted) == 1 and not state.finished  # the tournament, not the table, says it is over
    state = run(state, table_commands.RemovePlayer(busted[0]))
    with pytest.raises(Violation) as refused:
        table.decide(state, table_commands.SeatPlayer(busted[0], 2, 500))
    assert refused.value.code == "no_rebuy"


def test_a_re_entry_drawn_to_the_table_where_the_player_busted_sits_down_there():
    state = all_in_to_the_end(deal(tournament_table(("ann", 100), ("bob", 1000), (E, 0)), 0, 0, 1))
    [busted] = [s.player_id for s in state.last_busted]
    state = run(state, table_commands.RemovePlayer(busted))
    events, state = table.handle(state, table_commands.SeatPlayer(busted, 2, 1000, 40, re_entry=True))
    assert events == [table_events.PlayerSeatedAtTable(2, busted, 1000, 40, re_entry=True)]
    assert state.players[2] == busted and state.stacks[2] == 1000
    assert busted not in [s.player_id for s in state.eliminated]  # the new entry is not out


def test_the_busted_are_reported_with_the_stack_they_started_the_hand_with():
    state = all_in_to_the_end(deal(tournament_table(("ann", 300), ("bob", 1000), ("cat", 1000)), 0, 1, 2))
    for seat in state.last_busted:
        assert seat.stack == {"ann": 300, "bob": 1000, "cat": 1000}[seat.player_id]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["fold", "call", "shove"]), min_size=1, max_size=30), st.integers(0, 10**6))
def test_hands_and_moves_never_create_or_lose_a_chip(choices, seed):
    state = tournament_table(("ann", 800), ("bob", 1200), (E, 0), ("cat", 1000), ("dan", 500))
    outside = {}  # chips of players who left the table
    total = 3500
    rng = random.Random(seed)
    for choice in choices:
        if not state.hand_in_progress:
            dealt = table.seats_dealt_in(state)
            if len(dealt) < 2:
                break
            big_blind = dealt[rng.randrange(len(dealt))]
            state = deal(state, dealt[dealt.index(big_blind) - 2], dealt[dealt.index(big_blind) - 1], big_blind,
                         seed=rng.randrange(10**6))
            continue
        legal = table_state.game_rules("holdem").module.legal_actions(state.hand)
        if choice == "shove" and legal.raise_:
            act = table_commands.Act(state.to_act, "raise", legal.raise_.max_to)
        elif choice == "fold" and legal.fold and not legal.check:
            act = table_commands.Act(state.to_act, "fold")
        else:
            act = table_commands.Act(state.to_act, "call" if legal.call else "check")
        state = run(state, act)
        if not state.hand_in_progress and rng.random() < 0.3:
            player = rng.choice([p for p in state.players if p != E])
            outside[player] = state.stacks[state.players.index(player)]
            state = run(state, table_commands.RemovePlayer(player))
        assert state.chips + sum(outside.values()) == total


def test_the_tournament_finishes_its_table_between_hands_only():
    state = tournament_table(("ann", 1000), (E, 0), ("bob", 1000))
    playing = deal(state, 0, 0, 2)
    with pytest.raises(Violation) as refused:
        table.decide(playing, table_commands.FinishTournamentTable(7))
    assert refused.value.code == "hand_in_progress"
    events, finished = table.handle(state, table_commands.FinishTournamentTable(7))
    assert events == [table_events.TableFinished((table_events.Standing("ann", 1, 1000), table_events.Standing("bob", 1, 1000)))]
    assert finished.finished
    with pytest.raises(Violation) as again:
        table.decide(finished, table_commands.FinishTournamentTable(8))
    assert again.value.code == "table_finished"


def test_only_a_tournament_finishes_a_table_with_this_command():
    cash = table_state.replay(table.decide(None, table_commands.CreateTable("x", "holdem", {}, LEVEL_1,
                                                                            (table_commands.TableSeat("ann", 100), table_commands.TableSeat("bob", 100)))))
    with pytest.raises(Violation) as refused:
        table.decide(cash, table_commands.FinishTournamentTable(1))
    assert refused.value.code == "not_tournament_table"


def test_a_refusal_at_the_table_names_the_table_seat_and_the_position_beside_it():
    # Seat 1 is empty, so cat sits at table seat 3 and is position 2 of the hand: a refusal
    # says seat as every event of the table does.
    state = deal(tournament_table(("ann", 1000), (E, 0), ("bob", 1000), ("cat", 1000)), 0, 2, 3)
    assert state.to_act == "ann"
    with pytest.raises(Violation) as refused:
        table.decide(state, table_commands.Act("cat", "call"))
    assert refused.value.code == "not_your_turn"
    assert refused.value.numbers["seat"] == 3 and refused.value.numbers["position"] == 2
    assert refused.value.numbers["player"] == "cat" and refused.value.numbers["to_act_player"] == "ann"
