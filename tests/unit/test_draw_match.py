"""A five-card draw match: hands in a row, the moving button, the end, the results."""
from __future__ import annotations

import random

import pytest

from domain.games import draw_match
from domain.games.draw import computer as draw_computer
from domain.games.draw import engine as draw_engine
from domain.games.draw.commands import Redeal
from domain.games.draw_match import ButtonMoved, HandRecorded, MatchEnded, PlayerResult, RecordHand, StartMatch, hand_result, next_hand
from domain.games.draw_settings import DrawSettings
from domain.records import from_record, to_record
from domain.rules.cards import format_card, new_deck, shuffled
from domain.rules.violations import Violation


class Match:
    def __init__(self, players, settings=DrawSettings(), button=0):
        self.events = draw_match.decide(None, StartMatch(tuple(players), settings, button))
        self.state = draw_match.replay(self.events)

    def __call__(self, command):
        events = draw_match.decide(self.state, command)
        self.events += events
        self.state = draw_match.replay(self.events)
        return events


def test_every_player_starts_with_the_starting_chips():
    match = Match(("A", "B", "C"), DrawSettings(starting_chips=500))
    assert match.state.stacks == (500, 500, 500)


def test_the_button_moves_one_seat_to_the_left_after_every_hand():
    match = Match(("A", "B", "C"))
    assert match(RecordHand(("A", "B", "C"), (2010, 1990, 2000), ()))[-1] == ButtonMoved(1)
    assert match(RecordHand(("A", "B", "C"), (2010, 1990, 2000), ()))[-1] == ButtonMoved(2)
    assert match(RecordHand(("A", "B", "C"), (2010, 1990, 2000), ()))[-1] == ButtonMoved(0)


def test_a_player_with_no_chips_is_out_and_the_button_skips_their_seat():
    match = Match(("A", "B", "C", "D"))
    match(RecordHand(("A", "B", "C", "D"), (4000, 0, 2000, 2000), ()))
    assert match.state.button == 2  # seat 1 is out
    start = next_hand(match.state, tuple(format_card(c) for c in new_deck()))
    assert start.players == ("A", "C", "D") and start.stacks == (4000, 2000, 2000)
    assert start.button == 1


def test_the_game_ends_after_the_set_number_of_hands_and_the_most_chips_wins():
    match = Match(("A", "B", "C"), DrawSettings(hands=2))
    match(RecordHand(("A", "B", "C"), (2100, 1950, 1950), ()))
    events = match(RecordHand(("A", "B", "C"), (2200, 1900, 1900), ()))
    assert events[-1] == MatchEnded((PlayerResult("A", 0, 2200, 1, "win"),
                                     PlayerResult("B", 1, 1900, 2, "loss"),
                                     PlayerResult("C", 2, 1900, 2, "loss")))
    assert match.state.over
    with pytest.raises(Violation) as caught:
        match(RecordHand(("A", "B", "C"), (2200, 1900, 1900), ()))
    assert caught.value.code == "hand_over"


def test_equal_chips_at_the_top_share_it_as_a_draw():
    match = Match(("A", "B", "C"), DrawSettings(hands=1))
    events = match(RecordHand(("A", "B", "C"), (2500, 2500, 1000), ()))
    assert [r.outcome for r in events[-1].results] == ["draw", "draw", "loss"]
    assert [r.place for r in events[-1].results] == [1, 1, 3]


def test_the_match_ends_early_when_one_player_holds_every_chip():
    match = Match(("A", "B"))
    events = match(RecordHand(("A", "B"), (4000, 0), ()))
    assert isinstance(events[-1], MatchEnded) and events[-1].results[0].outcome == "win"


def test_chips_cannot_appear_or_vanish_between_hands():
    match = Match(("A", "B"))
    with pytest.raises(Violation):
        match(RecordHand(("A", "B"), (2100, 2000), ()))
    with pytest.raises(Violation):
        match(RecordHand(("B", "A"), (2000, 2000), ()))


def test_no_betting_mode_counts_points_and_the_most_points_wins():
    match = Match(("A", "B", "C"), DrawSettings(mode="no-betting", hands=3))
    match(RecordHand(("A", "B", "C"), (), (1, 0, 0)))
    match(RecordHand(("A", "B", "C"), (), (1, 1, 0)))
    events = match(RecordHand(("A", "B", "C"), (), (0, 0, 1)))
    assert events[0] == HandRecorded(3, (0, 0, 0), (2, 1, 1))
    assert events[-1].results == (PlayerResult("A", 0, 2, 1, "win"),
                                  PlayerResult("B", 1, 1, 2, "loss"),
                                  PlayerResult("C", 2, 1, 2, "loss"))


def test_no_betting_mode_equal_points_at_the_top_is_a_draw():
    match = Match(("A", "B"), DrawSettings(mode="no-betting", hands=1))
    assert [r.outcome for r in match(RecordHand(("A", "B"), (), (1, 1)))[-1].results] == ["draw", "draw"]


def test_a_whole_match_played_by_computer_players_hands_through_the_hand_decider():
    rng = random.Random(7)
    match = Match(("A", "B", "C"), DrawSettings(hands=4, second_round_start="left_of_dealer"))
    while not match.state.over:
        deck = tuple(format_card(c) for c in shuffled(new_deck(), rng))
        events, hand = draw_engine.handle(None, next_hand(match.state, deck))
        while not hand.over:
            if hand.awaiting == "redeal":
                deck = tuple(format_card(c) for c in shuffled(new_deck(), rng))
                events, hand = draw_engine.handle(hand, Redeal(deck))
            else:
                events, hand = draw_engine.handle(hand, draw_computer.auto_action(hand, hand.to_act))
        match(hand_result(hand))
    assert match.state.hands_played == 4 and sum(match.state.stacks) == 6000
    for event in match.events:
        assert from_record(draw_match.EVENT_TYPES, *to_record(event)) == event
