"""`POST /v1/receipts/verify`: a client shows back a receipt a write gave it (the JSON of a
`Cardroom-Receipt` header, service.http.api.writes) and learns whether the log still reaches it:
`valid`, or the reason (`mac_wrong`: not a receipt this service signed; `unknown_stream`;
`version_beyond_head`: events were removed; `hash_differs`: the event at that version was
replaced; `chain_broken`: the log up to that version no longer verifies). Any role may ask:
a receipt names nothing a caller could not already read.
"""
from __future__ import annotations

import marshmallow as ma

from service.application.api_keys import ROLES
from service.application.event_log import Head, Reveal, check_receipt
from service.http.api import Blueprint, event_store
from service.http.auth import require

blp = Blueprint("receipts", __name__, url_prefix="/v1/receipts",
                description="Receipts of writes, checked against the log")

_HEX_64 = ma.validate.Regexp(r"^[0-9a-f]{64}$", error="64 lowercase hex digits")


class ReceiptSchema(ma.Schema):
    stream = ma.fields.String(required=True, validate=ma.validate.Length(min=1, max=200))
    version = ma.fields.Integer(required=True, strict=True,
                                validate=ma.validate.Range(min=1, max=2**31 - 1))
    hash = ma.fields.String(required=True, validate=_HEX_64)
    mac = ma.fields.String(required=True, allow_none=True, validate=_HEX_64)


class ReceiptCheckSchema(ma.Schema):
    valid = ma.fields.Boolean(required=True)
    reason = ma.fields.String(allow_none=True, metadata={
        "description": "mac_wrong, unknown_stream, version_beyond_head, hash_differs or chain_broken"})
    detail = ma.fields.String(allow_none=True)
    stream = ma.fields.String(required=True)
    version = ma.fields.Integer(required=True)
    head_version = ma.fields.Integer(required=True, metadata={"description": "the stream's version now"})


@blp.route("/verify", methods=["POST"])
@require(*ROLES)
@blp.arguments(ReceiptSchema)
@blp.response(200, ReceiptCheckSchema)
def verify_receipt(body: dict) -> dict:
    """Whether the log still reaches this receipt (any role)."""
    # The chain is over the stored text: records as stored, not as the upcaster reads them.
    store = getattr(event_store(), "stored", event_store())
    receipt = Head(body["stream"], body["version"], body["hash"], body["mac"])
    checked = check_receipt(receipt, store.read_stream(receipt.stream_id, reveal=Reveal.ALL, checked=False),
                            getattr(store, "signer", None))
    return {"valid": checked.valid, "reason": checked.reason, "detail": checked.detail,
            "stream": receipt.stream_id, "version": receipt.version,
            "head_version": checked.head_version}
