"""The TDA showdown in five-card draw (declarations.md "Showdown", TDA 2024 16-18), as the
rule book says it: given a hand played to the end of the second round, when a player shows,
mucks or asks to see, then these events (or this violation)."""
from __future__ import annotations

import pytest

from domain.games.draw import computer as draw_computer
from domain.games.draw import engine as draw_engine
from domain.games.draw import legal as draw_legal
from domain.games.draw import stream as draw_stream
from domain.games.draw.commands import AskToSee, Muck, ShowCards
from domain.games.draw.events import CardsShown, HandEnded
from domain.games.draw.state import DRAW
from domain.games.draw.stream import EVENT_TYPES
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import CardsMucked, PotAwarded, ShowAsked
from domain.live import table, table_commands, table_events
from domain.records import from_record, to_record
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from tests.unit.test_draw_hand import Table
from tests.unit.test_table_games import SeededDraws, _deal

DECLARED = DrawSettings(showdown="declared")
# Seat 0 the dealer: seat 1 is first left of the dealer. Seat 2 holds the best hand.
HANDS = ("AsAhKdQc2s", "7c7d5h4s3c", "KsKhKc9d8h")


def to_the_showdown(settings: DrawSettings = DECLARED, second_round=(("check",), ("check",), ("check",)),
                    hands=HANDS, stacks=None) -> Table:
    table = Table(hands, settings, stacks=stacks)
    table.act(("bet", 20), ("call",), ("call",))
    table.draw_all("", "", "")
    table.act(*second_round)
    return table


def test_with_no_bet_on_the_second_round_the_first_player_left_of_the_dealer_shows_first():
    table = to_the_showdown()
    assert table.state.awaiting == "showdown" and table.state.show_order == (1, 2, 0)
    assert table.state.to_act == 1


def test_the_last_aggressor_of_the_second_round_shows_first():
    table = to_the_showdown(second_round=(("check",), ("bet", 40), ("call",), ("call",)))
    assert table.state.show_order == (2, 0, 1) and table.state.to_act == 2


def test_a_player_out_of_turn_may_not_show_or_muck():
    table = to_the_showdown()
    for command in (ShowCards(2), Muck(0)):
        with pytest.raises(Violation) as refused:
            table(command)
        assert refused.value.code == "not_your_turn_to_show" and refused.value.rule == "TDA 2024 17"


def test_hands_are_shown_or_mucked_in_turn_and_the_best_hand_shown_wins():
    table = to_the_showdown()
    assert table(ShowCards(1)) == [CardsShown(1, "7c7d5h4s3c", "one_pair")]
    assert table(ShowCards(2)) == [CardsShown(2, "KsKhKc9d8h", "three_of_a_kind")]
    events = table(Muck(0))
    assert events[0] == CardsMucked(0)
    assert PotAwarded(90, (0, 1, 2), (2,), (90,)) in events and events[-1].showdown is True


def test_a_mucked_hand_cannot_win_even_when_it_was_the_best():
    table = to_the_showdown()
    table(ShowCards(1))
    table(Muck(2))
    events = table(ShowCards(0))
    assert PotAwarded(90, (0, 1, 2), (0,), (90,)) in events


def test_when_all_others_muck_the_last_live_hand_wins_without_showing():
    """TDA 2024 17-B."""
    table = to_the_showdown()
    table(Muck(1))
    events = table(Muck(2))
    assert not any(isinstance(e, CardsShown) for e in table.events)
    assert PotAwarded(90, (0, 1, 2), (0,), (90,)) in events and isinstance(events[-1], HandEnded)


def test_a_caller_may_ask_to_see_the_last_aggressors_hand_which_is_then_tabled():
    """TDA 2024 18-B."""
    table = to_the_showdown(second_round=(("check",), ("bet", 40), ("call",), ("call",)))
    assert table(AskToSee(1)) == [ShowAsked(1, 2), CardsShown(2, "KsKhKc9d8h", "three_of_a_kind")]
    with pytest.raises(Violation) as again:
        table(AskToSee(0))
    assert again.value.code == "no_right_to_see"


def test_without_a_bet_on_the_second_round_asking_to_see_is_the_floors_decision():
    table = to_the_showdown()
    with pytest.raises(Violation) as refused:
        table(AskToSee(0))
    assert refused.value.code == "no_right_to_see" and refused.value.rule == "TDA 2024 18"


def test_the_last_aggressor_has_no_right_to_see():
    table = to_the_showdown(second_round=(("check",), ("bet", 40), ("call",), ("call",)))
    with pytest.raises(Violation) as refused:
        table(AskToSee(2))
    assert refused.value.code == "no_right_to_see"


def test_nobody_shows_before_the_showdown():
    table = Table(HANDS, DECLARED)
    with pytest.raises(Violation) as refused:
        table(ShowCards(1))
    assert refused.value.code == "illegal_action"


