"""The public log (service.application.public_log): one RFC 9162 Merkle tree over the
global log, a leaf per event, and the signed checkpoints over it.

- `log_leaves`: the leaf of each event, by index (the order the integrator read the global
  log in) and by (stream, version), so a receipt finds its proof;
- `log_nodes`: the hash of every complete subtree, by (level, index): a proof reads at most
  two per level and never rehashes the leaves;
- `log_checkpoints`: each signed checkpoint (a C2SP signed note) by tree size, with the
  verifier key that signed it;
- `log_cosignatures`: the witnesses' cosignature lines on a checkpoint.

Nothing is ever changed or removed: the application may add rows and read them. A row
it adds where the integrator has not yet written (a forged leaf or node) makes the
integrator's own insert conflict, and it stops and says so; a row changed by anyone who
may (the owner) no longer hashes up to the signed root, which the integrator checks when it
starts and every proof served is checked against before it goes out.

Revision ID: 0021_merkle_log
Revises: 0020
"""
from __future__ import annotations

from alembic import op

from service.adapters.migrate import writer_role

revision = "0021_merkle_log"
down_revision = "0020"
branch_labels = None
depends_on = None

TABLES = ("log_cosignatures", "log_checkpoints", "log_nodes", "log_leaves")


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE log_leaves (
            index     bigint PRIMARY KEY CHECK (index >= 0),
            stream_id text NOT NULL,
            version   integer NOT NULL,
            leaf      bytea NOT NULL,
            UNIQUE (stream_id, version)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE log_nodes (
            level smallint NOT NULL CHECK (level BETWEEN 0 AND 63),
            index bigint NOT NULL CHECK (index >= 0),
            hash  bytea NOT NULL CHECK (length(hash) = 32),
            PRIMARY KEY (level, index)
        )
        """
    )
    op.execute(
        """
        CREATE TABLE log_checkpoints (
            size      bigint PRIMARY KEY CHECK (size >= 0),
            note      text NOT NULL,
            vkey      text NOT NULL,
            signed_at timestamptz NOT NULL DEFAULT now()
        )
        """
    )
    op.execute(
        """
        CREATE TABLE log_cosignatures (
            size        bigint NOT NULL REFERENCES log_checkpoints (size),
            witness     text NOT NULL,
            line        text NOT NULL,
            received_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (size, witness)
        )
        """
    )
    for table in TABLES:
        op.execute(f"GRANT SELECT, INSERT ON {table} TO {writer_role()}")


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"DROP TABLE {table}")
