"""Registering a player: given events / when command / then events or violation."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.players import INITIAL, NAME_PATTERN, PlayerRegistered, RegisterPlayer, decide, evolve, replay
from domain.rules.violations import Violation


def test_a_new_player_is_registered_under_the_trimmed_name():
    assert decide(INITIAL, RegisterPlayer("p1", "  Ann ")) == [PlayerRegistered("p1", "Ann")]


def test_a_registered_player_cannot_be_registered_again():
    state = replay([PlayerRegistered("p1", "Ann")])
    with pytest.raises(Violation) as raised:
        decide(state, RegisterPlayer("p1", "Bob"))
    assert raised.value.code == "player_exists"
    assert "'Ann'" in raised.value.detail


@pytest.mark.parametrize("name", ["", "   ", "\t\n", "\u3000", "Ann\x07", "\x85Ann", "\u202ennA", "Ann\u2067"])
def test_a_blank_name_or_one_with_control_characters_is_refused(name):
    with pytest.raises(Violation) as raised:
        decide(INITIAL, RegisterPlayer("p1", name))
    assert raised.value.code == "invalid_name"


def test_a_name_longer_than_100_characters_is_refused_quoting_the_length():
    with pytest.raises(Violation) as raised:
        decide(INITIAL, RegisterPlayer("p1", "x" * 101))
    assert raised.value.numbers == {"length": 101, "max_length": 100}
    assert "101" in raised.value.detail


def test_replay_is_a_fold_of_evolve():
    event = PlayerRegistered("p1", "Ann")
    assert replay([event]) == evolve(INITIAL, event)
    assert replay([event]).registered and not INITIAL.registered


@given(st.text(max_size=100))
def test_the_published_pattern_agrees_with_the_rule(name):
    """The HTTP schema publishes NAME_PATTERN: it must accept exactly what decide accepts."""
    try:
        decide(INITIAL, RegisterPlayer("p1", name))
        accepted = True
    except Violation:
        accepted = False
    assert accepted == bool(re.fullmatch(NAME_PATTERN, name))
    assert accepted == (bool(name.strip()) and not any(
        ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069
        for c in name))


@pytest.mark.parametrize("name", ["\u05d0\u05d1\u05d2", "\u0639\u0644\u064a", "Ann\u200f", "Zoë 李"])
def test_right_to_left_and_other_scripts_are_names_like_any_other(name):
    assert decide(INITIAL, RegisterPlayer("p1", name)) == [PlayerRegistered("p1", name)]
