"""Training frames per second of the whole PPO loop (rollout + GAE + epochs), in one run:

    python benchmarks/talkitout_training.py [--updates 6] [--threads 2] [--breakdown]

Paper configuration: 16 envs x 40 frames per update, recurrence 10, 4 epochs, one minibatch,
the spec's MH-BabyAI (6 convolutions of 128 channels on the 7x7 view, GRU, 2 FiLM, LSTM). Each
case trains MH-BabyAI-EB on the no-liar variant from the same seed and reports the median FPS of
its updates after a warm-up update:

- ``socialbench bf16``: the trainer as ``talkitout train`` runs it (bfloat16 autocast);
- ``socialbench fp32``: the same in float32;
- ``torch-ac style fp32``: the reference in the same run, the update as torch-ac does it
  (the model called once per recurrence step on that step's 64 frames), float32.

Beside wall-clock frames/s it prints frames per CPU-second of this process, which a busy machine
disturbs less (with one thread; with more, idle OpenMP threads spin and count as CPU time).

It also prints the floating-point work per frame, the bound that matters on a CPU: the model's
convolutions cost ~70 MFLOP a frame forward, and PPO runs them 1 + 4 x 3 times a frame.
``--breakdown`` splits the default case's CPU time: rollout against PPO epochs, and, on one
epoch's fixed batch, the whole loss forward and backward against the model's body (vision,
FiLM, pooling) and against its six convolutions alone (forward and backward, chained).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

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


def make_trainer(precision: str) -> tuple[RunConfig, PPOTrainer]:
    config = RunConfig(variant="no-liar", precision=precision,
                       ppo=PPOConfig(exploration_bonus=True))
    trainer = PPOTrainer(make_envs(config), config.model, config.ppo, seed=0,
                         precision=precision)
    return config, trainer


def measure(precision: str, step_by_step: bool, updates: int
            ) -> tuple[list[float], list[float]]:
    """Frames/s of each update, wall clock and per CPU-second of this process."""
    config, trainer = make_trainer(precision)
    if step_by_step:  # torch-ac's update: one model call per recurrence step
        loss = trainer._loss
        trainer._loss = lambda rollout, starts, _=False: loss(rollout, starts, True)
    wall, cpu = [], []
    for _ in range(updates + 1):
        start, start_cpu = time.perf_counter(), time.process_time()
        trainer.update()
        wall.append(config.ppo.frames_per_update / (time.perf_counter() - start))
        cpu.append(config.ppo.frames_per_update / (time.process_time() - start_cpu))
    return wall[1:], cpu[1:]  # the first update warms up allocators and kernels


def cpu_seconds(work: Callable[[], object], repeats: int) -> float:
    """Median CPU time of ``work`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def breakdown(updates: int) -> None:
    """Where the default case's CPU time goes (see the module docstring)."""
    config, trainer = make_trainer("bf16")
    model, cfg = trainer.model, config.ppo
    trainer.update()  # warm-up
    rollout_s, epochs_s = [], []
    for _ in range(updates):
        start = time.process_time()
        rollout, _ = trainer.collect()
        middle = time.process_time()
        trainer.optimise(rollout)
        rollout_s.append(middle - start)
        epochs_s.append(time.process_time() - middle)
    rollout_t, epochs_t = statistics.median(rollout_s), statistics.median(epochs_s)
    print(f"CPU per update: rollout {rollout_t:.2f} s, {cfg.epochs} PPO epochs {epochs_t:.2f} s")

    starts = torch.arange(0, cfg.frames_per_update, cfg.recurrence)
    index = (starts[None, :] + torch.arange(cfg.recurrence)[:, None]).reshape(-1)
    images = rollout.images[index]
    convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]

    def whole_loss() -> None:
        loss, _ = trainer._loss(rollout, starts)
        loss.backward()

    def body() -> None:
        dialogue, _ = trainer.actor.dialogue_input(trainer.actor.encode(rollout.table),
                                                   rollout.table, rollout.rows[index])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            model.set_batch_groups(cfg.recurrence)
            out = model.body(images, dialogue)
            model.set_batch_groups(1)
        out.float().sum().backward()

    def convolutions() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            x = images.permute(0, 3, 1, 2).float()
            for conv in convs:
                x = conv(x)
        x.float().sum().backward()

    state = {k: v.clone() for k, v in model.state_dict().items()}
    repeats = 2 * updates + 1
    parts = [(name, cpu_seconds(work, repeats)) for name, work in (
        ("loss forward + backward (one epoch)", whole_loss),
        ("  of which the body (vision, FiLM, pooling)", body),
        ("  of which its 6 convolutions alone", convolutions))]
    model.load_state_dict(state)
    model.zero_grad(set_to_none=True)
    whole = parts[0][1]
    for name, seconds in parts:
        print(f"{name:44s} {seconds * 1e3:6.0f} ms CPU ({seconds / whole:4.0%})")
    one_convolution(cfg.frames_per_update, repeats)


def one_convolution(frames: int, repeats: int) -> None:
    """oneDNN's three passes of one 128-channel 3x3 convolution on a batch, in bfloat16."""
    layout = torch.channels_last
    x = torch.randn(frames, 128, 7, 7).to(torch.bfloat16).contiguous(memory_format=layout)
    grad = torch.randn_like(x)
    weight = torch.randn(128, 128, 3, 3).mul_(0.03).to(torch.bfloat16)
    weight = weight.contiguous(memory_format=layout)

    def backward(mask: list[bool]) -> Callable[[], object]:
        return lambda: torch.ops.aten.convolution_backward(
            grad, x, weight, [128], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask)

    passes = (("forward", lambda: torch.nn.functional.conv2d(x, weight, padding=1)),
              ("input gradient", backward([True, False, False])),
              ("weight and bias gradient", backward([False, True, True])))
    print(f"one 128-channel convolution, {frames} frames, bfloat16: " + ", ".join(
        f"{name} {cpu_seconds(work, repeats) * 1e3:.1f} ms" for name, work in passes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=6, help="timed updates per case")
    parser.add_argument("--threads", type=int, default=2, help="PyTorch CPU threads")
    parser.add_argument("--breakdown", action="store_true",
                        help="also split the default case's CPU time (rollout, epochs, body, "
                             "convolutions)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    flops = conv_flops_per_frame(MHBabyAI())
    print(f"MH-BabyAI convolutions: {flops / 1e6:.1f} MFLOP a frame forward; PPO (1 rollout "
          f"pass + 4 epochs x forward and backward) ~{13 * flops / 1e9:.2f} GFLOP a frame")
    print(f"threads: {args.threads}; 16 envs x 40 frames per update; median of "
          f"{args.updates} updates")
    cases = (("socialbench bf16", "bf16", False), ("socialbench fp32", "fp32", False),
             ("torch-ac style fp32 (reference)", "fp32", True))
    results, per_cpu = {}, {}
    for name, precision, step_by_step in cases:
        wall, cpu = measure(precision, step_by_step, args.updates)
        results[name], per_cpu[name] = statistics.median(wall), statistics.median(cpu)
        print(f"{name:34s} {results[name]:8.0f} frames/s, {per_cpu[name]:5.0f} per CPU-second "
              f"(updates: {', '.join(f'{x:.0f}' for x in wall)})")
    reference = "torch-ac style fp32 (reference)"
    best = results["socialbench bf16"]
    print(f"socialbench bf16 / reference: {best / results[reference]:.2f}x wall clock, "
          f"{per_cpu['socialbench bf16'] / per_cpu[reference]:.2f}x per CPU-second; "
          f"effective {13 * flops * best / 1e12:.2f} TFLOP/s")
    if args.breakdown:
        breakdown(args.updates)


if __name__ == "__main__":
    main()
