"""The public screens of a tournament (pages.md): `/screens/tournaments/{id}/clock`,
`/seating` and `/payouts`, for a TV in the room or a player's phone; no sign-in; a
layout per screen by `?layout=` (LAYOUTS). The seating screen finds a
player's seat by name (`?name=`, and static/find.js as they type), on a phone as on a TV,
from the seating screen's own fields.

Each page is rendered from its screen of service.application.screens (the keyless public
view, field by field) and nothing else. In the browser, static/screens.js follows the
tournament's public stream (`?view=public`, from the version the page shows) and on any
event fetches the page's `?part=screen` (the same template's screen alone) and swaps it
in; the clock counts down in between, to the second.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import Response, make_response, render_template, request

from domain.tournaments import events as tournament_events
from service.application import listings, screens, tournaments
from service.http.api import application, resources
from service.http.pages.frame import pages
from service.http.problems import Problem

SCREEN_PART = "screen"
SCREEN_AGE = "screen-age"
"""The Server-Timing metric of a screen's answer: milliseconds from reading the clock to
sending the page."""
LAYOUTS = {"clock": ("clock", "payouts"), "seating": ("seating", "carousel"), "payouts": ("payouts",)}
"""A layout per screen, chosen by `?layout=` (the first is the default): the clock alone,
the clock with the payouts beside it, the seating as a carousel of tables for a TV."""
PAYOUTS_BESIDE_THE_CLOCK = {"clock": 3, "payouts": screens.PAYOUTS_ON_THE_CLOCK}
FAR_START_S = 24 * 3600
"""A start further off than this shows as a day and time, not a countdown of hours."""
NAME_MAX = 100  # what find your seat reads of a name typed
FOLLOWED_TYPES = sorted(tournament_events.EVENT_TYPES)
"""The stream's message names (an EventSource is told of named messages by name only)."""


def _loaded(tournament_id: str) -> tournaments.LoadedTournament:
    loaded = tournaments.load_tournament(application(), tournament_id)
    if not loaded.exists:
        raise Problem(404, "not_found", f"no tournament {tournament_id}")
    return loaded


def _names(loaded: tournaments.LoadedTournament) -> dict[str, str]:
    pool = resources().pool
    wanted = screens.players_named(loaded)
    return listings.names(pool, wanted) if pool is not None and wanted else {}


def _render(kind: str, tournament_id: str,
            build: Callable[[tournaments.LoadedTournament, dict[str, str], float], dict[str, Any]]) -> Response:
    layout = request.args.get("layout", LAYOUTS[kind][0])
    if layout not in LAYOUTS[kind]:
        raise Problem(400, "unknown_layout", f"the {kind} screen has no layout {layout[:40]!r}: "
                      f"it has {', '.join(LAYOUTS[kind])}")
    loaded = _loaded(tournament_id)
    names = _names(loaded)
    now = time.time()
    screen = build(loaded, names, now)
    part = f"screens/{kind}_part.html"
    laid_out: dict[str, Any] = {"layout": layout, "payouts_shown": PAYOUTS_BESIDE_THE_CLOCK.get(layout, 0),
                                "far_start_s": FAR_START_S}
    if kind == "clock" and layout == "payouts":
        laid_out["payouts"] = screens.payouts_screen(loaded, names)
    if request.args.get("part") == SCREEN_PART:
        page = render_template(part, screen=screen, version=loaded.version, **laid_out)
    else:
        shown: dict[str, Any] = {}
        if kind == "seating":
            find = request.args.get("name", "")[:NAME_MAX]
            shown = {"find": find, "found": screens.find_seats(screen, find)}
        page = render_template("screens/screen.html", kind=kind, part=part, screen=screen, version=loaded.version,
                               tournament_id=tournament_id, followed_types=FOLLOWED_TYPES, **laid_out, **shown)
    answer = make_response(page)
    # How old the screen's seconds are as it leaves (a first render compiles templates):
    # static/screens.js counts them as gone, so every screen shows the same second.
    answer.headers["Server-Timing"] = f"{SCREEN_AGE}; dur={(time.time() - now) * 1000:.1f}"
    return answer


@pages.route("/screens/tournaments/<string:tournament_id>/clock", methods=["GET"])
def clock_screen(tournament_id: str) -> Response:
    return _render("clock", tournament_id, screens.clock_screen)


@pages.route("/screens/tournaments/<string:tournament_id>/seating", methods=["GET"])
def seating_screen(tournament_id: str) -> Response:
    return _render("seating", tournament_id, screens.seating_screen)


@pages.route("/screens/tournaments/<string:tournament_id>/payouts", methods=["GET"])
def payouts_screen(tournament_id: str) -> Response:
    return _render("payouts", tournament_id, lambda loaded, names, now: screens.payouts_screen(loaded, names))
