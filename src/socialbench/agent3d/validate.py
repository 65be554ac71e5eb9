"""Check an AGENT dataset against the benchmark's design; every problem is one line.

What is checked, per trial (``validate_trial``):

- Files: ``trial.json``, every video's ``scene_config.json`` / ``state_info.json`` and the
  trial's annotations in ``_meta/`` parse (``io.load_trial``); the dataset's
  ``manifest.json`` checksums, when there is one.
- States match configs: each frame lists exactly the config's entities; static bodies stay at
  their configured pose; the stored 3D boxes are those of the stored poses; the entity table,
  fps and frame count agree with the config; each config names the trial's scenario and type.
- Physical validity: replaying the stored poses in PyBullet, no moving body overlaps another
  body by more than ``PENETRATION_TOLERANCE`` for two frames or more, or more than
  ``IMPACT_TOLERANCE`` in a single frame (a landing's dip), except in the surprising video of
  type 2.5, which must pass through a wall (that is its point: a trial where it does not is
  reported); the bodies it may pass through are the annotated ``ghost_ids``.
- Outcome, from the video's annotations ``goal_id`` (the entity the agent pursues) and
  ``gave_up`` (bool): the agent ends within ``GOAL_REACH`` (horizontally) of its goal, or, when
  it gives up, of no goal at all.
- Structure: 1 familiarization video (4 in scenario 4); a surprising video in test trials only.
- Scenario 3: the occluder stands through familiarization and, in each test video, stands
  and then falls; expected and surprising move the agent identically. What the camera sees
  (``check_camera_view``): each video's files are its ground truth (``_meta/``) as the camera
  sees it; the pictures hide what the design hides (the agent shows in at least 60% of the
  frames in which it moves but not all, every jump in part, every goal at least half
  throughout, the wall never before the occluder falls); expected and surprising list the same
  entities until the occluder falls.
- Pairs share familiarization: all videos of a trial show the same agent; the test videos'
  goal objects all appear in familiarization; expected and surprising start the agent at the
  same place with the same goal objects at the same places.

And over the whole dataset (``check_dataset``, from ``trial.json`` and ``scene_config.json``):

- every test-split trial lists both test videos (``test: {expected, surprising}`` in
  ``trial.json``, both folders present); no train/validation trial lists a surprising one;
- scenario 1: half of each type's test trials swap the two objects' sides between
  familiarization and test (AGENT paper: "half of the tests swap object positions"): with n
  test trials of a type, floor(n/2) or ceil(n/2) swap, judged from the goals' positions;
- the paper's counts (with the generator's manifest) and no cue but the agent's behaviour
  telling the preferred object in scenarios 1 and 4 (``validate_design``).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from socialbench.agent3d.bodies import build_scene, physics_client, set_states
from socialbench.agent3d.framing import check_rendered
from socialbench.agent3d.io import (
    CONFIG_FILE,
    EXPECTED,
    FACE_NAMES,
    META_DIR,
    STATES_FILE,
    SURPRISING,
    TRIAL_FILE,
    box_points,
    config_to_json,
    entity_table,
    find_trials,
    load_trial,
    meta_path,
    named_videos,
    quaternion_matrices,
    read_json,
    states_text,
    truth_dir,
)
from socialbench.agent3d.physics import p
from socialbench.agent3d.scenarios.unobserved_constraints import picture_problems
from socialbench.agent3d.schema import EntitySpec, Trial, Video
from socialbench.agent3d.validate_design import answer_cues, check_counts, check_cues
from socialbench.agent3d.visibility import camera_view, occlusion, video_visibility
from socialbench.core.errors import UserError
from socialbench.core.parallel import ordered_map
from socialbench.core.progress import progress_bar
from socialbench.core.runner import MANIFEST_NAME, verify_manifest

# A landing sinks into the floor for one frame by about one physics step's fall (measured up to
# 2.5 cm at 1/210 s steps); passing through anything takes deeper or longer overlaps.
PENETRATION_TOLERANCE = 0.02  # m, for overlaps lasting two frames or more
IMPACT_TOLERANCE = 0.05  # m, for a single frame: a quarter of the 0.2 m agent
STATIC_TOLERANCE = 1e-4  # m (and quaternion units): a static body never moves
BOX_TOLERANCE = 2e-5  # m: stored boxes are rounded to 5 decimals
START_TOLERANCE = 0.02  # m: expected and surprising start the agent at the same place
GOAL_REACH = 0.35  # m: the walk stops 0.24 m from the goal (agent spec) plus the agent's size
FAMILIARIZATION_VIDEOS = {1: 1, 2: 1, 3: 1, 4: 4}  # agent spec: 4 in scenario 4, else 1
SOLIDITY_TYPE = "2.5"  # its surprising video passes through a wall (AGENT paper, type 2.5)
OCCLUDER_SCENARIO = 3  # the occluder hides the path, then falls at test (AGENT paper)
STANDING = math.cos(math.radians(10))  # the occluder's up axis within 10 degrees of vertical
FALLEN = math.cos(math.radians(45))  # ... and, having fallen, more than 45 degrees off


def validate_dataset(root: Path | str, *, max_problems: int | None = None, workers: int = 1,
                     progress: bool = False) -> list[str]:
    """Problems in every trial under ``root`` (empty: all good), first ones first; the same
    arguments and defaults as BIB's ``validate_dataset``: stop once ``max_problems`` are found
    (None: never); ``workers`` processes check trials in parallel (the report is the same for
    any number); ``progress`` shows a bar."""
    root = Path(root)
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    limit = max_problems if max_problems is not None else math.inf
    problems: list[str] = []
    if (root / MANIFEST_NAME).exists():
        problems += verify_manifest(root)
    trials = find_trials(root)
    if not trials:
        raise UserError(f"no AGENT trials (folders with {TRIAL_FILE}) under {root}; "
                        f"generate them with `socialbench agent generate --out {root}`")
    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(progress_bar("validating", show=progress, transient=True))
        task = bar.add_task("validating", total=len(trials))
        reports = stack.enter_context(contextlib.closing(
            ordered_map(validate_trial, trials, workers)))  # in order: a stable report
        for trial_dir, report in zip(trials, reports, strict=False):
            if len(problems) >= limit:
                break
            rel = trial_dir.relative_to(root).as_posix()
            problems += [f"{rel}: {problem}" for problem in report]
            bar.advance(task)
    if len(problems) < limit:
        problems += [f"dataset: {problem}" for problem in check_dataset(root, trials)]
    return problems if max_problems is None else problems[:max_problems]


def check_dataset(root: Path, trials: list[Path]) -> list[str]:
    """Dataset-level design checks (see the module docstring); reads only the small JSON files."""
    problems = []
    swaps: dict[str, list[bool]] = {}
    found: list[tuple[str, str]] = []  # (type, split) of every trial: the counts
    cues: dict[str, list[dict[str, bool]]] = {}
    for trial_dir in trials:
        rel = Path(trial_dir).relative_to(root).as_posix()
        try:
            meta = read_json(Path(trial_dir) / TRIAL_FILE)
            if not isinstance(meta, dict):
                problems.append(f"{rel}: {TRIAL_FILE} is not a JSON object")
                continue
            split, test = meta.get("split"), meta.get("test")
            found.append((str(meta.get("trial_type")), str(split)))
            if (trial_cues := answer_cues(Path(trial_dir), meta)) is not None:
                cues.setdefault(str(meta.get("trial_type")), []).append(trial_cues)
            if split == "test":
                wanted = {"expected": EXPECTED, "surprising": SURPRISING}
                if test != wanted or any(not (Path(trial_dir) / v / CONFIG_FILE).is_file()
                                         for v in wanted.values()):
                    problems.append(f"{rel}: a test trial must list and hold both test videos "
                                    f"(trial.json 'test': {wanted})")
            elif test is not None or (Path(trial_dir) / SURPRISING).exists():
                problems.append(f"{rel}: a {split} trial with a surprising video (only test "
                                f"trials have one)")
            if split == "test" and meta.get("scenario") == 1:
                swapped = _sides_swapped(Path(trial_dir))
                if swapped is not None:
                    swaps.setdefault(str(meta.get("trial_type")), []).append(swapped)
        except UserError as exc:
            problems.append(f"{rel}: {exc}")
    for trial_type, flags in sorted(swaps.items()):
        n, count = len(flags), sum(flags)
        if count not in (n // 2, (n + 1) // 2):
            problems.append(f"type {trial_type}: {count} of {n} test trials swap the objects' "
                            f"sides; half of them should (AGENT paper)")
    return problems + check_counts(root, found) + check_cues(cues)


def _sides_swapped(trial_dir: Path) -> bool | None:
    """Whether the goals sit on opposite sides of the agent at test vs familiarization (None:
    not two goals on either side)."""
    def sides(folder: str) -> dict[int, bool] | None:
        config = read_json(trial_dir / folder / CONFIG_FILE)
        entities = config.get("entities", []) if isinstance(config, dict) else []
        agent = next((e for e in entities if e.get("kind") == "agent"), None)
        goals = {e.get("id"): e for e in entities if e.get("kind") == "goal"}
        if agent is None or len(goals) != 2:
            return None
        return {k: float(g["position"][0]) > float(agent["position"][0])
                for k, g in goals.items()}

    try:
        before, after = sides("Familiarization_video_1"), sides(EXPECTED)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if before is None or after is None or before.keys() != after.keys():
        return None
    return all(before[k] != after[k] for k in before)


def validate_trial(trial_dir: Path) -> list[str]:
    """Problems with one trial folder (empty: all good)."""
    raw_states: dict[str, dict] = {}
    try:
        trial = load_trial(trial_dir, raw_states, annotations=True)
    except UserError as exc:
        return [str(exc)]
    problems = []
    for folder, video in named_videos(trial):
        where = f"{folder}: "
        if not video.frames:
            problems.append(where + "the video has no frames")
            continue
        try:
            found = check_files_agree(trial, video, Path(trial_dir) / folder, raw_states[folder])
            found += check_static(video) + check_physics(trial, video) + check_outcome(video)
            found += check_rendered(video, Path(trial_dir) / folder, trial.scenario)
        except UserError as exc:  # e.g. a shape the scene builder does not know
            found = [str(exc)]
        problems += [where + m for m in found]
    problems += check_pairing(trial)
    problems += check_occluder(trial)
    problems += check_camera_view(trial, Path(trial_dir))
    return problems


def check_files_agree(trial: Trial, video: Video, video_dir: Path, info: dict) -> list[str]:
    """The config names the trial; state_info's table, boxes and counts match the config."""
    config, problems = video.config, []
    if (config.scenario, config.trial_type) != (trial.scenario, trial.trial_type):
        problems.append(f"{CONFIG_FILE} is for {config.scenario}/{config.trial_type}, the trial "
                        f"for {trial.scenario}/{trial.trial_type}")
    if info.get("fps") != config.fps or info.get("num_frames") != len(video.frames):
        problems.append(f"{STATES_FILE} fps/num_frames disagree with the config and frames")
    if info.get("entities") != entity_table(config.entities):
        problems.append(f"{STATES_FILE} entity table differs from {CONFIG_FILE}")
    ids = [spec.id for spec in config.entities]
    for index, frame in enumerate(video.frames):
        if sorted(s.id for s in frame) != sorted(ids):
            problems.append(f"frame {index} lists entities {sorted(s.id for s in frame)}, the "
                            f"config {sorted(ids)}")
            break
    if not problems and "frames" in info:  # the columns layout stores no boxes
        problems += _check_boxes(video, info)
    return problems


