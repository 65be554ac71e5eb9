"""The first schema: studies, items, raters and their assignments.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "studies",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("benchmark", sa.String(10), nullable=False),
        sa.Column("data_root", sa.Text, nullable=False),
        sa.Column("design", sa.Text, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "items",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("studies.id"), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("task", sa.String(100), nullable=False),
        sa.Column("scenario", sa.String(100), nullable=False),
        sa.Column("pair", sa.Text, nullable=False),
        sa.Column("side", sa.String(10), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("check_target", sa.Integer, nullable=True),
    )
    op.create_index("ix_items_study_id", "items", ["study_id"])
    op.create_table(
        "raters",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("studies.id"), nullable=False),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("group", sa.Integer, nullable=False),
        sa.Column("consented_at", sa.DateTime, nullable=True),
        sa.Column("finished_at", sa.DateTime, nullable=True),
    )
    op.create_index("ix_raters_study_id", "raters", ["study_id"])
    op.create_table(
        "assignments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("rater_id", sa.Integer, sa.ForeignKey("raters.id"), nullable=False),
        sa.Column("item_id", sa.Integer, sa.ForeignKey("items.id"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
        sa.Column("rated_at", sa.DateTime, nullable=True),
        sa.UniqueConstraint("rater_id", "position"),
        sa.UniqueConstraint("rater_id", "item_id"),
    )
    op.create_index("ix_assignments_rater_id", "assignments", ["rater_id"])


def downgrade() -> None:
    op.drop_table("assignments")
    op.drop_table("raters")
    op.drop_table("items")
    op.drop_table("studies")
