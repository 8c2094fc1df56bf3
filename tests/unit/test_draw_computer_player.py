"""The computer player (the seeds' draw advice) and the turn time limit's default actions."""
from __future__ import annotations

import pytest

from domain.games.draw.commands import Discard
from domain.games.draw.computer import advised_discard, auto_action
from domain.games.draw_settings import DrawSettings
from domain.games.hand_events import PostAction
from domain.rules.violations import Violation
from tests.unit.test_draw_hand import Table

DEFAULT = DrawSettings()


@pytest.mark.parametrize("hand, discard", [
    ("AsAh7d5c2s", ("7d", "5c", "2s")),   # one pair: keep the pair, draw 3
    ("KsKh7d7c2s", ("2s",)),              # two pair: draw 1
    ("9s9h9d5c2s", ("5c", "2s")),         # three of a kind: draw 2
    ("As8s5s2sKh", ("Kh",)),              # four to a flush: draw 1
    ("2s2h5h9hKh", ("2s",)),              # four to a flush before a small pair (ours)
    ("5s6h7d8c9s", ()),                   # a straight or better: stand pat
    ("2h5h9hKhAh", ()),
    ("AsKh9d5c2s", ("Kh", "9d", "5c", "2s")),  # nothing: keep the ace, draw 4
    ("KsJh9d5c2s", ("9d", "5c", "2s")),        # nothing, no ace: keep two, draw 3
])
def test_the_seeds_draw_advice(hand, discard):
    assert advised_discard(hand, DEFAULT) == discard


def test_the_advice_respects_the_draw_limit_setting():
    assert advised_discard("AsKh9d5c2s", DrawSettings(draw_limit=3)) == ("9d", "5c", "2s")
    assert advised_discard("KsJh9d5c2s", DrawSettings(draw_limit=5)) == ("Jh", "9d", "5c", "2s")


def test_the_joker_is_never_thrown_away():
    assert advised_discard("JkKs9d5c2h", DrawSettings(joker="wild")) == ("9d", "5c", "2h")
    assert advised_discard("JkAs9d5c2h", DrawSettings(joker="bug")) == ("9d", "5c", "2h")


THREE = ("AsAhKdQc2s", "7s7h8d9cTs", "3s4h5d6cJs")  # aces, sevens, nothing


def test_the_computer_checks_when_it_can():
    table = Table(THREE)
    assert auto_action(table.state, 1) == PostAction(1, "check")


def test_the_computer_calls_a_bet_of_one_unit_with_a_pair_and_folds_without():
    table = Table(THREE, button=2)  # seat 0 acts first
    table.act(("bet", 20))
    assert auto_action(table.state, 1) == PostAction(1, "call")  # sevens
    table.act(("call",))
    assert auto_action(table.state, 2) == PostAction(2, "fold")  # nothing


def test_the_computer_folds_a_pair_to_a_bet_above_one_unit():
    table = Table(THREE, button=2)
    table.act(("bet", 60))
    assert auto_action(table.state, 1) == PostAction(1, "fold")


def test_the_computer_draws_by_the_advice_and_a_timed_out_player_stands_pat():
    table = Table(THREE)
    table.act(("bet", 20), ("call",), ("call",))
    assert auto_action(table.state, 1) == Discard(1, ("8d", "9c", "Ts"))
    assert auto_action(table.state, 1, timed_out=True) == Discard(1, ())


def test_a_timed_out_player_checks_if_possible_else_folds_even_with_a_pair():
    table = Table(THREE, button=2)
    assert auto_action(table.state, 0, timed_out=True) == PostAction(0, "check")
    table.act(("bet", 20))
    assert auto_action(table.state, 1, timed_out=True) == PostAction(1, "fold")


def test_only_the_player_to_act_gets_an_automatic_action():
    with pytest.raises(Violation) as caught:
        auto_action(Table(THREE).state, 0)
    assert caught.value.code == "not_your_turn"


def test_the_computer_plays_whole_hands_legally():
    table = Table(THREE, DrawSettings(second_round_start="left_of_dealer"))
    while not table.state.over:
        table(auto_action(table.state, table.state.to_act))
    assert sum(table.state.stacks) == 6000
