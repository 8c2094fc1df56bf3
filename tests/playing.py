"""How tests play a live table quickly: the player to act puts every chip in."""
from __future__ import annotations

from domain.live import table
from service.application import commands
from service.application.application import Application


def shove(app: Application, table_id: str) -> bool:
    """The player to act puts every chip in (or calls, or checks); False if nobody is to act."""
    loaded = commands.load_table(app, table_id)
    state = loaded.state
    if state is None or state.to_act is None:
        return False
    legal = table.game_rules(state.game).module.legal_actions(state.hand)
    if legal.raise_ is not None:
        act = table.Act(state.to_act, "raise", legal.raise_.max_to)
    elif legal.bet is not None:
        act = table.Act(state.to_act, "bet", legal.bet.max_to)
    elif legal.call is not None:
        act = table.Act(state.to_act, "call")
    else:
        act = table.Act(state.to_act, "check")
    commands.execute(app, table_id, loaded.version, act)
    return True
