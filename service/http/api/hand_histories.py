"""`POST /v1/hand-histories`: replay one hand in the PHH format through our rules (api.md).

The body is the hand's TOML text (`Content-Type: application/toml`, or `text/plain`).
The answer is the computed outcome: finishing stacks, pots and winners, beside the record's
own `finishing_stacks` when it has them. A body that is not a PHH hand is a 400
`invalid_phh`; a variant we do not replay is a 422 `unsupported_variant`; an illegal action
is a 422 with the rule's code and the action's `index` in `actions` (0-based).

Any authenticated key may replay: nothing is stored. `?store=true` (floor, organiser,
admin) keeps the hand as an audited record: the replay's events are appended to a stream
of their own, `hand-<uuid>` (expected version 0), which is
also the hand's id for `GET /v1/hands/{id}`, `/state`, `/phh` and the hash-chain check
`GET /v1/streams/{id}/verify`. The answer is 201 with the id, the version and the
computed outcome; the id is made from the hand's canonical PHH, so a hand kept already is
reported (200, `already_stored`), never stored twice; a retry with the same Idempotency-Key and body answers the first answer
again (service.http.api.writes). Five-card draw records use our extension
(docs/phh-five-card-draw.md). The mixed games (F7S, F7S/8, FR, FO/8, F2L3D, N2L1D, FB, NS)
are stored as their domain.games.mixed events.

A site's hand history (one hand, or a file of many: PokerStars, Full Tilt, PartyPoker,
iPoker, Ongame, Absolute; told by its first line, or `?format=`;
service.application.site_histories) is read into the same PHH record first and replays
and is kept like one; a hand it cannot read is a 400 `invalid_hand_history` naming the
line (in a file of many, `unreadable`). GGPoker's format is not read.

A .phhs file (several hands, each a TOML table) is cut into its hands first
(domain.history.phh_collection), so each hand is read and replayed on its own: the
answer lists every hand with its outcome, its refusal, or, for a hand that cannot be
read, the line and the reason; only a file of which no hand can be read is a 400.
With `?store=true` each hand of such a file (or of a site's file of many) that replays
is kept as one hand is, each under its own id: the summary counts the hands `stored` and
`already_stored` (kept before, by this file or another: reported, not kept again) and
names each refused or unreadable hand with its line. At most MAX_STORED_HANDS hands are
kept in one request (422 `too_many_hands` beyond, nothing stored).
"""
from __future__ import annotations

import hashlib
import tomllib
import uuid
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import marshmallow as ma
from flask import jsonify, request

from domain import registry, secrecy
from domain.history import phh_mixed
from domain.history.phh import (
    ODD_CHIP_SPLIT_EXACTLY,
    ODD_CHIP_TDA,
    Amount,
    HandHistory,
    PhhSyntaxError,
    ReplayResult,
    UnreadableHand,
    metadata_text,
    parse,
    player_names,
    positional_blinds,
    write_phh,
)
from domain.history.phh_collection import CollectedHand, hands_of
from domain.history.phh_games import replay
from domain.live import table_records
from domain.records import from_record, to_record
from domain.rules.pots import PotAward
from domain.rules.violations import Violation
from service.application import site_histories
from service.application.api_keys import ROLES
from service.application.event_log import NewEvent, RecordedEvent, VersionConflict
from service.http.api import Blueprint, event_store, unstorable_values
from service.http.api.rulings import json_amount, problem_from_violation
from service.http.api.schemas import StrictBoolean
from service.http.auth import current_principal, require
from service.http.problems import Problem

blp = Blueprint("hand_histories", __name__, url_prefix="/v1/hand-histories",
                description="Hand histories in the PHH format, replayed through the rules")

PHH_MEDIA_TYPES = ("application/toml", "text/plain")
# A real hand is a few kilobytes; a hostile one should not cost a long parse.
MAX_PHH_BYTES = 256 * 1024
MAX_PLAYERS = 23
# Hands kept by one request: each is its own stream, appended (MAC'd and chained) in a
# transaction of its own: 100 short hold'em hands took 1.6 s here (0.2 s replayed only),
# so a full file answers in seconds, well inside a worker's timeout on a loaded machine,
# and 256 KiB holds about 100 real tournament hands anyway. A file of more is split
# (`cardroom phh import` sends it hand by hand). Replaying only is not bounded by count:
# it writes nothing, and the body's bytes bound it.
MAX_STORED_HANDS = 100
STORING_ROLES = ("admin", "organiser", "floor")
IMPORTED_HAND_PREFIX = "hand-"


