"""Generate AGENT datasets: splits, counts per type, one runner job per trial.

Counts per type follow the paper (``agent3d.counts``): at ``scale=1``, 1,920 train / 480
validation trials and 480 test folders, each an expected/surprising pair (the paper's 960 test
trials), 8,400 videos. For each type the train and validation trials are generated as one pool
of expected-only trials of which a seeded random 20% becomes the validation set (agent spec,
"Validation = a random 20% of each type's generated trials"). Smaller scales shrink every count,
keeping at least one trial per type and split, so quick runs still cover every type.

Trials come in counterbalanced pairs (``trial_balance``): trials 2k and 2k+1 of a type and split
take opposite :class:`Balance` values, drawn per pair from the dataset seed, so an entity's id,
its place in the lists, its side, colour code or shape never tells which object is preferred
(exactly half of an even-sized set each way).

Every trial is a job of ``core.runner`` (workers, resume, manifest with checksums, progress):
its files depend only on (seed, type, split, index), never on the worker count. A recipe
sample that does not give the trial its type needs (or an agent that gets stuck) is resampled
with the next attempt number, so the choice is deterministic too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from socialbench.agent3d.counts import PAPER_COUNTS, SPLITS, split_counts
from socialbench.agent3d.io import trial_relpath, write_trial
from socialbench.agent3d.layout.cameras import camera_style, check_style
from socialbench.agent3d.layout.placement import sample_room
from socialbench.agent3d.motion import MotionError
from socialbench.agent3d.planning import NoPathError
from socialbench.agent3d.render import RenderOptions
from socialbench.agent3d.scenarios import RECIPES, Context, RecipeError
from socialbench.agent3d.scenarios.balance import Balance
from socialbench.agent3d.schema import TRIAL_TYPES, Trial
from socialbench.agent3d.state_columns import LAYOUTS
from socialbench.core.errors import UserError
from socialbench.core.gc_pause import gc_paused
from socialbench.core.runner import Job, run_jobs
from socialbench.core.seeding import derive_seed, rng_for

__all__ = ["PAPER_COUNTS", "SPLITS", "generate", "make_trial", "plan_jobs", "split_counts",
           "trial_balance"]
# Recorded in the manifest: a dataset of an earlier design (test folders twice the paper's,
# uncounterbalanced cues) is never resumed into.
DESIGN = "pairs-counterbalanced"
MAX_ATTEMPTS = 40  # resamples before a trial is declared impossible (a bug, not bad luck)


def scenario_of(trial_type: str) -> int:
    return int(trial_type.split(".")[0])


def parse_types(text: str | None) -> list[str]:
    """``"2.1,4.2"`` -> ["2.1", "4.2"]; None or "all" -> every type."""
    if text is None or text.strip().lower() == "all":
        return list(TRIAL_TYPES)
    types = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in types if t not in TRIAL_TYPES]
    if unknown or not types:
        raise UserError(f"unknown trial type(s) {', '.join(unknown) or repr(text)}; "
                        f"choose from {','.join(TRIAL_TYPES)}")
    return sorted(set(types), key=TRIAL_TYPES.index)


def trial_balance(seed: int, trial_type: str, split: str, index: int) -> Balance:
    """The counterbalanced cues of one trial: drawn for its pair (indices 2k, 2k+1 of a type
    and split), flipped for the odd index. Every split is balanced on its own."""
    rng = rng_for(seed, "agent3d-balance", trial_type, split, index // 2)
    drawn = Balance(**{name: bool(rng.integers(2)) for name in sorted(vars(Balance()))})
    return drawn.flipped() if index % 2 else drawn


def plan_jobs(seed: int, types: Iterable[str], splits: Sequence[str], scale: float,
              render: RenderOptions | None = None, extended: bool = False,
              camera: str = "ours", states: str = LAYOUTS[0]) -> list[Job]:
    """One job per trial. Train/validation trials are drawn from one pool per type, of which
    a seeded 20% (``VALIDATION_FRACTION``) becomes validation."""
    jobs = []
    for trial_type in types:
        counts = split_counts(trial_type, scale)
        pool = counts["train"] + counts["validation"]
        order = rng_for(seed, "agent3d-validation", trial_type).permutation(pool)
        chosen = {"validation": sorted(int(i) for i in order[:counts["validation"]]),
                  "train": sorted(int(i) for i in order[counts["validation"]:])}
        for split in splits:
            members = chosen[split] if split != "test" else list(range(counts["test"]))
            for index, member in enumerate(members):
                key = ("test", member) if split == "test" else ("pool", member)
                balance = trial_balance(seed, trial_type, split, index)
                params: dict[str, Any] = {"trial_type": trial_type, "split": split,
                                          "index": index, "extended": extended,
                                          "balance": vars(balance),
                                          "render": _render_params(render)}
                if camera != "ours":  # the default leaves the jobs as they always were
                    params["camera"] = camera
                if states != LAYOUTS[0]:
                    params["states"] = states
                jobs.append(Job(name=f"{trial_type}/{split}/{index}",
                                seed=derive_seed(seed, "agent3d", trial_type, *key),
                                params=params))
    return jobs


def _render_params(render: RenderOptions | None) -> dict[str, Any] | None:
    if render is None:
        return None
    return {"width": render.width, "height": render.height, "frames": render.frames,
            "mp4": render.mp4}


def make_trial(trial_type: str, split: str, index: int, seed: int,
               extended: bool = False, balance: Balance | None = None) -> Trial:
    """Build one trial (resampling a scene that does not fit its type). Without ``balance``
    (hand-made trials, tests) the cues alternate with the index: even indices take
    ``Balance()``, odd ones its flip."""
    recipe = RECIPES[trial_type]
    if balance is None:
        balance = Balance().flipped() if index % 2 else Balance()
    with gc_paused():  # speed only (gc_pause.py)
        return _sampled_trial(recipe, trial_type, split, index, seed, extended, balance)


def _sampled_trial(recipe: Any, trial_type: str, split: str, index: int, seed: int,
                   extended: bool, balance: Balance) -> Trial:
    room = sample_room(rng_for(seed, "room"))  # per trial, apart from the resampled recipes
    problems = []
    for attempt in range(MAX_ATTEMPTS):
        ctx = Context(rng=rng_for(seed, "attempt", attempt), scenario=scenario_of(trial_type),
                      trial_type=trial_type, seed=seed, surprising=split == "test",
                      extended=extended, index=index, room=room, balance=balance)
        try:
            videos = recipe(ctx)
        except (RecipeError, MotionError, NoPathError) as exc:
            problems.append(str(exc))
            continue
        return Trial(scenario=ctx.scenario, trial_type=trial_type, split=split,  # type: ignore[arg-type]
                     index=index, familiarization=videos.familiarization,
                     expected=videos.expected, surprising=videos.surprising)
    raise RuntimeError(f"type {trial_type}: no valid trial in {MAX_ATTEMPTS} attempts "
                       f"(last problems: {problems[-3:]})")


def build_trial_job(job: Job, staging: Path) -> None:
    """``core.runner`` builder: simulate one trial and write it under its released path."""
    params = job.params
    balance = Balance(**params["balance"]) if params.get("balance") else None
    with camera_style(params.get("camera", "ours")):
        trial = make_trial(params["trial_type"], params["split"], params["index"], job.seed,
                           params.get("extended", False), balance)
    render = RenderOptions(**params["render"]) if params.get("render") else None
    relpath = trial_relpath(trial.scenario, trial.trial_type, trial.split, trial.index)
    write_trial(trial, staging / relpath, render, params.get("states", LAYOUTS[0]))


def generate(out_dir: Path, seed: int = 0, types: Iterable[str] | None = None,
             splits: Sequence[str] = SPLITS, scale: float = 1.0, workers: int = 1,
             render: RenderOptions | None = None, extended: bool = False,
             show_progress: bool = True, camera: str = "ours",
             states: str = LAYOUTS[0]) -> dict[str, Any]:
    """Generate (or resume) a dataset under ``out_dir``; return its manifest. ``camera``:
    ``ours`` or the ``released`` generator's (``layout/cameras.py``); ``states``: the layout
    of ``state_info.json`` (``columns`` or the former ``rows``: ``io.states_text``)."""
    types = list(types) if types is not None else list(TRIAL_TYPES)
    for split in splits:
        if split not in SPLITS:
            raise UserError(f"unknown split {split!r}; use train, validation or test")
    check_style(camera)
    if states not in LAYOUTS:
        raise UserError(f"unknown state layout {states!r}; use {' or '.join(LAYOUTS)}")
    jobs = plan_jobs(seed, types, splits, scale, render, extended, camera, states)
    info = {"generator": "socialbench.agent3d", "design": DESIGN, "seed": seed, "types": types,
            "splits": list(splits), "scale": scale, "extended_shapes": extended,
            "render": _render_params(render), "states": states}
    if camera != "ours":
        info["camera"] = camera
    return run_jobs(out_dir, jobs, build_trial_job, workers=workers,
                    description="AGENT trials", dataset_info=info, show_progress=show_progress)
