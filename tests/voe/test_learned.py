"""`--train` / `--checkpoint` handle any LearnedObserver generically."""

import json

import numpy as np
import pytest

from socialbench.bib.io import dump_episode
from socialbench.core.errors import UserError
from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.training import ready_observer, training_files
from socialbench.voe import registry
from socialbench.voe.observer import LearnedObserver


class Counting(LearnedObserver):
    """Remembers how many episodes it was fitted on; surprise = that number."""

    name = "counting"
    benchmark = "bib"

    def __init__(self, n=0):
        self.n = n

    def surprise_per_step(self, episode):
        return np.asarray([float(self.n)])

    def fit(self, train, validation=(), **options):
        assert all(e.expected for e in train)  # lazily loaded, expected files only
        self.n, self.n_val = len(train), len(validation)
        return {"episodes": float(self.n)}

    def save(self, path):
        path.write_text(json.dumps({"n": self.n}))

    @classmethod
    def load(cls, path):
        return cls(json.loads(path.read_text())["n"])


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setitem(registry._MODULES["bib"], "counting", __name__)
    monkeypatch.setitem(registry._FACTORIES, ("bib", "counting"), Counting)


@pytest.fixture(scope="module")
def train_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("train")
    trial = hm.trial(hm.OPEN, [("heart", (5, 5))], [(2, 2), (3, 3), (4, 4), (5, 5)])
    for task, n in (("single_object", 5), ("preference", 5)):
        for i in range(n):
            dump_episode(hm.episode([trial] * 8, trial), root / task / f"{i:06d}{task[:2]}e.json")
    return root


def test_training_split_is_80_20_by_sorted_name_within_each_task(train_root):
    train, validation = training_files([train_root])
    assert len(train) == 8 and len(validation) == 2
    assert sorted(p.name for p in validation) == ["000004pre.json", "000004sie.json"]
    capped, held_out = training_files([train_root], max_per_task=3)  # first 3 by name, then split
    assert [p.name for p in held_out] == ["000002pre.json", "000002sie.json"]
    assert len(capped) == 4


def test_fit_save_then_load(counting, train_root, tmp_path):
    checkpoint = tmp_path / "ckpt.json"
    fitted = ready_observer("counting", train=train_root, checkpoint=checkpoint)
    assert fitted.n == 8 and fitted.n_val == 2 and checkpoint.exists()
    loaded = ready_observer("counting", checkpoint=checkpoint)
    assert loaded.n == 8


def test_learned_observer_needs_train_or_an_existing_checkpoint(counting, tmp_path):
    with pytest.raises(UserError, match="give --train DIR"):
        ready_observer("counting")
    with pytest.raises(UserError, match="does not exist"):
        ready_observer("counting", checkpoint=tmp_path / "missing.pt")
