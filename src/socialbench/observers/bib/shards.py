"""Pre-tensorised shards of BIB background episodes: the mask model's training data at full scale.

The paper's background set is 28,000 episodes (bib spec). As JSON that is ~2.7 MB an episode
(75 GB in all) and ~0.2 s of CPU each to parse; as the mask model's arrays (:mod:`.mask_data`)
it is ~24 kB an episode. :func:`build_shards` generates the episodes in memory with the same
generator and seeds as ``socialbench bib generate`` (no JSON is ever written), turns them into
arrays and writes fixed-size shards, one task's chunk of episodes at a time::

    DIR/index.json                        what every shard holds (format, names, keys, digests)
    DIR/<task>-<first index>.states.npy   (n, 9, C, 10, 10) uint8 initial states
    DIR/<task>-<first index>.masks.npy    (n, 9, 10, 10) uint8 visited masks

A shard's ``key`` hashes what its content depends on (the generator's source, the split, task,
seed, indices, scene options and the channel map): rerunning the command keeps the shards whose
key still matches and rebuilds the rest, so an interrupted build resumes chunk by chunk and a
generator change rebuilds stale shards.

:class:`ShardSet` reads them back memory-mapped (plain ``.npy``, never pickled; each file's size
is checked against the shape its header claims before it is mapped) and gathers shuffled batches
across shards. The 80/20 train/validation split is the one ``bib train`` applies to files: the
last 20 % of each task's episodes by sorted file name.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import socialbench.bib as bib_package
from socialbench.bib import generate as gen
from socialbench.bib import style
from socialbench.bib.io.layout import train_validation_split
from socialbench.bib.schema import GRID, N_TRIALS, Episode
from socialbench.bib.tasks import efficiency_time
from socialbench.core.errors import DataFileError, UserError
from socialbench.core.files import atomic_write
from socialbench.core.progress import progress_bar
from socialbench.core.runner import Job
from socialbench.observers.bib.mask_data import (
    N_CHANNELS,
    VISIT_RULES,
    ChannelMap,
    EpisodeArrays,
    tensorize,
)

SHARDS_FORMAT = "socialbench-mask-shards/1"
INDEX_NAME = "index.json"
DEFAULT_SHARD_SIZE = 500  # episodes per shard: ~12 MB of arrays, ~3-5 s to generate
MAX_INDEX_BYTES = 64 << 20  # an index of 28k names is ~1 MB
MAX_SHARD_EPISODES = 100_000  # a shard claiming more is refused before anything is mapped
ROW_SHAPES = {"states": (N_TRIALS, N_CHANNELS, GRID, GRID), "masks": (N_TRIALS, GRID, GRID)}


def generator_fingerprint() -> str:
    """SHA-256 of the BIB generator's Python sources: a shard built by other code is stale."""
    digest = hashlib.sha256()
    root = Path(bib_package.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


# ----------------------------------------------------------------------------- in memory


def generated_episodes(job: Job) -> list[Episode]:
    """The episodes ``bib generate`` writes for ``job`` (one of :func:`gen.make_jobs`), built in
    memory: the same recipe, seed, scene style, time control and border quirk, no files. The
    expected episode, then (evaluation splits) the unexpected one."""
    p = job.params
    split = gen.SPLITS[p["split"]]
    recipe = split.tasks[p["task"]]
    look = style.get_style(p.get("scene_style", style.TIDY.name))
    with efficiency_time.using(p.get("time_control", efficiency_time.DEFAULT_TIME_CONTROL)):
        built = gen.build_episode(recipe, split.shapes, job.seed, p["index"], scene_style=look,
                                  side=p.get("side"))
    repeats = p.get("border_repeats")
    gen.list_border_repeats(built, look.border_repeats if repeats is None else repeats, job.seed)
    name = gen.episode_id(p["index"], recipe.code)
    outcomes = [(True, built.expected)]
    if built.unexpected is not None:
        outcomes.append((False, built.unexpected))
    return [Episode(trials=trials, name=name, task=recipe.name, expected=expected)
            for expected, trials in outcomes]


def generated_pairs(split: str = "eval", *, tasks: str | Sequence[str] | None = None,
                    episodes: int | None = None, seed: int = 0, interleaved: bool = False,
                    reverse: bool = False, skip: Collection[tuple[str, str]] = (),
                    ) -> Iterator[tuple[str, str, Episode, Episode]]:
    """``(task, name, expected, unexpected)`` for every pair ``bib generate --split SPLIT
    --no-video`` writes with these options (default counts: the paper's), built one at a time
    in memory: an evaluation set too large for the disk as JSON can still be rated.

    Task by task, or ``interleaved``: pair k of every task before pair k + 1 of any (a stopped
    run has rated the first pairs of every task); ``reverse``: last first (a second process
    rating from the other end). Pairs ``(task, name)`` in ``skip`` are left out unbuilt.
    """
    chosen = gen.get_split(split)
    if chosen.name == "train":
        raise UserError("the train split has no expected/unexpected pairs")
    names = gen.parse_tasks(chosen, tasks)
    sizes = gen.task_counts(chosen, names, "paper", episodes)
    jobs = gen.make_jobs(chosen, names, sizes, seed, False)
    if interleaved:
        jobs.sort(key=lambda job: job.params["index"])  # stable: task order within an index
    if reverse:
        jobs.reverse()
    for job in jobs:
        task = job.params["task"]
        if (task, gen.episode_id(job.params["index"], chosen.tasks[task].code)) in skip:
            continue
        expected, unexpected = generated_episodes(job)
        yield job.params["task"], expected.name, expected, unexpected


@dataclass(frozen=True)
class ShardPlan:
    """One shard to build: ``jobs`` (consecutive episodes of one task) and its content key."""

    task: str
    start: int
    jobs: tuple[Job, ...]
    key: str
    visit_rule: str = "centre"

    @property
    def stem(self) -> str:
        return f"{self.task}-{self.start:06d}"

    @property
    def names(self) -> list[str]:
        code = gen.SPLITS[self.jobs[0].params["split"]].tasks[self.task].code
        return [gen.episode_id(job.params["index"], code) for job in self.jobs]


def plan_shards(split: str = "train", *, tasks: str | Sequence[str] | None = None,
                episodes: int | None = None, seed: int = 0, shard_size: int = DEFAULT_SHARD_SIZE,
                scene_style: str = style.DEFAULT_STYLE, border_repeats: int | None = None,
                channels: ChannelMap | None = None, visit_rule: str = "centre",
                ) -> list[ShardPlan]:
    """The shards of a background set, in task order: the jobs ``bib generate`` would run with
    the same options, cut into chunks of ``shard_size`` consecutive episodes per task.
    ``visit_rule``: how the masks mark visited cells (:data:`.mask_data.VISIT_RULES`)."""
    chosen = gen.get_split(split)
    if chosen.name != "train":
        raise UserError("shards hold background (training) episodes: use --split train")
    if not 1 <= shard_size <= MAX_SHARD_EPISODES:
        raise UserError(f"--shard-size must be 1-{MAX_SHARD_EPISODES}, got {shard_size}")
    if episodes is not None and episodes < 1:
        raise UserError(f"--episodes must be at least 1, got {episodes}")
    if seed < 0:
        raise UserError(f"--seed must be 0 or more, got {seed}")
    if visit_rule not in VISIT_RULES:
        raise UserError(f"--visit-rule must be one of {', '.join(VISIT_RULES)}, got {visit_rule!r}")
    look = style.get_style(scene_style)
    names = gen.parse_tasks(chosen, tasks)
    sizes = gen.task_counts(chosen, names, "paper", episodes)
    channels = channels or ChannelMap()
    source = generator_fingerprint()
    plans = []
    for task in names:
        jobs = gen.make_jobs(chosen, [task], sizes, seed, False, border_repeats, look.name)
        for start in range(0, len(jobs), shard_size):
            chunk = tuple(jobs[start:start + shard_size])
            what = {"format": SHARDS_FORMAT, "generator": source, "channels": channels.to_json(),
                    "jobs": [[job.seed, job.params] for job in chunk]}
            if visit_rule != "centre":  # centre: the keys of shards made before the option
                what["visit_rule"] = visit_rule
            key = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()
            plans.append(ShardPlan(task, start, chunk, key, visit_rule))
    return plans


# ----------------------------------------------------------------------------- building


def build_shards(out: Path | str, plans: Sequence[ShardPlan], *,
                 channels: ChannelMap | None = None, progress: bool = True,
                 settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build every planned shard under ``out`` that is missing or stale; return the index.

    The index is rewritten (atomically) after each shard, so an interruption loses at most the
    shard being built; shards no longer planned are dropped from the index and their files
    deleted. ``settings`` (the command's options) are recorded in the index.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a folder")
    out.mkdir(parents=True, exist_ok=True)
    channels = channels or ChannelMap()
    rules = {plan.visit_rule for plan in plans} or {"centre"}
    if len(rules) > 1:
        raise UserError("one shard folder holds masks of one visit rule")
    done = {entry["stem"]: entry for entry in _previous_entries(out)}
    index: dict[str, Any] = {"format": SHARDS_FORMAT, "channels": channels.to_json(),
                             "visit_rule": rules.pop(), "settings": settings or {},
                             "shards": []}
    planned = {plan.stem for plan in plans}
    for stem, entry in done.items():
        if stem not in planned:
            for info in entry.get("files", {}).values():
                (out / str(info.get("file", ""))).unlink(missing_ok=True)
    total = sum(len(plan.jobs) for plan in plans)
    with progress_bar(show=progress) as bar:
        task = bar.add_task("mask shards (episodes)", total=total)
        for plan in plans:
            entry = done.get(plan.stem)
            if entry is None or entry.get("key") != plan.key or not _files_intact(out, entry):
                entry = _build_one(out, plan, channels)
            index["shards"].append(entry)
            _write_index(out, index)
            bar.update(task, advance=len(plan.jobs))
    _write_index(out, index)
    return index


def _build_one(out: Path, plan: ShardPlan, channels: ChannelMap) -> dict[str, Any]:
    arrays = tensorize((generated_episodes(job)[0] for job in plan.jobs), channels,
                       plan.visit_rule)
    files = {}
    for kind in ROW_SHAPES:
        name = f"{plan.stem}.{kind}.npy"
        with atomic_write(out / name) as tmp, open(tmp, "wb") as handle:
            np.save(handle, getattr(arrays, kind), allow_pickle=False)
        files[kind] = {"file": name, "bytes": (out / name).stat().st_size,
                       "sha256": _sha256(out / name)}
    return {"stem": plan.stem, "task": plan.task, "start": plan.start, "count": len(plan.jobs),
            "key": plan.key, "names": plan.names, "files": files}


def _previous_entries(out: Path) -> list[dict[str, Any]]:
    """The shards a previous run recorded (none if there is no readable index)."""
    try:
        return list(read_index(out)["shards"])
    except (UserError, KeyError, TypeError):
        return []


def _files_intact(out: Path, entry: dict[str, Any]) -> bool:
    """The entry's files exist with their recorded sizes (digests are checked when reading)."""
    try:
        return all((out / info["file"]).stat().st_size == info["bytes"]
                   for info in entry["files"].values()) and set(entry["files"]) == set(ROW_SHAPES)
    except (OSError, KeyError, TypeError):
        return False


def _write_index(out: Path, index: dict[str, Any]) -> None:
    with atomic_write(out / INDEX_NAME) as tmp:
        tmp.write_text(json.dumps(index, indent=1, sort_keys=True))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ----------------------------------------------------------------------------- reading


def read_index(root: Path | str) -> dict[str, Any]:
    """A shard folder's ``index.json`` (bounded, checked): a one-line error if unusable."""
    path = Path(root) / INDEX_NAME
    try:
        size = path.stat().st_size
    except OSError:
        raise UserError(f"{root} holds no {INDEX_NAME}: build shards with `socialbench bib "
                        f"shards --out {root}`") from None
    if size > MAX_INDEX_BYTES:
        raise DataFileError(path, f"larger than {MAX_INDEX_BYTES >> 20} MB: not a shard index")
    try:
        index = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise DataFileError(path, f"not JSON ({str(exc)[:80]})") from None
    if not isinstance(index, dict) or index.get("format") != SHARDS_FORMAT:
        raise DataFileError(path, f"not a shard index (expected format {SHARDS_FORMAT})")
    if not isinstance(index.get("shards"), list):
        raise DataFileError(path, "has no list of shards")
    return index


def map_rows(path: Path, kind: str, count: int) -> np.ndarray:
    """Memory-map one shard file after checking that its header claims ``count`` rows of the
    expected shape and dtype and that the file holds exactly that many bytes."""
    if not path.is_file():
        raise DataFileError(path, "missing: rerun `socialbench bib shards` to rebuild it")
    size = path.stat().st_size
    try:
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            offset = handle.tell()
    except (ValueError, OSError, SyntaxError) as exc:
        raise DataFileError(path, f"not a .npy array ({str(exc)[:80]})") from None
    wanted = (count, *ROW_SHAPES[kind])
    if dtype != np.uint8 or fortran or tuple(shape) != wanted:
        raise DataFileError(path, f"holds {dtype} {tuple(shape)}; the index says uint8 {wanted}")
    if not 0 <= count <= MAX_SHARD_EPISODES:
        raise DataFileError(path, f"claims {count} episodes (at most {MAX_SHARD_EPISODES})")
    needed = offset + int(np.prod(wanted))
    if size != needed:
        raise DataFileError(path, f"its header claims {count} episodes ({needed} bytes) but the "
                                  f"file holds {size} bytes: truncated or damaged; rerun "
                                  f"`socialbench bib shards` to rebuild it")
    return np.load(path, mmap_mode="r", allow_pickle=False)


class _Rows:
    """One kind of array spread over the shards' memory maps, indexed by global row numbers."""

    def __init__(self, maps: Sequence[np.ndarray], starts: np.ndarray, rows: np.ndarray) -> None:
        self.maps, self.starts, self.rows = maps, starts, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: np.ndarray | list[int]) -> np.ndarray:
        """Rows ``index`` (an integer array) copied into one array, read shard by shard in
        file order (a shuffled batch touches each shard's pages once)."""
        wanted = self.rows[np.asarray(index, dtype=np.int64)]
        out = np.empty((len(wanted), *self.maps[0].shape[1:]), dtype=np.uint8)
        shard = np.searchsorted(self.starts, wanted, side="right") - 1
        for s in np.unique(shard):
            where = np.flatnonzero(shard == s)
            local = wanted[where] - self.starts[s]
            order = np.argsort(local, kind="stable")
            out[where[order]] = self.maps[s][local[order]]
        return out


class ShardSet:
    """The episodes of a shard folder (or a subset of them), memory-mapped.

    Quacks like :class:`~.mask_data.EpisodeArrays` where training needs it: ``len``,
    ``states[index]`` and ``masks[index]`` (gathered across shards), ``tasks``, ``names``,
    :meth:`fingerprint`; :meth:`load` copies it into an in-memory ``EpisodeArrays``.
    """

    def __init__(self, root: Path | str, rows: np.ndarray | None = None) -> None:
        self.root = Path(root)
        self.index = read_index(self.root)
        entries = self.index["shards"]
        if not entries:
            raise UserError(f"{self.root} has no shards yet: run `socialbench bib shards`")
        maps = {kind: [] for kind in ROW_SHAPES}
        names: list[str] = []
        tasks: list[str] = []
        counts = []
        for entry in entries:
            try:
                count = int(entry["count"])
                for kind in ROW_SHAPES:
                    maps[kind].append(map_rows(self.root / entry["files"][kind]["file"], kind,
                                               count))
                if len(entry["names"]) != count:
                    raise ValueError("names and count differ")
            except (KeyError, TypeError, ValueError) as exc:
                raise DataFileError(self.root / INDEX_NAME,
                                    f"damaged shard entry ({str(exc)[:80]})") from None
            counts.append(count)
            names += map(str, entry["names"])
            tasks += [str(entry["task"])] * count
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        total = int(sum(counts))
        self.rows = np.arange(total, dtype=np.int64) if rows is None else np.asarray(rows)
        self.states = _Rows(maps["states"], starts, self.rows)
        self.masks = _Rows(maps["masks"], starts, self.rows)
        self.tasks = np.array(tasks, dtype=str)[self.rows]
        self.names = np.array(names, dtype=str)[self.rows]
        self.channels = ChannelMap.from_json(self.index["channels"])
        # indexes written before the option hold centre-rule masks
        self.visit_rule = str(self.index.get("visit_rule", "centre"))

    def __len__(self) -> int:
        return len(self.rows)

    def subset(self, index: np.ndarray | list[int]) -> ShardSet:
        return ShardSet(self.root, self.rows[np.asarray(index, dtype=np.int64)])

    def split(self) -> tuple[ShardSet, ShardSet]:
        """(train, validation): per task, the last 20 % by sorted episode (file) name validate,
        as for episode files (:func:`~socialbench.bib.io.layout.train_validation_split`)."""
        fit: list[int] = []
        held: list[int] = []
        for task in dict.fromkeys(self.tasks):
            rows = np.flatnonzero(self.tasks == task)
            by_name = {str(self.names[r]): int(r) for r in rows}
            train_names, val_names = train_validation_split(list(by_name))
            fit += [by_name[n] for n in train_names]
            held += [by_name[n] for n in val_names]
        return self.subset(fit), self.subset(held)

    def load(self) -> EpisodeArrays:
        """Every row copied into memory."""
        everything = np.arange(len(self))
        return EpisodeArrays(self.states[everything], self.masks[everything], self.tasks.copy(),
                             self.names.copy())

    def fingerprint(self) -> str:
        """What training on this set depends on: the shards' digests and the rows used."""
        digest = hashlib.sha256()
        for entry in self.index["shards"]:
            for kind in ROW_SHAPES:
                digest.update(str(entry["files"][kind]["sha256"]).encode())
        digest.update(self.rows.tobytes())
        return digest.hexdigest()


def prefetched(load: Any, batches: Sequence[np.ndarray]) -> Iterator[tuple[np.ndarray, Any]]:
    """``(index, load(index))`` for every batch, the next batch loaded in a thread while the
    caller trains on this one (NumPy copies release the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    if not batches:
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(load, batches[0])
        for k, index in enumerate(batches):
            ready = pending.result()
            if k + 1 < len(batches):
                pending = pool.submit(load, batches[k + 1])
            yield index, ready
