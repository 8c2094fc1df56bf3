"""Hands and streams for auditors: a hand's history, its state at any version, its PHH
export, and the hash-chain check of any stream.

A hand id is `<table id>.<number>`; its events are the ones of the table stream tagged
with that hand, all between its HandOpened and the next hand's (the application tags an
event with the hand opened last), read as that range (EventStore.read_hand), and its state
is replayed from the snapshot taken when the hand before it closed: a hand read costs
that hand, whatever the age of the table. A hand imported from PHH (`POST
/v1/hand-histories?store=true`) has the id `hand-<uuid>`, the name of its own stream.
Everything is redacted for the caller.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC
from fractions import Fraction
from typing import Any

import marshmallow as ma
from flask import Response

from domain import registry, secrecy
from domain.games import mixed
from domain.games.draw import events as draw_events
from domain.games.draw import stream as draw_stream
from domain.history import phh, phh_games
from domain.live import table, table_events, table_records, table_state
from domain.live.mixed import PRIVATE_EVENTS as PARTLY_PUBLIC_EVENTS
from domain.live.mixed import MixedTableHand, event_view, hole_view
from domain.records import from_record
from domain.rules.cards import format_card
from service.application import commands, floor_rulings, listings, views
from service.application.event_log import RecordedEvent, Verification, format_recorded_at
from service.application.sealing import HAND_CLOSED, REVEAL_CLOSED_HANDS
from service.http.api import Blueprint, application, event_store, resources
from service.http.api.etags import conditional, version_tag
from service.http.api.event_pages import EventSchema
from service.http.api.hand_histories import IMPORTED_HAND_PREFIX, events_from_records, replay_state
from service.http.api.names import names_of, with_names
from service.http.api.tables import ALL_ROLES, viewer
from service.http.auth import require
from service.http.problems import Problem

HAND_OPENED = table_events.HandOpened.__name__

blp = Blueprint("hands", __name__, url_prefix="/v1", description="Hand histories and audit")


class HandSchema(ma.Schema):
    id = ma.fields.String(required=True)
    table_id = ma.fields.String(required=True, allow_none=True,
                                metadata={"description": "null for a hand imported from PHH"})
    number = ma.fields.Integer(required=True, allow_none=True)
    over = ma.fields.Boolean(required=True)
    first_version = ma.fields.Integer(required=True)
    last_version = ma.fields.Integer(required=True)
    events = ma.fields.List(ma.fields.Nested(EventSchema), required=True)
    hand = ma.fields.Dict(required=True, metadata={"description": "the hand at its last event"})
    deal = ma.fields.Dict(required=True, metadata={
        "description": "commitment; once the hand is over, the check: a game dealt from a sealed "
                       "deck gives the floor every deck it dealt from and every order it drew in "
                       "(reshuffles included) and the salt, everyone else the openings of the cards "
                       "they saw"})


class HandStateSchema(ma.Schema):
    id = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    hand = ma.fields.Dict(required=True)


class StateQuerySchema(ma.Schema):
    at = ma.fields.Integer(validate=ma.validate.Range(min=1, max=2**31 - 1),
                           metadata={"description": "table stream version; default the hand's last"})


class VerificationSchema(ma.Schema):
    ok = ma.fields.Boolean(required=True)
    events = ma.fields.Integer(required=True)
    first_bad_version = ma.fields.Integer(allow_none=True)
    reason = ma.fields.String(allow_none=True, metadata={
        "description": "why the first bad version is bad (a hash, a MAC, an event that differs from "
                       "or is gone from the signed public log, a stream listed or in the log whose "
                       "events are gone)"})
    warnings = ma.fields.List(ma.fields.String(), metadata={
        "description": "what weakens the check without failing it: no signed public log to check "
                       "against (a removed tail or a deleted stream is then not caught)"})


def _hand_records(hand_id: str) -> list[RecordedEvent]:
    """The hand's events, read with their sealed fields revealed only if its HandClosed is
    stored (decided in the same read): one range of the table stream, no table load."""
    located = table_state.table_id_of_hand(hand_id)
    if located is None:
        raise Problem(404, "not_found", f"no hand {hand_id}")
    table_id, _ = located
    records = event_store().read_hand(commands.table_stream(table_id), hand_id,
                                      opened_by=HAND_OPENED, reveal=REVEAL_CLOSED_HANDS)
    if not records:
        raise Problem(404, "not_found", f"no hand {hand_id}")
    return records


def _replayable(table_id: str, last: int) -> None:
    """Raises UnreadableStream (the problem `unreadable_stream`) when this code cannot
    replay the table through the hand's last event: every read of a hand answers so, as
    GET /v1/hands/{id} does, whichever version it shows. A hand before the record that
    cannot be read still replays."""
    commands.state_at(application(), table_id, last)


def _is_over(records: list[RecordedEvent]) -> bool:
    """Whether the hand of these records (one read) is closed: only then are its secrets out."""
    return any(r.type == HAND_CLOSED for r in records)


@blp.route("/hands/<string:hand_id>", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.response(200, HandSchema)
@blp.alt_response(404, response="NOT_FOUND")
def get_hand(hand_id: str) -> tuple[dict, int, dict]:
    """A hand's history: its events, the hand at its last event, and the deal check."""
    if hand_id.startswith(IMPORTED_HAND_PREFIX):
        return _imported_hand(hand_id)
    records = _hand_records(hand_id)
    table_id, number = table_state.table_id_of_hand(hand_id)  # type: ignore[misc]
    last = records[-1].version
    state = commands.state_at(application(), table_id, last)
    over = _is_over(records)
    who = viewer()
    shown_hand = with_names(views.hand_view(state, who, secrets_revealed=over))
    return {
        "id": hand_id, "table_id": table_id, "number": number, "over": over,
        "first_version": records[0].version, "last_version": last,
        "events": views.redact_records(records, who),
        "hand": shown_hand, "deal": shown_hand["deal"],
    }, 200, {"ETag": version_tag(last, who)}


