"""Odd chips in PHH replay: whole-chip hands give the odd chip by TDA 2024 rule 20 (board
games: the first winner left of the button), as PokerKit does; a pot is split into exact
fractions only where the record itself splits so (the Pluribus files' halves)."""
from __future__ import annotations

from fractions import Fraction

from domain.history.phh import parse
from domain.history.phh_games import replay
from tests.corpus import PHH as CORPUS

# p1 small blind folds its 1 chip, p2 and p3 play the board (a royal flush): a pot of 5.
CHOPPED_BOARD = """\
variant = 'NT'
ante_trimming_status = true
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ['d dh p1 2c3d', 'd dh p2 4h5h', 'd dh p3 6d7c', 'p3 cc', 'p1 f', 'p2 cc', \
'd db AsKsQs', 'p2 cc', 'p3 cc', 'd db Js', 'p2 cc', 'p3 cc', 'd db Ts', 'p2 cc', 'p3 cc', \
'p2 sm 4h5h', 'p3 sm 6d7c']
"""


def test_a_whole_chip_hand_gives_the_odd_chip_to_the_first_winner_left_of_the_button():
    result = replay(parse(CHOPPED_BOARD + "finishing_stacks = [99, 101, 100]\n"))
    assert result.odd_chip_rule == "tda"
    assert result.finishing_stacks == (99, 101, 100)  # p2 sits first left of the button
    assert result.pots[0].shares == (3, 2)


def test_a_record_without_finishing_stacks_is_a_whole_chip_hand_too():
    result = replay(parse(CHOPPED_BOARD))
    assert (result.odd_chip_rule, result.finishing_stacks) == ("tda", (99, 101, 100))


def test_a_record_that_splits_the_odd_chip_in_halves_is_replayed_so():
    result = replay(parse(CHOPPED_BOARD + "finishing_stacks = [99, 100.5, 100.5]\n"))
    assert result.odd_chip_rule == "split_exactly"
    assert result.finishing_stacks == (99, Fraction(201, 2), Fraction(201, 2))


def test_the_pluribus_half_chip_hands_split_exactly_and_whole_ones_follow_the_tda():
    halves = replay(parse((CORPUS / "pluribus/102/0.phh").read_text()))
    assert halves.odd_chip_rule == "split_exactly"
    assert replay(parse((CORPUS / "pluribus/100/0.phh").read_text())).odd_chip_rule == "tda"
