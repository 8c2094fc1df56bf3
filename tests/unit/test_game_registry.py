"""domain.registry: every built-in game is registered once, with what the tables, the
tournaments, the rulings and the PHH replay used to read from lists of their own."""
from __future__ import annotations

import pytest

from domain import registry, secrecy
from domain.history import phh, phh_draw, phh_mixed
from domain.live import table_state
from domain.rules.violations import Violation
from domain.rulings import betting as betting_rulings
from domain.rulings import showdown
from tests import high_card

TABLE_GAMES = ["deuce_seven_triple_draw", "dice", "eight_game", "five-card-draw", "holdem", "horse", "omaha",
               "omaha_hi_lo", "palace", "razz", "stud", "stud_hi_lo"]


def test_the_built_in_games_are_the_tables_and_the_rulings_games() -> None:
    assert sorted(registry.table_names()) == TABLE_GAMES
    assert registry.names(lambda game: game.in_tournaments) == ["holdem", "omaha"]
    assert registry.names(lambda game: game.betting_ruling) == list(betting_rulings.GAMES)
    assert sorted(registry.names(lambda game: game.showdown_ruling)) == sorted(showdown.GAMES)


@pytest.mark.parametrize("variant", [*phh.REPLAYABLE, *phh_mixed.VARIANTS, *phh_draw.VARIANTS])
def test_every_replayable_phh_variant_is_played_as_its_game(variant: str) -> None:
    game = registry.game_of_variant(variant)
    expected = {**{code: name for code, (name, _) in {**phh.REPLAYABLE, **phh_mixed.VARIANTS}.items()},
                **{code: betting_rulings.FIVE_CARD_DRAW for code in phh_draw.VARIANTS}}[variant]
    assert game == expected
    assert registry.decider(game).EVENT_TYPES


def test_a_game_that_is_not_a_table_game_is_refused_naming_every_table_game() -> None:
    with pytest.raises(Violation) as refused:
        table_state.game_rules("badugi")  # ruled on, not dealt at a table
    assert refused.value.code == "invalid_table"
    assert f"game must be one of {', '.join(TABLE_GAMES)}, not 'badugi'" in str(refused.value.detail)


def test_a_name_registers_once_and_a_game_leaves_with_its_test() -> None:
    with pytest.raises(ValueError, match="registered already"):
        registry.register(registry.Game("holdem"))
    registration = high_card.registered()
    next(registration)
    try:
        assert table_state.game_rules(high_card.NAME).adapter is high_card.HighCardGame
        assert high_card.HighCardDealt in secrecy.registered()["HighCardDealt"]
        assert registry.ruling_forms()[-1] is high_card.RULING_FORM
    finally:
        registration.close()
    assert high_card.NAME not in registry.names() and high_card.RULING_FORM not in registry.ruling_forms()


def test_every_games_own_ruling_form_answers_its_example_in_words() -> None:
    forms = registry.ruling_forms()
    assert [form.path for form in forms] == ["palace-battle", "dice"]
    for form in forms:
        assert set(form.example) <= {field.name for field in form.fields}, form.path
        words = form.words(form.rule(form.request(form.example)))
        assert words and all(isinstance(line, str) and line for line in words), form.path
