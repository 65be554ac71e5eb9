"""How BIB scenes look, in numbers: the real released files against generated ones.

Per trial (its first frame, the agent's track): interior wall cells; how far objects and the
home sit off their cell's centre; the trial's length; border cells listed twice in ``walls``;
the colours used; the agent's steps (axis-aligned 2-px, or slanted). Per episode: how far each
object roams across the familiarization trials. :func:`summarize` turns a set of episodes into
one column of :func:`markdown_table`; ``benchmarks/bib_scene_stats.py`` prints the table for the
real samples and every generated task, and the tests hold generated columns to the real ranges.

The agent's steps in full: :func:`displacements` counts every consecutive frame pair's signed
(dx, dy) of the agent's centre, still frames included, so any definition of "a step" can be read
off it (:func:`step_definitions`: "axis-aligned 2-px steps" is 45 % of the real moves, 17 % if
only horizontal ones count, 10 % of all frame pairs); :func:`steps_table` puts the histograms of
data sets side by side and :func:`signed_grid` draws one as a 5 x 5 grid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from socialbench.bib.schema import CELL, GRID, Episode, Trial

REAL_TRIAL_FRAMES = (136, 160)  # bib spec: the real trials' lengths

# Where a task's design makes a statistic differ from the real preference files (lower walls,
# smaller offsets, longer trials, no roaming): the reason, printed under the table and allowed
# by the tests. Everything else must be at least as cluttered and untidy as the real files.
DESIGN_REASONS: dict[str, dict[str, str]] = {
    "efficiency_path": {
        "walls": "the test removes the barrier (bib paper: the barrier is gone at test)",
        "frames": "familiarization detours around a 6-14-cell barrier; the test's path is the "
                  "design (straight vs the familiar detour)",
        "steps": "the familiar detour runs along the barrier laid across the start-goal line, a "
                 "leg along a row or column (familiarization 64 % axis-aligned steps, the "
                 "straight test walk 28 %)"},
    "efficiency_time": {
        "walls": "the test removes the barrier",
        "frames": "the detour, and the expected agent slowed to the detour's duration",
        "steps": "the familiar detour runs along the barrier laid across the start-goal line, a "
                 "leg along a row or column (familiarization 64 % axis-aligned steps, the "
                 "straight test walk 28 %)"},
    "efficiency_irrational": {
        "walls": "the irrational familiarization has no barrier and half the other walls",
        "frames": "the same detour paths as the rational agent",
        "steps": "the same detour paths as the rational agent: legs along a row or column"},
    **{task: {
        "object_offset": "the goal is walled in by the barrier on every side: an 18-px icon "
                         "can move 1 px in its 20-px cell",
        "frames": "key, lock, the barrier's removal (24 frames), then the goal",
        "spread": "the goal object stays in one place (the barrier encloses it)"}
       for task in ("instrumental_no_barrier", "instrumental_inconsequential_barrier",
                    "instrumental_blocking_barrier")},
    # Background training tasks (rows named by row_name).
    "single_object (train)": {
        "frames": "the object is at a new random place each trial (bib paper), anywhere in the "
                  "maze: walks from one cell to across the grid",
        "steps": "the object anywhere in the maze (bib paper), not in view of the start: walks "
                 "follow corridors between the walls"},
    "preference (train)": {
        "frames": "both objects right next to the start (bib paper: no navigation): the walk "
                  "is one cell or less",
        "spread": "the objects never leave the start's neighbouring cells"},
    "multi_agent (train)": {
        "frames": "the object right next to the start (bib paper): the walk is one cell or "
                  "less",
        "spread": "the object never leaves the start's neighbouring cells"},
    "instrumental_action (train)": {
        "frames": "key and lock in the agent's room, the barrier's removal (24 frames), then "
                  "the object outside the room"},
}


def row_name(split: str, task: str) -> str:
    """A task's name in the table and in :data:`DESIGN_REASONS`: background tasks (the train
    split, whose folders share names with evaluation tasks) as ``<task> (train)``."""
    return f"{task} (train)" if split == "train" else task


@dataclass(frozen=True)
class TrialStats:
    """One trial's scene and motion numbers."""

    interior_walls: int  # distinct black wall cells inside the border ring
    object_offsets: tuple[int, ...]  # per object and axis: |centre - its cell's centre|, px
    home_offsets: tuple[int, ...]  # the same for the home (the agent's start)
    frames: int
    listed_twice: int  # distinct wall cells listed more than once
    colours: frozenset[tuple[int, int, int]]  # objects' and agents' colours
    steps: Counter  # the agent's moves between frames, as sorted (|dx|, |dy|), moves only
    displacements: Counter  # every frame pair's signed (dx, dy), still frames (0, 0) included


