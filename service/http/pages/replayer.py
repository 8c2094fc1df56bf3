"""The floor's hand replayer (pages.md): `/floor/hands/{hand_id}` steps through a live
table's hand, or a hand stored from PHH, and `/floor/hand-histories` opens a PHH record
(pasted, uploaded, or stored by id) in the same replayer; a .phhs file of several hands
is listed hand by hand first, each read on its own. Its picker lists stored hands: the
newest tables (the tables' list and its signed cursor) with their latest hands, or one
table's hands, a page at a time.

The steps come from service.application.replay (the table as this key may see it at
each event, the legal range, the verdict and the rule at each decision, the deal check
and the chain check); they are embedded in the page as JSON (`tojson` escapes `<`, `>`,
`&` and quotes, so hostile PHH metadata or names stay text) and stepped through by
static/floor/replayer.js with buttons and the arrow keys.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from domain import registry
from domain.history import phh, phh_games
from domain.history.phh_collection import CollectedHand, hands_of
from domain.rules.violations import Violation
from service.application import commands, floor_rulings, listings, replay, views
from service.application.handling import UnreadableStream
from service.application.site_histories import SITE_NAMES, SiteHand
from service.http.api import application, event_store, resources
from service.http.api.hand_histories import (
    MAX_PHH_BYTES,
    MAX_STORED_HANDS,
    STORING_ROLES,
    actor_of,
    checked_record,
    collection_answer,
    file_answer,
    kept,
    site_hand_entry,
    site_hand_record,
    site_hands_in,
    summarised,
)
from service.http.api.names import names_of
from service.http.api.paging import decode_cursor, encode_cursor
from service.http.auth import current_principal
from service.http.pages.frame import day, pages, problem_page, time_of_day
from service.http.pages.hand_lists import hand_links, newest_on_page, older_hands
from service.http.pages.session import floor_page
from service.http.problems import Problem

FLOOR_ROLES = ("floor", "admin")
PHH_FIELD = "phh"
PHH_FILE_FIELD = "phh_file"
STORED_FIELD = "hand_id"
STORE_FIELD = "store"
HAND_FIELD = "hand"
TABLE_FIELD = "table"
TABLES_PICKED = 20
"""Tables per page of the picker, newest first."""
LATEST_HANDS = 5
"""Each picked table's latest hands shown beside it."""


def page_viewer() -> views.Viewer:
    """The signed-in caller as the views redact for them."""
    principal = current_principal()
    return views.Viewer(principal.role, principal.player_id)


