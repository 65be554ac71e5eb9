"""BIB dataset generation: task list, counts and split -> runner jobs -> released-layout files.

One :class:`~socialbench.core.runner.Job` per episode (an evaluation pair or one background
episode), seeded by ``derive_seed(seed, split, task, index)``, so files do not depend on the
worker count. A job writes, under the output root::

    <task>/<id>e.json  <task>/<id>e.mp4     expected outcome (JSON + H.264 video)
    <task>/<id>u.json  <task>/<id>u.mp4     unexpected outcome (evaluation splits only)
    _meta/<task>/<id>.json                  design facts and audit numbers (never in an episode)

``<id>`` is 6 digits and the task's 2-letter code (:data:`TASK_CODES`). When the run ends,
``audit.json`` holds each task's mean audit numbers (e.g. distance to the preferred vs the other
object, path lengths of the expected vs unexpected tests), so a user can check that no simple
cue gives the answer away.

Splits: ``eval`` (training shapes), ``eval-new-shapes`` (the disjoint new shape set), ``train``
(background tasks, expected files only; :func:`train_validation_split` says which files are
validation: the last 20 % by sorted name within each task, recorded in the manifest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.bib import style
from socialbench.bib.io.layout import train_validation_split
from socialbench.bib.io.write import write_chunks, write_episodes
from socialbench.bib.schema import CELL, Block, Episode, Frame, Run, Trial
from socialbench.bib.shapes import NEW, TRAIN, ShapeSet
from socialbench.bib.tasks import (
    EVAL_TASKS,
    TRAIN_TASKS,
    Built,
    Recipe,
    counterbalance,
    efficiency_time,
)
from socialbench.bib.validate.episode import validate_episodes
from socialbench.bib.validate.pair import validate_pair
from socialbench.bib.video import RENDER_MODES, write_episode_videos
from socialbench.bib.world import BORDER, Resample
from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write
from socialbench.core.gc_pause import gc_paused
from socialbench.core.runner import META_DIR, Job, Written, run_jobs, sha256_file
from socialbench.core.seeding import derive_seed

GENERATOR = "socialbench.bib.generate/1"
AUDIT_NAME = "audit.json"
MAX_ATTEMPTS = 200  # resampling attempts per episode before giving up (a bug, not bad luck)
MAX_BORDER_REPEATS = 36  # the ring's distinct cells


@dataclass(frozen=True)
class Split:
    """What a split generates: its tasks, its shape set and its default episode counts."""

    name: str
    tasks: Mapping[str, Recipe]
    shapes: ShapeSet
    default_episodes: Mapping[str, int]


_EVAL_COUNTS = {name: 1000 for name in EVAL_TASKS}  # bib paper: 1000 episodes per task
# The released evaluation set v1.1, as later work reports it (bib spec): ``--counts released``.
RELEASED_EVAL_COUNTS = {
    "preference": 1000, "multi_agent": 1000, "inaccessible_goal": 1111, "efficiency_path": 1500,
    "efficiency_time": 1000, "efficiency_irrational": 1000, "instrumental_no_barrier": 999,
    "instrumental_inconsequential_barrier": 330, "instrumental_blocking_barrier": 327,
}
COUNT_SETS = ("paper", "released")
SPLITS: dict[str, Split] = {
    "eval": Split("eval", EVAL_TASKS, TRAIN, _EVAL_COUNTS),
    "eval-new-shapes": Split("eval-new-shapes", EVAL_TASKS, NEW, _EVAL_COUNTS),
    # bib paper sec. 3: 10,000 / 10,000 / 4,000 / 4,000 background episodes
    "train": Split("train", TRAIN_TASKS, TRAIN, {"single_object": 10_000, "preference": 10_000,
                                                  "multi_agent": 4_000,
                                                  "instrumental_action": 4_000}),
}
TASK_CODES = {f"{split}/{name}": recipe.code for split, tasks in
              (("eval", EVAL_TASKS), ("train", TRAIN_TASKS)) for name, recipe in tasks.items()}


def get_split(name: str) -> Split:
    if name not in SPLITS:
        raise UserError(f"unknown split {name!r}; choose one of {', '.join(SPLITS)}")
    return SPLITS[name]


def task_counts(split: Split, tasks: Sequence[str], counts: str = "paper",
                episodes: int | None = None) -> dict[str, int]:
    """Episodes per task: ``episodes`` for every task, else the ``counts`` set: ``paper`` (the
    paper's sizes) or ``released`` (the released v1.1 evaluation counts; evaluation splits)."""
    if counts not in COUNT_SETS:
        raise UserError(f"unknown --counts {counts!r}; choose one of {', '.join(COUNT_SETS)}")
    if counts == "released" and split.name == "train":
        raise UserError("--counts released: the released counts are known for the evaluation "
                        "splits only; use --counts paper for train")
    if episodes is not None:
        return {t: episodes for t in tasks}
    table = RELEASED_EVAL_COUNTS if counts == "released" else split.default_episodes
    return {t: table[t] for t in tasks}


def parse_tasks(split: Split, tasks: str | Sequence[str] | None) -> list[str]:
    """Task names (comma-separated text or a list) checked against the split, in split order."""
    if tasks is None:
        return list(split.tasks)
    names = [t.strip() for t in (tasks.split(",") if isinstance(tasks, str) else tasks)]
    names = [t for t in names if t]
    unknown = [t for t in names if t not in split.tasks]
    if unknown or not names:
        raise UserError(f"unknown task(s) {', '.join(unknown) or '(none given)'} for split "
                        f"{split.name}; valid: {', '.join(split.tasks)}")
    return [t for t in split.tasks if t in names]


def episode_id(index: int, code: str) -> str:
    """``<6 digits><2-letter task code>``, e.g. ``000010lo``."""
    return f"{index:06d}{code}"


def problems(recipe: Recipe, built: Built) -> list[str]:
    """The validator's problems with a built episode (or pair): files, timing, the pair's rule."""
    e = _episode(built.expected, "", recipe.name, True)
    if built.unexpected is None:
        return validate_episodes([e])
    u = _episode(built.unexpected, "", recipe.name, False)
    # A pair's shared familiarization trials are the same objects: checked once.
    return validate_episodes([e, u]) + validate_pair(recipe.name, e, u)


def build_episode(recipe: Recipe, shapes: ShapeSet, seed: int, index: int, *,
                  check: bool = True, scene_style: style.SceneStyle = style.RELEASED,
                  side: int | None = None) -> Built:
    """Build one episode; a layout breaking a design constraint is redrawn from
    ``derive_seed(seed, "attempt", n)``, so the result depends on the seed alone.
    ``scene_style`` is how the scene looks (:mod:`socialbench.bib.style`); ``side`` the
    episode's counterbalanced side (:mod:`.tasks.counterbalance`; None: ``index``'s parity;
    ``bib generate`` passes :func:`counterbalance.side_for` of its run's seed).

    With ``check``, the episode must also pass the validator (:mod:`bib.validate`); one that
    does not is redrawn too and counted in ``meta["rejected"]``, so no invalid episode is ever
    written.
    """
    rejected: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        rng = np.random.default_rng(derive_seed(seed, "attempt", attempt))
        try:
            with style.using(scene_style), counterbalance.using(side):
                built = recipe.build(rng, shapes, index)
        except Resample:
            continue
        found = problems(recipe, built) if check else []
        if found:
            rejected.append(found[0])
            continue
        built.meta["attempts"] = attempt + 1
        if rejected:
            built.meta["rejected"] = rejected
        return built
    raise RuntimeError(f"{recipe.name}: no valid episode in {MAX_ATTEMPTS} attempts (seed {seed}"
                       f"{'; validator: ' + rejected[-1] if rejected else ''})")


def list_border_repeats(built: Built, count: int | tuple[int, int], seed: int) -> None:
    """The released quirk: list ``count`` random border-ring cells (a number, or a range
    ``(low, high)`` drawn per wall list) among the random walls of every trial (bib spec: the
    released ``walls`` lists the random cells, some of them on the border, then the 36-cell
    ring, so those border cells appear twice).

    Each distinct wall list gets its own cells and places, drawn from ``seed`` and the list's
    content, so equal lists stay equal (a pair's shared test walls, a layout's 9 trials).
    The released samples list 2-5 such cells; the grid, paths and pixels do not change.
    """
    low, high = (count, count) if isinstance(count, int) else count
    if high <= 0:
        return
    ring = sorted(set(BORDER))
    n_ring = len(BORDER)
    listed: dict[tuple[Block, ...], tuple[Block, ...]] = {}

    def relisted(frame: Frame) -> Frame:
        walls = frame.walls
        if walls not in listed:
            cells = [b.cell for b in walls[:-n_ring]]
            rng = np.random.default_rng(derive_seed(seed, "border-repeats", *cells))
            # A fixed count draws nothing here (the earlier files, byte for byte).
            size = low if low == high else int(rng.integers(low, high + 1))
            for k in rng.choice(len(ring), size=size, replace=False):
                c = ring[int(k)]
                cells.insert(int(rng.integers(len(cells) + 1)), c)
            listed[walls] = (*(Block(c[0] * CELL, c[1] * CELL) for c in cells),
                             *walls[-n_ring:])
        return replace(frame, walls=listed[walls])

    frames: dict[int, Frame] = {}  # id(old frame) -> new: shared frames stay shared

    def new_frame(frame: Frame) -> Frame:
        if id(frame) not in frames:
            frames[id(frame)] = relisted(frame)
        return frames[id(frame)]

    new_trials: dict[int, Trial] = {}  # a pair's familiarization Trial objects are shared
    for trials in (built.expected, built.unexpected or []):
        for k, trial in enumerate(trials):
            if id(trial) not in new_trials:
                if trial.runs is not None:
                    new_trials[id(trial)] = Trial(runs=[
                        Run(new_frame(run.template), run.xy, run.key_offset)
                        for run in trial.runs])
                else:
                    new_trials[id(trial)] = Trial([new_frame(f) for f in trial.frames])
            trials[k] = new_trials[id(trial)]


def _episode(trials: list, name: str, task: str, expected: bool) -> Episode:
    return Episode(trials=trials, name=name, task=task, expected=expected)


def build_job(job: Job, staging: Path) -> Written:
    """The runner's builder: write one episode's files (and its ``_meta``) under ``staging``;
    return every file's size and SHA-256, measured as written."""
    with gc_paused():
        return _build_job(job, staging)


def _build_job(job: Job, staging: Path) -> Written:
    p = job.params
    split = SPLITS[p["split"]]
    recipe = split.tasks[p["task"]]
    look = style.get_style(p.get("scene_style", style.TIDY.name))
    with efficiency_time.using(p.get("time_control", efficiency_time.DEFAULT_TIME_CONTROL)):
        built = build_episode(recipe, split.shapes, job.seed, p["index"], scene_style=look,
                              side=p.get("side"))
    repeats = p.get("border_repeats")
    list_border_repeats(built, look.border_repeats if repeats is None else repeats, job.seed)
    ident = episode_id(p["index"], recipe.code)
    outcomes = [(True, built.expected)]
    if built.unexpected is not None:
        outcomes.append((False, built.unexpected))
    episodes = []
    frames = {}
    for expected, trials in outcomes:
        stem = f"{recipe.name}/{ident}{'e' if expected else 'u'}"
        episodes.append((stem, _episode(trials, ident, recipe.name, expected)))
        frames[stem[-1]] = sum(len(t) for t in trials)
    records: dict[str, dict[str, Any]] = {}
    # Staging is private to this process: files go straight to their names (the runner moves
    # them into place once the job is complete).
    written = write_episodes([(episode, staging / f"{stem}.json") for stem, episode in episodes],
                             atomic=False)
    for (stem, _), (size, digest) in zip(episodes, written, strict=True):
        records[f"{stem}.json"] = {"bytes": size, "sha256": digest}
    if p["video"]:  # a pair's shared trials are encoded once, for both videos
        videos = [(episode, staging / f"{stem}.mp4") for stem, episode in episodes]
        write_episode_videos(videos, p.get("render", "2d"))
        for (stem, _), (_, path) in zip(episodes, videos, strict=True):
            records[f"{stem}.mp4"] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    meta = {"task": recipe.name, "id": ident, "split": split.name, "index": p["index"],
            "seed": job.seed, "frames": frames, **built.meta}
    meta_rel = f"{META_DIR}/{recipe.name}/{ident}.json"
    meta_bytes = json.dumps(meta, sort_keys=True, indent=1).encode()
    write_chunks(staging / meta_rel, [meta_bytes])
    records[meta_rel] = {"bytes": len(meta_bytes),
                         "sha256": hashlib.sha256(meta_bytes).hexdigest()}
    return Written(records)


def make_jobs(split: Split, tasks: Sequence[str], episodes: Mapping[str, int], seed: int,
              video: bool, border_repeats: int | None = None,
              scene_style: str = style.DEFAULT_STYLE,
              time_control: str = efficiency_time.DEFAULT_TIME_CONTROL,
              render: str = "2d") -> list[Job]:
    """One job per episode. ``border_repeats`` None: the scene style's own (released: 2-5 per
    wall list; tidy: none). A tidy job's parameters are the earlier generator's, and so are
    a default time control's and a 2D render's."""
    jobs = []
    for task in tasks:
        for index in range(episodes[task]):
            params: dict[str, Any] = {"split": split.name, "task": task, "index": index,
                                      "video": video}
            if scene_style != style.TIDY.name:
                params["scene_style"] = scene_style
            if border_repeats is not None and (border_repeats or scene_style != style.TIDY.name):
                params["border_repeats"] = border_repeats
            if time_control != efficiency_time.DEFAULT_TIME_CONTROL:
                params["time_control"] = time_control
            if render != "2d":
                params["render"] = render
            if split.name != "train":
                params["side"] = counterbalance.side_for(seed, split.name, task, index)
            jobs.append(Job(name=f"{task}/{index:06d}",
                            seed=derive_seed(seed, split.name, task, index), params=params))
    return jobs


def _validation_info(split: Split, tasks: Sequence[str],
                     episodes: Mapping[str, int]) -> dict[str, Any]:
    first = {}
    for task in tasks:
        code = split.tasks[task].code
        _, val = train_validation_split([episode_id(i, code) for i in range(episodes[task])])
        first[task] = val[0] if val else None
    return {"rule": "last 20% of each task's episodes by sorted file name",
            "first_validation_episode": first}


def generate(out: Path, split: str = "eval", *, tasks: str | Sequence[str] | None = None,
             episodes: int | None = None, seed: int = 0, workers: int = 1, video: bool = True,
             show_progress: bool = True, border_repeats: int | None = None,
             scene_style: str = style.DEFAULT_STYLE, counts: str = "paper",
             time_control: str = efficiency_time.DEFAULT_TIME_CONTROL,
             render: str = "2d") -> dict[str, Any]:
    """Generate (or finish generating) a BIB split under ``out``; return the audit.

    ``episodes`` overrides every task's count; else ``counts`` picks them (``paper``: the
    paper's sizes; ``released``: the released v1.1 evaluation set's). Re-running the same
    command resumes; the same seed gives byte-identical files whatever ``workers`` is.
    ``scene_style``: ``released`` (scenes with the real files' statistics) or ``tidy`` (the
    earlier generator's, byte for byte). ``border_repeats`` sets the released ``walls`` quirk
    (that many border cells also listed among the random walls; :func:`list_border_repeats`);
    None leaves it to the style (released: 2-5 per wall list; tidy: none).
    ``time_control``: how the efficiency time control's straight path lasts as long as the
    detour (``slow``: walked slower; ``pauses``: still frames spread along it;
    :mod:`.tasks.efficiency_time`). ``render``: the videos in ``2d`` (the paper's flat frames)
    or ``3d`` (the same frame states drawn by PyBullet, :mod:`.render3d`; recorded in the
    manifest as ``"render": "3d"``, a 2D manifest stays as before).
    """
    chosen = get_split(split)
    if render not in RENDER_MODES:
        raise UserError(f"unknown --render {render!r}; choose one of {', '.join(RENDER_MODES)}")
    names = parse_tasks(chosen, tasks)
    look = style.get_style(scene_style)
    efficiency_time.check_time_control(time_control)
    if episodes is not None and episodes < 1:
        raise UserError(f"--episodes must be at least 1, got {episodes}")
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, got {seed}")
    if border_repeats is not None and not 0 <= border_repeats <= MAX_BORDER_REPEATS:
        raise UserError(f"--border-repeats must be 0-{MAX_BORDER_REPEATS}, got {border_repeats}")
    sizes = task_counts(chosen, names, counts, episodes)
    info: dict[str, Any] = {
        "generator": GENERATOR, "benchmark": "bib", "split": chosen.name, "seed": seed,
        "tasks": names, "episodes": sizes, "video": video, "shapes": chosen.shapes.name,
        "task_codes": {t: chosen.tasks[t].code for t in names},
    }
    if look is not style.TIDY:
        info["scene_style"] = look.name
    if counts != "paper":
        info["counts"] = counts
    if time_control != efficiency_time.DEFAULT_TIME_CONTROL:
        info["time_control"] = time_control
    if border_repeats:
        info["border_repeats"] = border_repeats
    if render != "2d":
        info["render"] = render
    if chosen.name == "train":
        info["validation"] = _validation_info(chosen, names, sizes)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder")
    jobs = make_jobs(chosen, names, sizes, seed, video, border_repeats, look.name, time_control,
                     render)
    run_jobs(out, jobs, build_job, workers=workers, description=f"bib {chosen.name}",
             dataset_info=info, show_progress=show_progress)
    return write_audit(out, names)


def write_audit(out: Path, tasks: Sequence[str]) -> dict[str, Any]:
    """Average every task's ``_meta`` audit numbers into ``audit.json`` (sorted, deterministic)."""
    audit: dict[str, Any] = {}
    for task in tasks:
        folder = out / META_DIR / task
        sums: dict[str, float] = {}
        count = 0
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            numbers = json.loads(path.read_text()).get("audit", {})
            count += 1
            for key, value in numbers.items():
                sums[key] = sums.get(key, 0.0) + float(value)
        audit[task] = {"episodes": count,
                       **{k: round(v / count, 4) for k, v in sorted(sums.items())}}
    with atomic_write(out / AUDIT_NAME) as tmp:
        tmp.write_text(json.dumps(audit, indent=1, sort_keys=True))
    return audit


def audit_table(audit: Mapping[str, Mapping[str, float]]) -> Any:
    """A rich table of the audit: one row per task, its mean numbers as ``name=value``."""
    from rich.table import Table

    table = Table(title="BIB generation audit (means per task)")
    table.add_column("task")
    table.add_column("episodes", justify="right")
    table.add_column("design statistics")
    for task, numbers in audit.items():
        stats = "  ".join(f"{k}={v:g}" for k, v in numbers.items() if k != "episodes")
        table.add_row(task, str(numbers.get("episodes", 0)), stats)
    return table