@blp.route("/hands/<string:hand_id>/state", methods=["GET"])
@conditional
@require(*ALL_ROLES)
@blp.arguments(StateQuerySchema, location="query")
@blp.response(200, HandStateSchema)
@blp.alt_response(404, response="NOT_FOUND")
def hand_state(query: dict, hand_id: str) -> tuple[dict, int, dict]:
    """The hand replayed to table version `at`, one of the hand's own (404 outside them; the
    events that open a hand before its game starts show the hand as it starts); for an
    imported hand, to version `at` of its own stream."""
    if hand_id.startswith(IMPORTED_HAND_PREFIX):
        return _imported_state(hand_id, query.get("at"))
    records = _hand_records(hand_id)
    table_id, _ = table_state.table_id_of_hand(hand_id)  # type: ignore[misc]
    first, last = records[0].version, records[-1].version
    at = query.get("at", last)
    if at < first:
        raise Problem(404, "not_found", f"hand {hand_id} begins at version {first}, after {at}")
    if at > last:
        raise Problem(404, "not_found", f"hand {hand_id} ends at version {last}, before {at}")
    if at < last:
        _replayable(table_id, last)
    state = commands.state_at(application(), table_id, at)
    while (state is None or not views.hand_begun(state)) and at < last:
        # Between HandOpened and the game's start (a few events) there is no hand to show yet.
        at += 1
        state = commands.state_at(application(), table_id, at)
    who = viewer()
    shown = with_names(views.hand_view(state, who, secrets_revealed=_is_over(records)))
    # At a version before the hand's end, whether its secrets show depends on the end too.
    return {"id": hand_id, "version": at, "hand": shown}, 200, {"ETag": version_tag(records[-1].version, who)}


@blp.route("/hands/<string:hand_id>/phh", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, {"type": "string"}, content_type="application/toml")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def hand_phh(hand_id: str) -> Response:
    """A finished hand in the PHH format (TOML), of a game with PHH variant codes
    (domain.registry; five-card draw in our extension, docs/phh-five-card-draw.md). Cards the caller may not see are `??`. Players are
    named as they registered (`players`), their ids kept in the user-defined field
    `_player_ids`; the standard's `table`, `hand`, `seats`, `seat_count` and the time the
    hand began (UTC) say where and when it was played; the floor's rulings on the hand are in
    `_floor_rulings` (step, question, decision, rule, note, cards, who ruled and when).
    A game without PHH codes, and draw without betting, have no PHH form: 422 `phh_not_available`."""
    if hand_id.startswith(IMPORTED_HAND_PREFIX):
        return _imported_phh(hand_id)
    records = _hand_records(hand_id)
    table_id, number = table_state.table_id_of_hand(hand_id)  # type: ignore[misc]
    _replayable(table_id, records[-1].version)
    # The table as the hand began: its game, and who sat where.
    opened = commands.state_at(application(), table_id, records[0].version)
    assert opened is not None
    _check_phh_form(opened)
    if not _is_over(records):
        raise Problem(409, "hand_in_progress", f"hand {hand_id} is still being played")
    events = _visible_game_events(opened.game, records, viewer())
    own_record = getattr(table_state.game_rules(opened.game).table_game, "phh_record", None)
    record = own_record(events) if own_record is not None else phh_games.phh_from_events(events)
    ids = record.players or ()
    began = records[0].recorded_at.astimezone(UTC)
    where_and_when = (
        ("table", table_id), ("hand", number),
        ("seats", [opened.players.index(player) + 1 for player in ids]), ("seat_count", len(opened.players)),
        ("time", began.time().replace(microsecond=0)), ("time_zone", "UTC"),
        ("day", began.day), ("month", began.month), ("year", began.year))
    named = phh.with_player_names(record, names_of(ids), where_and_when)
    ruled = phh.with_floor_rulings(named, floor_rulings.hand_rulings_for_phh(application(), hand_id, viewer()))
    return Response(phh.write_phh(ruled), status=200, mimetype="application/toml")


