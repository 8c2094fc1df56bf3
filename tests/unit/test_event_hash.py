"""The hash a store chains from canonical JSON it already has is the hash of the canonical
JSON of the whole document (what an auditor recomputes)."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from service.adapters.store.base import canonical_json, chained_hash, event_hash, format_recorded_at

TEXTS = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=8)
VALUES = st.dictionaries(TEXTS, st.one_of(st.integers(), TEXTS, st.booleans(), st.none(),
                                          st.lists(TEXTS, max_size=3)), max_size=4)
MOMENTS = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1),
                       timezones=st.just(UTC))


@given(stream_id=TEXTS | st.sampled_from(['"', "\\", "table-\u00e9\u4e2d", "\x1f", "\u2028\x7f"]),
       type_=TEXTS | st.sampled_from(['"', "\\n", "Hand\tOpened"]),
       version=st.integers(1, 2**31 - 1), schema_version=st.integers(1, 9),
       data=VALUES, metadata=VALUES, previous_hash=st.sampled_from(["0" * 64, "ab" * 32]),
       recorded_at=MOMENTS)
def test_the_hash_chained_from_encoded_parts_is_that_of_the_canonical_json_of_the_whole(
        stream_id, type_, version, schema_version, data, metadata, previous_hash, recorded_at):
    whole = canonical_json({
        "data": data, "metadata": metadata, "previous_hash": previous_hash,
        "recorded_at": format_recorded_at(recorded_at), "schema_version": schema_version,
        "stream_id": stream_id, "type": type_, "version": version,
    })

    chained = chained_hash(stream_id, version, type_, schema_version, canonical_json(data),
                           canonical_json(metadata), previous_hash, format_recorded_at(recorded_at))

    assert chained == _sha256_of(whole)


def test_a_known_event_hashes_to_its_recorded_value():
    # Pinned: a change of the hashed document's spelling would break every stored chain.
    moment = datetime(2026, 11, 30, 9, 38, 46, 123456, tzinfo=UTC)
    assert event_hash("table-1", 1, "HandOpened", 1, {"seat": 0}, {"actor": "floor"},
                      "0" * 64, moment) == _sha256_of(
        '{"data":{"seat":0},"metadata":{"actor":"floor"},"previous_hash":"' + "0" * 64 + '",'
        '"recorded_at":"2026-11-30T09:38:46.123456Z","schema_version":1,'
        '"stream_id":"table-1","type":"HandOpened","version":1}')


def _sha256_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@given(moment=st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31),
                           timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)),
                                                      timezone(timedelta(hours=-8))])))
def test_recorded_at_is_spelled_as_utc_with_microseconds(moment):
    assert format_recorded_at(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
