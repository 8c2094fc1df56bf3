"""One shape for what clients read (issue 30; README "Changelog"): a client written against
one game reads every other. At every decision of every registered table game, `legal` (as
GET /v1/tables/{id}/legal-actions serves it) holds actions only: each key is an action the
game's decider accepts (every allowed one is tried, with the request a client builds from
its parameters alone, and every key shown, allowed or not, is accepted at some decision of
the game), each value null, false, true or an object of parameters, the same keys for
every viewer; and the table's betting description is at `betting`, its `structure` one of
api.md's, in every game played for chips (null in the games played for points)."""
from __future__ import annotations

import random
from typing import Any

import pytest

from domain import registry
from domain.live import table, table_commands, table_state
from domain.rules.betting import KINDS, BettingStructure
from service.application import views
from tests.playing import TABLE_SETUPS, allowed_actions, generic_move, request_for
from tests.unit.test_table_games import SeededDraws, _deal

MAX_HANDS = 8
MAX_STEPS = 4000
VIEWERS = (views.Viewer("floor"), views.Viewer("spectator"), views.Viewer("player", "p0"),
           views.Viewer("player", "p1"))


def test_every_registered_table_game_has_a_table_setup_here() -> None:
    assert sorted(TABLE_SETUPS) == sorted(registry.table_names())


def _created(game: str) -> table_state.TableState:
    rules = registry.table_rules(game)
    setup = TABLE_SETUPS[game]
    settings, betting = setup.get("settings", {}), setup.get("betting")
    if rules.table_game is None:
        structure = BettingStructure.from_dict(betting or {})
    else:
        settings = rules.settings_with_betting(settings, betting) if betting else settings
        structure = rules.table_game.betting(settings)
    seats = tuple(table_commands.TableSeat(f"p{i}", 500) for i in range(3))
    return table.handle(None, table_commands.CreateTable("t", game, settings, structure, seats, ranked=False))[1]


def _act(player: str, request: dict[str, Any]) -> table_commands.Act:
    discard, keep = request.get("discard"), request.get("keep")
    return table_commands.Act(player, request["action"], request.get("to"), None if discard is None else tuple(discard),
                              request.get("defender"), None if keep is None else tuple(keep), request.get("line"))


def _check_betting_path(state: table_state.TableState) -> None:
    shown = views.table_view(state, 1, views.Viewer("floor"))
    if registry.table_rules(state.game).plays_for_chips(state.settings):
        assert shown["betting"]["structure"] in KINDS
        assert BettingStructure.from_dict(shown["betting"]).description() == shown["betting"]
    else:
        assert shown["betting"] is None
    assert "mode" not in (shown["betting"] or {})


@pytest.mark.parametrize("game", sorted(TABLE_SETUPS))
def test_legal_holds_only_actions_the_game_accepts(game: str) -> None:
    draws, rng = SeededDraws(30), random.Random(30)
    state = _created(game)
    seen: set[str] = set()
    accepted: set[str] = set()
    hands = 0
    for _ in range(MAX_STEPS):
        if state.finished or (hands >= MAX_HANDS and not state.hand_in_progress) or \
                (hands and not state.hand_in_progress and seen <= accepted):
            break
        if not state.hand_in_progress:
            state = table.handle(state, _deal(draws, registry.table_rules(game).uses_joker(state.settings)), 0,
                                 draws)[1]
            hands += 1
            _check_betting_path(state)
            continue
        shown = views.legal_actions_view(state)
        legal, player = shown["legal"], shown["to_act"]
        assert isinstance(legal, dict) and legal, shown
        for parameters in legal.values():
            assert parameters is None or isinstance(parameters, (bool, dict)), legal
        assert all(set(views.legal_actions_view(state, viewer)["legal"]) == set(legal) for viewer in VIEWERS)
        seen.update(legal)
        for action in allowed_actions(legal):
            table.handle(state, _act(player, request_for(action, legal[action], rng)), 0, draws)
            accepted.add(action)
        state = table.handle(state, _act(player, generic_move(legal, rng)), 0, draws)[1]
    assert hands, f"no hand of {game} was dealt"
    assert seen <= accepted, f"{game}: {sorted(seen - accepted)} shown in legal, never accepted"
    _check_betting_path(state)
