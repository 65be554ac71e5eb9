"""The rating study's library: design balance, the one way a rating is stored, the analysis."""

from __future__ import annotations

import csv
import io
import threading
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from socialbench.core.errors import UserError
from socialbench.web.datasets import open_dataset
from socialbench.web.study import analysis
from socialbench.web.study import session as rating
from socialbench.web.study.db import Assignment, Base, Rater, make_engine, sessions
from socialbench.web.study.design import Design, create_study, find_study


def make_study(db_url: str, root: Path, **design: int | float):
    design.setdefault("watch", 0)  # the tests rate at once unless they test the watch time
    factory = sessions(make_engine(db_url))
    with factory.begin() as db:
        create_study(db, open_dataset(root), "pilot", Design(**design))  # type: ignore[arg-type]
    with factory() as db:
        tokens = [r.token for r in db.scalars(select(Rater).order_by(Rater.id))]
    return factory, tokens


def next_form(factory, token: str):  # type: ignore[no-untyped-def]
    with factory() as db:
        rater = rating.find_rater(db, token)
        current = rating.next_assignment(db, rater)
        if current is None:
            return None
        return current.id, current.item, rating.form_token(rater.study.secret, token, current.id)


def rate_all(factory, token: str, value) -> None:  # type: ignore[no-untyped-def]
    rating.consent(factory, token)
    while (form := next_form(factory, token)) is not None:
        assignment, item, csrf = form
        rating.submit(factory, token, str(assignment), str(value(item)), csrf)


def test_design_balances_sides_and_never_shows_both(db_url: str, bib_root: Path) -> None:
    factory, tokens = make_study(db_url, bib_root, fraction=0.5, raters=6, checks=2)
    with factory() as db:
        study = find_study(db, None)
        seen: Counter[tuple[str, str]] = Counter()
        for rater in study.raters:
            items = [a.item for a in rater.assignments]
            trials = [i for i in items if i.kind == "trial"]
            assert len(trials) == 4  # half of 4 pairs, in each of 2 tasks
            assert len({i.pair for i in trials}) == len(trials)  # never both sides of a pair
            sides = Counter(i.side for i in trials)
            assert abs(sides["expected"] - sides["unexpected"]) <= 1
            assert sum(i.kind == "check" for i in items) == 2
            seen.update((i.pair, i.side) for i in trials)
        assert set(seen.values()) == {3}  # each side of each pair: half of the 6 raters
        orders = {tuple(a.item_id for a in r.assignments) for r in study.raters}
        assert len(orders) > 2  # shuffled per rater
    assert len(set(tokens)) == 6 and all(len(t) >= 32 for t in tokens)


def test_a_rating_is_validated_and_stored_once(db_url: str, bib_root: Path) -> None:
    factory, (token, other) = make_study(db_url, bib_root, raters=2, checks=1)
    with pytest.raises(rating.Rejected, match="consent"):
        assignment, _, csrf = next_form(factory, token)
        rating.submit(factory, token, str(assignment), "50", csrf)
    rating.consent(factory, token)
    assignment, _, csrf = next_form(factory, token)
    for bad in ("101", "-1", "50.5", "", "1e2", "fifty", "0x10", " 7 7"):
        with pytest.raises(rating.Rejected, match="0 to 100"):
            rating.submit(factory, token, str(assignment), bad, csrf)
    with pytest.raises(rating.Rejected, match="security token"):
        rating.submit(factory, token, str(assignment), "50", "0" * 64)
    with pytest.raises(rating.Rejected, match="unknown rater"):  # another's form, forged link
        rating.submit(factory, "x" * 32, str(assignment), "50", csrf)
    later = str(assignment + 1)
    with pytest.raises(rating.Rejected):  # a later trial's id with this trial's token
        rating.submit(factory, token, later, "50", csrf)
    assert rating.submit(factory, token, str(assignment), "100", csrf).done == 1
    with pytest.raises(rating.Rejected, match="already rated"):  # replayed
        rating.submit(factory, token, str(assignment), "100", csrf)
    rating.consent(factory, other)
    with pytest.raises(rating.Rejected, match="security token"):  # rater 1's form by rater 2
        rating.submit(factory, other, str(assignment), "10", csrf)
    with factory() as db:
        assert db.scalar(select(func.count()).where(Assignment.rating.is_not(None))) == 1