def _check_boxes(video: Video, info: dict) -> list[str]:
    stored_rows = [{row.get("id"): row.get("bbox") for row in frame} for frame in info["frames"]]
    for spec in video.config.entities:
        states = [next(s for s in frame if s.id == spec.id) for frame in video.frames]
        try:
            stored = np.array([[rows[spec.id][face] for face in FACE_NAMES]
                               for rows in stored_rows], dtype=float)
        except (KeyError, TypeError, ValueError):
            return [f"{STATES_FILE} lacks well-formed 3D boxes for {spec.name}"]
        if stored.shape != (len(states), len(FACE_NAMES), 3):
            return [f"{STATES_FILE} lacks well-formed 3D boxes for {spec.name}"]
        error = np.abs(stored - box_points(spec, states)).max(axis=(1, 2))
        if (error > BOX_TOLERANCE).any():
            return [f"frame {int(np.argmax(error > BOX_TOLERANCE))}: the stored 3D box of "
                    f"{spec.name} is not that of its stored pose"]
    return []


def check_static(video: Video) -> list[str]:
    """Static bodies stay exactly at their configured pose in every frame."""
    static = {spec.id: spec for spec in video.config.entities if spec.static}
    for index, frame in enumerate(video.frames):
        for state in frame:
            spec = static.get(state.id)
            if spec is None:
                continue
            moved = max(abs(a - b) for a, b in zip(state.position, spec.position, strict=True))
            turned = _quat_distance(state.orientation, spec.orientation)
            if moved > STATIC_TOLERANCE or turned > STATIC_TOLERANCE:
                return [f"frame {index}: static {spec.name} is off its configured pose by "
                        f"{moved:.4f} m"]
    return []