def _check_phh_form(state: table_state.TableState) -> None:
    """PHH writes the games with PHH variant codes (domain.registry; five-card draw, our
    extension, only for chips); nothing else."""
    rules = table_state.game_rules(state.game)
    if rules.table_game is None or hasattr(rules.table_game, "phh_record"):
        return
    if registry.decider(state.game) is not draw_stream:
        raise Problem(422, "phh_not_available",
                      f"PHH cannot express a {state.game} hand: it records "
                      f"{', '.join(sorted(registry.phh_variants()))} only", game=state.game)
    if not rules.plays_for_chips(state.settings):
        raise Problem(422, "phh_not_available",
                      "PHH cannot express a five-card draw hand played without betting "
                      "(for points): it records chips bet and won", game=state.game)


def _visible_game_events(game: str, records: list[RecordedEvent], who: views.Viewer) -> list[Any]:
    """The hand's game events as the caller may see them (the hand is over, so only other
    players' private cards are hidden)."""
    types = table.event_types(game)
    events: list[Any] = []
    for record in records:
        if record.type in table_events.TABLE_EVENT_TYPES:
            continue
        visible_to = record.metadata.get("visible_to")
        hidden = visible_to is not None and not who.sees_cards_of(visible_to)
        if hidden and registry.decider(game) is not draw_stream and record.type not in PARTLY_PUBLIC_EVENTS:
            # Hold'em PHH deals every hand first and writes a hand it has no event for as `??`.
            continue
        # Draw keeps the event with its cards blanked: the deal, the discard and its count
        # are actions in the record, their cards `??`.
        shown = views.redact_event({"version": record.version, "type": record.type,
                                    "data": record.full_data(), "metadata": record.metadata,
                                    "revealed": record.revealed}, who)
        events.append(table_records.event_of(types, record.type, shown["data"]))
    return events


class HandVerificationSchema(VerificationSchema):
    id = ma.fields.String(required=True)
    stream = ma.fields.String(required=True, metadata={"description": "the stream the hand's events are in"})
    first_version = ma.fields.Integer(required=True, metadata={"description": "the hand's first event"})
    last_version = ma.fields.Integer(required=True, metadata={"description": "the hand's last event"})
    chained_from = ma.fields.Integer(required=True, metadata={
        "description": "the event whose stored hash the hand's chain continues from (its MAC checked); "
                       "0: the stream's start"})
    next_opening = ma.fields.Integer(required=True, allow_none=True, metadata={
        "description": "the next hand's opening event, which must continue the chain; null: the hand "
                       "runs to the stream's head"})


@blp.route("/hands/<string:hand_id>/verify", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, HandVerificationSchema)
@blp.alt_response(404, response="NOT_FOUND")
def verify_hand(hand_id: str) -> dict:
    """The hash chain of one hand's events, at the cost of the hand: each hash recomputed
    from the stored hash of the event before it, each MAC checked, and the hand's range
    ending where the next hand opens or at the table's head. A hand imported from PHH is a
    stream of its own, checked whole. The whole table: GET /v1/streams/{id}/verify."""
    if hand_id.startswith(IMPORTED_HAND_PREFIX):
        whole = event_store().verify_stream(hand_id)
        if whole.events == 0:
            raise Problem(404, "not_found", f"no hand {hand_id}")
        return {"id": hand_id, "stream": hand_id, "first_version": 1, "last_version": whole.events,
                "chained_from": 0, "next_opening": None, **_verification(whole)}
    located = table_state.table_id_of_hand(hand_id)
    stream = commands.table_stream(located[0]) if located is not None else None
    checked = None if stream is None else event_store().verify_hand(stream, hand_id, opened_by=HAND_OPENED)
    if stream is None or checked is None:
        raise Problem(404, "not_found", f"no hand {hand_id}")
    if checked.next_opening is None:  # the hand runs to the head: a tail removed is the log's to see
        checked = replace(checked, verification=_against_the_public_log(
            stream, checked.verification, from_version=checked.first_version))
    return {"id": hand_id, "stream": stream, "first_version": checked.first_version,
            "last_version": checked.last_version, "chained_from": checked.chained_from,
            "next_opening": checked.next_opening, **_verification(checked.verification)}


