"""The revoked keys, in the order they were revoked: each web process asks every
KEY_CACHE_TTL_S which keys were revoked since it last asked (service.http.api_keys.ApiKeys),
one range of this index, instead of looking each key it trusts up again.

Revision ID: 0015
Revises: 0014
"""
from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX api_keys_revoked ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL")


def downgrade() -> None:
    op.execute("DROP INDEX api_keys_revoked")
