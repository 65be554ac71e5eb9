"""`socialbench agent evaluate`: rate a dataset's test pairs with BIPaCK or ToMnet-G under one
of the AGENT paper's protocols (all, G1-G4), beside the paper's rows."""

from __future__ import annotations

import json
from pathlib import Path

import click

from socialbench.commands.backend import backend_options

PROTOCOL_CHOICES = ("all", "G1", "G2", "G3", "G4")


@click.command(name="evaluate")
@click.option("--data", "data", required=True, type=click.Path(path_type=Path),
              help="Dataset root (train_set and test_set folders, as `agent generate` writes).")
@click.option("--observer", "observer", required=True,
              type=click.Choice(["bipack", "tomnet-g"]), help="The model to rate with.")
@click.option("--protocol", default="all", show_default=True,
              help="all: train on every type; G1 leave one type out; G2 leave one scenario "
                   "out; G3 single type; G4 single scenario. Several, comma-separated, share "
                   "one pass over the videos (one table, or one JSON line, each).")
@click.option("--max-train-per-type", type=click.IntRange(min=0), default=None,
              help="Use at most this many training trials per type (default: all).")
@click.option("--epochs", type=click.IntRange(min=1), default=60, show_default=True,
              help="ToMnet-G: training epochs per fold.")
@click.option("--device", default="cpu", show_default=True, help="ToMnet-G: torch device.")
@click.option("--checkpoints", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="ToMnet-G: keep one checkpoint per fold and every video's graphs here "
                   "(a re-run resumes and reads no state file twice).")
@click.option("--surprise", "tomnet_surprise", type=click.Choice(["teacher-forced", "rollout"]),
              default="teacher-forced", show_default=True,
              help="ToMnet-G: train and rate on the per-step prediction from the observed "
                   "frames, or on the free rollout from the first frame (the paper's loop).")
@click.option("--reduce", "tomnet_reduce", type=click.Choice(["max", "mean"]), default="mean",
              show_default=True,
              help="ToMnet-G: a test video's rating from its per-step prediction errors: the "
                   "largest, or their mean (docs/agent_observers.md).")
@click.option("--absolute-positions", is_flag=True,
              help="ToMnet-G: absolute box centres (the paper as printed), not agent offsets.")
@click.option("--conditioning", type=click.Choice(["gain", "gate", "embedding"]),
              default="gain", show_default=True,
              help="ToMnet-G: the character embedding scales the test video's node codes "
                   "(gain), also gates each entity's message (gate), or only joins the pooled "
                   "frame embedding (embedding).")
@click.option("--orientation", is_flag=True,
              help="ToMnet-G: give the nodes their yaw (the paper's nodes have none; the "
                   "agent's heading gives its next step away).")
@click.option("--horizon", type=click.IntRange(min=0), default=0, show_default=True,
              help="ToMnet-G: also predict the agent's displacement this many rated frames "
                   "ahead (5 video frames each) and rate by that prediction's error (0: the "
                   "next step only).")
@click.option("--end-head", is_flag=True,
              help="ToMnet-G: also predict where the test video leaves the agent, from every "
                   "frame, and add that prediction's error to each step's (as the original "
                   "ToMnet predicts the object an agent will consume; docs/agent_observers.md).")
@click.option("--pace", type=click.Choice(["time", "path"]), default="path", show_default=True,
              help="ToMnet-G: read the agent's path every 0.2 m of its length (path: standing "
                   "still and turning on the spot drop out), or every 5th frame (time).")
@click.option("--no-familiarization", is_flag=True,
              help="BIPaCK: skip the per-trial update on the familiarization videos (the "
                   "paper's ablation).")
@click.option("--calibration", type=click.Choice(["product", "sum"]), default="product",
              show_default=True,
              help="BIPaCK: training videos' likelihoods multiply (Bayes) or add (Eq. 3 as "
                   "printed).")
@click.option("--heatmap", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="G3/G4: also draw the train x test matrix into this PNG.")
@click.option("--from-frames", is_flag=True,
              help="Rate from perception on the rendered RGB-D frames and each video's camera "
                   "(never the state files): needs a dataset made with --render.")
@click.option("--gt-segmentation", is_flag=True,
              help="With --from-frames: the same pipeline fed the renderer's instance "
                   "segmentation (the upper bound).")
