"""Least privilege: the application's rights are granted to the database's writer role only.

Run as the database's owner role (service.adapters.migrate.upgrade creates both roles, named
after the database, and hands existing objects to the owner first). The application logs
in as a member of the writer role:
it may read and append events, but not change, delete or truncate them, nor touch their
triggers (only the owner or a superuser may); it may read and issue keys and set a key's
`revoked_at`, nothing else. PUBLIC gets nothing on these tables.

Revision ID: 0006
Revises: 0005
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("REVOKE ALL ON events, api_keys, alembic_version FROM PUBLIC")
    op.execute(f"GRANT SELECT, INSERT ON events TO {writer_role()}")
    op.execute(f"GRANT SELECT, INSERT ON api_keys TO {writer_role()}")
    op.execute(f"GRANT UPDATE (revoked_at) ON api_keys TO {writer_role()}")


def downgrade() -> None:
    op.execute(f"REVOKE ALL ON events, api_keys FROM {writer_role()}")
