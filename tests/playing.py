"""How tests play a live table: quickly (the player to act puts every chip in), or as a
client knowing nothing of the game but the one `legal` shape every game's views share
(`generic_move`)."""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from domain.live import table_commands, table_state
from service.application import commands
from service.application.parts import Application


def shove(app: Application, table_id: str) -> bool:
    """The player to act puts every chip in (or calls, or checks); False if nobody is to act."""
    loaded = commands.load_table(app, table_id)
    state = loaded.state
    if state is None or state.to_act is None:
        return False
    legal = table_state.game_rules(state.game).module.legal_actions(state.hand)
    if legal.raise_ is not None:
        act = table_commands.Act(state.to_act, "raise", legal.raise_.max_to)
    elif legal.bet is not None:
        act = table_commands.Act(state.to_act, "bet", legal.bet.max_to)
    elif legal.call is not None:
        act = table_commands.Act(state.to_act, "call")
    else:
        act = table_commands.Act(state.to_act, "check")
    commands.execute(app, table_id, loaded.version, act)
    return True


# ------------------------------------------------------------------ a bot for every game

# The fields an action request may carry besides `action` (POST /v1/tables/{id}/actions):
# an option of `legal` names some of them, and may say more about itself (a dice line's
# `points`), which is not sent.
REQUEST_FIELDS = ("to", "discard", "defender", "keep", "line")

# Every registered table game with what its table is created with (settings, betting).
TABLE_SETUPS: dict[str, dict[str, Any]] = {
    "holdem": {"betting": {"structure": "no-limit", "small_blind": 5, "big_blind": 10}},
    "omaha": {"betting": {"structure": "pot-limit", "small_blind": 5, "big_blind": 10}},
    "five-card-draw": {"settings": {"ante": 5}, "betting": {"structure": "fixed-limit"}},
    "palace": {"settings": {"small_bet": 10, "big_bet": 20}},
    "dice": {"settings": {}},
    **{game: {"settings": {"small_bet": 10, "ante": 1, "bring_in": 3}}
       for game in ("stud", "stud_hi_lo", "razz", "horse", "eight_game")},
    "omaha_hi_lo": {"settings": {"small_bet": 10}},
    "deuce_seven_triple_draw": {"settings": {"small_bet": 10}},
}


def allowed_actions(legal: Mapping[str, Any] | None) -> list[str]:
    """The actions `legal` allows now: those whose value is true or parameters (null and
    false say not now), in every game alike."""
    return [action for action, parameters in (legal or {}).items()
            if parameters is not None and parameters is not False]


def request_for(action: str, parameters: Any, rng: random.Random) -> dict[str, Any]:
    """The request a client sends for `action` knowing only the one `legal` shape: an amount
    within `min_to`..`max_to`, one of the `options` (its request fields), the fewest cards a
    `discard` may throw (from `from` when it names them; a draw stands pat)."""
    body: dict[str, Any] = {"action": action}
    if not isinstance(parameters, dict):
        return body
    if "min_to" in parameters:
        body["to"] = rng.choice((parameters["min_to"], parameters["max_to"]))
    if parameters.get("options"):
        option = rng.choice(parameters["options"])
        body.update({name: value for name, value in option.items() if name in REQUEST_FIELDS})
    if "min_cards" in parameters:
        body["discard"] = list(parameters.get("from", ()))[:parameters["min_cards"]]
    return body


def generic_move(legal: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """One allowed action of `legal`, chosen at random, as its request. Betting a lot is
    rarer than the rest, so that a hand ends."""
    allowed = allowed_actions(legal)
    assert allowed, f"nothing is allowed in {legal}"
    weights = [1 if action in ("bet", "raise", "attack", "buy") else 3 for action in allowed]
    action = rng.choices(allowed, weights)[0]
    return request_for(action, legal[action], rng)