def _quat_distance(a: Iterable[float], b: Iterable[float]) -> float:
    dot = abs(sum(x * y for x, y in zip(a, b, strict=True)))
    return 1.0 - min(1.0, dot)


def penetrations(video: Video, tolerance: float = PENETRATION_TOLERANCE) -> list[tuple[int, str,
                                                                                       str, float]]:
    """(frame, moving body, other body, depth) wherever a moving body overlaps another by more
    than ``tolerance`` metres for two frames or more, or by more than ``IMPACT_TOLERANCE`` in
    one, replaying the stored poses in PyBullet."""
    specs = {spec.id: spec for spec in video.config.entities}
    found = []
    with physics_client() as client:
        ids = build_scene(video.config, client)
        entity_of = {body: entity for entity, body in ids.items()}
        movers = [ids[i] for i, spec in specs.items() if not spec.static]
        for index, frame in enumerate(video.frames):
            set_states(client, ids, frame)
            p.performCollisionDetection(physicsClientId=client)  # broad phase finds the pairs
            deepest: dict[tuple[int, int], float] = {}
            for body in movers:
                for contact in p.getContactPoints(bodyA=body, physicsClientId=client):
                    pair = (min(body, contact[2]), max(body, contact[2]))
                    deepest[pair] = max(deepest.get(pair, 0.0), -contact[8])
            for (a, b), depth in sorted(deepest.items()):
                if depth > tolerance:
                    first, second = (a, b) if a in movers else (b, a)
                    found.append((index, specs[entity_of[first]].name,
                                  specs[entity_of[second]].name, round(depth, 4)))
    # a single frame's dip on landing is the contact solver at work, not passing through
    overlapping = {(index, a, b) for index, a, b, _ in found}
    return [(index, a, b, depth) for index, a, b, depth in found
            if depth > IMPACT_TOLERANCE or (index - 1, a, b) in overlapping
            or (index + 1, a, b) in overlapping]


