"""The listings read model: one row per table, tournament and player stream, so that
`GET /v1/tables`, `/v1/tournaments` and `/v1/players` page through an index instead of
replaying streams.

A trigger on `events` keeps each row in the append's own transaction: a listing is never
ahead of or behind its stream, whichever process wrote the event. It reads only what the
first event and a few event types say (game, name, status, who sits or entered). The
trigger's function is the owner's (SECURITY DEFINER) and the application may not execute
`listing_apply` itself: it reads listings, and changes one only by appending events.

- tables: status `waiting` (between hands), `playing` (a hand is open), `closing` (closed
  while a hand was open: finished when it ends), `finished`; `players` every player who
  has sat there (the creation's seats, each later sit-down).
- tournaments: status `registering`, `running`, `finished`; `players` every entrant;
  `game` from the first event's metadata; `name` its settings' name.
- players: `name`.

Revision ID: 0010
Revises: 0008
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


LISTING_APPLY = r"""
CREATE FUNCTION listing_apply(p_stream_id text, p_version integer, p_type text, p_data jsonb,
                              p_metadata jsonb, p_position bigint, p_recorded_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_kind text := split_part(p_stream_id, '-', 1);
    v_status text;
    v_player text;
BEGIN
    IF v_kind NOT IN ('table', 'tournament', 'player') THEN
        RETURN;
    END IF;
    IF p_version = 1 THEN
        INSERT INTO listings (stream_id, kind, created_position, created_at, game, name,
                              status, players)
        VALUES (p_stream_id, v_kind, p_position, p_recorded_at,
                CASE v_kind WHEN 'table' THEN p_data->>'game'
                            WHEN 'tournament' THEN p_metadata->>'game' END,
                CASE v_kind WHEN 'player' THEN p_data->>'name'
                            WHEN 'tournament' THEN p_data->'settings'->>'name' END,
                CASE v_kind WHEN 'table' THEN 'waiting' WHEN 'tournament' THEN 'registering'
                            ELSE 'registered' END,
                CASE WHEN v_kind = 'table' THEN
                    ARRAY(SELECT s->>'player_id' FROM jsonb_array_elements(p_data->'seats') s
                           WHERE s->>'player_id' <> '')
                ELSE '{}' END)
        ON CONFLICT (stream_id) DO NOTHING;
        RETURN;
    END IF;
    v_status := CASE
        WHEN v_kind = 'table' AND p_type = 'HandOpened' THEN 'playing'
        WHEN v_kind = 'table' AND p_type = 'HandClosed' THEN 'waiting'
        WHEN v_kind = 'table' AND p_type = 'TableClosing' THEN 'closing'
        WHEN v_kind = 'table' AND p_type = 'TableFinished' THEN 'finished'
        WHEN v_kind = 'tournament' AND p_type = 'TournamentStarted' THEN 'running'
        WHEN v_kind = 'tournament' AND p_type = 'TournamentFinished' THEN 'finished'
    END;
    v_player := CASE
        WHEN v_kind = 'table' AND p_type = 'PlayerSeatedAtTable' THEN p_data->>'player_id'
        WHEN v_kind = 'tournament' AND p_type = 'PlayerRegistered' THEN p_data->>'player_id'
    END;
    UPDATE listings
       -- A closing table stays closing through the end of its last hand.
       SET status = CASE WHEN v_status IS NULL THEN status
                         WHEN status = 'closing' AND v_status IN ('playing', 'waiting') THEN status
                         ELSE v_status END,
           players = CASE WHEN v_player IS NULL OR v_player = ANY (players) THEN players
                          ELSE players || v_player END
     WHERE stream_id = p_stream_id;
END
$$
"""

# The event types after the first that change a listing (listing_apply's CASEs).
LISTED_TYPES = ", ".join(f"'{t}'" for t in (
    "HandOpened", "HandClosed", "TableClosing", "TableFinished", "PlayerSeatedAtTable",
    "TournamentStarted", "TournamentFinished", "PlayerRegistered"))

LISTING_TRIGGER = r"""
CREATE FUNCTION events_update_listing() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM listing_apply(NEW.stream_id, NEW.version, NEW.type, NEW.data, NEW.metadata,
                          NEW.position, NEW.recorded_at);
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE listings (
            stream_id        text COLLATE "C" PRIMARY KEY,
            kind             text NOT NULL,
            created_position bigint NOT NULL,
            created_at       timestamptz NOT NULL,
            game             text,
            name             text,
            status           text NOT NULL,
            players          text[] NOT NULL DEFAULT '{}'
        )
        """
    )
    # Newest first within a kind, and "every listing this player is in".
    op.execute("CREATE INDEX listings_newest ON listings (kind, created_position DESC)")
    op.execute("CREATE INDEX listings_players ON listings USING gin (players)")
    op.execute(LISTING_APPLY)
    op.execute(LISTING_TRIGGER)
    # The WHEN clause is checked without calling the function: the events most appends
    # write (actions, cards) cost the trigger nothing more.
    op.execute(
        f"""
        CREATE TRIGGER events_listing AFTER INSERT ON events
            FOR EACH ROW WHEN (NEW.version = 1 OR NEW.type IN ({LISTED_TYPES}))
            EXECUTE FUNCTION events_update_listing()
        """
    )
    # The streams written before this revision, in the order they were written.
    op.execute(
        f"""
        SELECT listing_apply(stream_id, version, type, data, metadata, position, recorded_at)
          FROM events WHERE version = 1 OR type IN ({LISTED_TYPES}) ORDER BY stream_id, version
        """
    )
    op.execute("REVOKE ALL ON listings FROM PUBLIC")
    op.execute("REVOKE ALL ON FUNCTION listing_apply, events_update_listing FROM PUBLIC")
    op.execute(f"GRANT SELECT ON listings TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP TRIGGER events_listing ON events")
    op.execute("DROP FUNCTION events_update_listing")
    op.execute("DROP FUNCTION listing_apply")
    op.execute("DROP TABLE listings")