def _verification(verification: Verification) -> dict[str, Any]:
    return {"ok": verification.ok, "events": verification.events,
            "first_bad_version": verification.first_bad_version, "reason": verification.reason,
            "warnings": list(verification.warnings)}


@blp.route("/streams/<string:stream_id>/verify", methods=["GET"])
@require(*ALL_ROLES)
@blp.response(200, VerificationSchema)
@blp.alt_response(404, response="NOT_FOUND")
def verify_stream(stream_id: str) -> dict:
    """Recompute a stream's hash chain: ok, or the first version that does not match.

    Each stream is also checked against the signed public log (docs/TRANSPARENCY.md): an
    event edited or removed after it was integrated fails at its version. A stream whose
    events are all gone fails when the public log holds a leaf of it, or a listing (a table,
    a tournament, a player) names it; with neither it is a 404. No signed public log to check
    against is a warning, never a failure of the request."""
    verification = event_store().verify_stream(stream_id)
    verification = _against_the_public_log(stream_id, verification)
    if verification.events == 0 and verification.ok:
        pool = resources().pool
        if pool is None or stream_id not in listings.listed_streams(pool, stream_id):
            raise Problem(404, "not_found", f"no stream {stream_id}")
        verification = replace(verification, ok=False, first_bad_version=1, reason=(
            "the listings know this stream, but the log holds no event of it: it was removed"))
    return _verification(verification)


NO_PUBLIC_LOG = ("this service reads no public log: a removed tail or a deleted stream is not caught "
                 "(every chain is still checked)")


def _against_the_public_log(stream_id: str, verification: Verification, from_version: int = 1) -> Verification:
    """The verification, failing also where the stream (from `from_version` on) differs
    from the signed public log (service.application.public_log), at whichever version comes
    first; with a warning when there is no signed log to check against."""
    public = resources().public_log
    unchecked = NO_PUBLIC_LOG if public is None else public.unchecked()
    if public is None or unchecked is not None:
        return replace(verification, warnings=(*verification.warnings, unchecked))
    records = event_store().read_stream(stream_id, after_version=from_version - 1, checked=False)
    found = public.first_difference(stream_id, records, from_version)
    if found is None or (verification.first_bad_version is not None and verification.first_bad_version <= found[0]):
        return verification
    return replace(verification, ok=False, first_bad_version=found[0], reason=found[1])


# ---------------------------------------------------------------- hands imported from PHH
# Always over (a replay only stores a finished hand); their players are the record's names,
# so a player key sees hidden cards only if its player id is that name.


def _imported_records(hand_id: str) -> list[RecordedEvent]:
    records = event_store().read_stream(hand_id)
    if not records or records[0].metadata.get("imported_from") != "phh":
        raise Problem(404, "not_found", f"no hand {hand_id}")
    return records


def _hidden_fields(type_name: str, who: views.Viewer, metadata: dict[str, Any]) -> tuple[str, ...]:
    """Fields of an imported hand's event this viewer may not see."""
    if who.sees_everything:
        return ()
    declared = secrecy.secrets_named(type_name)
    if "visible_to" in metadata and not who.sees_cards_of(metadata["visible_to"]):
        # A mixed game's partly public events already read as others see them.
        return () if type_name in PARTLY_PUBLIC_EVENTS else declared.owner_only
    # The sealed fields are the floor's: the deck order a draw replay built from the record
    # holds every card, mucked ones too.
    return declared.sealed


def _redacted_imported(records: list[RecordedEvent], who: views.Viewer) -> list[dict[str, Any]]:
    shown = []
    for r in records:
        data = dict(r.data)
        if r.type in PARTLY_PUBLIC_EVENTS and not who.sees_cards_of(r.metadata.get("visible_to")):
            data = event_view(r.type, data)  # a mixed game's up cards and draw counts stay
        for name in _hidden_fields(r.type, who, dict(r.metadata)):
            if name in data:
                data[name] = None
        shown.append({"version": r.version, "type": r.type, "data": data, "hand_id": r.stream_id,
                      "recorded_at": format_recorded_at(r.recorded_at)})
    return shown


