"""The watch time: each video's running time, and when a trial was first shown to its rater,
so that a rating sent before the videos could have played to their end is refused.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL for studies made before: no watch-time check for their trials
    with op.batch_alter_table("items") as batch:
        batch.add_column(sa.Column("duration_ms", sa.Integer, nullable=True))
    with op.batch_alter_table("assignments") as batch:
        batch.add_column(sa.Column("shown_at", sa.DateTime, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("assignments") as batch:
        batch.drop_column("shown_at")
    with op.batch_alter_table("items") as batch:
        batch.drop_column("duration_ms")
