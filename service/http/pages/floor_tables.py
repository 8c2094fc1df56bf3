"""`/floor/tables/{id}` (pages.md): a table live for the floor: seats, stacks, bets, the
pot and the board, whose turn it is and the legal range, the action clock, and the
table's hands, each opening the replayer, and the rulings recorded at the table.

The page follows the table's stream (GET /v1/tables/{id}/stream, the session cookie
standing in for a key, redacted for the signed-in caller) with static/floor/table.js; on
each event it fetches `/floor/tables/{id}/live`, the same server-rendered fragment the
page was built with, so there is one template and Jinja escapes every name in it.
"""
from __future__ import annotations

from typing import Any

from flask import render_template

from domain.live import table, table_state
from service.application import commands, floor_rulings, replay, views
from service.http.api import application
from service.http.api.names import names_of
from service.http.pages.frame import pages, problem_page
from service.http.pages.hand_lists import hand_links, newest_on_page, older_hands
from service.http.pages.replayer import FLOOR_ROLES, page_viewer
from service.http.pages.session import floor_page


def _live(table_id: str) -> dict[str, Any] | None:
    """What the live fragment shows, as the signed-in caller may see it (None: no table)."""
    loaded = commands.load_table(application(), table_id)
    state = loaded.state
    if state is None:
        return None
    viewer = page_viewer()
    shown = views.table_view(state, loaded.version, viewer)
    names = names_of(set(state.players) - {table_state.EMPTY_SEAT})
    acting = views.legal_actions_view(state, viewer)
    hand = shown["hand"]
    return {
        "table": shown, "names": names, "to_act": acting["to_act"], "legal": acting["legal"],
        "raise_closed_reason": acting.get("raise_closed_reason"),
        "raise_reopened": acting.get("raise_reopened"),
        "pot_limit": replay.pot_limit_words(state),
        "hand": hand, "pot_total": sum(pot["amount"] for pot in (hand or {}).get("pots") or []),
        "hands": hand_links(table_id, newest_on_page(state.hands_played)),
        "more_hands": older_hands(state.hands_played),
    }


@pages.route("/floor/tables/<string:table_id>", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def floor_table(table_id: str) -> Any:
    live = _live(table_id)
    if live is None:
        return problem_page(404, "not_found", f"no table {table_id}")
    game = live["table"]["game"]
    # Newest first: the one just made is what the floor looks for.
    rulings = floor_rulings.rulings_of(application(), [table_id], page_viewer())[::-1]
    return render_template("floor/table.html", live=live, table_id=table_id, rulings=rulings,
                           stream_types=sorted(table.event_types(game)))


@pages.route("/floor/tables/<string:table_id>/live", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def floor_table_live(table_id: str) -> Any:
    """The live part of the page alone, for the page's script to swap in after an event."""
    live = _live(table_id)
    if live is None:
        return problem_page(404, "not_found", f"no table {table_id}")
    return render_template("floor/table_live.html", live=live, table_id=table_id)
