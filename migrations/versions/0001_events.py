"""The append-only event log.

Revision ID: 0001
Revises:
"""
from __future__ import annotations

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    # stream_id uses the "C" collation so prefix searches (list_streams) can use the
    # (stream_id, version) index whatever the database's default collation is.
    # transaction_id orders the global log: see service/store/postgres.py.
    op.execute(
        """
        CREATE TABLE events (
            position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
            stream_id       text COLLATE "C" NOT NULL,
            version         integer NOT NULL CHECK (version >= 1),
            type            text NOT NULL,
            schema_version  integer NOT NULL DEFAULT 1,
            data            jsonb NOT NULL,
            metadata        jsonb NOT NULL DEFAULT '{}',
            idempotency_key text,
            recorded_at     timestamptz NOT NULL DEFAULT now(),
            hash            bytea NOT NULL CHECK (length(hash) = 32),
            CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
        )
        """
    )
    # The key sits on the first event of an append only; the batch is found from there.
    op.execute(
        """
        CREATE UNIQUE INDEX events_stream_idempotency_key
            ON events (stream_id, idempotency_key) WHERE idempotency_key IS NOT NULL
        """
    )
    op.execute("CREATE INDEX events_global_order ON events (transaction_id, position)")
    op.execute(
        """
        CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only: % refused', TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER events_refuse_update_delete BEFORE UPDATE OR DELETE ON events
            FOR EACH ROW EXECUTE FUNCTION events_refuse_change()
        """
    )
    op.execute(
        """
        CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()
        """
    )
    op.execute(APPEND_EVENTS)


# One call appends a batch in one round trip: the idempotency check, the version check,
# the hash chain (the previous hash and the clock spliced into each event's canonical
# document, see service.store.base.HashedDocument) and the inserts. The batch comes as
# one JSON array of {type, schema_version, data, metadata, head, tail}: one parameter
# costs far less to send and parse than six arrays.
# A writer that loses a race for a version fails on the unique constraint instead; the
# store turns that into a VersionConflict (or the original result of an idempotent retry).
APPEND_EVENTS = r"""
CREATE FUNCTION append_events(
    p_stream_id text,
    p_expected_version integer,
    p_idempotency_key text,
    p_events jsonb
) RETURNS TABLE (outcome text, stream_version integer, first_version integer, positions bigint[])
LANGUAGE plpgsql AS $$
DECLARE
    head_version integer;
    previous_hash bytea;
    next_hash bytea;
    v_recorded_at timestamptz := now();
    recorded_text text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    new_position bigint;
    new_positions bigint[] := '{}';
    event jsonb;
    offset_ integer := 0;
BEGIN
    SELECT e.version, e.hash INTO head_version, previous_hash FROM events e
     WHERE e.stream_id = p_stream_id ORDER BY e.version DESC LIMIT 1;
    IF NOT FOUND THEN
        head_version := 0;
        previous_hash := NULL;
    END IF;
    -- The key is looked up after the head, in a later snapshot: if the head moved
    -- because the keyed append committed meanwhile, the key is seen and wins.
    IF p_idempotency_key IS NOT NULL THEN
        SELECT e.version INTO first_version FROM events e
         WHERE e.stream_id = p_stream_id AND e.idempotency_key = p_idempotency_key;
        IF FOUND THEN
            SELECT array_agg(e.position ORDER BY e.version), max(e.version)
              INTO positions, stream_version
              FROM events e
             WHERE e.stream_id = p_stream_id AND e.version >= first_version
               AND e.metadata->>'idempotency_key' = p_idempotency_key;
            outcome := 'duplicate';
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;

    IF head_version <> p_expected_version THEN
        outcome := 'conflict';
        stream_version := head_version;
        RETURN NEXT;
        RETURN;
    END IF;

    FOR event IN SELECT jsonb_array_elements(p_events) LOOP
        offset_ := offset_ + 1;
        next_hash := sha256(convert_to(
            (event->>'head') || coalesce(encode(previous_hash, 'hex'), repeat('0', 64))
            || '","recorded_at":"' || recorded_text || (event->>'tail'), 'UTF8'));
        INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                            idempotency_key, recorded_at, hash)
        VALUES (p_stream_id, p_expected_version + offset_, event->>'type',
                (event->>'schema_version')::integer, event->'data', event->'metadata',
                CASE WHEN offset_ = 1 THEN p_idempotency_key END, v_recorded_at, next_hash)
        RETURNING events.position INTO new_position;
        new_positions := new_positions || new_position;
        previous_hash := next_hash;
    END LOOP;
    outcome := 'appended';
    stream_version := p_expected_version + offset_;
    first_version := p_expected_version + 1;
    positions := new_positions;
    RETURN NEXT;
END
$$
"""


def downgrade() -> None:
    op.execute("DROP FUNCTION append_events")
    op.execute("DROP TABLE events")
    op.execute("DROP FUNCTION events_refuse_change")
