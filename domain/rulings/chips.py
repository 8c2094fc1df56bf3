"""POST /v1/rulings/chips: what pushed chips and spoken words count as
(domain.rules.declarations), in a situation described compactly or in a whole hold'em or
Omaha hand replayed as for the betting ruling (domain.rulings.betting)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.rules.declarations import interpret, situation, situation_from_betting
from domain.rules.violations import Violation
from domain.rulings.betting import replayed_holdem

# Games whose whole hand a chips ruling replays (the others are described as a situation).
HAND_GAMES = ("holdem", "omaha")


def chips_ruling(request: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /v1/rulings/chips`: the compact `situation`, or the whole hold'em or Omaha hand
    as for the betting ruling (the player is the one to act)."""
    if request.get("situation") is not None:
        if request.get("seats") is not None or request.get("actions"):
            raise Violation("validation_error", "give either a situation or the whole hand, not both")
        found = situation(request["situation"])
    else:
        game = request.get("game", "holdem")
        if game not in HAND_GAMES:
            raise Violation("validation_error",
                            f"a whole-hand chips ruling covers {', '.join(HAND_GAMES)}, not {game!r}; "
                            "describe other games as a situation")
        if request.get("seats") is None or request.get("betting") is None:
            raise Violation("validation_error", "give a situation, or the hand's betting and seats")
        state, _ = replayed_holdem(request)
        seat = state.to_act
        if seat is None:
            raise Violation("hand_over" if state.over else "not_your_turn",
                            "nobody is to act in this hand")
        found = situation_from_betting(state.betting, seat)
    return interpret(found, request.get("chips") or (), request.get("said"), request.get("order")).as_dict()