@click.option("--train-states", type=click.Path(path_type=Path), default=None,
              help="Train or calibrate on this dataset's training split, read from its state "
                   "files (the ground truth), and rate DATA's test videos (from perception "
                   "with --from-frames): the paper's derendered condition. Without "
                   "--from-frames, a test split generated into its own folder.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="BIPaCK: plan the videos on this many processes (or Ray tasks); ToMnet-G: "
                   "read the states into graphs so (it trains in this process). The ratings "
                   "do not depend on it.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option("--markdown", is_flag=True, help="Print Markdown tables (for docs).")
@backend_options(reads=("data",))
def evaluate(data: Path, observer: str, protocol: str, max_train_per_type: int | None,
             epochs: int, device: str, checkpoints: Path | None, tomnet_surprise: str,
             tomnet_reduce: str,
             absolute_positions: bool, conditioning: str, orientation: bool, horizon: int,
             end_head: bool, pace: str, no_familiarization: bool,
             calibration: str, heatmap: Path | None, from_frames: bool,
             gt_segmentation: bool, train_states: Path | None, seed: int, workers: int,
             as_json: bool, markdown: bool) -> None:
    """Score OBSERVER on the test pairs under DATA with the paper's pairwise accuracy (ties
    half), per type, per scenario (weighted by test pairs) and overall."""
    from rich.console import Console

    from socialbench.core.errors import UserError
    from socialbench.observers.agent.evaluation import (
        BipackRater,
        ToMnetRater,
        find_pairs,
        run_protocol,
    )
    from socialbench.observers.agent.report import draw_heatmap, markdown_table, result_table

    protocols = ["all" if p.strip().lower() == "all" else p.strip().upper()
                 for p in protocol.split(",") if p.strip()]
    unknown = [p for p in protocols if p not in PROTOCOL_CHOICES]
    if unknown or not protocols:
        raise UserError(f"--protocol {protocol!r}: choose from {', '.join(PROTOCOL_CHOICES)}")
    matrices = [p for p in protocols if p in ("G3", "G4")]
    if heatmap is not None and len(matrices) != 1:
        raise UserError("--heatmap draws the G3/G4 matrix: use it with --protocol G3 or G4")
    if gt_segmentation and not from_frames:
        raise UserError("--gt-segmentation feeds perception the renderer's segmentation: use it "
                        "with --from-frames")
    pairs = find_pairs(data)
    episodes = None
    if from_frames:
        from socialbench.observers.agent.perception.episodes import (
            FrameEpisodes,
            check_rendered,
        )

        check_rendered(data, pairs)
        episodes = FrameEpisodes("truth" if gt_segmentation else "rgbd")
    if train_states is not None:
        from socialbench.observers.agent.evaluation import StateEpisodes, TrainedOnStates

        if not train_states.is_dir():
            raise UserError(f"--train-states {train_states}: no such dataset folder")
        if episodes is not None or observer == "bipack":
            episodes = TrainedOnStates(episodes or StateEpisodes(), train_states)
    if observer == "bipack":
        rater = BipackRater(data, pairs, max_train_per_type, progress=True,
                            use_familiarization=not no_familiarization, calibration=calibration,
                            episodes=episodes, workers=workers)
    else:
        if device.startswith("cuda"):
            import torch

            if not torch.cuda.is_available():
                raise UserError(f"--device {device}: no CUDA device is available here")
        rater = ToMnetRater(data, pairs, max_train_per_type, progress=True, epochs=epochs,
                            device=device, seed=seed, checkpoints=checkpoints,
                            episodes=episodes, surprise=tomnet_surprise,
                            relative=not absolute_positions, conditioning=conditioning,
                            orientation=orientation, workers=workers, reduce=tomnet_reduce,
                            train_data=train_states, horizon=horizon, end=end_head,
                            pace=pace)
    types = sorted({p[0] for p in pairs})
    for name in protocols:
        result = run_protocol(rater, name, types)
        if heatmap is not None and name in ("G3", "G4"):
            draw_heatmap(result, heatmap)
        if as_json:
            click.echo(json.dumps(result.as_json()))
            continue
        if markdown:
            click.echo(f"\n{observer}, protocol {name} (pairwise accuracy, ties half):\n")
            click.echo(markdown_table(result))
            continue
        Console().print(result_table(result, title=f"{observer} on {data}, protocol {name}: "
                                                    f"pairwise accuracy (ties half)"))
