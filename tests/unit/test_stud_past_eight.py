"""Stud past eight players (issue 33): seven-card stud, razz and stud hi-lo are dealt to at
most eight (Robert's Rules, seven-card stud: seven cards each for eight, and one common
card on seventh street when the deck runs out), and so are the stud hands of a rotation
(HORSE, 8-game). The domain refuses a hand of more at its start, `too_many_players` with
the numbers and the rule; a nine- or ten-handed history is refused the same way, before a
card is dealt, never a failure mid-hand. Live tables seat no more to begin with."""
from __future__ import annotations

import pytest

from domain import registry
from domain.games import dealt_games, mixed
from domain.games.dealt_hand import MixedState
from domain.history.phh import parse
from domain.history.phh_games import replay
from domain.live import table, table_commands
from domain.rules.betting import BettingStructure
from domain.rules.violations import Violation
from domain.rulings.betting import betting_ruling
from tests.playing import TABLE_SETUPS

STUD_GAMES = ("stud", "razz", "stud_hi_lo")
LIMIT = BettingStructure(kind="fixed-limit", small_bet=5, big_bet=10, raise_cap=4)

# Nine seats at 5-10, an ante of 1 and a bring-in of 2: the deal every history opens with.
NINE_SEATS = """\
variant = "{variant}"
ante_trimming_status = true
antes = [1, 1, 1, 1, 1, 1, 1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [500, 500, 500, 500, 500, 500, 500, 500, 500]
actions = [
  "d dh p1 AsKsQh", "d dh p2 3d4d9s", "d dh p3 5h6h2c", "d dh p4 7c8cJd", "d dh p5 9hTdTc",
  "d dh p6 2d3sKh", "d dh p7 4s5s8d", "d dh p8 6s7s9d", "d dh p9 2h3hJc",
]
"""
NINE_HANDED = {variant: NINE_SEATS.format(variant=variant) for variant in ("F7S", "FR", "F7S/8")}


def _start(game: str, players: int) -> MixedState:
    return mixed.handle(None, mixed.StartHand(game, tuple(f"P{i}" for i in range(players)), (500,) * players,
                                              players - 1, LIMIT, (1,) * players, (0,) * players,
                                              bring_in=2))[1]


@pytest.mark.parametrize("players", [9, 10])
@pytest.mark.parametrize("game", STUD_GAMES)
def test_a_stud_hand_of_more_than_eight_is_refused_at_its_start_citing_roberts_rules(game, players):
    with pytest.raises(Violation) as refused:
        _start(game, players)
    assert (refused.value.code, refused.value.rule) == ("too_many_players", "RRP seven-card stud")
    assert refused.value.numbers == {"players": players, "max_players": 8}
    assert f"at most 8 players, not {players}" in refused.value.detail


@pytest.mark.parametrize("game", STUD_GAMES)
def test_eight_players_are_dealt_stud(game):
    state = _start(game, 8)
    assert state.phase == "deal" and len(state.players) == 8


def test_the_flop_games_still_take_ten_players():
    assert len(_start("omaha_hi_lo", 10).players) == 10


@pytest.mark.parametrize("game", [*STUD_GAMES, "horse", "eight_game"])
def test_a_table_of_stud_or_a_rotation_holding_it_seats_nine_nowhere(game):
    rules = registry.table_rules(game)
    assert rules.table_game.max_seats <= dealt_games.MAX_STUD_PLAYERS
    seats = tuple(table_commands.TableSeat(f"p{i}", 500) for i in range(9))
    settings = TABLE_SETUPS[game]["settings"]
    with pytest.raises(Violation) as refused:
        table.handle(None, table_commands.CreateTable("t", game, settings, rules.table_game.betting(settings), seats,
                                                      ranked=False))
    assert refused.value.code == "invalid_table"
    assert refused.value.numbers["max_seats"] <= dealt_games.MAX_STUD_PLAYERS


@pytest.mark.parametrize("variant", sorted(NINE_HANDED))
def test_a_nine_handed_stud_history_is_refused_before_a_card_is_dealt(variant):
    record = parse(NINE_HANDED[variant])
    assert record.player_count == 9
    with pytest.raises(Violation) as refused:
        replay(record)
    assert (refused.value.code, refused.value.rule) == ("too_many_players", "RRP seven-card stud")
    assert refused.value.numbers == {"players": 9, "max_players": 8}


def test_a_betting_ruling_on_nine_at_stud_is_refused_the_same_way():
    with pytest.raises(Violation) as refused:
        betting_ruling({"game": "razz", "seats": [{"player": f"P{i}", "stack": 500} for i in range(9)],
                        "betting": {"structure": "fixed-limit", "small_bet": 10, "big_bet": 20,
                                    "ante": 1, "bring_in": 3}})
    assert (refused.value.code, refused.value.numbers) == ("too_many_players", {"players": 9, "max_players": 8})
