"""A rater's session: consent, the next trial, and the one way a rating is stored.

A rating is accepted only when every check passes, inside one transaction: the form's token is
this rater's for this trial (HMAC with the study's secret), the value is a whole number 0-100, the
trial is the rater's next unrated one, and the row is updated only ``WHERE rating IS NULL`` -- so
a replayed, forged, out-of-order or concurrent second submission stores nothing and says why.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from socialbench.web.study.db import Assignment, Rater, now

TOKEN_FORM = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
RATING_FORM = re.compile(r"^(100|[1-9]?[0-9])$")


class Rejected(Exception):
    """A submission that stored nothing; the message says why, in one line."""


@dataclass(frozen=True)
class Progress:
    done: int
    total: int


def find_rater(session: Session, token: str) -> Rater | None:
    """The rater whose link carries ``token`` (None for a malformed or unknown token)."""
    if not TOKEN_FORM.match(token or ""):
        return None
    return session.scalar(select(Rater).where(Rater.token == token))


def form_token(secret: str, rater_token: str, assignment_id: int) -> str:
    """The CSRF token of one rater's form for one trial."""
    message = f"{rater_token}:{assignment_id}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def next_assignment(session: Session, rater: Rater) -> Assignment | None:
    """The rater's first unrated trial, or None when the session is complete."""
    return session.scalar(select(Assignment).where(Assignment.rater_id == rater.id,
                                                   Assignment.rating.is_(None))
                          .order_by(Assignment.position).limit(1))


def progress(session: Session, rater: Rater) -> Progress:
    total = session.scalar(select(func.count()).where(Assignment.rater_id == rater.id)) or 0
    done = session.scalar(select(func.count()).where(Assignment.rater_id == rater.id,
                                                      Assignment.rating.is_not(None))) or 0
    return Progress(int(done), int(total))


def consent_token(secret: str, rater_token: str) -> str:
    """The CSRF token of a rater's consent form (assignment ids start at 1: 0 is free)."""
    return form_token(secret, rater_token, 0)


def consent(factory: sessionmaker, token: str, csrf: str | None = None) -> None:
    """Record the rater's consent; a form's ``csrf`` (the web always sends one) must match."""
    with factory.begin() as session:
        rater = find_rater(session, token)
        if rater is None:
            raise Rejected("unknown rater link")
        if csrf is not None and not hmac.compare_digest(
                consent_token(rater.study.secret, token), csrf):
            raise Rejected("the form's security token does not match: reload the page")
        if rater.consented_at is None:
            rater.consented_at = now()


def mark_shown(session: Session, assignment_id: int) -> None:
    """Note when a trial is first shown to its rater (the watch time counts from there), in
    the caller's session (one connection per request: a second could wait on the pool)."""
    session.execute(update(Assignment).where(Assignment.id == assignment_id,
                                             Assignment.shown_at.is_(None))
                    .values(shown_at=now()))
    session.commit()


def watch_time_left(design_json: str, assignment: Assignment) -> float:
    """Seconds still to wait before this trial may be rated (0 when it may)."""
    share = float(json.loads(design_json).get("watch", 0))  # studies before 0002: none
    duration = assignment.item.duration_ms
    if not share or not duration:
        return 0.0
    if assignment.shown_at is None:
        return share * duration / 1000
    waited = (now() - assignment.shown_at).total_seconds()
    return max(0.0, share * duration / 1000 - waited)


def parse_rating(raw: str | None) -> int:
    """A slider value: a whole number 0-100, else Rejected."""
    text = (raw or "").strip()
    if not RATING_FORM.match(text):
        raise Rejected(f"rating {text[:20]!r} refused: give a whole number from 0 to 100")
    return int(text)


def submit(factory: sessionmaker, token: str, assignment_raw: str | None, rating_raw: str | None,
           csrf: str | None) -> Progress:
    """Store one rating or raise :class:`Rejected`; returns the rater's progress after it."""
    rating = parse_rating(rating_raw)
    if not (assignment_raw or "").isdigit() or len(assignment_raw or "") > 12:
        raise Rejected("the form names no trial: reload the page")
    assignment_id = int(assignment_raw or 0)
    with factory.begin() as session:
        rater = find_rater(session, token)
        if rater is None:
            raise Rejected("unknown rater link")
        if rater.consented_at is None:
            raise Rejected("consent first: reload the page")
        expected = form_token(rater.study.secret, rater.token, assignment_id)
        if not hmac.compare_digest(expected, csrf or ""):
            raise Rejected("the form's security token does not match: reload the page")
        named = session.get(Assignment, assignment_id)
        if named is None or named.rater_id != rater.id:
            raise Rejected("not one of your trials: reload the page")
        if named.rating is not None:
            raise Rejected("this trial was already rated (a replayed or old form): reload the "
                           "page for the next one")
        current = next_assignment(session, rater)
        if current is None or current.id != assignment_id:
            raise Rejected("trials are rated in order: reload the page for the next one")
        too_soon = watch_time_left(rater.study.design, named)
        if too_soon > 0:
            raise Rejected(f"rated {too_soon:.0f} s before the videos could have played to "
                           f"their end: watch them, then rate")
        stored = session.execute(update(Assignment)
                                 .where(Assignment.id == assignment_id,
                                        Assignment.rater_id == rater.id,
                                        Assignment.rating.is_(None))
                                 .values(rating=rating, rated_at=now()))
        if stored.rowcount != 1:  # type: ignore[attr-defined]
            raise Rejected("this trial was already rated: reload the page for the next one")
        state = progress(session, rater)
        if state.done == state.total:
            rater.finished_at = now()
    return state