class PhhFieldsSchema(ma.Schema):
    """The field types of a PHH hand, checked before the domain reads it, so a hand of the
    wrong shape is a clear 400 naming the field. Fields we do not interpret pass through."""

    class Meta:
        unknown = ma.INCLUDE

    variant = ma.fields.String(required=True)
    ante_trimming_status = StrictBoolean()
    antes = ma.fields.List(ma.fields.Float(allow_nan=False), required=True)
    blinds_or_straddles = ma.fields.List(ma.fields.Float(allow_nan=False))
    bring_in = ma.fields.Float(allow_nan=False)
    small_bet = ma.fields.Float(allow_nan=False)
    big_bet = ma.fields.Float(allow_nan=False)
    min_bet = ma.fields.Float(allow_nan=False)
    starting_stacks = ma.fields.List(ma.fields.Float(allow_nan=False), required=True,
                                     validate=ma.validate.Length(min=2, max=MAX_PLAYERS))
    actions = ma.fields.List(ma.fields.String(), required=True)
    players = ma.fields.List(ma.fields.String())
    finishing_stacks = ma.fields.List(ma.fields.Float(allow_nan=False))


def _amount_field(**kwargs: Any) -> ma.fields.Raw:
    # Whole chips are JSON integers; PHH's fractional amounts (an odd chip split in halves)
    # are JSON numbers with their decimals.
    return ma.fields.Raw(metadata={"type": "number", **kwargs.pop("metadata", {})}, **kwargs)


class ReplayedPotSchema(ma.Schema):
    amount = _amount_field(required=True)
    eligible = ma.fields.List(ma.fields.String(), required=True)
    winners = ma.fields.List(ma.fields.String(), required=True)
    shares = ma.fields.Dict(keys=ma.fields.String(), values=_amount_field(), required=True)


class HandHistoryReplaySchema(ma.Schema):
    variant = ma.fields.String(required=True, metadata={"example": "NT"})
    players = ma.fields.List(ma.fields.String(), required=True,
                             metadata={"description": "the record's players (p1, p2 ... when unnamed), "
                                                      "first seat left of the button first"})
    finishing_stacks = ma.fields.List(_amount_field(), required=True,
                                      metadata={"description": "computed by our rules"})
    recorded_finishing_stacks = ma.fields.List(_amount_field(), required=True, allow_none=True,
                                               metadata={"description": "as the record states them"})
    matches_record = ma.fields.Boolean(required=True, allow_none=True,
                                       metadata={"description": "null when the record states none"})
    odd_chip_rule = ma.fields.String(required=True, validate=ma.validate.OneOf(
        (ODD_CHIP_TDA, ODD_CHIP_SPLIT_EXACTLY)), metadata={
        "description": "how an odd chip was given: tda (TDA 2024 20, whole chips: the first winner "
                       "left of the button; a game without a button: the high card by suit) or split_exactly (into "
                       "fractions, only where the record itself splits so)"})
    winners = ma.fields.List(ma.fields.String(), required=True)
    pots = ma.fields.List(ma.fields.Nested(ReplayedPotSchema), required=True)
    id = ma.fields.String(metadata={"description": "with ?store=true: the stored hand's id (hand-<uuid>)"})
    version = ma.fields.Integer(metadata={"description": "with ?store=true: the hand stream's version"})
    already_stored = ma.fields.Boolean(metadata={
        "description": "with ?store=true: true when the same hand (its canonical PHH) was kept "
                       "before (200, its id; nothing stored again)"})


class ReplayRefusalSchema(ma.Schema):
    code = ma.fields.String(required=True)
    detail = ma.fields.String(required=True)
    rule = ma.fields.String(metadata={"description": "the rule applied, when one is"})
    index = ma.fields.Integer(metadata={"description": "the first illegal action in `actions`"})


class UnreadableHandSchema(ma.Schema):
    code = ma.fields.String(required=True, metadata={"description": "invalid_phh"})
    detail = ma.fields.String(required=True, metadata={"description": "why, with the file's line"})
    line = ma.fields.Integer(required=True, metadata={
        "description": "the file's line the reader stopped at (the hand's header when no line is named)"})


