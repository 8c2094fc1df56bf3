"""The public log's leaf of an event (service.application.public_log.record_leaf): its
stream, version and type, the digest of the public form, the sealed fields' names and the
per-card commitment; recomputed by the standalone verifier from the event as the keyless
view serves it, before the hand closes and after (when a hand committed whole shows its
salt: the verifier reads it as null again); the salt itself is in no digest."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import domain.registry  # noqa: F401  (registers the games' secrecy declarations)
from service.adapters.store.base import RecordedEvent
from service.application.public_log import public_form, record_leaf
from service.public_log_verifier import canonical_json, event_leaf, parse_leaf

COMMITMENT = "ab" * 32
SALT = "5a17" * 16


def hand_opened() -> RecordedEvent:
    return RecordedEvent(
        stream_id="table-t1", version=7, position=70, type="HandOpened", schema_version=1,
        data={"hand_id": "t1.2", "number": 2, "button": 1, "seats": [0, 1, 2], "commitment": COMMITMENT,
              "salt": None, "scheme": "merkle"},
        metadata={"hand_id": "t1.2", "actor": "floor-key"}, recorded_at=datetime(2026, 12, 4, tzinfo=UTC),
        hash="0" * 64)


def test_the_leaf_names_the_event_its_sealed_fields_and_its_commitment_and_nothing_else() -> None:
    leaf = parse_leaf(record_leaf(hand_opened()))
    assert (leaf.stream_id, leaf.version, leaf.type) == ("table-t1", 7, "HandOpened")
    assert leaf.sealed == ("salt",) and leaf.commitments == (COMMITMENT,)
    assert b"floor-key" not in record_leaf(hand_opened()), "who wrote it is not public"


def test_the_verifier_recomputes_it_from_the_public_form_before_and_after_the_salt_is_shown() -> None:
    record = hand_opened()
    served_live = public_form(record)
    assert served_live == {"version": 7, "type": "HandOpened", "data": dict(record.data), "hand_id": "t1.2",
                           "recorded_at": "2026-12-04T00:00:00.000000Z"}
    served_after = {**served_live, "data": {**served_live["data"], "salt": SALT}}
    for served in (served_live, served_after):
        assert event_leaf("table-t1", 7, "HandOpened", served, ["salt"], [COMMITMENT]) == record_leaf(record)
    digest = parse_leaf(record_leaf(record)).public_sha256
    assert digest != hashlib.sha256(canonical_json(served_after)).hexdigest()
    assert digest != hashlib.sha256(SALT.encode()).hexdigest()
