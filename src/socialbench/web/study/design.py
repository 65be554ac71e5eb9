"""A study's design: which test pairs are rated, who sees which side, checks and order.

* Trials: a seeded ``fraction`` of each task's test pairs (AGENT's human study rated 25% of the
  test set; Shu et al. 2021, "Human experiment"), at least one per task.
* Balance: raters alternate between two groups; group 0 sees the expected side of the
  even-numbered pairs and the unexpected side of the odd ones, group 1 the other sides. Nobody
  sees both videos of a pair, every rater sees as many expected as unexpected tests (within
  one), and each side of each pair is rated by half the raters.
* Attention checks: ``checks`` extra trials per rater, each a test video whose question asks for
  a stated slider value; a rating more than ``CHECK_TOLERANCE`` away fails the check.
* Order: each rater's trials and checks are shuffled with a seed of their own.
* Watch time: a rating is refused when it comes sooner than ``watch`` times the running time
  of the trial's videos after the trial was first shown (the slider is locked until the test
  video has ended; this keeps a hand-made request from skipping the videos).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from socialbench.core.errors import UserError
from socialbench.core.seeding import rng_for
from socialbench.web.datasets import Dataset, EpisodeRef, agent_video_file, agent_videos
from socialbench.web.study.db import Assignment, Item, Rater, Study

AGENT_FRACTION = 0.25  # AGENT (Shu et al. 2021): people rated 25% of the test trials
CHECK_TARGETS = (10, 90)  # the values an attention check asks for, in turn
CHECK_TOLERANCE = 15  # a check passes when the rating is within this of its target
TOKEN_BYTES = 24  # rater tokens: 192 random bits, URL-safe


@dataclass(frozen=True)
class Design:
    """What ``study create`` was asked for."""

    fraction: float = AGENT_FRACTION
    raters: int = 20
    checks: int = 2
    seed: int = 0
    watch: float = 0.9  # share of the videos' running time before a rating is accepted

    def check(self) -> None:
        if not 0 < self.fraction <= 1:
            raise UserError(f"--fraction {self.fraction}: give a share of the test set in (0, 1]")
        if not 1 <= self.raters <= 100_000:
            raise UserError(f"--raters {self.raters}: give 1-100000 raters")
        if not 0 <= self.checks <= 20:
            raise UserError(f"--checks {self.checks}: give 0-20 attention checks per rater")
        if not 0 <= self.watch <= 1:
            raise UserError(f"--design watch={self.watch}: give a share of the videos' running "
                            f"time in [0, 1]")


def pick_pairs(episodes: Sequence[EpisodeRef], fraction: float, seed: int) -> list[EpisodeRef]:
    """A seeded ``fraction`` of each task's complete pairs (at least one), in dataset order."""
    chosen: list[EpisodeRef] = []
    tasks = list(dict.fromkeys(e.task for e in episodes))
    for task in tasks:
        pairs = [e for e in episodes if e.task == task and e.expected and e.unexpected]
        if not pairs:
            continue
        count = max(1, round(fraction * len(pairs)))
        picked = rng_for(seed, "study-pairs", task).choice(len(pairs), count, replace=False)
        chosen += [pairs[i] for i in sorted(picked)]
    if not chosen:
        raise UserError("the dataset has no complete expected/unexpected pairs to rate")
    return chosen


def side_for(group: int, pair_index: int) -> str:
    """The side of pair ``pair_index`` that raters of ``group`` see."""
    return "expected" if (pair_index + group) % 2 == 0 else "unexpected"


def create_study(session: Session, dataset: Dataset, name: str, design: Design) -> Study:
    """Write a study, its items, its raters and their shuffled sequences (one transaction)."""
    design.check()
    if session.scalar(select(Study).where(Study.name == name)) is not None:
        raise UserError(f"a study named {name!r} exists in this database: choose another --name")
    study = Study(name=name, benchmark=dataset.benchmark, data_root=str(dataset.root),
                  design=json.dumps(asdict(design)), secret=secrets.token_hex(32))
    session.add(study)
    pairs = pick_pairs(dataset.episodes, design.fraction, design.seed)
    if dataset.benchmark == "agent":
        unrendered = [folder for ref in pairs for folders in agent_videos(dataset, ref).values()
                      for folder in folders if agent_video_file(dataset, folder) is None]
        if unrendered:
            raise UserError(f"{len(unrendered)} AGENT videos to rate have no rgb.mp4 (first: "
                            f"{unrendered[0]}): generate the dataset with --render")
    sides: dict[tuple[int, str], Item] = {}
    for index, ref in enumerate(pairs):
        for side in ("expected", "unexpected"):
            source = ref.expected if side == "expected" else ref.unexpected
            sides[index, side] = Item(study=study, kind="trial", task=ref.task,
                                      scenario=ref.scenario, pair=ref.key, side=side,
                                      source=source or "",
                                      duration_ms=running_time_ms(dataset, ref, side))
    checks = []
    for k in range(design.checks):
        ref = pairs[k % len(pairs)]
        checks.append(Item(study=study, kind="check", task=ref.task, scenario=ref.scenario,
                           pair=ref.key, side="expected", source=ref.expected or "",
                           check_target=CHECK_TARGETS[k % len(CHECK_TARGETS)],
                           duration_ms=sides[k % len(pairs), "expected"].duration_ms))
    session.add_all([*sides.values(), *checks])
    for r in range(design.raters):
        rater = Rater(study=study, token=secrets.token_urlsafe(TOKEN_BYTES), group=r % 2)
        sequence = [sides[i, side_for(rater.group, i)] for i in range(len(pairs))] + checks
        order = rng_for(design.seed, "study-order", r).permutation(len(sequence))
        session.add(rater)
        session.add_all(Assignment(rater=rater, item=sequence[int(j)], position=p)
                        for p, j in enumerate(np.asarray(order)))
    session.flush()
    return study


def running_time_ms(dataset: Dataset, ref: EpisodeRef, side: str) -> int:
    """How long a rater watches one side of a pair: its familiarization videos and its test."""
    from socialbench.web.datasets import agent_frame_count, bib_trial_frames

    if dataset.benchmark == "bib":
        from socialbench.bib.schema import FPS

        path = ref.expected if side == "expected" else ref.unexpected
        return round(1000 * sum(bib_trial_frames(dataset, path or "")) / FPS)
    from socialbench.agent3d.schema import FPS as AGENT_FPS

    folders = agent_videos(dataset, ref)
    shown = [*folders["familiarization"], *folders[side]]
    return round(1000 * sum(agent_frame_count(dataset, f) for f in shown) / AGENT_FPS)


def find_study(session: Session, name: str | None) -> Study:
    """The study of that name, or the only one; one-line errors otherwise."""
    studies = list(session.scalars(select(Study).order_by(Study.id)))
    if name is not None:
        for study in studies:
            if study.name == name:
                return study
        raise UserError(f"no study named {name!r} in this database "
                        f"(there are: {', '.join(s.name for s in studies) or 'none'})")
    if len(studies) != 1:
        raise UserError(f"the database holds {len(studies)} studies: choose one with --study "
                        f"({', '.join(s.name for s in studies) or 'create one first'})")
    return studies[0]
