"""The pages' sign-in sessions (pages.md): one row per signed-in browser.

The cookie holds a random session id; the row is found by its sha256, so a leaked table
opens no session (as api_keys keeps only key hashes). A row names the API key it was
opened with (`key_id`, its role and player), never the key itself: a session is checked
against api_keys on every request, so revoking the key ends its sessions at once. The
CSRF token of the session's forms lives beside it.

Revision ID: 0012
Revises: 0011
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE page_sessions (
            id_hash     text PRIMARY KEY,
            key_id      text NOT NULL,
            role        text NOT NULL,
            player_id   text,
            csrf_token  text NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now(),
            expires_at  timestamptz NOT NULL
        )
        """
    )
    op.execute("CREATE INDEX page_sessions_expiry ON page_sessions (expires_at)")
    op.execute("REVOKE ALL ON page_sessions FROM PUBLIC")
    op.execute(f"GRANT SELECT, INSERT, DELETE ON page_sessions TO {writer_role()}")


def downgrade() -> None:
    op.execute("DROP TABLE page_sessions")