def test_all_in_with_the_betting_over_every_hand_is_tabled_and_none_is_mucked():
    """TDA 2024 16: at the showdown (draw has no board to run out), even a declared one."""
    table = Table(HANDS, DECLARED, stacks=(2000, 30, 2000))
    table.act(("bet", 20), ("call",), ("call",))
    table.draw_all("", "", "")
    table.act(("check",), ("check",))
    shown = [e.position for e in table.events if isinstance(e, CardsShown)]
    assert sorted(shown) == [0, 1, 2] and not any(isinstance(e, CardsMucked) for e in table.events)
    assert table.state.over


def test_the_automatic_showdown_mucks_a_beaten_hand_and_shows_the_winner():
    table = to_the_showdown(DrawSettings())
    assert [type(e) for e in table.events if isinstance(e, (CardsShown, CardsMucked))] == \
        [CardsShown, CardsShown, CardsMucked]
    assert table.state.over and table.state.mucked == (True, False, False)


def test_the_computer_plays_a_timed_out_declared_showdown_as_the_cards_speak():
    table = to_the_showdown()
    table(ShowCards(1))
    assert draw_computer.auto_action(table.state, 2, timed_out=True) == ShowCards(2)
    table(ShowCards(2))
    assert draw_computer.auto_action(table.state, 0, timed_out=True) == Muck(0)


def test_the_showdown_setting_is_automatic_or_declared():
    with pytest.raises(Violation) as refused:
        DrawSettings.from_dict({"showdown": "tabled"})
    assert refused.value.code == "invalid_settings"
    assert DrawSettings.from_dict({}).showdown == "automatic"


def test_at_a_table_the_clock_runs_at_a_declared_showdown_and_an_expiry_plays_the_cards():
    """The player to show has the action clock like any turn; when it runs out the computer
    shows or mucks for them as the cards speak (ClockExpired, then the automatic show)."""
    draws, now = SeededDraws(4), 0
    seats = tuple(table_commands.TableSeat(p, 2000) for p in ("p0", "p1", "p2"))
    _, state = table.handle(None, table_commands.CreateTable("t", "five-card-draw", {"showdown": "declared"},
                                                             BettingStructure(), seats, False, 30), now, draws)
    state = table.handle(state, _deal(draws), now, draws)[1]
    while state.hand.game.to_show is None:
        game = state.hand.game
        if game.phase == DRAW:
            act = table_commands.Act(state.to_act, "discard", discard=())
        else:
            legal = draw_legal.legal_actions(game)
            act = table_commands.Act(state.to_act, "bet", legal.bet.min_to) if legal.bet else \
                table_commands.Act(state.to_act, "check" if legal.check else "call")
        now += 1000
        state = table.handle(state, act, now, draws)[1]
    clock = state.clock
    assert clock is not None and state.position_of(clock.player_id) == state.hand.game.to_show
    events, state = table.handle(state, table_commands.ExpireClock(clock.hand_id, clock.seat, clock.deadline_at_ms),
                                 clock.deadline_at_ms, draws)
    assert isinstance(events[0], table_events.ClockExpired)
    assert any(isinstance(e, (CardsShown, CardsMucked)) for e in events)


def test_a_hand_stored_before_the_showdown_setting_loads_with_the_automatic_showdown():
    started = Table(HANDS).events[0]
    type_name, data = to_record(started)
    del data["settings"]["showdown"]
    old = from_record(EVENT_TYPES, type_name, data)
    assert old.settings.showdown == "automatic" and draw_stream.replay([old]).shown == (False,) * 3


@pytest.mark.parametrize("command", [ShowCards, Muck])
def test_a_no_betting_hand_refuses_a_show_or_muck_with_the_order_of_show_even_once_a_hand_is_face_up(command):
    """No-betting mode shows every hand by itself (points go to every best hand: nothing to
    muck for). A player's show or muck is refused by TDA 2024 17, during the draw and in a
    state replayed to the middle of that showing, with a seat already face up: a Violation
    (4xx at the API), never the no-betting hand's missing betting round (TypeError)."""
    settings = DrawSettings(mode="no-betting", showdown="declared")
    table = Table(HANDS, settings)
    with pytest.raises(Violation) as refused:
        table(command(1))
    assert (refused.value.code, refused.value.rule) == ("illegal_action", "TDA 2024 17")
    table.draw_all("", "", "")
    first_shown = next(i for i, e in enumerate(table.events) if isinstance(e, CardsShown))
    halfway = draw_stream.replay(table.events[:first_shown + 1])
    seat = table.events[first_shown].position
    assert halfway.shown[seat] and not halfway.over
    for position in (seat, (seat + 1) % 3):
        with pytest.raises(Violation) as refused:
            draw_engine.handle(halfway, command(position))
        assert (refused.value.code, refused.value.rule) == ("illegal_action", "TDA 2024 17")
