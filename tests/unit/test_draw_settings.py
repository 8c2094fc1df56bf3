"""Five-card draw settings: the spec's table of settings and defaults, and what is refused."""
from __future__ import annotations

import pytest

from domain.games.draw_settings import DEFAULT_SETTINGS, DrawSettings
from domain.rules.violations import Violation


def test_the_defaults_are_the_seeds_defaults():
    s = DrawSettings.from_dict({})
    assert s == DEFAULT_SETTINGS
    assert (s.mode, s.ante, s.starting_chips, s.draw_limit, s.opening, s.second_round_start,
            s.joker, s.hands, s.turn_time_limit_s) == (
        "betting", 10, 2000, "3_or_4_with_ace", None, "opener", None, 10, None)
    assert s.structure == "no-limit"


def test_every_other_value_of_the_table_is_accepted():
    s = DrawSettings.from_dict({
        "mode": "no-betting", "ante": 25, "starting_chips": 5000, "draw_limit": "5",
        "opening": "jacks_or_better", "second_round_start": "left_of_dealer", "joker": "bug",
        "hands": 3, "turn_time_limit_s": 30, "players": 4, "structure": "pot-limit"})
    assert (s.mode, s.draw_limit, s.opening, s.joker, s.players) == (
        "no-betting", 5, "jacks_or_better", "bug", 4)
    assert DrawSettings.from_dict({"opening": "none", "joker": "none", "draw_limit": 3}) == \
        DrawSettings(draw_limit=3)


def test_the_unit_is_twice_the_ante_and_the_smallest_bet():
    structure = DrawSettings(ante=25).betting_structure()
    assert structure.opening_minimum == 50
    assert structure.ante == 0  # the game posts its own antes (again on a redeal)


def test_fixed_limit_is_one_unit_before_the_draw_and_two_after_capped_at_a_bet_and_four_raises():
    structure = DrawSettings(structure="fixed-limit").betting_structure()
    assert (structure.unit(late=False), structure.unit(late=True), structure.raise_cap) == (20, 40, 5)


@pytest.mark.parametrize("raw", [
    {"mode": "poker"}, {"ante": 0}, {"ante": True}, {"ante": 2.5}, {"starting_chips": -1},
    {"draw_limit": 4}, {"draw_limit": True}, {"opening": "queens"}, {"second_round_start": "button"},
    {"joker": "yes"}, {"hands": 0}, {"turn_time_limit_s": 0}, {"players": 7}, {"players": 1},
    {"structure": "spread-limit"}, {"raise_cap": 0}, {"heads_up_uncapped": "no"}, {"colour": "red"},
])
def test_settings_it_cannot_play_are_invalid_settings(raw):
    with pytest.raises(Violation) as caught:
        DrawSettings.from_dict(raw)
    assert caught.value.code == "invalid_settings"