@pages.route("/floor/hands/<string:hand_id>", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def hand_replayer(hand_id: str) -> Any:
    try:
        replayed = replay.table_hand(event_store(), hand_id, page_viewer(), names_of)
    except replay.HandNotFound:
        return problem_page(404, "not_found", f"no hand {hand_id} to replay")
    subject = floor_rulings.subject_of(hand_id)
    recorded = [] if subject is None else floor_rulings.rulings_of(application(), [subject], page_viewer(),
                                                                   hand=hand_id)
    replayed["rulings"] = floor_rulings.at_steps(recorded, [step["version"] for step in replayed["steps"]])
    return render_template("floor/replayer.html", replay=replayed, title=heading(replayed), hand_id=hand_id)


def heading(replayed: dict[str, Any]) -> str:
    """A stored hand as the floor names it, never a bare id: its table's name, its number
    and when it started ("Feature table · hand 12 · Sat 5 Dec, 20:14 UTC"); a table
    without a name by its number, game and players (its id stays in the link)."""
    players = ", ".join(replayed["names"].get(p, p) for p in replayed["players"])
    if replayed["source"] == "table" and replayed.get("table_name"):
        started = replayed["started_at"]
        return f"{replayed['table_name']} · hand {replayed['number']} · {day(started)}, {time_of_day(started)}"
    if replayed["source"] == "table":
        return f"Hand {replayed['number']} · {replayed['game']} · {players}"
    # A hand kept as a rotation's (a single or button blind) is named by its record's game.
    game = registry.game_of_variant(replayed["variant"]) if replayed.get("variant") else replayed["game"]
    return f"Imported {game or 'hand'} · {players}"


@pages.route("/floor/hand-histories", methods=["GET"])
@floor_page(roles=FLOOR_ROLES)
def hand_history_form() -> Any:
    return render_template("floor/hand_histories.html", error=None, text="", stored="", picker=_picker(),
                           phh_games=registry.phh_variants(), max_stored_hands=MAX_STORED_HANDS)


def _picker() -> dict[str, Any]:
    """Stored hands to pick from: one table's hands (`?table=`, paged by `hands_before`),
    else the newest tables (the tables' list, paged by its signed cursor) with their
    latest hands."""
    table_id = request.args.get(TABLE_FIELD, "").strip()
    if table_id:
        state = commands.load_table(application(), table_id).state if len(table_id) <= 200 else None
        if state is None:
            return {"table": table_id, "missing": True}
        return {"table": table_id, "hands": hand_links(table_id, newest_on_page(state.hands_played)),
                "older": older_hands(state.hands_played)}
    pool = resources().pool
    if pool is None:
        return {"tables": [], "next": None}
    listed, more = listings.page(pool, "table", TABLES_PICKED,
                                 before=decode_cursor({}, request.args.get("cursor") or None))
    names = names_of({player for found in listed for player in found.players})
    tables = []
    for found in listed:
        try:
            state = commands.load_table(application(), found.id).state
        except UnreadableStream:  # its hands answer unreadable_stream; the picker lists the others
            tables.append({"id": found.id, "game": found.game, "status": "unreadable",
                           "players": [names.get(player) or player for player in found.players],
                           "hands": [], "played": 0})
            continue
        played = state.hands_played if state is not None else 0
        tables.append({"id": found.id, "name": state.name if state is not None else None,
                       "game": found.game, "status": found.status,
                       "players": [names.get(player) or player for player in found.players],
                       "hands": hand_links(found.id, played, LATEST_HANDS), "played": played})
    return {"tables": tables, "next": encode_cursor({}, listed[-1].position) if more else None}


@pages.route("/floor/hand-histories", methods=["POST"])
@floor_page(roles=FLOOR_ROLES)
def open_hand_history() -> Any:
    """A stored hand's id opens its replayer; PHH text (pasted or uploaded) is replayed
    here and nothing is stored. A .phhs file of several hands lists each hand with its
    outcome (or why it does not replay or cannot be read), and opens the one asked for.
    A record that does not replay is shown back with why."""
    stored = request.form.get(STORED_FIELD, "").strip()
    if stored:
        if len(stored) > 200 or not stored.startswith(replay.IMPORTED_HAND_PREFIX) and "." not in stored:
            return _form_error("a stored hand's id is hand-<uuid> (or a table hand's <table id>.<number>)",
                               "", stored, 400)
        return redirect(url_for("pages.hand_replayer", hand_id=stored), code=303)
    text, error = _posted_text()
    if error is not None:
        return _form_error(error, "", "", 400)
    if request.form.get(STORE_FIELD) == "true":
        return _kept_hands(text)
    site_hands = site_hands_in(text)
    if site_hands:
        return _site_hand(site_hands, text)
    collected = hands_of(text)
    hand_text = text
    if collected is not None:
        chosen = _chosen_hand(collected)
        if chosen is None:
            return _collection_page(collected, text)
        hand_text = chosen.text
    return _replayer_page(lambda: checked_record(hand_text), text, "PHH hand")


def _kept_hands(text: str) -> Any:
    """The pasted or uploaded hands kept, as `?store=true` keeps them: one hand opens in
    the replayer of the hand kept; a file of many answers with each hand kept now, kept
    before, refused or unreadable (its line and why); the form again with why otherwise."""
    principal = current_principal()
    if principal.role not in STORING_ROLES:
        return _form_error(f"keeping hands needs the role {', '.join(STORING_ROLES)}", text, "", 403)
    try:
        site_hands = site_hands_in(text)
        collected = None if site_hands else hands_of(text)
        if collected is not None or (site_hands and len(site_hands) > 1):
            answer = file_answer(collected, site_hands, actor_of(principal))
            body = render_template("floor/hand_collection.html", answer=answer, text=text)
            return Response(body, 200, mimetype="text/html")
        record = site_hand_record(site_hands[0]) if site_hands else checked_record(text)
        hand_id = kept(record, phh_games.replay(record), actor_of(principal))["id"]
    except Problem as invalid:
        return _form_error(invalid.detail, text, "", invalid.status)
    except Violation as refused:
        rule = f" ({refused.rule})" if refused.rule else ""
        return _form_error(f"{refused.code}: {refused.detail}{rule}", text, "", 422)
    return redirect(url_for("pages.hand_replayer", hand_id=hand_id), code=303)


def _replayer_page(read: Callable[[], phh.HandHistory], text: str, untitled: str) -> Any:
    """The replayer of the hand `read` gives; the form again with why when it cannot be
    read (400) or does not replay (422)."""
    try:
        record = read()
        replayed = replay.phh_record(record, page_viewer(), title=_title(record))
    except Problem as invalid:
        return _form_error(f"cannot read the hand: {invalid.detail}", text, "", 400)
    except Violation as refused:
        rule = f" ({refused.rule})" if refused.rule else ""
        return _form_error(f"{refused.code}: {refused.detail}{rule}", text, "", 422)
    return render_template("floor/replayer.html", replay=replayed, title=replayed["title"] or untitled)


def _site_hand(hands: tuple[SiteHand, ...], text: str) -> Any:
    """A site's hand history pasted or uploaded (PokerStars, Full Tilt ...): one hand opens
    in the replayer; a file of several lists them (as a .phhs file's) until one is asked for."""
    position = request.form.get(HAND_FIELD, "")
    asked = position.isdigit() and 1 <= int(position) <= len(hands)
    if len(hands) > 1 and not asked:
        try:
            answer = summarised([site_hand_entry(n, hand) for n, hand in enumerate(hands, 1)])
        except Problem as unreadable:
            return _form_error(unreadable.detail, text, "", 400)
        return Response(render_template("floor/hand_collection.html", answer=answer, text=text), 200,
                        mimetype="text/html")
    hand = hands[int(position) - 1] if asked else hands[0]
    return _replayer_page(lambda: site_hand_record(hand), text, f"{SITE_NAMES[hand.site]} hand")


def _chosen_hand(collected: tuple[CollectedHand, ...]) -> CollectedHand | None:
    """The hand of a .phhs file the form asks to open (its position), if it asks."""
    position = request.form.get(HAND_FIELD, "")
    if not position.isdigit() or not 1 <= int(position) <= len(collected):
        return None
    return collected[int(position) - 1]


def _collection_page(collected: tuple[CollectedHand, ...], text: str) -> Response:
    """Every hand of a .phhs file with its outcome, each that replays with a button to open
    it in the replayer; when no hand can be read, the form again with why."""
    try:
        answer = collection_answer(collected)
    except Problem as unreadable:
        return _form_error(unreadable.detail, text, "", 400)
    body = render_template("floor/hand_collection.html", answer=answer, text=text)
    return Response(body, 200, mimetype="text/html")


def _posted_text() -> tuple[str, str | None]:
    """The PHH text of the form (an uploaded file wins over the text area), or why not."""
    upload = request.files.get(PHH_FILE_FIELD)
    raw = upload.read(MAX_PHH_BYTES + 1) if upload is not None and upload.filename else None
    if raw is not None:
        if len(raw) > MAX_PHH_BYTES:
            return "", f"a hand history is at most {MAX_PHH_BYTES:,} bytes"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "", "the file is not UTF-8 text"
    else:
        text = request.form.get(PHH_FIELD, "")
    if len(text.encode()) > MAX_PHH_BYTES:
        return "", f"a hand history is at most {MAX_PHH_BYTES:,} bytes"
    if not text.strip():
        return "", "paste a PHH hand, choose a .phh file, or give a stored hand's id"
    return text, None


def validation_words(messages: Any, path: str = "") -> str:
    """Marshmallow's messages as one line a person reads: `field.inner: what is wrong`."""
    if isinstance(messages, dict):
        return "; ".join(validation_words(inner, f"{path}.{key}" if path else str(key))
                         for key, inner in messages.items())
    if isinstance(messages, list):
        return f"{path}: {' '.join(str(m) for m in messages)}"
    return f"{path}: {messages}"


def _title(record: phh.HandHistory) -> str:
    """What the record says it is (its event, hand or table), for the page's heading."""
    fields = dict(record.metadata)
    parts = [str(fields[key]) for key in ("event", "hand", "table") if key in fields]
    return " · ".join(parts)


def _form_error(error: str, text: str, stored: str, status: int) -> Response:
    body = render_template("floor/hand_histories.html", error=error, text=text, stored=stored,
                           phh_games=registry.phh_variants(), max_stored_hands=MAX_STORED_HANDS)
    return Response(body, status, mimetype="text/html")