def test_concurrent_submissions_of_one_form_store_one_rating(db_url: str,
                                                              bib_root: Path) -> None:
    factory, (token,) = make_study(db_url, bib_root, raters=1, checks=0)
    rating.consent(factory, token)
    assignment, _, csrf = next_form(factory, token)
    outcomes: list[str] = []

    def send() -> None:
        try:
            rating.submit(factory, token, str(assignment), "42", csrf)
            outcomes.append("stored")
        except rating.Rejected:
            outcomes.append("rejected")

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("stored") == 1
    with factory() as db:
        assert db.scalar(select(func.count()).where(Assignment.rating.is_not(None))) == 1


def test_analysis_z_scores_excludes_failed_checks_and_exports(db_url: str,
                                                              bib_root: Path) -> None:
    factory, tokens = make_study(db_url, bib_root, fraction=1.0, raters=5, checks=2)
    # raters 0-2 rate unexpected videos higher (on their own scales), rater 3 the other way
    # round, rater 4 fails its attention checks (and would reverse everything)
    scales = [(10, 60), (40, 90), (0, 30), (70, 20)]
    for token, (low, high) in zip(tokens, scales, strict=False):
        rate_all(factory, token, lambda item, low=low, high=high: item.check_target
                 if item.kind == "check" else (high if item.side == "unexpected" else low))
    rate_all(factory, tokens[4], lambda item: 50 if item.kind == "check"
             else (0 if item.side == "unexpected" else 100))
    with factory() as db:
        study = find_study(db, "pilot")
        result = analysis.analyse(db, study)
        text = analysis.export_csv(db, study)
    assert result.raters == 5 and result.included == 4
    assert result.excluded == {"failed an attention check": 1}
    # every pair: the surprising side's mean z over its raters beats the expected side's
    assert result.pooled == (1.0, 8)
    assert set(result.by_task) == {"preference", "efficiency_path"}
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 5 * (8 + 2)
    assert {r["excluded"] for r in rows} == {"", "failed an attention check"}
    assert not any(t in text for t in tokens)  # links never leave the database


def test_a_rating_sent_before_the_videos_could_end_is_refused(db_url: str,
                                                               bib_root: Path) -> None:
    import datetime as dt

    factory, (token,) = make_study(db_url, bib_root, raters=1, checks=0, watch=0.9)
    rating.consent(factory, token)
    assignment, item, csrf = next_form(factory, token)
    # Nine BIB trials of 4-12 s (preference trials run 5.4-6.4 s; efficiency detours longer).
    assert 9 * 4_000 < item.duration_ms < 9 * 12_000
    with factory() as db:
        rating.mark_shown(db, assignment)
    with pytest.raises(rating.Rejected, match="before the videos could have played"):
        rating.submit(factory, token, str(assignment), "50", csrf)
    with factory.begin() as db:  # as if the rater had watched for the videos' running time
        db.get(Assignment, assignment).shown_at -= dt.timedelta(milliseconds=item.duration_ms)
    assert rating.submit(factory, token, str(assignment), "50", csrf).done == 1


def test_migrations_upgrade_an_older_database_in_place(db_url: str) -> None:
    from sqlalchemy import inspect, text

    from socialbench.web.study.db import upgrade

    engine = make_engine(db_url, migrate=False)
    upgrade(engine, "0001")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO studies (id, name, benchmark, data_root, design, secret, created_at) "
            "VALUES (1, 'old', 'bib', '/d', '{\"raters\": 1}', 's', '2026-01-01 00:00:00')"))
    upgrade(engine, "head")
    columns = {c["name"] for c in inspect(engine).get_columns("assignments")}
    assert "shown_at" in columns
    with sessions(engine)() as db:
        assert find_study(db, "old").design == '{"raters": 1}'  # kept


def test_migrations_create_exactly_the_models(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = make_engine(db_url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []
    make_engine(db_url)  # a second upgrade is a no-op


def test_unknown_database_scheme_is_a_user_error() -> None:
    with pytest.raises(UserError, match="sqlite"):
        make_engine("mysql://x/y")
