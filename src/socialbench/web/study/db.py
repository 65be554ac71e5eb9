"""The study's tables, through SQLAlchemy: SQLite by default, PostgreSQL with a
``postgresql://`` URL. The schema is created and upgraded by Alembic migrations
(``migrations/versions``), never by ``create_all``, so a database made by an older socialbench is
upgraded in place; a test checks the migrations produce exactly these tables.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, sessionmaker

from socialbench.core.errors import UserError

SQLITE_BUSY_MS = 30_000  # writers wait for each other instead of failing


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class Study(Base):
    """One study: a dataset, its design and the secret its forms are signed with."""

    __tablename__ = "studies"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    benchmark: Mapped[str] = mapped_column(String(10))
    data_root: Mapped[str] = mapped_column(Text)
    design: Mapped[str] = mapped_column(Text)  # JSON: fraction, raters, checks, seed
    secret: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=now)
    items: Mapped[list[Item]] = relationship(back_populates="study")
    raters: Mapped[list[Rater]] = relationship(back_populates="study")


class Item(Base):
    """A video raters may be shown: one side of a test pair, or an attention check."""

    __tablename__ = "items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # "trial" or "check"
    task: Mapped[str] = mapped_column(String(100))  # BIB sub-evaluation / AGENT type
    scenario: Mapped[str] = mapped_column(String(100), default="")
    pair: Mapped[str] = mapped_column(Text)  # the pair's key in the dataset (datasets.EpisodeRef)
    side: Mapped[str] = mapped_column(String(10))  # "expected" or "unexpected"
    source: Mapped[str] = mapped_column(Text)  # the side's file/folder, relative to the root
    check_target: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # running time of its familiarization and test videos (migration 0002; NULL before)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    study: Mapped[Study] = relationship(back_populates="items")


class Rater(Base):
    """A rater's link: its unguessable token, group and progress."""

    __tablename__ = "raters"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    group: Mapped[int] = mapped_column(Integer)
    consented_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    study: Mapped[Study] = relationship(back_populates="raters")
    assignments: Mapped[list[Assignment]] = relationship(back_populates="rater",
                                                         order_by="Assignment.position")


class Assignment(Base):
    """One item in one rater's sequence, and its rating once given (0-100, set once)."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("rater_id", "position"),
                      UniqueConstraint("rater_id", "item_id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rater_id: Mapped[int] = mapped_column(ForeignKey("raters.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    position: Mapped[int] = mapped_column(Integer)
    rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rated_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    shown_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # 0002
    rater: Mapped[Rater] = relationship(back_populates="assignments")
    item: Mapped[Item] = relationship()


def engine_url(url: str) -> str:
    """The SQLAlchemy URL for a ``--db`` value: a plain ``postgresql://`` URL uses psycopg 3."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if not url.startswith(("sqlite:", "postgresql+")):
        raise UserError(f"--db {url!r}: give sqlite:///PATH or postgresql://USER@HOST/DB")
    return url


def make_engine(url: str, *, migrate: bool = True) -> Engine:
    """An engine for ``url``, its schema brought to the newest migration when ``migrate``."""
    url = engine_url(url)
    if url.startswith("sqlite:"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_MS / 1000,
                                                  "check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
    if migrate:
        upgrade(engine)
    return engine


def _sqlite_pragmas(connection: Any, _record: object) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run the Alembic migrations up to ``revision`` on the engine's database."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    except Exception as exc:  # a server that refuses us: one line, not a traceback
        from sqlalchemy.exc import OperationalError

        if isinstance(exc, OperationalError):
            raise UserError(f"cannot open the study database: {exc.orig}".splitlines()[0]
                            ) from exc
        raise


def sessions(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