def _offsets(center: tuple[float, float]) -> tuple[int, int]:
    return tuple(int(round(abs(v - (v // CELL * CELL + CELL / 2)))) for v in center)  # type: ignore[return-value]


def displacements(track: np.ndarray) -> Counter:
    """Signed (dx, dy) of every consecutive pair of ``track``'s rows (centres), (0, 0) included."""
    diffs = np.rint(np.diff(np.asarray(track, dtype=float), axis=0)).astype(np.int64)
    return Counter(map(tuple, diffs.tolist()))


# The agent's moves by sorted (|dx|, |dy|): a 1-px axis step, a 2-px axis step, a 1-px diagonal,
# a slanted 2-px step (minor axis 1), a 2-px diagonal. Per axis at most 2 px a frame (bib spec).
STEP_CLASSES: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 1), (1, 2), (2, 2))


def step_class(dx: int, dy: int) -> tuple[int, int]:
    a, b = sorted((abs(dx), abs(dy)))
    return a, b


def step_shares(counts: Counter) -> dict[tuple[int, int], float]:
    """Share of the moves (still frames left out) in each sorted (|dx|, |dy|) class."""
    classes: Counter = Counter()
    for (dx, dy), n in counts.items():
        if dx or dy:
            classes[step_class(dx, dy)] += n
    moves = sum(classes.values()) or 1
    return {k: v / moves for k, v in sorted(classes.items())}


def step_definitions(counts: Counter) -> dict[str, float]:
    """The readings of "axis-aligned 2-px steps" one meets, from one displacement histogram:
    of the moves (the table's column), of the horizontal moves only ((+-2, 0): what gives the
    17 % once quoted for the real files), and of all frame pairs, still frames included."""
    pairs = sum(counts.values()) or 1
    still = counts.get((0, 0), 0)
    moves = (pairs - still) or 1
    axis = sum(n for (dx, dy), n in counts.items() if step_class(dx, dy) == (0, 2))
    horizontal = counts.get((2, 0), 0) + counts.get((-2, 0), 0)
    return {"axis 2 px / moves": axis / moves, "(+-2, 0) / moves": horizontal / moves,
            "axis 2 px / frame pairs": axis / pairs, "still / frame pairs": still / pairs}


def steps_table(rows: Mapping[str, Counter]) -> str:
    """Markdown: one row per data set, its moves by class and the definitions' readings."""
    names = list(step_definitions(Counter()))
    head = ["data", "frame pairs", "moves", *(f"{c}" for c in STEP_CLASSES), *names]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for name, counts in rows.items():
        shares = step_shares(counts)
        moves = sum(n for d, n in counts.items() if d != (0, 0))
        cells = [f"{sum(counts.values())}", f"{moves}",
                 *(f"{shares.get(c, 0.0):.1%}" for c in STEP_CLASSES),
                 *(f"{v:.1%}" for v in step_definitions(counts).values())]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def signed_grid(counts: Counter) -> str:
    """The signed histogram as a 5 x 5 grid of counts: dx -2..2 across, dy 2..-2 down (y up)."""
    lines = ["dy\\dx " + "".join(f"{dx:>7}" for dx in range(-2, 3))]
    for dy in range(2, -3, -1):
        lines.append(f"{dy:>6} " + "".join(f"{counts.get((dx, dy), 0):>7}"
                                           for dx in range(-2, 3)))
    return "\n".join(lines)


def trial_stats(trial: Trial) -> TrialStats:
    frames = trial.frames
    first = frames[0]
    cells = Counter(b.cell for b in first.walls)
    interior = sum(1 for c in cells if 1 <= c[0] <= GRID - 2 and 1 <= c[1] <= GRID - 2)
    colours = {o.color for o in first.objects}
    agents = [f.agent for f in frames if f.agent is not None]
    colours |= {a.color for a in agents}
    track = np.array([a.center for a in agents], dtype=float).reshape(-1, 2)
    pairs = displacements(track)
    steps: Counter = Counter()
    for d, n in pairs.items():
        if d != (0, 0):
            steps[step_class(*d)] += n
    return TrialStats(
        interior_walls=interior,
        object_offsets=tuple(v for o in first.objects for v in _offsets(o.center)),
        home_offsets=_offsets(first.home.center) if first.home is not None else (),
        frames=len(frames),
        listed_twice=sum(1 for n in cells.values() if n > 1),
        colours=frozenset(colours),
        steps=steps,
        displacements=pairs,
    )


def spreads(episode: Episode) -> list[float]:
    """Per object (by image path): the farthest its centre gets from its mean place across the
    familiarization trials, in cells."""
    places: dict[str, list[tuple[float, float]]] = {}
    for trial in episode.familiarization:
        for o in trial.frames[0].objects:
            places.setdefault(o.shape, []).append(o.center)
    out = []
    for points in places.values():
        pts = np.asarray(points, dtype=float)
        out.append(float(np.hypot(*(pts - pts.mean(axis=0)).T).max()) / CELL)
    return out


def pair_trials(expected: Episode, unexpected: Episode | None) -> list[Trial]:
    """A pair's distinct trials: e's, then u's familiarization where it differs (the irrational
    agent sub-task) and u's test."""
    trials = list(expected.trials)
    if unexpected is not None:
        fam_e, fam_u = expected.familiarization, unexpected.familiarization
        if fam_u and fam_u[0].frames[0] != fam_e[0].frames[0]:
            trials += fam_u
        trials.append(unexpected.test)
    return trials


@dataclass(frozen=True)
class Summary:
    """One column of the table: the numbers over a set of episodes."""

    episodes: int
    trials: int
    walls: tuple[int, int, float]  # min, max, mean interior wall cells
    object_offset: tuple[int, float]  # max, mean |offset| per axis, px
    home_offset: tuple[int, float]
    frames: tuple[int, int, float]  # min, max, share inside REAL_TRIAL_FRAMES
    spread: tuple[float, float]  # max, mean object spread, cells
    listed_twice: tuple[int, int]
    colours: frozenset[tuple[int, int, int]]
    axis_steps: float  # share of moves that are (0, 2): a straight 2-px step on one axis
    slanted_steps: float  # share of (1, 2) moves
    diagonal_steps: float  # share of (2, 2) moves
    displacements: Counter  # every frame pair's signed (dx, dy), still frames included


def summarize(pairs: Iterable[tuple[Episode, Episode | None]]) -> Summary:
    """The numbers of (expected, unexpected) pairs (unexpected None for expected-only data)."""
    stats: list[TrialStats] = []
    spread: list[float] = []
    count = 0
    for e, u in pairs:
        count += 1
        stats += [trial_stats(t) for t in pair_trials(e, u)]
        spread += spreads(e)
    if not stats:
        raise ValueError("no trials to summarize")
    walls = [s.interior_walls for s in stats]
    objects = [v for s in stats for v in s.object_offsets] or [0]
    homes = [v for s in stats for v in s.home_offsets] or [0]
    frames = [s.frames for s in stats]
    lo, hi = REAL_TRIAL_FRAMES
    steps: Counter = sum((s.steps for s in stats), Counter())
    moves = sum(steps.values()) or 1
    return Summary(
        episodes=count, trials=len(stats),
        walls=(min(walls), max(walls), float(np.mean(walls))),
        object_offset=(max(objects), float(np.mean(objects))),
        home_offset=(max(homes), float(np.mean(homes))),
        frames=(min(frames), max(frames), float(np.mean([lo <= f <= hi for f in frames]))),
        spread=(max(spread, default=0.0), float(np.mean(spread)) if spread else 0.0),
        listed_twice=(min(s.listed_twice for s in stats), max(s.listed_twice for s in stats)),
        colours=frozenset().union(*(s.colours for s in stats)),
        axis_steps=steps[(0, 2)] / moves, slanted_steps=steps[(1, 2)] / moves,
        diagonal_steps=steps[(2, 2)] / moves,
        displacements=sum((s.displacements for s in stats), Counter()),
    )


COLUMNS: tuple[tuple[str, str], ...] = (
    ("trials (episodes)", "trials"),
    ("interior walls: min-max (mean)", "walls"),
    ("object offset px: max (mean)", "object_offset"),
    ("home offset px: max (mean)", "home_offset"),
    ("frames: min-max (in 136-160)", "frames"),
    ("object spread, cells: max (mean)", "spread"),
    ("cells listed twice", "listed_twice"),
    ("colours (real ones)", "colours"),
    ("steps (0,2) / (1,2) / (2,2)", "steps"),
)


def _cell(summary: Summary, key: str, real_colours: frozenset) -> str:
    s = summary
    if key == "trials":
        return f"{s.trials} ({s.episodes})"
    if key == "walls":
        return f"{s.walls[0]}-{s.walls[1]} ({s.walls[2]:.1f})"
    if key in ("object_offset", "home_offset"):
        top, mean = getattr(s, key)
        return f"{top} ({mean:.1f})"
    if key == "frames":
        return f"{s.frames[0]}-{s.frames[1]} ({s.frames[2]:.0%})"
    if key == "spread":
        return f"{s.spread[0]:.1f} ({s.spread[1]:.1f})"
    if key == "listed_twice":
        return f"{s.listed_twice[0]}-{s.listed_twice[1]}"
    if key == "colours":
        return f"{len(s.colours)} ({len(s.colours & real_colours)})"
    return f"{s.axis_steps:.0%} / {s.slanted_steps:.0%} / {s.diagonal_steps:.0%}"


# The three real episodes step 28-60 % of their moves along an axis (45 % pooled): more than 15
# points over the pooled share is a walk tidier than any of them.
AXIS_STEPS_MARGIN = 0.15


def tidier_than_real(summary: Summary, real: Summary) -> list[str]:
    """The statistics in which ``summary`` is sparser or tidier than the ``real`` files."""
    found = []
    if summary.walls[0] < real.walls[0]:
        found.append("walls")
    if summary.object_offset[0] < real.object_offset[0] - 2 or (
            summary.object_offset[1] < real.object_offset[1] - 1.5):
        found.append("object_offset")
    if summary.home_offset[1] < real.home_offset[1] - 2.5:  # one home an episode: a mean only
        found.append("home_offset")
    if summary.frames[2] < 0.9:
        found.append("frames")
    if summary.spread[0] < real.spread[0] / 2:
        found.append("spread")
    if summary.listed_twice[0] < 2:
        found.append("listed_twice")
    if not summary.colours & real.colours:
        found.append("colours")
    if summary.axis_steps > real.axis_steps + AXIS_STEPS_MARGIN:
        found.append("steps")
    return found


def markdown_table(rows: Mapping[str, Summary], real: str = "real") -> str:
    """One row per data set, one column per statistic (per trial unless said); ``real`` names
    the real files' row, whose colours the others are compared with."""
    real_colours = rows[real].colours if real in rows else frozenset()
    lines = ["| data | " + " | ".join(label for label, _ in COLUMNS) + " |",
             "| --- |" + " --- |" * len(COLUMNS)]
    for name, summary in rows.items():
        lines.append(f"| {name} | "
                     + " | ".join(_cell(summary, key, real_colours) for _, key in COLUMNS) + " |")
    return "\n".join(lines)