class CollectedHandSchema(ma.Schema):
    """One hand of a .phhs file: its outcome, why it does not replay, or why it cannot be read."""

    position = ma.fields.Integer(required=True, metadata={"description": "1 for the file's first hand"})
    name = ma.fields.String(required=True, metadata={"description": "the hand's table name in the file"})
    line = ma.fields.Integer(required=True, metadata={"description": "the line of the hand's header"})
    variant = ma.fields.String(metadata={"description": "when the hand could be read"})
    outcome = ma.fields.Nested(HandHistoryReplaySchema, metadata={
        "description": "the replay's answer, as for one hand"})
    refused = ma.fields.Nested(ReplayRefusalSchema, metadata={
        "description": "instead of the outcome: the hand's 422 problem"})
    unreadable = ma.fields.Nested(UnreadableHandSchema, metadata={
        "description": "instead of the outcome: why the hand cannot be read (its 400 problem); "
                       "the file's other hands are replayed all the same"})


class NamedHandSchema(ma.Schema):
    name = ma.fields.String(required=True)
    line = ma.fields.Integer(required=True, metadata={"description": "the line of the hand's header"})
    why = ma.fields.String(required=True)


class ReplaySummarySchema(ma.Schema):
    hands = ma.fields.Integer(required=True)
    replayed = ma.fields.Integer(required=True)
    refused = ma.fields.Integer(required=True, metadata={"description": "read, but against the rules "
                                                                        "or of a variant not replayed"})
    unreadable = ma.fields.Integer(required=True, metadata={"description": "not a PHH hand we can read"})
    matching_record = ma.fields.Integer(required=True, metadata={
        "description": "replayed hands whose computed finishing stacks are the recorded ones"})
    not_matching_record = ma.fields.Integer(required=True)
    without_record = ma.fields.Integer(required=True, metadata={"description": "no finishing_stacks stated"})
    named = ma.fields.List(ma.fields.Nested(NamedHandSchema), required=True, metadata={
        "description": "each hand that was not replayed (refused or unreadable) or did not end with "
                       "its recorded finishing stacks, and why"})
    stored = ma.fields.Integer(metadata={"description": "with ?store=true: hands kept by this request "
                                                        "(each outcome has its `id`)"})
    already_stored = ma.fields.Integer(metadata={
        "description": "with ?store=true: hands kept before (the same canonical PHH): reported with their "
                       "id, not kept again"})


class HandCollectionReplaySchema(ma.Schema):
    summary = ma.fields.Nested(ReplaySummarySchema, required=True)
    hands = ma.fields.List(ma.fields.Nested(CollectedHandSchema), required=True)


class StoredHandHistorySchema(HandHistoryReplaySchema):
    id = ma.fields.String(required=True, metadata={"example": "hand-6f1c..."})
    version = ma.fields.Integer(required=True)


class StoreQuerySchema(ma.Schema):
    store = ma.fields.Boolean(
        truthy={"true"}, falsy={"false"}, load_default=False,
        metadata={"description": "keep the hand as an audited record (floor, organiser, admin)"})
    file_format = ma.fields.String(
        data_key="format", load_default="auto",
        validate=ma.validate.OneOf(("auto", "phh", *site_histories.FORMATS)),
        metadata={"description": "the text's format: PHH or a site's hand history (auto: told by "
                                 "its first line); GGPoker is not read"})


PHH_REQUEST_BODY = {
    "required": True,
    "description": "One hand in the PHH format (phh-std TOML); variants NT, FT, PO, F7S, "
                   "F7S/8, FR, FO/8, F2L3D, N2L1D, FB, NS and our N5CD, P5CD, F5CD, PT replay. "
                   "Or a site's hand histories (text/plain: one hand, or a file of many): "
                   "PokerStars, Full Tilt, PartyPoker, iPoker, Ongame, Absolute; read into the "
                   "same record. GGPoker is not read. "
                   f"At most {MAX_PHH_BYTES} bytes (413 beyond).",
    "content": {
        media_type: {"schema": {"type": "string"},
                     "example": 'variant = "NT"\nante_trimming_status = true\nantes = [0, 0]\n'
                                'blinds_or_straddles = [1, 2]\nmin_bet = 2\n'
                                'starting_stacks = [200, 200]\nactions = ["d dh p1 AsAd", '
                                '"d dh p2 7c2h", "p2 f"]\n'}
        for media_type in PHH_MEDIA_TYPES
    },
}
IDEMPOTENCY_KEY_HEADER = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 200},
    "description": "with ?store=true: a retry with the same key answers the first stored hand",
}


