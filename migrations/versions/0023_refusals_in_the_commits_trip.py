"""Refusals the server makes itself, so an idempotent write can send its claim, its append,
its record and its COMMIT in one round trip (issue 37; service.adapters.store.held_back).

Sent together, nothing the client reads can stop the COMMIT that follows: a statement that
finds the write must not commit has to fail, which aborts the transaction, and the COMMIT
behind it in the pipeline is skipped. Two functions of the owner, each one the writer may
call and neither writing anything a caller could not:

- `idempotency_key_claim(owner, key, claimed_at)`: the key's transaction-scoped advisory
  lock, taken without waiting (the lock the store's claim takes: the hash of owner, a
  newline and key), else lock_not_available; a record of the key still live at
  `claimed_at`, else unique_violation (the first answer is replayed instead, by a second
  run of the write that reads it); a record expired by then is removed through
  `idempotency_records_remove_expired` (which removes nothing the database's clock
  still counts live).
- `events_require_appended(appended, stream, expected)`: raises (SQLSTATE CR409) when an
  append wrote no event: the stream is not at the expected version, or not with the hash
  the append chains from. The store's append statements that go with a COMMIT end in it.

Revision ID: 0023
Revises: 0022
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION idempotency_key_claim(the_owner text, the_key text, claimed_at timestamptz)
        RETURNS void
        LANGUAGE plpgsql SET search_path = pg_catalog, public
        AS $$
        DECLARE
            live boolean;
        BEGIN
            IF NOT pg_try_advisory_xact_lock(hashtextextended(the_owner || chr(10) || the_key, 0)) THEN
                RAISE EXCEPTION 'the Idempotency-Key % is in use by another request', the_key
                    USING ERRCODE = 'lock_not_available';
            END IF;
            SELECT expires_at > claimed_at INTO live
              FROM public.idempotency_records WHERE owner = the_owner AND key = the_key;
            IF live THEN
                RAISE EXCEPTION 'the Idempotency-Key % has its first answer', the_key
                    USING ERRCODE = 'unique_violation';
            ELSIF NOT live THEN
                PERFORM public.idempotency_records_remove_expired(the_owner, the_key, claimed_at, 0);
            END IF;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE FUNCTION events_require_appended(appended bigint, the_stream text, expected integer)
        RETURNS void
        LANGUAGE plpgsql SET search_path = pg_catalog
        AS $$
        BEGIN
            IF appended = 0 THEN
                RAISE EXCEPTION 'nothing appended to %: it is not at version % with the hash the append chains from',
                    the_stream, expected USING ERRCODE = 'CR409';
            END IF;
        END
        $$
        """
    )
    op.execute("REVOKE ALL ON FUNCTION idempotency_key_claim, events_require_appended FROM PUBLIC")
    op.execute(f"GRANT EXECUTE ON FUNCTION idempotency_key_claim, events_require_appended TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP FUNCTION events_require_appended")
    op.execute("DROP FUNCTION idempotency_key_claim")
