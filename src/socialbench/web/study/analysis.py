"""A study's ratings: the CSV export and AGENT's analysis.

AGENT (Shu et al. 2021, "Human experiment"): each rater's ratings are standardised (z-scores
over that rater's trials); a test pair is judged right when the surprising video's mean
standardised rating, over the raters who saw it, is above the expected one's (a tie counts
half); accuracy is the share of pairs judged right per trial type, per scenario and over all
pairs (the pooled raters). Raters who fail an attention check are excluded and counted, as are
raters with fewer than two rated trials or no spread in their ratings (no z-score).
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from socialbench.web.study.db import Assignment, Item, Rater, Study
from socialbench.web.study.design import CHECK_TOLERANCE

CSV_COLUMNS = ("study", "rater", "group", "excluded", "position", "kind", "scenario", "task",
               "pair", "side", "check_target", "rating", "rated_at")


@dataclass
class Analysis:
    """Per-rater exclusions and human accuracy per type, scenario and pooled."""

    raters: int = 0  # raters with at least one rating
    not_started: int = 0
    included: int = 0
    excluded: dict[str, int] = field(default_factory=dict)  # reason -> raters
    by_task: dict[str, tuple[float, int]] = field(default_factory=dict)  # task -> (acc, pairs)
    by_scenario: dict[str, tuple[float, int]] = field(default_factory=dict)
    pooled: tuple[float, int] = (float("nan"), 0)


def _rows(session: Session, study: Study) -> list[tuple[Rater, Assignment, Item]]:
    query = (select(Rater, Assignment, Item).join(Assignment, Assignment.rater_id == Rater.id)
             .join(Item, Item.id == Assignment.item_id).where(Rater.study_id == study.id)
             .order_by(Rater.id, Assignment.position))
    return [(r, a, i) for r, a, i in session.execute(query)]


def exclusion(ratings: list[tuple[Item, int]]) -> str:
    """Why a rater's ratings are left out ("" when they are kept)."""
    if any(item.check_target is not None and abs(value - item.check_target) > CHECK_TOLERANCE
           for item, value in ratings if item.kind == "check"):
        return "failed an attention check"
    trials = [value for item, value in ratings if item.kind == "trial"]
    if len(trials) < 2:
        return "fewer than two rated trials"
    if statistics.pstdev(trials) == 0:
        return "no spread in ratings"
    return ""


def analyse(session: Session, study: Study) -> Analysis:
    """AGENT's analysis of every rating stored so far."""
    per_rater: dict[int, list[tuple[Item, int]]] = defaultdict(list)
    for rater, assignment, item in _rows(session, study):
        per_rater.setdefault(rater.id, [])
        if assignment.rating is not None:
            per_rater[rater.id].append((item, assignment.rating))
    result = Analysis(raters=sum(1 for ratings in per_rater.values() if ratings))
    result.not_started = len(per_rater) - result.raters
    # pair -> side -> standardised ratings
    scores: dict[tuple[str, str, str], dict[str, list[float]]] = defaultdict(
        lambda: defaultdict(list))
    for ratings in per_rater.values():
        if not ratings:
            continue
        reason = exclusion(ratings)
        if reason:
            result.excluded[reason] = result.excluded.get(reason, 0) + 1
            continue
        result.included += 1
        trials = [(item, value) for item, value in ratings if item.kind == "trial"]
        mean = statistics.fmean(v for _, v in trials)
        spread = statistics.pstdev([v for _, v in trials])
        for item, value in trials:
            scores[item.scenario, item.task, item.pair][item.side].append((value - mean) / spread)
    judged: list[tuple[str, str, float]] = []
    for (scenario, task, _), sides in scores.items():
        if sides.get("expected") and sides.get("unexpected"):
            e, u = statistics.fmean(sides["expected"]), statistics.fmean(sides["unexpected"])
            judged.append((scenario, task, 1.0 if u > e else 0.5 if u == e else 0.0))

    def accuracy(rows: list[float]) -> tuple[float, int]:
        return (statistics.fmean(rows) if rows else float("nan"), len(rows))

    for task in dict.fromkeys(t for _, t, _ in judged):
        result.by_task[task] = accuracy([v for _, t, v in judged if t == task])
    for scenario in dict.fromkeys(s for s, _, _ in judged if s):
        result.by_scenario[scenario] = accuracy([v for s, _, v in judged if s == scenario])
    result.pooled = accuracy([v for _, _, v in judged])
    return result


def export_csv(session: Session, study: Study) -> str:
    """One row per assignment (rated or not); raters are numbered, their tokens never shown."""
    rows = _rows(session, study)
    per_rater: dict[int, list[tuple[Item, int]]] = defaultdict(list)
    for rater, assignment, item in rows:
        if assignment.rating is not None:
            per_rater[rater.id].append((item, assignment.rating))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rater, assignment, item in rows:
        ratings = per_rater.get(rater.id, [])
        writer.writerow([study.name, rater.id, rater.group,
                         exclusion(ratings) if ratings else "not started", assignment.position,
                         item.kind, item.scenario, item.task, item.pair, item.side,
                         "" if item.check_target is None else item.check_target,
                         "" if assignment.rating is None else assignment.rating,
                         "" if assignment.rated_at is None else assignment.rated_at.isoformat()])
    return out.getvalue()


def summary(study: Study) -> dict[str, Any]:
    return {"name": study.name, "benchmark": study.benchmark, "data": study.data_root,
            "design": json.loads(study.design)}


def human_table(result: Analysis, models: list[Any]) -> dict[str, Any]:
    """Human pairwise accuracy per task (then per scenario, then pooled) beside the model
    observers' relative accuracy (``web.results.Results``), as printed strings."""
    from socialbench.web.results import pct

    columns = ["type / sub-evaluation", "pairs", "humans (z-scored)"]
    columns += [f"{m.observer}" for m in models]
    rows = []
    for task, (acc, pairs) in result.by_task.items():
        rows.append([task, str(pairs), pct(acc)]
                    + [pct(m.tasks.get(task, {}).get("relative_accuracy")) for m in models])
    for scenario, (acc, pairs) in result.by_scenario.items():
        rows.append([scenario, str(pairs), pct(acc)] + ["" for _ in models])
    rows.append(["pooled raters", str(result.pooled[1]), pct(result.pooled[0])]
                + [pct((m.overall or {}).get("relative_accuracy")) for m in models])
    return {"columns": columns, "rows": rows}
