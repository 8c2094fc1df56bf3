"""Invariants of the mixed games at a live table, for each game and each rotation (HORSE,
8-game), over random decks, stacks and legal actions: chips are conserved after every
command, no card is ever held twice, and replaying the table's events through store
records rebuilds the same state."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.games import dealt_games
from domain.live import table, table_commands, table_state
from domain.live.mixed import legal
from domain.live.rotation import ROTATIONS
from domain.records import from_record, to_record
from domain.registry import LIVE_MIXED_GAMES
from domain.rules.betting import BettingStructure
from domain.rules.cards import deck_texts, format_card
from tests.unit.test_table_games import SeededDraws

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HANDS = 4
ROTATION_HANDS = 12  # enough to turn to the next game or two


@st.composite
def tables(draw, game: str):
    n = draw(st.integers(2, table_state.game_rules(game).table_game.max_seats))
    stacks = draw(st.lists(st.integers(1, 300), min_size=n, max_size=n))
    return stacks, draw(st.integers(0, 2**32))


def _choose(state: table_state.TableState, rng: random.Random) -> table_commands.Act:
    options = legal(state.hand)
    player = state.to_act
    if options.get("discard"):
        seat = state.position_of(player)
        hole = [format_card(c) for c in state.hand.game.hole[seat]]
        return table_commands.Act(player, "discard", discard=tuple(rng.sample(hole, rng.randint(0, len(hole)))))
    moves = [table_commands.Act(player, a) for a in ("check", "call", "fold", "bring_in") if options.get(a)]
    for name in ("bet", "raise"):
        if options.get(name):
            amounts = {options[name]["min_to"], options[name]["max_to"], options[name].get("open_pair_to")}
            moves += [table_commands.Act(player, name, to) for to in amounts if to is not None]
    return rng.choice(moves)


def _play(game: str, stacks: list[int], seed: int) -> None:
    rng = random.Random(seed)
    draws = SeededDraws(seed)
    seats = tuple(table_commands.TableSeat(f"p{i}", s) for i, s in enumerate(stacks))
    # Antes for stud (a rotation takes them in its stud games only); blinds elsewhere.
    blinds_only = game in dealt_games.GAMES and dealt_games.GAMES[game].family != dealt_games.STUD
    settings_ = {"small_bet": 4} if blinds_only else {"small_bet": 4, "ante": 1}
    log, state = table.handle(None, table_commands.CreateTable("t", game, settings_, BettingStructure(), seats))
    total = sum(stacks)
    for _ in range(HANDS if game in dealt_games.GAMES else ROTATION_HANDS):
        if state.finished:
            break
        events, state = table.handle(state, table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt()), 0, draws)
        log += events
        while state.hand_in_progress:
            events, state = table.handle(state, _choose(state, rng), 0, draws)
            log += events
            assert sum(state.live_stacks) + _in_pots(state) == total
            held = [c for hole in state.hand.game.hole for c in hole] + list(state.hand.game.board)
            assert len(held) == len(set(held))
        assert sum(state.stacks) == total
    types = table.event_types(game)
    replayed = table_state.replay(from_record(types, *to_record(event)) for event in log)
    assert replayed == state


def _in_pots(state: table_state.TableState) -> int:
    return int(sum(state.hand.game.betting.committed)) + int(state.hand.game.betting.dead) \
        if state.hand_in_progress else 0


@SETTINGS
@given(tables("stud"))
def test_stud_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("stud", *table_)


@SETTINGS
@given(tables("stud_hi_lo"))
def test_stud_hi_lo_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("stud_hi_lo", *table_)


@SETTINGS
@given(tables("razz"))
def test_razz_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("razz", *table_)


@SETTINGS
@given(tables("omaha_hi_lo"))
def test_omaha_hi_lo_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("omaha_hi_lo", *table_)


@SETTINGS
@given(tables("deuce_seven_triple_draw"))
def test_triple_draw_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("deuce_seven_triple_draw", *table_)


@SETTINGS
@given(tables("horse"))
def test_horse_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("horse", *table_)


@SETTINGS
@given(tables("eight_game"))
def test_eight_game_conserves_chips_and_replays_the_same(table_: tuple) -> None:
    _play("eight_game", *table_)


def test_every_live_mixed_game_and_rotation_has_its_property() -> None:
    names = {name for name in globals() if name.endswith("_conserves_chips_and_replays_the_same")}
    assert len(names) == len(LIVE_MIXED_GAMES) + len(ROTATIONS)
