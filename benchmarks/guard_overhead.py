"""Overhead of gradguard's runtime guards on one CPU training step.

Measures, in one run and side by side, one optimizer step of a small CNN and of a small
transformer encoder with no guard, under LeakMonitor and under SavedTensorGuard, and prints
each median time as a ratio to the unguarded step (targets: LeakMonitor <= 1.10x,
SavedTensorGuard <= 2.0x).

    python benchmarks/guard_overhead.py [--rounds N] [--block-time SECONDS] [--threads N]

The guards are measured in interleaved rounds and each ratio is the median of per-round
ratios, so that load from other processes on a shared machine affects all three alike.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics

import torch
from torch import nn
from torch.utils import benchmark

import gradguard as gg


def small_cnn() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.BatchNorm2d(32),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 8 * 8, 10),
    )
    return model, torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))


class SmallTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(64, 10)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(tokens)).mean(1))


def small_transformer() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    return SmallTransformer(), torch.randint(0, 1000, (16, 32)), torch.randint(0, 10, (16,))


def make_step(model: nn.Module, x: torch.Tensor, y: torch.Tensor, guard_factory):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    state: dict = {}

    def step() -> None:
        if guard_factory is gg.LeakMonitor:
            # one monitor for the whole run, stepped per iteration as in a real loop
            monitor = state.setdefault("monitor", gg.LeakMonitor().__enter__())
            context = contextlib.nullcontext()
        else:
            monitor = None
            context = guard_factory()
        with context:
            opt.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            opt.step()
        if monitor is not None:
            monitor.step()

    return step, state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--block-time", type=float, default=0.3, help="seconds per measurement")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    guards = {
        "none": contextlib.nullcontext,
        "LeakMonitor": gg.LeakMonitor,
        "SavedTensorGuard": gg.SavedTensorGuard,
    }
    targets = {"LeakMonitor": 1.10, "SavedTensorGuard": 2.0}
    print(
        f"torch {torch.__version__}, {args.threads} threads, {args.rounds} interleaved rounds; "
        "ratio = median over rounds of (guarded / unguarded) measured in the same round"
    )
    print(f"{'model':<18} {'guard':<17} {'median step':>12} {'ratio':>7}  target")
    for model_name, build in (("small CNN", small_cnn), ("small transformer", small_transformer)):
        torch.manual_seed(0)
        model, x, y = build()
        model.train()
        timers, states = {}, []
        for guard_name, factory in guards.items():
            step, state = make_step(model, x, y, factory)
            step()  # warm-up
            states.append(state)
            timers[guard_name] = benchmark.Timer(
                stmt="step()",
                globals={"step": step},
                label="guard overhead",
                sub_label=model_name,
                description=guard_name,
                num_threads=args.threads,
            )
        # Steps per block, from the unguarded step, so that every block lasts ~block_time.
        probe = timers["none"].timeit(3)
        number = max(1, round(args.block_time / probe.median))
        times: dict[str, list[float]] = {name: [] for name in guards}
        for round_index in range(args.rounds):
            names = list(guards)
            names = names[round_index % len(names) :] + names[: round_index % len(names)]
            for name in names:  # rotate the order so no guard always runs first
                times[name].append(timers[name].timeit(number).median)
        for state in states:
            if "monitor" in state:
                state["monitor"].__exit__(None, None, None)
        for name in guards:
            ratio = statistics.median(g / b for g, b in zip(times[name], times["none"]))
            target = targets.get(name)
            verdict = "" if target is None else f"<= {target:.2f}x {'met' if ratio <= target else 'MISSED'}"
            print(
                f"{model_name:<18} {name:<17} {statistics.median(times[name]) * 1e3:>9.2f} ms {ratio:>6.2f}x  {verdict}"
            )


if __name__ == "__main__":
    main()
