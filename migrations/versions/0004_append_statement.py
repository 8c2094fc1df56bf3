"""Drop the append functions: the store sends its append statement itself.

The plpgsql functions of 0001 cost the server about 30 µs an append more than the same
INSERT .. SELECT sent as a prepared statement, and a batch ran one function call per event;
service.store.postgres now prepares one statement for a single event and one for a batch.
The checks, the hash chain and the append-only triggers are unchanged.

Revision ID: 0004
Revises: 0003
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP FUNCTION append_events")
    op.execute("DROP FUNCTION append_event")


def downgrade() -> None:
    spec = importlib.util.spec_from_file_location("events_0001", Path(__file__).with_name("0001_events.py"))
    assert spec is not None and spec.loader is not None
    events_0001 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(events_0001)
    op.execute(events_0001.APPEND_EVENT)
    op.execute(events_0001.APPEND_EVENTS)
