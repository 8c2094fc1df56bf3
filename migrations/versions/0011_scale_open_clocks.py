"""The running action clocks: one row per table whose clock runs, kept by a trigger on
`events` in the append's own transaction, so the clock sweep (every second) and
`GET /v1/status` read the clocks that run instead of every clock ever started.

The sweep's former query took each `ClockStarted` whose deadline had passed, all of
history, and looked for a later event ending it: about 3 µs a past clock, so it would
outgrow its 1 s interval after some 320,000 clocks (docs/SCALING.md). Here a
`ClockStarted` sets its table's row (a later one replaces it); a `ClockExpired` or
`HandClosed` removes it, as the former query's "ended by a later ClockStarted,
ClockExpired or HandClosed". The domain still checks each clock it is asked to expire.
The function is the owner's (SECURITY DEFINER); the application reads the rows only.

Revision ID: 0011
Revises: 0010
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

CLOCK_TYPES = "'ClockStarted', 'ClockExpired', 'HandClosed'"

TRACK_OPEN_CLOCK = r"""
CREATE FUNCTION events_track_open_clock() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF NEW.type = 'ClockStarted' THEN
        INSERT INTO open_clocks (stream_id, version, deadline_at_ms, data)
        VALUES (NEW.stream_id, NEW.version, (NEW.data->>'deadline_at_ms')::bigint, NEW.data)
        ON CONFLICT (stream_id) DO UPDATE
           SET version = EXCLUDED.version, deadline_at_ms = EXCLUDED.deadline_at_ms,
               data = EXCLUDED.data
         WHERE open_clocks.version < EXCLUDED.version;
    ELSE
        DELETE FROM open_clocks WHERE stream_id = NEW.stream_id AND version < NEW.version;
    END IF;
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE open_clocks (
            stream_id      text COLLATE "C" PRIMARY KEY,
            version        integer NOT NULL,
            deadline_at_ms bigint NOT NULL,
            data           jsonb NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX open_clocks_deadline ON open_clocks (deadline_at_ms)")
    op.execute(TRACK_OPEN_CLOCK)
    op.execute(
        f"""
        CREATE TRIGGER events_open_clock AFTER INSERT ON events
            FOR EACH ROW WHEN (NEW.type IN ({CLOCK_TYPES}))
            EXECUTE FUNCTION events_track_open_clock()
        """
    )
    # The clocks running before this revision: each table's last ClockStarted that
    # nothing ended since.
    op.execute(
        f"""
        INSERT INTO open_clocks (stream_id, version, deadline_at_ms, data)
        SELECT e.stream_id, e.version, (e.data->>'deadline_at_ms')::bigint, e.data
          FROM events e
         WHERE e.type = 'ClockStarted'
           AND NOT EXISTS (SELECT FROM events later
                            WHERE later.stream_id = e.stream_id AND later.version > e.version
                              AND later.type IN ({CLOCK_TYPES}))
        """
    )
    # Only the sweep's former query used it; every ClockStarted paid for its entry.
    op.execute("DROP INDEX events_clock_deadline")
    op.execute("REVOKE ALL ON open_clocks FROM PUBLIC")
    op.execute("REVOKE ALL ON FUNCTION events_track_open_clock FROM PUBLIC")
    op.execute(f"GRANT SELECT ON open_clocks TO {writer_role()}")


def downgrade() -> None:
    op.execute(
        """
        CREATE INDEX events_clock_deadline
            ON events (((data->>'deadline_at_ms')::bigint))
         WHERE type = 'ClockStarted'
        """
    )
    op.execute("DROP TRIGGER events_open_clock ON events")
    op.execute("DROP FUNCTION events_track_open_clock")
    op.execute("DROP TABLE open_clocks")
