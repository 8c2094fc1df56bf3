"""Dice poker scoring, as the spec page (dice-poker.md) and the seed (003) write it."""
import pytest

from domain.games.dice_scoring import (
    DEFAULT_SETTINGS,
    LINES,
    DiceSettings,
    Scorecard,
    Totals,
    best_free_line,
    is_joker,
    legal_lines,
    line_options,
    line_score,
    meets_need,
    parse_dice,
    scorecard_totals,
)
from domain.rules.violations import Violation


def roll(text: str) -> tuple[int, ...]:
    """"5-5-3-2-1" as the seed writes a roll."""
    return tuple(int(face) for face in text.split("-"))


def card_with(**scores: int) -> Scorecard:
    return Scorecard.from_mapping(scores)


# The spec table's examples, verbatim ---------------------------------------------------------

@pytest.mark.parametrize("line, dice, score", [
    ("pair", "5-5-3-2-1", 16),
    ("two_pair", "2-2-5-5-1", 15),
    ("three_of_a_kind", "5-5-5-2-4", 21),
    ("four_of_a_kind", "1-1-1-1-3", 7),
    ("full_house", "2-2-2-3-3", 25),
    ("small_straight", "2-3-4-5-5", 30),
    ("large_straight", "2-3-4-5-6", 40),
    ("poker", "3-3-3-3-3", 50),
    ("chance", "2-3-5-6-6", 22),
])
def test_the_spec_examples_score_as_the_table_says(line, dice, score):
    assert line_score(line, roll(dice)) == score


def test_the_seeds_three_of_a_kind_example_is_a_misprint_corrected_to_5_5_5_2_4():
    # the seed prints "5-5-5-2-5 = 21"; those dice sum to 22 (and are four of a kind),
    # so the spec reads the example as 5-5-5-2-4 = 21
    assert line_score("three_of_a_kind", roll("5-5-5-2-5")) == 22
    assert line_score("three_of_a_kind", roll("5-5-5-2-4")) == 21


@pytest.mark.parametrize("line, face", [
    ("aces", 1), ("twos", 2), ("threes", 3), ("fours", 4), ("fives", 5), ("sixes", 6)])
def test_an_upper_line_scores_the_sum_of_the_dice_showing_its_face(line, face):
    dice = (face, face, 1 if face != 1 else 2, face, 6 if face != 6 else 5)
    assert line_score(line, dice) == 3 * face


def test_aces_line_holds_the_sum_of_the_ones_as_the_seed_says():
    assert line_score("aces", roll("1-1-4-1-6")) == 3


def test_pair_and_kinds_score_the_sum_of_all_five_dice_not_only_the_matching_ones():
    assert line_score("pair", roll("6-6-1-2-3")) == 18
    assert line_score("four_of_a_kind", roll("2-2-2-2-6")) == 14


@pytest.mark.parametrize("line, dice", [
    ("pair", "1-2-3-4-6"),
    ("two_pair", "2-2-5-4-1"),
    ("three_of_a_kind", "5-5-3-2-4"),
    ("four_of_a_kind", "1-1-1-2-3"),
    ("full_house", "2-2-2-3-4"),
    ("small_straight", "1-2-3-5-6"),
    ("large_straight", "1-2-3-4-6"),
    ("poker", "3-3-3-3-2"),
])
def test_a_roll_that_does_not_meet_a_lines_need_scores_0_there(line, dice):
    assert line_score(line, roll(dice)) == 0


def test_chance_takes_any_roll():
    assert line_score("chance", roll("1-2-3-4-6")) == 16


# Readings decided for five and four of a kind -------------------------------------------------

def test_five_of_a_kind_meets_pair_three_and_four_of_a_kind():
    assert [line_score(line, roll("4-4-4-4-4")) for line in
            ("pair", "three_of_a_kind", "four_of_a_kind")] == [20, 20, 20]


def test_five_of_a_kind_is_not_two_pair_or_full_house_the_seed_wants_two_other_values():
    assert not meets_need("two_pair", roll("4-4-4-4-4"))
    assert not meets_need("full_house", roll("4-4-4-4-4"))
    assert line_score("full_house", roll("4-4-4-4-4")) == 0


