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
    op.execute(APPEND_EVENT)
    op.execute(APPEND_EVENTS)


# An append is one round trip: `append_event` for one event, `append_events` for a batch
# (one `append_event` per event). `append_event` is a single INSERT .. SELECT that, in one
# snapshot, finds the stream's head, checks the expected version and the idempotency key,
# chains the hash and inserts: one plain statement costs the server far less than
# separate lookups. The client sends data and metadata as their canonical JSON text
# (service.store.base.canonical_json), so they are encoded once: the same text is stored
# (as jsonb) and hashed. The hashed document is the one service.store.base.hashed_document
# builds, byte for byte: integers print alike in both, and to_json() escapes a string
# exactly as Python's json.dumps(ensure_ascii=False) does (", \, \b \f \n \r \t, \u00XX for
# the other control characters, everything else as is). now() is the transaction's start,
# so every event of a batch has the same recorded_at in its column and in its hash.
# A writer that loses a race for a version (or a key) fails on a unique constraint
# instead; the store turns that into a VersionConflict or the original result.
APPEND_EVENT = r"""
CREATE FUNCTION append_event(
    p_stream_id text,
    p_expected_version integer,
    p_idempotency_key text,
    p_type text,
    p_schema_version integer,
    p_data text,
    p_metadata text,
    OUT outcome text,
    OUT stream_version integer,
    OUT first_version integer,
    OUT positions bigint[]
) LANGUAGE plpgsql AS $$
DECLARE
    head_version integer;
    key_seen boolean;
    new_position bigint;
BEGIN
    WITH head AS (
        SELECT e.version, e.hash FROM events e
         WHERE e.stream_id = p_stream_id ORDER BY e.version DESC LIMIT 1
    ), keyed AS (
        SELECT EXISTS (SELECT FROM events e WHERE e.stream_id = p_stream_id
                                              AND e.idempotency_key = p_idempotency_key) AS seen
    ), inserted AS (
        INSERT INTO events (stream_id, version, type, schema_version, data, metadata,
                            idempotency_key, recorded_at, hash)
        SELECT p_stream_id, p_expected_version + 1, p_type, p_schema_version,
               p_data::jsonb, p_metadata::jsonb, p_idempotency_key, now(),
               sha256(convert_to(
                      '{"data":' || p_data
                   || ',"metadata":' || p_metadata
                   || ',"previous_hash":"'
                   || coalesce((SELECT encode(h.hash, 'hex') FROM head h), repeat('0', 64))
                   || '","recorded_at":"'
                   || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                   || '","schema_version":' || p_schema_version
                   || ',"stream_id":' || to_json(p_stream_id)
                   || ',"type":' || to_json(p_type)
                   || ',"version":' || (p_expected_version + 1)
                   || '}', 'UTF8'))
         WHERE coalesce((SELECT h.version FROM head h), 0) = p_expected_version
           AND NOT (SELECT k.seen FROM keyed k)
        RETURNING events.position
    )
    SELECT coalesce((SELECT h.version FROM head h), 0),
           (SELECT k.seen FROM keyed k),
           (SELECT n.position FROM inserted n)
      INTO head_version, key_seen, new_position;

    IF new_position IS NOT NULL THEN
        outcome := 'appended';
        stream_version := p_expected_version + 1;
        first_version := stream_version;
        positions := ARRAY[new_position];
    ELSIF key_seen THEN
        -- The key sits on the first event of its append only; the batch is found from there.
        SELECT first.version, max(e.version), array_agg(e.position ORDER BY e.version)
          INTO first_version, stream_version, positions
          FROM events first
          JOIN events e ON e.stream_id = first.stream_id AND e.version >= first.version
                       AND e.metadata->>'idempotency_key' = first.idempotency_key
         WHERE first.stream_id = p_stream_id AND first.idempotency_key = p_idempotency_key
         GROUP BY first.version;
        outcome := 'duplicate';
    ELSE
        outcome := 'conflict';
        stream_version := head_version;
    END IF;
END
$$
"""

# Only the first event can be refused: the later ones follow our own uncommitted rows,
# which no other writer can take (it would wait on the unique index, then fail).
APPEND_EVENTS = r"""
CREATE FUNCTION append_events(
    p_stream_id text,
    p_expected_version integer,
    p_idempotency_key text,
    p_types text[],
    p_schema_versions integer[],
    p_data text[],
    p_metadata text[],
    OUT outcome text,
    OUT stream_version integer,
    OUT first_version integer,
    OUT positions bigint[]
) LANGUAGE plpgsql AS $$
DECLARE
    step record;
BEGIN
    positions := '{}';
    FOR i IN 1 .. cardinality(p_types) LOOP
        SELECT * INTO step FROM append_event(
            p_stream_id, p_expected_version + i - 1,
            CASE WHEN i = 1 THEN p_idempotency_key END,
            p_types[i], p_schema_versions[i], p_data[i], p_metadata[i]);
        IF step.outcome <> 'appended' THEN
            outcome := step.outcome;
            stream_version := step.stream_version;
            first_version := step.first_version;
            positions := step.positions;
            RETURN;
        END IF;
        positions := positions || step.positions;
    END LOOP;
    outcome := 'appended';
    stream_version := p_expected_version + cardinality(p_types);
    first_version := p_expected_version + 1;
END
$$
"""


def downgrade() -> None:
    op.execute("DROP FUNCTION append_events")
    op.execute("DROP FUNCTION append_event")
    op.execute("DROP TABLE events")
    op.execute("DROP FUNCTION events_refuse_change")
