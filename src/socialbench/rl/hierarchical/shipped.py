"""The trained hierarchical agent shipped with socialbench: its high-level weights (no optimiser
state) and the full test-set scores measured for docs/beyond.md.

``python -m socialbench.rl.hierarchical.shipped RUN_DIR`` writes both from a training run;
the weights load through ``load_policy`` like any run's checkpoint."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import torch

from socialbench.core.errors import UserError
from socialbench.core.files import atomic_write
from socialbench.rl.hierarchical.evaluate import evaluate_hierarchical
from socialbench.rl.hierarchical.trainer import load_checkpoint

SHIPPED_CHECKPOINT = Path(__file__).with_name("shipped.pt")
SHIPPED_MEASURED = Path(__file__).with_name("shipped_measured.json")
# What a shipped file keeps: enough for load_policy and to say what was trained.
KEPT = ("kind", "config", "model", "updates", "frames", "episodes", "seconds")


def strip_checkpoint(run: str | Path, out: str | Path = SHIPPED_CHECKPOINT) -> Path:
    """Write ``run``'s checkpoint without the optimiser state or the training window."""
    state = load_checkpoint(run)
    slim = {key: state[key] for key in KEPT}
    with atomic_write(Path(out)) as tmp:
        torch.save(slim, tmp)
    return Path(out)


def measure(checkpoint: str | Path, episodes: int, seeds: int) -> dict[str, Any]:
    """Success on both variants' fixed test sets, in the JSON the tour prints."""
    rows = {}
    for variant in ("original", "no-liar"):
        result = evaluate_hierarchical(checkpoint, variant, episodes, seeds)
        rows[variant] = {"mean": round(result.success_mean, 4),
                         "std": round(result.success_std, 4), "per_seed": result.per_seed}
    return {"agent": result.agent, "episodes": episodes, "seeds": seeds, "rows": rows}


def shipped_measured() -> dict[str, Any] | None:
    """The shipped full test-set scores (None when the file is missing or unreadable)."""
    try:
        return json.loads(SHIPPED_MEASURED.read_text())
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run", help="a `talkitout train --model hierarchical` run folder")
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--skip-measure", action="store_true",
                        help="only write the weights (the scores take minutes)")
    args = parser.parse_args(argv)
    try:
        path = strip_checkpoint(args.run)
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
        if not args.skip_measure:
            scores = measure(path, args.episodes, args.seeds)
            with atomic_write(SHIPPED_MEASURED) as tmp:
                tmp.write_text(json.dumps(scores, indent=2) + "\n")
            print(json.dumps(scores))
    except UserError as exc:
        raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    main()