def _imported_view(hand_id: str, game: str, state: Any, who: views.Viewer) -> dict[str, Any]:
    """The imported hand as this viewer may see it (the shape of a table hand's view)."""
    names = list(state.players)
    over = state.over
    to_act = state.to_act
    view: dict[str, Any] = {
        "id": hand_id, "game": game, "players": names, "over": over,
        "to_act": names[to_act] if to_act is not None else None,
        "pots": [{"amount": pot.amount, "eligible": [names[s] for s in pot.eligible]} for pot in state.pots],
        "awards": [{"amount": a.amount, "winners": [names[s] for s in a.winners],
                    "shares": dict(zip((names[s] for s in a.winners), a.shares))} for a in state.awards],
        "stacks": dict(zip(names, state.stacks)),
    }
    decider = registry.decider(game)
    if decider is mixed:
        hand = MixedTableHand((), state)
        view["round"] = hand.round
        view["board"] = "".join("??" if c is None else format_card(c) for c in state.board)
        view["hole"] = {name: hole_view(hand, s, name, who.sees_cards_of) for s, name in enumerate(names)}
    elif decider is draw_stream:
        view["round"] = "over" if over else state.phase
        view["drawn"] = {names[s]: n for s, n in enumerate(state.drawn) if n is not None}
        view["hole"] = {
            name: "".join(format_card(c) for c in state.hands[s])
            if state.hands[s] and (state.shown[s] or who.sees_cards_of(name)) else None
            for s, name in enumerate(names)}
    else:
        view["round"] = state.round
        view["board"] = "".join(format_card(c) for c in state.board)
        view["hole"] = {
            name: "".join(format_card(c) for c in state.hole[s])
            if state.hole[s] is not None and (state.shown[s] or who.sees_cards_of(name)) else None
            for s, name in enumerate(names)}
    return _json_amounts(view)


def _json_amounts(value: Any) -> Any:
    # PHH replays may split an odd chip into halves: those amounts keep their decimals.
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, dict):
        return {key: _json_amounts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_amounts(item) for item in value]
    return value


def _imported_hand(hand_id: str) -> tuple[dict, int, dict]:
    records = _imported_records(hand_id)
    game, events = events_from_records(records)
    who = viewer()
    last = records[-1].version
    first = records[0].metadata
    return {
        "id": hand_id, "table_id": None, "number": None, "over": True,
        "first_version": 1, "last_version": last,
        "events": _json_amounts(_redacted_imported(records, who)),
        "hand": _imported_view(hand_id, game, replay_state(game, events), who),
        "deal": {"imported_from": "phh", "phh_variant": first.get("phh_variant")},
    }, 200, {"ETag": version_tag(last, who)}


def _imported_state(hand_id: str, at: int | None) -> tuple[dict, int, dict]:
    records = _imported_records(hand_id)
    at = min(at or len(records), len(records))
    game, events = events_from_records(records[:at])
    who = viewer()
    shown = _imported_view(hand_id, game, replay_state(game, events), who)
    return {"id": hand_id, "version": at, "hand": shown}, 200, {"ETag": version_tag(at, who)}


def _imported_phh(hand_id: str) -> Response:
    """The record as it was imported: its events as the caller may see them, its other
    fields (event, time, `_player_ids` ...) and its players' names written back."""
    records = _imported_records(hand_id)
    game, events = events_from_records(records)
    who = viewer()
    decider = registry.decider(game)
    if decider is draw_stream:
        names = events[0].players
        seat = next((s for s, name in enumerate(names) if who.player_id == name), None)
        role = draw_events.FLOOR if who.sees_everything else draw_events.PLAYER if seat is not None else draw_events.SPECTATOR
        events = [draw_events.visible_event(event, seat, role) for event in events]
    elif decider is mixed:
        events = [from_record(mixed.EVENT_TYPES, shown["type"], shown["data"])
                  for shown in _redacted_imported(records, who)]
    else:
        # As for table hands: hole cards the caller may not see are left out, written `??`.
        events = [event for event, record in zip(events, records)
                  if who.sees_cards_of(record.metadata.get("visible_to", who.player_id))
                  or "visible_to" not in record.metadata]
    first = records[0].metadata
    exported = phh.with_metadata(phh_games.phh_from_events(events), first.get("phh_metadata", ""))
    if first.get("phh_players") is not None:
        exported = replace(exported, players=tuple(first["phh_players"]))
    exported = phh.with_floor_rulings(exported, floor_rulings.hand_rulings_for_phh(application(), hand_id, who))
    return Response(phh.write_phh(exported), status=200, mimetype="application/toml")