def check_physics(trial: Trial, video: Video) -> list[str]:
    """No penetration, except that type 2.5's surprising video must pass through a wall (the
    entities it may pass through are annotated ``ghost_ids``)."""
    overlaps = penetrations(video)
    names = {spec.name: spec.id for spec in video.config.entities}
    ghosts = set(video.config.annotations.get("ghost_ids") or ())
    solidity_test = trial.trial_type == SOLIDITY_TYPE and video is trial.surprising
    problems = []
    if ghosts and not solidity_test:
        problems.append(f"annotated ghost_ids {sorted(ghosts)} outside type 2.5's surprising "
                        f"video")
    if solidity_test:
        through = [o for o in overlaps if {names[o[1]], names[o[2]]} & ghosts]
        overlaps = [o for o in overlaps if o not in through]
        if not through:
            problems.append("type 2.5's surprising video never passes through a wall")
    if overlaps:
        index, a, b, depth = overlaps[0]
        problems.append(f"frame {index}: {a} penetrates {b} by {depth} m ({len(overlaps)} "
                        f"overlaps in all)")
    return problems


def check_outcome(video: Video) -> list[str]:
    """The agent ends at its annotated ``goal_id``, or, when it ``gave_up``, at no goal."""
    notes = video.config.annotations
    agent = next((s for s in video.config.entities if s.kind == "agent"), None)
    if agent is None or not video.frames or ("goal_id" not in notes and "gave_up" not in notes):
        return []
    end = video.track(agent.id)[-1]
    last = {state.id: state.position for state in video.frames[-1]}
    goals = {s.id: s.name for s in video.config.entities if s.kind == "goal"}
    if notes.get("gave_up"):
        reached = [goals[i] for i in goals if _horizontal(end, last[i]) <= GOAL_REACH]
        return [f"the agent gave up yet ends at {reached[0]}"] if reached else []
    goal_id = notes.get("goal_id")
    if goal_id not in goals:
        return [f"annotated goal {goal_id!r} is not a goal object of the scene"]
    gap = _horizontal(end, last[goal_id])
    return [] if gap <= GOAL_REACH else [f"the agent ends {gap:.2f} m from its goal "
                                         f"(at most {GOAL_REACH} m expected)"]


