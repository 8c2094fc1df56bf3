"""The public log's endpoints (service.application.public_log; docs/TRANSPARENCY.md): no
key, nothing secret, all anyone needs to check the log with public keys alone.

- `GET /v1/log/keys`: the log's verifier key and the witnesses' (C2SP vkeys);
- `GET /v1/log/checkpoint`: the newest checkpoint meeting the witness policy, as a C2SP
  signed note with its cosignatures (text/plain);
- `GET /v1/log/leaves/{index}`: one leaf;
- `GET /v1/log/inclusion?index=&size=`, `GET /v1/log/consistency?from=&to=`: RFC 9162
  proofs;
- `GET /v1/log/proofs/{stream_id}/{version}`: a receipt's stream and version turned into
  all that proves that event offline (`404 not_yet_integrated` with `Retry-After` in the
  moment before it is in a checkpoint).
"""
from __future__ import annotations

import base64
from typing import Any

import marshmallow as ma
from flask import Response

from service.application.public_log import PublicLog, Refused
from service.http.api import Blueprint, application, resources
from service.http.problems import Problem

blp = Blueprint("public_log", __name__, url_prefix="/v1/log",
                description="The public log: checkpoints and proofs anyone verifies offline")

MAX_INDEX = 2**62
_NO_KEY: dict[str, Any] = {"security": []}
"""Public: no key asked, none needed."""


class LogKeysSchema(ma.Schema):
    log = ma.fields.String(allow_none=True, metadata={"description": "the log's verifier key (Ed25519, 0x01)"})
    witnesses = ma.fields.List(ma.fields.String(), metadata={"description": "the witnesses' keys (cosignature/v1, 0x04)"})


class LogLeafSchema(ma.Schema):
    leaf = ma.fields.String(required=True, metadata={"description": "the leaf, base64 (docs/TRANSPARENCY.md)"})


class LogHashesSchema(ma.Schema):
    hashes = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "base64 SHA-256 hashes"})


class InclusionQuerySchema(ma.Schema):
    index = ma.fields.Integer(required=True, validate=ma.validate.Range(min=0, max=MAX_INDEX))
    size = ma.fields.Integer(required=True, validate=ma.validate.Range(min=1, max=MAX_INDEX))


class ConsistencyQuerySchema(ma.Schema):
    from_ = ma.fields.Integer(required=True, data_key="from", validate=ma.validate.Range(min=0, max=MAX_INDEX))
    to = ma.fields.Integer(required=True, validate=ma.validate.Range(min=0, max=MAX_INDEX))


class LogProofSchema(ma.Schema):
    index = ma.fields.Integer(required=True)
    leaf = ma.fields.String(required=True)
    size = ma.fields.Integer(required=True)
    hashes = ma.fields.List(ma.fields.String(), required=True)
    checkpoint = ma.fields.String(required=True, metadata={"description": "the signed note, with its cosignatures"})


def _log() -> PublicLog:
    found = resources().public_log
    if found is None:
        raise Problem(503, "database_unavailable", "no database is configured (DATABASE_URL)")
    return found


def _answered(refused: Refused) -> Problem:
    headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else None
    return Problem(refused.status, refused.code, refused.detail, headers=headers, numbers=refused.numbers)


def _b64(hashes: list[bytes]) -> dict[str, Any]:
    return {"hashes": [base64.b64encode(h).decode("ascii") for h in hashes]}


@blp.route("/keys", methods=["GET"])
@blp.response(200, LogKeysSchema)
@blp.doc(**_NO_KEY)
def log_keys() -> dict:
    """The verifier keys: the log's and its witnesses' (keep them apart from this service
    to check it; a key rotation is a new origin)."""
    return _log().keys()


@blp.route("/checkpoint", methods=["GET"])
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**_NO_KEY, responses={"200": {"description": "a C2SP signed note: the checkpoint and its cosignatures",
                                       "content": {"text/plain": {"schema": {"type": "string"}}}}})
def log_checkpoint() -> Response:
    """The newest checkpoint that meets the witness policy (text/plain)."""
    try:
        found = _log().checkpoint()
    except Refused as refused:
        raise _answered(refused) from None
    return Response(found.note, mimetype="text/plain", headers={"Cache-Control": "no-cache"})


@blp.route("/leaves/<int:index>", methods=["GET"])
@blp.response(200, LogLeafSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**_NO_KEY)
def log_leaf(index: int) -> dict:
    """One leaf of the tree, by its index."""
    if index > MAX_INDEX:
        raise Problem(404, "not_found", f"the log has no leaf {index}", numbers={"index": index})
    try:
        return {"leaf": base64.b64encode(_log().leaf(index)).decode("ascii")}
    except Refused as refused:
        raise _answered(refused) from None


@blp.route("/inclusion", methods=["GET"])
@blp.arguments(InclusionQuerySchema(), location="query")
@blp.response(200, LogHashesSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(**_NO_KEY)
def log_inclusion(query: dict) -> dict:
    """The inclusion proof of leaf `index` in the tree of `size` leaves (RFC 9162 2.1.3)."""
    try:
        return _b64(_log().inclusion(query["index"], query["size"]))
    except Refused as refused:
        raise _answered(refused) from None


@blp.route("/consistency", methods=["GET"])
@blp.arguments(ConsistencyQuerySchema(), location="query")
@blp.response(200, LogHashesSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(**_NO_KEY)
def log_consistency(query: dict) -> dict:
    """The consistency proof from the tree of `from` leaves to the tree of `to` (RFC 9162 2.1.4)."""
    try:
        return _b64(_log().consistency(query["from_"], query["to"]))
    except Refused as refused:
        raise _answered(refused) from None


@blp.route("/proofs/<string:stream_id>/<int:version>", methods=["GET"])
@blp.response(200, LogProofSchema)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(**_NO_KEY)
def log_proof(stream_id: str, version: int) -> dict:
    """A receipt's event (its stream and version) proven against the newest checkpoint:
    verify it offline with service/public_log_verifier.py and the event's public form."""
    app = application()
    if version > 2**31 - 1:
        raise Problem(404, "not_found", f"no event {stream_id} version {version}", numbers={"version": version})
    try:
        return _log().proof(stream_id, version, lambda: app.store.stream_version(stream_id) >= version)
    except Refused as refused:
        raise _answered(refused) from None