@blp.route("", methods=["POST"])
@require(*ROLES)
@blp.arguments(StoreQuerySchema, location="query", as_kwargs=True)
@blp.doc(requestBody=PHH_REQUEST_BODY, parameters=[IDEMPOTENCY_KEY_HEADER])
@blp.response(200, HandHistoryReplaySchema)
@blp.doc(responses={"200": {
    "description": "the replayed hand; for a .phhs file (several hands), each hand and one "
                   "summary: a hand that cannot be read is listed as `unreadable`, the others "
                   "replayed (the whole file is a 400 `invalid_phh` only when no hand can be read); "
                   "with ?store=true, a hand (or every hand of a file) kept before: `already_stored`",
    "content": {"application/json": {"schema": {
        "oneOf": [HandHistoryReplaySchema, HandCollectionReplaySchema]}}}}, "201": {
    "description": "stored (?store=true): the hand, or a file's hands each with its outcome and "
                   "`id` (kept now or before) and the summary's `stored` and `already_stored`",
    "content": {"application/json": {"schema": {
        "oneOf": [StoredHandHistorySchema, HandCollectionReplaySchema]}}}}})
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(415, response="UNSUPPORTED_MEDIA_TYPE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def replay_hand_history(store: bool = False, file_format: str = "auto") -> Any:
    """Replay one PHH hand: computed finishing stacks, pots and winners (any role).

    An illegal action is a 422 naming it (`index` in `actions`); a variant other than
    NT, FT, PO, the mixed games (F7S, F7S/8, FR, FO/8, F2L3D, N2L1D, FB, NS) and our
    five-card draw extension (N5CD, P5CD, F5CD) is a 422 `unsupported_variant`. With
    `?store=true` (floor, organiser, admin) the hand is kept as an audited hand (201,
    `id`), whatever its variant, and a file's hands each (at most 100 in one request);
    otherwise nothing is stored. A site's hand history is
    told by its first line, or named by `?format=` (`pokerstars`, `fulltilt`, `partypoker`,
    `ipoker`, `ongame`, `absolute`; `phh` reads the text as PHH); GGPoker is not read.
    """
    principal = current_principal()
    if store and principal.role not in STORING_ROLES:
        raise Problem(403, "forbidden", f"storing a hand history needs the role "
                      f"{', '.join(STORING_ROLES)}, not {principal.role}")
    text = _body_text()
    site_hands = site_hands_in(text, file_format)
    collected = None if site_hands else hands_of(text)
    actor = actor_of(principal) if store else None
    if collected is not None or (site_hands and len(site_hands) > 1):
        answer = file_answer(collected, site_hands, actor)
        status = 201 if answer["summary"].get("stored") else 200
        return jsonify(HandCollectionReplaySchema().dump(answer)), status
    record = site_hand_record(site_hands[0]) if site_hands else checked_record(text)
    try:
        result = replay(record)
    except Violation as violation:
        raise problem_from_violation(violation, violation.numbers.get("action_index")) from None
    answer = _answer(record, result)
    if actor is None:
        return answer
    answer.update(kept(record, result, actor))
    return answer, 200 if answer["already_stored"] else 201, {
        "Location": f"/v1/hands/{answer['id']}", "ETag": f'"{answer["version"]}"'}


def actor_of(principal: Any) -> str:
    """Who the store records as appending a kept hand: the role, and the player if any."""
    return f"{principal.role}:{principal.player_id}" if principal.player_id else principal.role


def file_answer(collected: Sequence[CollectedHand] | None, site_hands: Sequence[site_histories.SiteHand] | None,
                actor: str | None = None) -> dict[str, Any]:
    """A file of several hands (a .phhs file's, or a site's), each read and replayed on its
    own, and kept when `actor` stores them (at most MAX_STORED_HANDS, else nothing is)."""
    count = len(collected) if collected is not None else len(site_hands or ())
    if actor is not None and count > MAX_STORED_HANDS:
        raise Problem(422, "too_many_hands", f"a file of {count} hands: at most {MAX_STORED_HANDS} are kept "
                      "in one request; split it (replaying it without ?store=true reads them all)",
                      hands=count, max_hands=MAX_STORED_HANDS)
    if collected is not None:
        return collection_answer(collected, actor)
    return summarised([site_hand_entry(position, hand, actor) for position, hand in enumerate(site_hands or (), 1)],
                      stored=actor is not None)


def kept(record: HandHistory, result: ReplayResult, actor: str) -> dict[str, Any]:
    """The replayed hand kept under the id its canonical PHH makes (`id`, `version`); one
    kept already (by another file, or a request beside this one) is reported
    (`already_stored`), never stored twice."""
    hand_id = imported_hand_id(record)
    version = event_store().stream_version(hand_id)
    if not version:
        try:
            appended = event_store().append(hand_id, 0, stored_events(hand_id, record, result), actor=actor)
        except VersionConflict:  # kept by a request running beside this one
            version = event_store().stream_version(hand_id)
        else:
            return {"id": hand_id, "version": appended.last_version, "already_stored": False}
    return {"id": hand_id, "version": version, "already_stored": True}


_IMPORTED_HANDS = uuid.UUID("0c7e6b1e-5d3a-4f7e-9a51-6f1f3f2b8a10")
"""The namespace of imported hands' ids (uuid5 of the canonical PHH's digest)."""


def imported_hand_id(record: HandHistory) -> str:
    """The id an imported hand is kept under: made from its canonical PHH (the parsed hand
    written back), so the same hand imported twice, however its file was laid out, is
    kept once."""
    digest = hashlib.sha256(write_phh(record).encode()).hexdigest()
    return IMPORTED_HAND_PREFIX + str(uuid.uuid5(_IMPORTED_HANDS, digest))


def game_of(record: HandHistory) -> str:
    """The game the record's events are stored as: a flop game's hand with a single or
    button blind replays as a rotation's (phh_games.replay), and is read back as one."""
    if positional_blinds(record):
        return phh_mixed.ROTATION_OF[record.variant][0]
    return registry.game_of_variant(record.variant)


def stored_events(hand_id: str, record: HandHistory, result: ReplayResult) -> list[NewEvent]:
    """The replay's events as store records. Metadata lets views redact each event on its
    own (`visible_to`: the player whose cards it holds) and rebuild the answer: the game,
    the PHH variant and the record's own finishing stacks ride on the first event."""
    names = player_names(record)
    recorded = record.finishing_stacks
    new_events = []
    for index, event in enumerate(result.events):
        type_name, data = to_record(event)
        metadata: dict[str, Any] = {"hand_id": hand_id}
        if index == 0:
            metadata.update(imported_from="phh", game=game_of(record), phh_variant=record.variant,
                            recorded_finishing_stacks=None if recorded is None
                            else [_storable(a) for a in recorded],
                            # The record's other fields, written back on export.
                            phh_metadata=metadata_text(record))
            if record.players is not None and tuple(record.players) != names:
                # Names the replay could not tell players apart by (two alike, or empty:
                # anonymous) play as p1, p2 ...; the export writes the record's own back.
                metadata["phh_players"] = list(record.players)
        if secrecy.secrets_of(type(event)).owner == secrecy.OWNER_BY_POSITION:  # its cards are its player's
            metadata["visible_to"] = names[data["position"]]
        new_events.append(NewEvent(type_name, data, table_records.POSITIONS_NAMED, metadata=metadata))
    return new_events


def _storable(amount: Amount) -> int | str:
    # Events hold no floats: fractional chips are kept as exact "p/q" text.
    return str(amount) if isinstance(amount, Fraction) and amount.denominator != 1 else int(amount)


def event_types(game: str) -> dict[str, type]:
    types: dict[str, type] = registry.decider(game).EVENT_TYPES
    return types


def events_from_records(records: Sequence[RecordedEvent]) -> tuple[str, list[Any]]:
    """(game, the domain events) of a stored hand's records."""
    game = records[0].metadata.get("game", "holdem")
    types = event_types(game)
    return game, [from_record(types, r.type, r.data) for r in records]


def replay_state(game: str, events: Iterable[Any]) -> Any:
    """The hand's state after `events`, through the game's decider (domain.registry)."""
    return registry.decider(game).replay(events)


def collection_answer(collected: Sequence[CollectedHand], actor: str | None = None) -> dict[str, Any]:
    """Each hand of a .phhs file read and replayed on its own (and kept, when `actor`
    stores them), and one summary."""
    return summarised([_collected_hand(hand, actor) for hand in collected], stored=actor is not None)


def summarised(hands: list[dict[str, Any]], stored: bool = False) -> dict[str, Any]:
    """Each hand of a .phhs (or PokerStars) file read and replayed on its own, and one
    summary: a hand that cannot be read is `unreadable` (where and why), one that breaks a
    rule `refused`, and the others are replayed all the same. A 400 `invalid_phh` only when
    no hand could be read at all, listing why for each."""
    unreadable = [h for h in hands if "unreadable" in h]
    if len(unreadable) == len(hands):
        reasons = "; ".join(f"hand [{h['name']}] (line {h['line']}): {h['unreadable']['detail']}"
                            for h in unreadable)
        raise Problem(400, "invalid_phh", f"none of the file's {len(hands)} hands could be read: "
                      f"{reasons}", hands=hands)
    matches = [h["outcome"]["matches_record"] for h in hands if "outcome" in h]
    summary = {
        "hands": len(hands), "replayed": len(matches), "refused": len(hands) - len(matches) - len(unreadable),
        "unreadable": len(unreadable), "matching_record": matches.count(True),
        "not_matching_record": matches.count(False), "without_record": matches.count(None),
        "named": [named for named in map(_why_named, hands) if named is not None]}
    if stored:
        already = [h["outcome"]["already_stored"] for h in hands if "outcome" in h]
        summary.update(stored=already.count(False), already_stored=already.count(True))
    return {"summary": summary, "hands": hands}


def _why_named(hand: dict[str, Any]) -> dict[str, Any] | None:
    """A hand the summary names: not replayed, or replayed to other stacks than recorded."""
    if "unreadable" in hand:
        why = f"not read: {hand['unreadable']['detail']}"
    elif "refused" in hand:
        why = f"not replayed: {hand['refused']['code']}: {hand['refused']['detail']}"
    elif hand["outcome"]["matches_record"] is False:
        why = (f"replayed to {hand['outcome']['finishing_stacks']}, but the record says "
               f"{hand['outcome']['recorded_finishing_stacks']}")
    else:
        return None
    return {"name": hand["name"], "line": hand["line"], "why": why}


def _collected_hand(hand: CollectedHand, actor: str | None = None) -> dict[str, Any]:
    """One hand of a .phhs file: its outcome, its refusal, or why it cannot be read."""
    entry: dict[str, Any] = {"position": hand.position, "name": hand.name, "line": hand.line}
    try:
        record = checked_record(hand.text)
    except Problem as unreadable:
        line, detail = hand.file_line(unreadable.detail)
        entry["unreadable"] = {"code": unreadable.code, "detail": detail, "line": line}
        return entry
    return {**entry, **_replayed_outcome(record, actor)}


def site_hands_in(text: str, file_format: str = "auto") -> tuple[site_histories.SiteHand, ...] | None:
    """A site's hands in the text (its format told by its first line when "auto"), or
    None for PHH; a site named whose hands the text does not hold is a 400."""
    site = site_histories.format_of(text) if file_format == "auto" else None if file_format == "phh" else file_format
    if site is None:
        return None
    hands = site_histories.hands_in(text, site)
    if not hands:
        raise Problem(400, "invalid_hand_history", f"no {site_histories.SITE_NAMES[site]} hand opens a line "
                      "of the text", format=site)
    return hands


def site_hand_entry(position: int, hand: site_histories.SiteHand, actor: str | None = None) -> dict[str, Any]:
    """One hand of a site's file: its outcome, its refusal, or why it cannot be read."""
    entry: dict[str, Any] = {"position": position, "name": hand.number, "line": hand.line}
    try:
        record = site_histories.to_record(hand)
    except UnreadableHand as unreadable:
        entry["unreadable"] = {"code": "invalid_hand_history", "detail": str(unreadable), "line": unreadable.line}
        return entry
    return {**entry, **_replayed_outcome(record, actor)}


def site_hand_record(hand: site_histories.SiteHand) -> HandHistory:
    try:
        return site_histories.to_record(hand)
    except UnreadableHand as unreadable:
        raise Problem(400, "invalid_hand_history", f"a {site_histories.SITE_NAMES[hand.site]} hand we cannot "
                      f"read: {unreadable}", line=unreadable.line) from None


def _replayed_outcome(record: HandHistory, actor: str | None = None) -> dict[str, Any]:
    """A read hand's variant and its replay's `outcome` (with its `id` once kept, when
    `actor` stores it), or its `refused` problem."""
    try:
        result = replay(record)
    except Violation as violation:
        problem = problem_from_violation(violation, violation.numbers.get("action_index"))
        return {"variant": record.variant, "refused": {
            "code": problem.code, "detail": problem.detail,
            **{k: v for k, v in problem.extensions.items() if k in ("rule", "index")}}}
    outcome = _answer(record, result)
    if actor is not None:
        outcome.update(kept(record, result, actor))
    return {"variant": record.variant, "outcome": outcome}


def _body_text() -> str:
    """The body's text: PHH TOML (one hand, or a .phhs file's hands), not yet read."""
    if request.mimetype not in PHH_MEDIA_TYPES:
        raise Problem(415, "unsupported_media_type",
                      f"the body must be {' or '.join(PHH_MEDIA_TYPES)}, not {request.mimetype or 'untyped'}")
    if (request.content_length or 0) > MAX_PHH_BYTES:
        raise _too_large()
    # Cached: the Idempotency-Key's fingerprint (service.http.api.writes) reads the body too.
    raw = request.get_data(cache=True)
    if len(raw) > MAX_PHH_BYTES:
        raise _too_large()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _invalid_phh(f"the body is not UTF-8 text: {error}") from None
    if not text.strip():
        raise _invalid_phh("the body is empty: send one hand in the PHH format")
    return text


def checked_record(text: str) -> HandHistory:
    """One PHH hand read from its TOML text, its fields' types checked first so that a hand
    of the wrong shape is a clear 400 `invalid_phh` naming the field."""
    try:
        fields = tomllib.loads(text)
    except RecursionError:
        raise _invalid_phh("not valid TOML: nested too deeply") from None
    except ValueError as error:  # TOMLDecodeError, or an integer of more than 4,300 digits
        raise _invalid_phh(f"not valid TOML: {error}") from None
    unstorable = unstorable_values(fields)
    if unstorable:
        raise _invalid_phh("; ".join(f"{path}: {message}" for path, message in unstorable))
    try:
        PhhFieldsSchema().load(fields)
    except ma.ValidationError as error:
        raise _invalid_phh(f"not a PHH hand: {_flatten(error.normalized_messages())}") from None
    try:
        return parse(text)
    except PhhSyntaxError as error:
        raise _invalid_phh(str(error)) from None


def _flatten(messages: Any, path: str = "") -> str:
    if isinstance(messages, dict):
        return "; ".join(_flatten(inner, f"{path}.{key}" if path else str(key)) for key, inner in messages.items())
    return f"{path}: {' '.join(str(m) for m in messages)}"


def _invalid_phh(detail: str) -> Problem:
    return Problem(400, "invalid_phh", detail)


def _too_large() -> Problem:
    return Problem(413, "payload_too_large", f"a hand history is at most {MAX_PHH_BYTES} bytes")


def _answer(record: HandHistory, result: ReplayResult) -> dict[str, Any]:
    return _outcome(record.variant, player_names(record), result.finishing_stacks,
                    record.finishing_stacks, result.pots, result.odd_chip_rule)


def _outcome(variant: str, names: Sequence[str], stacks: Sequence[Amount],
             recorded: Sequence[Amount] | None, pots: Sequence[PotAward],
             odd_chip_rule: str) -> dict[str, Any]:
    stacks = tuple(int(a) if isinstance(a, Fraction) and a.denominator == 1 else a for a in stacks)
    winners = sorted({seat for pot in pots for seat in pot.winners})
    return {
        "variant": variant,
        "players": list(names),
        "finishing_stacks": [json_amount(a) for a in stacks],
        "recorded_finishing_stacks": None if recorded is None else [json_amount(a) for a in recorded],
        "matches_record": None if recorded is None else stacks == tuple(recorded),
        "odd_chip_rule": odd_chip_rule,
        "winners": [names[seat] for seat in winners],
        "pots": [
            {"amount": json_amount(pot.amount),
             "eligible": [names[seat] for seat in pot.eligible],
             "winners": [names[seat] for seat in pot.winners],
             "shares": {names[seat]: json_amount(share) for seat, share in zip(pot.winners, pot.shares)}}
            for pot in pots
        ],
    }
