"""Idempotency records: the first answer to each (API key, Idempotency-Key), kept for a
window (service.store.idempotency). Written in the same transaction as the events they
answer for. Records are not the log: the application may replace and remove expired ones.

Revision ID: 0008
Revises: 0007
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE idempotency_records (
            owner       text NOT NULL,
            key         text NOT NULL,
            method      text NOT NULL,
            path        text NOT NULL,
            body_sha256 bytea NOT NULL CHECK (length(body_sha256) = 32),
            status      smallint NOT NULL,
            body        bytea NOT NULL,
            headers     jsonb NOT NULL,
            created_at  timestamptz NOT NULL,
            expires_at  timestamptz NOT NULL,
            PRIMARY KEY (owner, key)
        )
        """
    )
    op.execute("CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at)")
    op.execute("REVOKE ALL ON idempotency_records FROM PUBLIC")
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_records TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP TABLE idempotency_records")
