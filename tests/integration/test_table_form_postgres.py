"""The upcaster over the PostgreSQL store (issue 15 item 8): table streams recorded before
positions were named (tests/unit/recorded) replay to the same table, read in the table
form from any version and by hand (PostgreSQL's own hand read), and their chain checks."""
from __future__ import annotations

import uuid

import pytest

from service.adapters.store.base import NewEvent, Reveal
from service.adapters.store.upcasting import UpcastingStore
from service.application import commands
from service.application.application import application
from service.application.replay import IMPORTED_HAND_PREFIX
from tests.unit.test_table_form import RECORDED, assert_table_form, view_as_recorded


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_an_old_table_stream_in_postgresql_replays_and_reads_in_the_table_form(postgres_store, game):
    # A stream of its own: the recorded table's id names it in the data, not the stream.
    stream = commands.table_stream(f"old-{game}-{uuid.uuid4().hex[:12]}")
    recorded = RECORDED[game]["records"]
    postgres_store.append(stream, 0, [NewEvent(r["type"], r["data"], r["schema_version"],
                                               metadata=r["metadata"], sealed=r["sealed"]) for r in recorded])
    reading = UpcastingStore(postgres_store, commands.STREAM_PREFIX, IMPORTED_HAND_PREFIX)

    whole = reading.read_stream(stream, reveal=Reveal.ALL)
    assert_table_form(whole)
    for after in range(0, len(whole), 11):
        assert reading.read_stream(stream, after_version=after, reveal=Reveal.ALL) == whole[after:]
    hand_ids = sorted({r.metadata["hand_id"] for r in whole if r.type == "HandOpened"})
    for hand_id in hand_ids:
        by_hand = reading.read_hand(stream, hand_id, opened_by="HandOpened", reveal=Reveal.ALL)
        assert by_hand == [r for r in whole if r.version in {h.version for h in by_hand}]
        assert_table_form(by_hand)

    state = commands.fold_records(None, whole)
    assert view_as_recorded(state, len(whole)) == RECORDED[game]["table_view"]
    loaded = application(reading).tables.replay(stream, None)
    assert view_as_recorded(loaded.state, loaded.version) == RECORDED[game]["table_view"]
    assert reading.verify_stream(stream).ok
