"""Observers never see the answer: swapping the expected and unexpected files' names and
metadata changes no observer's rating of a video.

For a few generated pairs of every BIB task and one test trial of every AGENT type, every
registered observer (the mask model trained for one epoch on a small background set) and a
probe that hashes everything it is handed rate both videos of each pair; then the two files
trade names (and their entries in ``_meta/`` and the manifest), and the same videos, under
each other's names, must get the same ratings.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

from socialbench.core.runner import MANIFEST_NAME, META_DIR
from socialbench.voe.evaluate import PairRating, rate_pairs_many
from socialbench.voe.observer import EpisodeView, Observer, view_of
from socialbench.voe.registry import make_observer, observer_names


class Probe(Observer):
    """Rates an episode by a hash of all it is handed: any name, label or metadata that
    reached an observer would change its rating when the files trade names."""

    name = "probe"

    def surprise_per_step(self, episode):
        digest = hashlib.sha256(pickle.dumps(episode, protocol=5)).digest()
        return np.array([float(int.from_bytes(digest[:6], "big"))])


def _swap_labels(value):
    """A metadata value with its expected/unexpected entries traded ("e" and "u" keys, "_e" /
    "_u" suffixes, "e_" / "u_" prefixes; "expected" and "surprising")."""
    if isinstance(value, list):
        return [_swap_labels(v) for v in value]
    if not isinstance(value, dict):
        return value
    trade = {"e": "u", "u": "e", "expected": "surprising", "surprising": "expected"}

    def key(k: str) -> str:
        if k in trade:
            return trade[k]
        for a, b in (("_e", "_u"), ("_u", "_e")):
            if k.endswith(a):
                return k[:-2] + b
        for a, b in (("e_", "u_"), ("u_", "e_")):
            if k.startswith(a):
                return b + k[2:]
        return k

    return {key(k): _swap_labels(v) for k, v in value.items()}


def _trade(a: Path, b: Path) -> None:
    """``a`` and ``b`` (files or folders) trade names."""
    spare = a.with_name(a.name + ".trading")
    a.rename(spare)
    b.rename(a)
    spare.rename(b)


def _swap_manifest(root: Path, pairs: list[tuple[str, str]]) -> None:
    manifest = json.loads((root / MANIFEST_NAME).read_text())
    files = manifest["files"]
    for a, b in pairs:
        for suffix in ("", ".json", ".mp4"):
            x, y = a + suffix, b + suffix
            if x in files and y in files:
                files[x], files[y] = files[y], files[x]
    (root / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1, sort_keys=True))


def _mirrored(before: dict[str, list[PairRating]], after: dict[str, list[PairRating]]) -> None:
    for name, ratings in before.items():
        swapped = {(r.task, r.name): r for r in after[name]}
        assert len(swapped) == len(ratings), name
        for rating in ratings:
            other = swapped[(rating.task, rating.name)]
            assert (other.expected, other.unexpected) == (rating.unexpected, rating.expected), \
                f"{name} rated {rating.task}/{rating.name} differently under swapped names"


def test_an_observer_is_handed_the_trials_alone():
    from socialbench.bib.schema import Episode

    view = view_of(Episode(trials=[1, 2, 3], name="000001pre", task="preference",
                           expected=True, meta={"path": "x"}))
    assert view == EpisodeView((1, 2, 3)) and view.test == 3 and view.familiarization == (1, 2)
    assert [f for f in EpisodeView.__dataclass_fields__] == ["trials"]


@pytest.fixture(scope="module")
def mask_checkpoint(tmp_path_factory) -> Path:
    pytest.importorskip("torch")
    from socialbench.bib.generate import generate
    from socialbench.observers.bib.training import train_observer

    root = tmp_path_factory.mktemp("bib-train")
    generate(root, "train", episodes=3, seed=5, video=False, show_progress=False)
    out = root / "mask.pt"
    train_observer("mask", [root], out=out, progress=False, epochs=1, batch_size=4)
    return out


# The video model runs a U-Net over every frame (about a second an episode on 2 busy cores): the
# default run checks every other observer, the slow run the video model.
@pytest.mark.parametrize("video", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_bib_ratings_do_not_depend_on_file_names_or_metadata(tmp_path, mask_checkpoint, video):
    from socialbench.bib.generate import generate
    from socialbench.bib.io import load_episode
    from socialbench.observers.bib.evaluation import collect_pairs
    from socialbench.observers.bib.mask import MaskObserver

    root = tmp_path / "eval"
    generate(root, "eval", episodes=1, seed=11, video=False, show_progress=False)
    observers: list[Observer] = [Probe()]
    for name in observer_names("bib"):
        if (name == "video") != video:
            continue
        observer = make_observer("bib", name)
        observers.append(MaskObserver.load(mask_checkpoint) if name == "mask" else observer)

    def rate() -> dict[str, list[PairRating]]:
        return rate_pairs_many(observers, collect_pairs(root), load=load_episode,
                               progress=False)

    before = rate()
    assert len(before["probe"]) == 9  # a pair of each of the 9 tasks
    stems = []
    for task, expected, unexpected in collect_pairs(root):
        _trade(expected, unexpected)
        meta = root / META_DIR / task / f"{expected.stem[:-1]}.json"
        meta.write_text(json.dumps(_swap_labels(json.loads(meta.read_text()))))
        stems.append((expected.relative_to(root).with_suffix("").as_posix(),
                      unexpected.relative_to(root).with_suffix("").as_posix()))
    _swap_manifest(root, stems)
    _mirrored(before, rate())


# The models (BIPaCK plans every video; ToMnet-G rolls out a network) are checked on one type
# by default (BIPaCK; ToMnet-G's import and rollout make it slow) and on all types in the slow run.
AGENT_MODELS = ("bipack", "tomnet-g")


# The control observers on one type per scenario by default (generating all 13 types' videos
# takes about a minute on 2 busy cores), on every type in the slow run.
@pytest.mark.parametrize("types", [("1.1", "2.1", "3.1", "4.1"),
                                   pytest.param("all", marks=pytest.mark.slow)])
def test_agent_ratings_do_not_depend_on_folder_names_or_metadata(tmp_path, types):
    pytest.importorskip("pybullet")
    from socialbench.agent3d.schema import TRIAL_TYPES

    names = [n for n in observer_names("agent") if n not in AGENT_MODELS]
    _check_agent_observers(tmp_path, names, TRIAL_TYPES if types == "all" else types)


@pytest.mark.parametrize("name", [AGENT_MODELS[0],
                                  pytest.param(AGENT_MODELS[1], marks=pytest.mark.slow)])
def test_agent_models_do_not_see_folder_names_or_metadata(tmp_path, name):
    pytest.importorskip("pybullet")
    pytest.importorskip("torch_geometric" if name == "tomnet-g" else "dtaidistance")
    _check_agent_observers(tmp_path, [name], ("3.2",))


@pytest.mark.slow
@pytest.mark.parametrize("name", AGENT_MODELS)
def test_agent_models_do_not_see_folder_names_or_metadata_on_every_type(tmp_path, name):
    pytest.importorskip("pybullet")
    pytest.importorskip("torch_geometric" if name == "tomnet-g" else "dtaidistance")
    from socialbench.agent3d.schema import TRIAL_TYPES

    _check_agent_observers(tmp_path, [name], TRIAL_TYPES)


def _check_agent_observers(tmp_path: Path, names: list[str], types: tuple[str, ...]) -> None:
    from socialbench.agent3d.episodes import find_test_pairs, load_episode
    from socialbench.agent3d.generate import generate
    from socialbench.agent3d.io import meta_path

    root = tmp_path / "agent"
    generate(root, seed=3, types=types, splits=("test",), scale=1e-6,
             show_progress=False)
    observers = [Probe(), *(make_observer("agent", name) for name in names)]

    def rate() -> dict[str, list[PairRating]]:
        return rate_pairs_many(observers, find_test_pairs(root), load=load_episode,
                               progress=False)

    before = rate()
    assert sorted(r.task for r in before["probe"]) == sorted(types)
    assert all(r.expected != r.unexpected for r in before["probe"])  # the probe tells them apart
    folders = []
    for _, expected, surprising in find_test_pairs(root):
        _trade(expected, surprising)
        meta = meta_path(expected.parent)
        meta.write_text(json.dumps(_swap_labels(json.loads(meta.read_text()))))
        folders.append((expected.relative_to(root).as_posix(),
                        surprising.relative_to(root).as_posix()))
    manifest = json.loads((root / MANIFEST_NAME).read_text())
    for a, b in folders:
        renamed = {}
        for rel, record in manifest["files"].items():
            for x, y in ((a + "/", b + "/"), (b + "/", a + "/")):
                if rel.startswith(x):
                    rel = y + rel[len(x):]
                    break
            renamed[rel] = record
        manifest["files"] = renamed
    (root / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    shutil.rmtree(root / ".socialbench-staging", ignore_errors=True)
    _mirrored(before, rate())
