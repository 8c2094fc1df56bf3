"""PHH export of live mixed-game hands: the file a hand writes is read back, by our replay
and by PokerKit, with the stacks the table ended with. The hands are played passively (the
bring-in, checks and calls, standing pat, the odd fold) so that none of the known
departures from PokerKit (tests/unit/test_differential_pokerkit_mixed.py) comes into play."""
from __future__ import annotations

import random

import pytest

from domain.games import dealt_games, mixed
from domain.history import phh, phh_games
from domain.live import table, table_commands
from domain.live.mixed import MixedTableGame, legal
from domain.registry import LIVE_MIXED_GAMES
from domain.rules.cards import deck_texts, format_card
from tests.unit.test_differential_pokerkit_mixed import _pokerkit_stacks
from tests.unit.test_table_games import SeededDraws
from tests.unit.test_table_mixed import create

HANDS = 12


def _hands(game: str, seed: int) -> list[tuple[list, tuple[int, ...]]]:
    """(the game events, the stacks in PHH order at the end) of each hand played."""
    rng, draws = random.Random(seed), SeededDraws(seed)
    settings = {"small_bet": 10, "ante": 2, "bring_in": 3} if dealt_games.GAMES[game].family == dealt_games.STUD \
        else {"small_bet": 10}
    state = create(game, settings, players=rng.randint(2, 6), stack=rng.randint(40, 200))
    played = []
    while len(played) < HANDS and not state.finished:
        log, state = table.handle(state, table_commands.StartNextHand(draws.shuffled(deck_texts()), draws.salt()), 0, draws)
        while state.hand_in_progress:
            options = legal(state.hand)
            if options.get("discard"):
                seat = state.position_of(state.to_act)
                hole = [format_card(c) for c in state.hand.game.hole[seat]]
                move = table_commands.Act(state.to_act, "discard", discard=tuple(rng.sample(hole, rng.randint(0, 3))))
            elif options.get("bring_in"):
                move = table_commands.Act(state.to_act, "bring_in")
            elif options["fold"] and options["call"] and rng.random() < 0.15:
                move = table_commands.Act(state.to_act, "fold")
            else:
                move = table_commands.Act(state.to_act, "check" if options["check"] else "call")
            events, state = table.handle(state, move, 0, draws)
            log += events
        game_events = [e for e in log if type(e) in mixed.EVENT_TYPES.values()]
        played.append((game_events, game_events[-1].stacks))
    return played


@pytest.mark.parametrize("game", LIVE_MIXED_GAMES)
def test_a_live_hand_exported_as_phh_replays_to_the_same_stacks_here_and_in_pokerkit(game: str) -> None:
    for seed in range(3):
        for events, stacks in _hands(game, seed):
            record = MixedTableGame(game).phh_record(events)
            text = phh.write_phh(record)
            expected_order = phh.phh_order(events[0].button, len(stacks))
            expected = tuple(stacks[seat] for seat in expected_order)
            assert record.finishing_stacks == expected
            assert _pokerkit_stacks(text) == expected, text
            # Our PHH replay splits an odd chip exactly (halves), the table by TDA 2024
            # rule 20: the same chips, each stack within the odd chip.
            replayed = phh_games.replay(phh.parse(text)).finishing_stacks
            assert sum(replayed) == sum(expected)
            assert all(abs(ours - table_) < 1 for ours, table_ in zip(replayed, expected)), text


def test_a_stud_export_writes_the_streets_the_bring_in_and_the_showdown() -> None:
    events, _ = _hands("stud", 7)[0]
    text = phh.write_phh(MixedTableGame("stud").phh_record(events))
    assert 'variant = "F7S"' in text and "bring_in = 3" in text and " pb" in text
    assert text.count("d dh p1 ") >= 1 and "blinds_or_straddles" not in text