def test_four_of_a_kind_is_not_two_pair():
    assert line_score("two_pair", roll("3-3-3-3-5")) == 0


def test_a_full_house_is_also_two_pair():
    assert line_score("two_pair", roll("2-2-2-3-3")) == 12


def test_a_large_straight_is_also_a_small_straight():
    assert line_score("small_straight", roll("1-2-3-4-5")) == 30


def test_a_small_straight_may_have_its_fifth_die_anywhere():
    assert line_score("small_straight", roll("6-3-1-4-5")) == 30


# Upper bonus ------------------------------------------------------------------------------

def full_upper(**overrides: int) -> Scorecard:
    three_of_each = {"aces": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    return card_with(**{**three_of_each, **overrides})


def test_the_upper_bonus_needs_more_than_63_by_default_the_seeds_words():
    assert scorecard_totals(full_upper(), 0).upper == 63
    assert scorecard_totals(full_upper(), 0).upper_bonus == 0
    assert scorecard_totals(full_upper(aces=4), 0).upper_bonus == 35


def test_the_63_or_more_setting_pays_the_upper_bonus_at_three_of_each_face():
    settings = DiceSettings(upper_bonus_rule="63_or_more")
    assert scorecard_totals(full_upper(), 0, settings).upper_bonus == 35
    assert scorecard_totals(full_upper(sixes=12), 0, settings).upper_bonus == 0


def test_totals_add_upper_bonus_lower_and_poker_bonuses():
    card = full_upper(aces=4).with_score("poker", 50).with_score("chance", 22)
    assert scorecard_totals(card, 2) == Totals(upper=64, upper_bonus=35, lower=72,
                                               poker_bonuses=200, grand_total=371)


# Poker bonus and joker --------------------------------------------------------------------

def test_five_of_a_kind_again_with_poker_at_50_is_a_joker_earning_100():
    card = card_with(poker=50)
    assert is_joker(card, roll("2-2-2-2-2"))
    options = {o.line: o for o in line_options(card, roll("2-2-2-2-2"), 0)}
    assert options["twos"].bonus == 100


def test_joker_must_go_on_the_upper_line_of_its_face_when_it_is_free():
    assert legal_lines(card_with(poker=50), roll("5-5-5-5-5")) == ("fives",)


def test_joker_with_its_upper_line_filled_goes_on_any_free_lower_line_scoring_it_normally():
    card = card_with(poker=50, fives=15, pair=12)
    assert legal_lines(card, roll("5-5-5-5-5")) == (
        "two_pair", "three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
        "large_straight", "chance")
    options = {o.line: o for o in line_options(card, roll("5-5-5-5-5"), 0)}
    assert {line: options[line].score for line in legal_lines(card, roll("5-5-5-5-5"))} == {
        "two_pair": 25, "three_of_a_kind": 25, "four_of_a_kind": 25, "full_house": 25,
        "small_straight": 30, "large_straight": 40, "chance": 25}


def test_joker_with_no_free_lower_line_is_written_as_0_on_a_free_upper_line():
    lower_full = {"pair": 10, "two_pair": 12, "three_of_a_kind": 15, "four_of_a_kind": 20,
                  "full_house": 25, "small_straight": 30, "large_straight": 40, "poker": 50,
                  "chance": 20}
    card = card_with(**lower_full, sixes=18, aces=2)
    assert legal_lines(card, roll("6-6-6-6-6")) == ("twos", "threes", "fours", "fives")
    options = {o.line: o for o in line_options(card, roll("6-6-6-6-6"), 0)}
    assert options["threes"].score == 0 and options["threes"].bonus == 100


def test_poker_holding_0_gives_no_bonus_and_no_joker():
    card = card_with(poker=0, fours=8)
    assert not is_joker(card, roll("4-4-4-4-4"))
    assert legal_lines(card, roll("4-4-4-4-4")) == card.free_lines()
    options = {o.line: o for o in line_options(card, roll("4-4-4-4-4"), 0)}
    assert options["full_house"].score == 0 and options["chance"].bonus == 0


def test_the_first_five_of_a_kind_is_no_joker_while_poker_is_free():
    assert not is_joker(Scorecard(), roll("3-3-3-3-3"))
    assert "poker" in legal_lines(Scorecard(), roll("3-3-3-3-3"))


def test_line_options_mark_filled_lines_and_lines_the_joker_forbids():
    card = card_with(poker=50, chance=20)
    options = {o.line: o for o in line_options(card, roll("1-1-1-1-1"), 1)}
    assert options["chance"].reason == "line_filled" and not options["chance"].legal
    assert options["pair"].reason == "joker_line_required"
    assert options["aces"].legal and options["aces"].total_after == 5 + 50 + 20 + 200


def test_writing_the_line_that_completes_the_upper_section_earns_the_upper_bonus_there():
    card = card_with(aces=3, twos=6, threes=9, fours=12, fives=20)
    options = {o.line: o for o in line_options(card, roll("6-6-6-1-2"), 0)}
    assert options["sixes"].bonus == 35
    assert options["chance"].bonus == 0


# The action clock's choice ------------------------------------------------------------------

def test_best_free_line_takes_the_highest_score():
    assert best_free_line(Scorecard(), roll("2-3-4-5-6")) == "large_straight"
    assert best_free_line(Scorecard(), roll("6-6-6-6-6")) == "poker"


def test_best_free_line_prefers_the_earlier_line_on_equal_scores_keeping_chance():
    assert best_free_line(Scorecard(), roll("5-5-3-2-1")) == "pair"


def test_best_free_line_counts_an_upper_bonus_it_completes():
    card = card_with(aces=3, twos=6, threes=9, fours=12, fives=20)
    # sixes 18 + 35 bonus beats chance 21 and three of a kind 21
    assert best_free_line(card, roll("6-6-6-1-2")) == "sixes"


def test_best_free_line_obeys_the_joker_rule():
    assert best_free_line(card_with(poker=50), roll("1-1-1-1-1")) == "aces"


# Settings and input ----------------------------------------------------------------------

def test_settings_default_to_the_spec():
    assert DiceSettings.from_dict({}) == DEFAULT_SETTINGS
    assert DEFAULT_SETTINGS.as_dict() == {
        "max_players": 6, "rolls_per_turn": 3, "upper_bonus": 35,
        "upper_bonus_rule": "more_than_63", "poker_bonus": 100, "turn_time_limit_s": None}


def test_settings_accept_the_63_or_more_rule_and_a_time_limit():
    settings = DiceSettings.from_dict({"upper_bonus_rule": "63_or_more", "turn_time_limit_s": 30})
    assert settings.upper_bonus_rule == "63_or_more" and settings.turn_time_limit_s == 30


@pytest.mark.parametrize("raw", [
    {"max_players": 7}, {"max_players": 0}, {"rolls_per_turn": 0}, {"rolls_per_turn": "3"},
    {"upper_bonus": -1}, {"upper_bonus_rule": "at_least_64"}, {"poker_bonus": True},
    {"turn_time_limit_s": 0}, {"turn_time_limit_s": 2.5}, {"bonus": 35},
])
def test_bad_settings_are_refused_with_a_violation(raw):
    with pytest.raises(Violation) as refused:
        DiceSettings.from_dict(raw)
    assert refused.value.code == "invalid_settings"


@pytest.mark.parametrize("values", [(1, 2, 3, 4), (1, 2, 3, 4, 7), (0, 1, 2, 3, 4), (1, 2, 3, 4, True)])
def test_a_roll_is_five_dice_showing_1_to_6(values):
    with pytest.raises(Violation) as refused:
        parse_dice(values)
    assert refused.value.code == "invalid_dice"


@pytest.mark.parametrize("scores", [{"aces": 7}, {"poker": 25}, {"chance": 0}, {"pair": 31},
                                    {"full_house": 20}, {"yahtzee": 50}])
def test_a_score_card_no_game_can_produce_is_refused(scores):
    with pytest.raises(Violation) as refused:
        Scorecard.from_mapping(scores)
    assert refused.value.code == "invalid_scorecard"


def test_a_score_card_lists_the_fifteen_lines_in_order():
    assert LINES == ("aces", "twos", "threes", "fours", "fives", "sixes", "pair", "two_pair",
                     "three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
                     "large_straight", "poker", "chance")
    assert Scorecard().as_dict() == dict.fromkeys(LINES)
