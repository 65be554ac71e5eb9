"""Training frames per second of the whole PPO loop (rollout + GAE + epochs), in one run:

    python benchmarks/talkitout_training.py [--updates 6] [--threads 2]

Paper configuration: 16 envs x 40 frames per update, recurrence 10, 4 epochs, one minibatch,
the spec's MH-BabyAI (6 convolutions of 128 channels on the 7x7 view, GRU, 2 FiLM, LSTM). Each
case trains MH-BabyAI-EB on the no-liar variant from the same seed and reports the median FPS of
its updates after a warm-up update:

- ``socialbench bf16``: the trainer as ``talkitout train`` runs it (bfloat16 autocast);
- ``socialbench fp32``: the same in float32;
- ``torch-ac style fp32``: the reference in the same run, the update as torch-ac does it
  (the model called once per recurrence step on that step's 64 frames), float32.

It also prints the floating-point work per frame, the bound that matters on a CPU: the model's
convolutions cost ~70 MFLOP a frame forward, and PPO runs them 1 + 4 x 3 times a frame.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from socialbench.rl.model import MHBabyAI
from socialbench.rl.ppo import PPOConfig, PPOTrainer
from socialbench.rl.train import RunConfig, make_envs


def conv_flops_per_frame(model: MHBabyAI) -> float:
    """Multiply-adds x 2 of the convolutions for one 7x7 frame (forward)."""
    total = 0
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1]
            total += 2 * 49 * module.in_channels * module.out_channels * k
    return float(total)


def measure(precision: str, step_by_step: bool, updates: int) -> list[float]:
    config = RunConfig(variant="no-liar", precision=precision,
                       ppo=PPOConfig(exploration_bonus=True))
    trainer = PPOTrainer(make_envs(config), config.model, config.ppo, seed=0,
                         precision=precision)
    if step_by_step:  # torch-ac's update: one model call per recurrence step
        loss = trainer._loss
        trainer._loss = lambda rollout, starts, _=False: loss(rollout, starts, True)
    fps = []
    for _ in range(updates + 1):
        start = time.perf_counter()
        trainer.update()
        fps.append(config.ppo.frames_per_update / (time.perf_counter() - start))
    return fps[1:]  # the first update warms up allocators and kernels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=6, help="timed updates per case")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch CPU threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    flops = conv_flops_per_frame(MHBabyAI())
    print(f"MH-BabyAI convolutions: {flops / 1e6:.1f} MFLOP a frame forward; PPO (1 rollout "
          f"pass + 4 epochs x forward and backward) ~{13 * flops / 1e9:.2f} GFLOP a frame")
    print(f"threads: {args.threads}; 16 envs x 40 frames per update; median of "
          f"{args.updates} updates")
    cases = (("socialbench bf16", "bf16", False), ("socialbench fp32", "fp32", False),
             ("torch-ac style fp32 (reference)", "fp32", True))
    results = {}
    for name, precision, step_by_step in cases:
        fps = measure(precision, step_by_step, args.updates)
        results[name] = statistics.median(fps)
        print(f"{name:34s} {results[name]:8.0f} frames/s  (updates: "
              f"{', '.join(f'{x:.0f}' for x in fps)})")
    reference = results["torch-ac style fp32 (reference)"]
    best = results["socialbench bf16"]
    print(f"socialbench bf16 / reference: {best / reference:.2f}x; "
          f"effective {13 * flops * best / 1e12:.2f} TFLOP/s")


if __name__ == "__main__":
    main()