def _horizontal(a: Iterable[float], b: Iterable[float]) -> float:
    (ax, ay, _), (bx, by, _) = a, b
    return math.hypot(ax - bx, ay - by)


def check_pairing(trial: Trial) -> list[str]:
    """Same agent throughout; test goals seen in familiarization; expected and surprising start
    alike."""
    videos = [v for _, v in named_videos(trial)]
    problems = []
    wanted = FAMILIARIZATION_VIDEOS[trial.scenario]
    if len(trial.familiarization) != wanted:
        problems.append(f"{len(trial.familiarization)} familiarization videos; scenario "
                        f"{trial.scenario} has {wanted}")
    if (trial.surprising is not None) != (trial.split == "test"):
        problems.append(f"a {trial.split} trial {'with' if trial.surprising else 'without'} a "
                        f"surprising video (only test trials have one)")
    agents = {_identity(s) for v in videos for s in v.config.entities if s.kind == "agent"}
    if len(agents) != 1:
        problems.append(f"the trial shows {len(agents)} different agents")
    seen = {_identity(s) for v in trial.familiarization for s in v.config.entities
            if s.kind == "goal"}
    tests = [trial.expected] + ([trial.surprising] if trial.surprising is not None else [])
    for name, video in zip(("expected", "surprising"), tests, strict=False):
        unseen = {_identity(s) for s in video.config.entities if s.kind == "goal"} - seen
        if unseen:
            problems.append(f"{name}: goal objects {sorted(unseen)} never appear in "
                            f"familiarization")
    if trial.surprising is not None:
        starts = [_agent_start(v) for v in tests]
        if None in starts or float(np.max(np.abs(np.subtract(*starts)))) > START_TOLERANCE:
            problems.append("expected and surprising do not start the agent at the same place")
        goals = [sorted((_identity(s), s.position) for s in v.config.entities if s.kind == "goal")
                 for v in tests]
        if goals[0] != goals[1]:
            problems.append("expected and surprising place different goal objects")
    return problems


