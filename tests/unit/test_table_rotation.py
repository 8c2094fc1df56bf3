"""HORSE and 8-game tables (domain.live.rotation): the game changes on the orbit, a
round lasting as many hands as there are players, stud games included; the table shows
the current and the next game; each hand exports as PHH that PokerKit reads back."""
from __future__ import annotations

from domain.games import dealt_games, mixed
from domain.history import phh, phh_games
from domain.live import table, table_commands, table_state
from domain.live.rotation import ROTATIONS, RotationDealt, next_position
from domain.rules.cards import deck_texts
from service.application import views
from tests.unit.test_differential_pokerkit_mixed import _pokerkit_stacks
from tests.unit.test_table_games import SeededDraws
from tests.unit.test_table_mixed import create, passive

SETTINGS = {"small_bet": 10, "ante": 1, "bring_in": 3}


def _play_hands(game: str, players: int, hands: int, seed: int = 1):
    state = create(game, SETTINGS, players=players)
    draws = SeededDraws(seed)
    played = []
    for _ in range(hands):
        log, state = table.handle(state, table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt()), 0, draws)
        view = views.table_view(state, 1, views.Viewer("spectator"))["rotation"]
        more, state = passive(state, draws)
        played.append((state.hand.game.game.name, state.hand.game.betting.structure.kind, view, log + more))
    return played, state


def test_a_full_horse_orbit_plays_each_game_for_one_orbit_of_the_button() -> None:
    played, state = _play_hands("horse", players=4, hands=21)
    games = [game for game, *_ in played]
    assert games == ["rotation_holdem"] * 4 + ["omaha_hi_lo"] * 4 + ["razz"] * 4 + ["stud"] * 4 \
        + ["stud_hi_lo"] * 4 + ["rotation_holdem"]
    assert all(kind == "fixed-limit" for _, kind, _, _ in played)
    assert sum(state.stacks) == 4 * 500


def test_the_table_shows_the_current_game_and_the_next_one_at_the_turn_of_a_round() -> None:
    played, _ = _play_hands("horse", players=3, hands=4)
    last_of_round, first_of_next = played[2][2], played[3][2]
    assert last_of_round["current"] == "limit hold'em" and last_of_round["next"] == "Omaha hi-lo"
    assert (last_of_round["hand_of_round"], last_of_round["hands_in_round"]) == (3, 3)
    assert first_of_next["current"] == "Omaha hi-lo" and first_of_next["hand_of_round"] == 1
    assert played[0][2]["games"] == ["limit hold'em", "Omaha hi-lo", "razz", "seven-card stud", "stud hi-lo"]


def test_eight_game_plays_its_big_bet_games_no_limit_and_pot_limit() -> None:
    played, _ = _play_hands("eight_game", players=2, hands=16)
    steps = [(game, kind) for game, kind, _, _ in played[::2]]
    assert steps == [("deuce_seven_triple_draw", "fixed-limit"), ("rotation_holdem", "fixed-limit"),
                     ("omaha_hi_lo", "fixed-limit"), ("razz", "fixed-limit"), ("stud", "fixed-limit"),
                     ("stud_hi_lo", "fixed-limit"), ("rotation_holdem", "no-limit"),
                     ("rotation_omaha", "pot-limit")]


def test_a_round_never_outlasts_the_players_left() -> None:
    # Five began the round; after two hands only three remain: the round ends at three.
    rotation = ROTATIONS["horse"]
    third = next_position(next_position(RotationDealt(0, 0, 5, "rotation_holdem"), 5, rotation), 3, rotation)
    assert third == RotationDealt(0, 2, 5, "rotation_holdem")
    assert next_position(third, 3, rotation) == RotationDealt(1, 0, 3, "omaha_hi_lo")


def test_only_stud_games_take_antes_in_a_rotation() -> None:
    played, _ = _play_hands("horse", players=2, hands=8)
    for game, _, _, log in played:
        started = next(e for e in log if isinstance(e, mixed.HandStarted))
        assert any(started.antes) == (dealt_games.DEALT_GAMES[game].family == dealt_games.STUD)


def test_every_hand_of_a_rotation_exports_as_phh_that_pokerkit_reads_to_the_same_stacks() -> None:
    played, _ = _play_hands("eight_game", players=3, hands=24, seed=5)
    adapter = table_state.game_rules("eight_game").table_game
    for _game, _, _, log in played:
        events = [e for e in log if type(e) in mixed.EVENT_TYPES.values()]
        record = adapter.phh_record(events)
        text = phh.write_phh(record)
        assert _pokerkit_stacks(text) == record.finishing_stacks, text
        replayed = phh_games.replay(phh.parse(text)).finishing_stacks
        assert all(abs(ours - recorded) < 1 for ours, recorded in zip(replayed, record.finishing_stacks))
