"""Least privilege: the application's rights are granted to `cardroom_writer` only.

Run as `cardroom_owner` (service.migrate.upgrade creates both roles and hands existing
objects to the owner first). The application logs in as a member of `cardroom_writer`:
it may read and append events, but not change, delete or truncate them, nor touch their
triggers (only the owner or a superuser may); it may read and issue keys and set a key's
`revoked_at`, nothing else. PUBLIC gets nothing on these tables.

Revision ID: 0006
Revises: 0005
"""
from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("REVOKE ALL ON events, api_keys, alembic_version FROM PUBLIC")
    op.execute("GRANT SELECT, INSERT ON events TO cardroom_writer")
    op.execute("GRANT SELECT, INSERT ON api_keys TO cardroom_writer")
    op.execute("GRANT UPDATE (revoked_at) ON api_keys TO cardroom_writer")


def downgrade() -> None:
    op.execute("REVOKE ALL ON events, api_keys FROM cardroom_writer")
