"""The learned planner beyond training: the shipped checkpoint, the ablations and controls runner
(files and in-memory splits, resuming), the device argument, and its rows in `socialbench run`."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from click.testing import CliRunner
from rich.console import Console

from socialbench.bib.io import dump_episode
from socialbench.core.errors import UserError
from socialbench.observers.bib import handmade as hm
from socialbench.observers.bib.learned_planner import ablation
from socialbench.observers.bib.learned_planner.model import PlannerModel
from socialbench.observers.bib.learned_planner.observer import (
    CHECKPOINT_FORMAT,
    SHIPPED_CHECKPOINT,
    LearnedPlanner,
)
from tests.observers.test_learned_planner import preference_pair

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def shipped() -> LearnedPlanner:
    return LearnedPlanner.shipped()


def test_the_shipped_checkpoint_is_small_weights_only_and_trained(shipped):
    assert SHIPPED_CHECKPOINT.stat().st_size < 16_000
    assert torch.load(SHIPPED_CHECKPOINT, weights_only=True)["format"] == CHECKPOINT_FORMAT
    learned = shipped.model.learned_values()
    # what docs/beyond.md reports it learned: walls and the barrier block, free cells do not,
    # agents are sharply efficient, a preference forms after one trial
    assert learned["p_blocked/wall"] > 0.2 and learned["p_blocked/barrier"] > 0.2
    assert learned["p_blocked/empty"] < 0.05
    assert learned["beta"] > 3 and learned["alpha"] < 0.1
    assert shipped.training_info["episodes"] == 960


def test_each_ablation_takes_away_its_piece(shipped):
    initial = PlannerModel().state_dict()
    costs = ablation.variant(shipped, "no-learned-costs").model
    assert torch.equal(costs.costs.blocked.weight, initial["costs.blocked.weight"])
    assert torch.equal(costs.raw_beta, shipped.model.raw_beta)  # the rest stays learned
    untrained = ablation.variant(shipped, "untrained").model
    assert all(torch.equal(v, initial[k]) for k, v in untrained.state_dict().items())
    assert ablation.variant(shipped, "no-rationality-mixture").config.p_rational == 1.0
    # the shipped values are untouched by building variants
    assert not torch.equal(shipped.model.costs.blocked.weight, initial["costs.blocked.weight"])


def test_ablations_on_the_preference_design(shipped):
    to_heart, to_moon = preference_pair(0)  # familiarized at the heart: to the moon surprises
    rated = ablation.rate_pair({n: ablation.variant(shipped, n) for n in ablation.VARIANTS},
                               [], to_heart, to_moon)
    for name in ("full", "shared-preference", "no-rationality-mixture", "no-learned-costs"):
        expected, unexpected = rated[name]
        assert np.isfinite([expected, unexpected]).all()
        assert expected < unexpected - 1.0, name
    plain_e, plain_u = rated["no-preference-latent"]
    assert plain_e == pytest.approx(plain_u, abs=0.5)  # no familiarization: no expectation


def test_ratings_resume_and_refuse_a_damaged_file(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"task": "preference", "name": "000000lo",
                                "ratings": {"full": [1.0, 2.0]}}) + "\n" + '{"task": "pre')
    # a last line cut off by a stopped run is rated again, not an error
    assert ablation.read_ratings(path) == {("preference", "000000lo"): {"full": [1.0, 2.0]}}
    path.write_text("not json\n")
    with pytest.raises(UserError, match="not a ratings line"):
        ablation.read_ratings(path)


def test_the_runner_rates_a_generated_split_in_memory_and_resumes(tmp_path):
    ratings = tmp_path / "ratings.jsonl"
    args = ["--checkpoint", str(SHIPPED_CHECKPOINT), "--generate", "eval", "--episodes", "1",
            "--seed", "1", "--tasks", "preference,efficiency_path", "--variants",
            "full,untrained", "--controls", "--ratings", str(ratings)]
    first = CliRunner().invoke(ablation.main, args)
    assert first.exit_code == 0, first.output
    lines = ratings.read_text().splitlines()
    assert len(lines) == 2
    assert set(json.loads(lines[0])["ratings"]) == {"full", "untrained", *ablation.CONTROLS}
    table = [line for line in first.output.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| sub-evaluation | pairs | full | untrained | control-novelty")
    assert [row.split(" | ")[0] for row in table[2:]] == ["| preference", "| efficiency_path",
                                                          "| overall"]
    again = CliRunner().invoke(ablation.main, args)
    assert again.exit_code == 0 and ratings.read_text().splitlines() == lines  # nothing re-rated
    assert again.output.splitlines()[-3:] == first.output.splitlines()[-3:]


def test_the_device_argument_is_honoured(monkeypatch):
    one_trial = hm.trial(hm.OPEN, [("heart", (4, 2))], [(2, 2), (3, 2), (4, 2)])
    episodes = [hm.episode([one_trial], one_trial)]  # small: the test is about the device
    seen = []
    real_to = PlannerModel.to

    def spy(self, *args, **kwargs):
        seen.append(torch.device(args[0]) if args else None)
        return real_to(self, *args, **kwargs)

    monkeypatch.setattr(PlannerModel, "to", spy)
    LearnedPlanner().fit(episodes, epochs=1, device="cpu", progress=False)
    assert seen[0] == torch.device("cpu") and seen[-1] == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(UserError) as error:
        LearnedPlanner().fit(episodes, epochs=1, device="cuda", progress=False)
    assert "\n" not in str(error.value) and "no GPU" in str(error.value)
    with pytest.raises(UserError, match="not a device"):
        LearnedPlanner().fit(episodes, epochs=1, device="tpu9", progress=False)


def test_bib_train_asks_for_cuda_without_one_in_one_line(tmp_path, monkeypatch):
    from socialbench.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    fam = [hm.trial(hm.OPEN, [("heart", (7, 2))], [(2, 2), (3, 2), (4, 2), (5, 2), (6, 2),
                                                   (7, 2)])] * 8
    for index in range(5):
        name = f"{index:06d}soe.json"
        dump_episode(hm.episode(fam, fam[0]), tmp_path / "train" / "single_object" / name)
    result = CliRunner().invoke(main, ["bib", "train", "--observer", "learned-planner", "--train",
                                       str(tmp_path / "train"), "--device", "cuda", "--out",
                                       str(tmp_path / "ckpt.pt")])
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "no GPU" in result.output
    assert not (tmp_path / "ckpt.pt").exists()


def test_the_tour_prints_the_learned_rows(tmp_path):
    from socialbench.commands.tour.bib_learned import learned_rows

    for index, (e, u) in enumerate([preference_pair(0), preference_pair(1)]):
        unexpected = u if index == 0 else e  # familiarized at the moon: to the heart surprises
        expected = e if index == 0 else u
        dump_episode(expected, tmp_path / "preference" / f"{index:06d}loe.json")
        dump_episode(unexpected, tmp_path / "preference" / f"{index:06d}lou.json")
    console = Console(width=160, record=True)
    learned_rows(console, tmp_path, quick=True)
    text = console.export_text()
    assert "learned-planner (ours)" in text and "IRENE" in text and "HBToM" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("preference"))
    assert row.split()[1:3] == ["2", "100.0"]
