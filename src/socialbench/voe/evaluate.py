"""The VOE evaluation loop: expected/unexpected pairs + an observer -> ratings -> per-task scores.

Benchmark-neutral: a pair is ``(task, expected, unexpected)`` where each side is either an episode
already in memory or a path that ``load`` turns into one (so a large dataset is read one pair at a
time). :func:`rate_pairs` rates every video with a progress bar; :func:`summarize` turns the
ratings into, per task and overall, the relative accuracy (ties half by default), the ROC AUC and
seeded bootstrap confidence intervals of both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from socialbench.core.metrics import TiePolicy, bootstrap_ci, relative_accuracy, roc_auc
from socialbench.core.parallel import ordered_map
from socialbench.core.progress import progress_bar
from socialbench.voe.observer import Observer, Reduction, view_of

OVERALL = "overall"


@dataclass(frozen=True)
class PairRating:
    """The two surprise ratings of one expected/unexpected pair."""

    task: str
    name: str
    expected: float
    unexpected: float


@dataclass(frozen=True)
class TaskResult:
    """Scores of one task (or of all pairs together, under the name ``overall``)."""

    task: str
    pairs: int
    relative_accuracy: float
    auc: float
    relative_accuracy_ci: tuple[float, float]
    auc_ci: tuple[float, float]
    ties: int

    def as_dict(self) -> dict[str, Any]:
        return {"relative_accuracy": self.relative_accuracy, "auc": self.auc, "pairs": self.pairs,
                "relative_accuracy_ci": list(self.relative_accuracy_ci),
                "auc_ci": list(self.auc_ci), "ties": self.ties}


def _name_of(item: Any) -> str:
    if isinstance(item, Path):
        return item.stem
    return str(getattr(item, "name", "") or "")


def rate_pairs(observer: Observer, pairs: Sequence[tuple[str, Any, Any]], *,
               reduce: Reduction = "max", load: Callable[[Path], Any] | None = None,
               console: Console | None = None, progress: bool = True,
               description: str = "rating", workers: int = 1) -> list[PairRating]:
    """Rate both videos of every pair with ``observer``; a rich progress bar counts pairs."""
    return rate_pairs_many([observer], pairs, reduce=reduce, load=load, console=console,
                           progress=progress, description=description,
                           workers=workers)[observer.name]


def rate_pairs_many(observers: Sequence[Observer], pairs: Sequence[tuple[str, Any, Any]], *,
                    reduce: Reduction = "max", load: Callable[[Path], Any] | None = None,
                    console: Console | None = None, progress: bool = True,
                    description: str = "rating", workers: int = 1) -> dict[str, list[PairRating]]:
    """Rate every pair with several observers, reading each episode once; keyed by name.

    With ``workers > 1`` pairs are rated in forked worker processes (reading the files is most
    of the cost); each pair is rated independently and results come back in input order, so the
    ratings are identical whatever the worker count.
    """
    ratings: dict[str, list[PairRating]] = {o.name: [] for o in observers}
    names = ", ".join(o.name for o in observers)
    with progress_bar(show=progress, transient=True, console=console) as bar:
        job = bar.add_task(f"{description} ({names})", total=len(pairs))
        for rated in _rate_all(observers, pairs, reduce, load, workers):
            for rating_name, rating in rated.items():
                ratings[rating_name].append(rating)
            bar.advance(job)
    return ratings


# The observers and options of an evaluation: ordered_map's ``shared``, so forked workers
# inherit them and Ray tasks receive them once, never a pickle with every pair.
_State = tuple[Sequence[Observer], Reduction, Callable[[Path], Any] | None]


def _rate_all(observers: Sequence[Observer], pairs: Sequence[tuple[str, Any, Any]],
              reduce: Reduction, load: Callable[[Path], Any] | None,
              workers: int) -> Iterator[dict[str, PairRating]]:
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    yield from ordered_map(_rate_one, pairs, workers, shared=(observers, reduce, load))


def _rate_one(state: _State, pair: tuple[str, Any, Any]) -> dict[str, PairRating]:
    observers, reduce, load = state

    def episode(item: Any) -> Any:
        if isinstance(item, Path):
            if load is None:
                raise ValueError(f"{item} is a path but no loader was given")
            return load(item)
        return item

    task, expected, unexpected = pair
    e, u = episode(expected), episode(unexpected)
    name = _name_of(expected) or _name_of(e)
    # Observers see the trials alone: which file is expected stays with this loop.
    seen_e, seen_u = view_of(e), view_of(u)
    return {o.name: PairRating(task=task, name=name, expected=o.surprise(seen_e, reduce=reduce),
                               unexpected=o.surprise(seen_u, reduce=reduce)) for o in observers}


def score(task: str, ratings: Iterable[PairRating], *, ties: TiePolicy = "half",
          n_boot: int = 1000, seed: int = 0) -> TaskResult:
    """Relative accuracy, AUC and their bootstrap intervals over ``ratings``."""
    rows = list(ratings)
    e = [r.expected for r in rows]
    u = [r.unexpected for r in rows]
    return TaskResult(
        task=task, pairs=len(rows),
        relative_accuracy=relative_accuracy(e, u, ties=ties), auc=roc_auc(e, u),
        relative_accuracy_ci=bootstrap_ci(e, u, "relative_accuracy", n_boot=n_boot, seed=seed,
                                          key=task, ties=ties),
        auc_ci=bootstrap_ci(e, u, "auc", n_boot=n_boot, seed=seed, key=task),
        ties=sum(1 for r in rows if r.expected == r.unexpected))


def summarize(ratings: Sequence[PairRating], *, ties: TiePolicy = "half", n_boot: int = 1000,
              seed: int = 0, order: Sequence[str] = ()) -> dict[str, TaskResult]:
    """Per-task results (tasks in ``order`` first, then in first-seen order) plus ``overall``."""
    tasks = [t for t in order if any(r.task == t for r in ratings)]
    tasks += [t for t in dict.fromkeys(r.task for r in ratings) if t not in tasks]
    results = {t: score(t, (r for r in ratings if r.task == t), ties=ties, n_boot=n_boot,
                        seed=seed) for t in tasks}
    if len(tasks) > 1:
        results[OVERALL] = score(OVERALL, ratings, ties=ties, n_boot=n_boot, seed=seed)
    return results