def check_occluder(trial: Trial) -> list[str]:
    """Scenario 3: the occluder stands through familiarization; in each test video the agent
    moves exactly as in the other, then the occluder falls (AGENT paper, scenario 3)."""
    if trial.scenario != OCCLUDER_SCENARIO:
        return []
    problems = []
    for name, video in named_videos(trial):
        occluder = next((s for s in video.config.entities if s.kind == "occluder"), None)
        if occluder is None:
            problems.append(f"{name}: scenario 3 needs an occluder")
            continue
        states = [next(s for s in frame if s.id == occluder.id) for frame in video.frames]
        if not states:
            continue
        upright = quaternion_matrices(np.array([s.orientation for s in states]))[:, 2, 2]
        if name.startswith("Familiarization") and upright.min() < STANDING:
            problems.append(f"{name}: the occluder falls during familiarization")
        if not name.startswith("Familiarization") and (upright[0] < STANDING or
                                                       upright[-1] > FALLEN):
            problems.append(f"{name}: the occluder does not stand, then fall")
    if trial.surprising is not None:
        agent = next((s.id for s in trial.expected.config.entities if s.kind == "agent"), None)
        tracks = [np.array(v.track(agent)) for v in (trial.expected, trial.surprising)
                  if agent is not None and v.frames]
        if len(tracks) == 2 and (tracks[0].shape != tracks[1].shape or
                                 np.abs(tracks[0] - tracks[1]).max() > START_TOLERANCE):
            problems.append("expected and surprising move the agent differently (scenario 3 "
                            "shows the same trajectory)")
    return problems


def check_camera_view(trial: Trial, trial_dir: Path) -> list[str]:
    """Scenario 3: each video's files are its ground truth as the camera sees it (byte for
    byte what the writer makes of the truth in ``_meta/``), its pictures hide what the design
    hides (``unobserved_constraints.picture_problems``), familiarization never shows the wall,
    and the expected and surprising files list the same entities until the occluder falls."""
    if trial.scenario != OCCLUDER_SCENARIO:
        return []
    problems, views, reveals = [], {}, {}
    truth = truth_dir(meta_path(trial_dir))
    for folder, video in named_videos(trial):
        if not (truth / folder / STATES_FILE).is_file():
            problems.append(f"{folder}: no ground truth in {META_DIR}/ (the files of a scenario-3 "
                            f"video keep only what the camera sees); regenerate the dataset")
            continue
        visibility = video_visibility(video)
        view = camera_view(video, visibility)
        stored = [read_json(trial_dir / folder / CONFIG_FILE),
                  (trial_dir / folder / STATES_FILE).read_text()]
        layout = "columns" if '"layout":"columns"' in stored[1] else "rows"  # as written
        wanted = [json.loads(json.dumps(config_to_json(view.config))),  # tuples as lists
                  states_text(view, layout) + "\n"]
        if stored != wanted:
            problems.append(f"{folder}: {CONFIG_FILE} / {STATES_FILE} are not the ground truth as "
                            f"the camera sees it")
        problems += [f"{folder}: {p}" for p in picture_problems(video, visibility)]
        if folder.startswith("Familiarization") and \
                any(s.kind == "obstacle" for s in view.config.entities):
            problems.append(f"{folder}: the camera sees the obstacle in familiarization")
        views[folder], reveals[folder] = view, occlusion(video, visibility).reveal
    if EXPECTED in views and SURPRISING in views:
        until = min(r if r is not None else len(views[f].frames)
                    for f, r in reveals.items() if f in (EXPECTED, SURPRISING))
        lists = [[[s.id for s in frame] for frame in views[f].frames[:until]]
                 for f in (EXPECTED, SURPRISING)]
        if lists[0] != lists[1]:
            problems.append("expected and surprising list different entities before the "
                            "occluder falls")
    return problems


def _identity(spec: EntitySpec) -> tuple:
    return (spec.shape, tuple(spec.size), tuple(spec.rgba))


def _agent_start(video: Video) -> tuple[float, ...] | None:
    agent = next((s for s in video.config.entities if s.kind == "agent"), None)
    return None if agent is None or not video.frames else video.track(agent.id)[0]
