"""Overhead of gradguard's runtime guards on CPU training steps, side by side with detect_anomaly.

One optimizer step (zero_grad, forward, loss, backward, step) of a ResNet-18, a small BERT and a
small GPT-2 (random weights, nothing downloaded), measured in one run under each mode:

- ``none``: plain torch;
- ``detect_anomaly``: ``torch.autograd.detect_anomaly()``;
- ``gradguard run``: the session ``gradguard run`` starts (SavedTensorGuard, LeakMonitor, steps
  advanced from the optimizer's step hook, the GG201/GG303/GG210/GG503 twins);
- ``SavedTensorGuard`` and ``LeakMonitor`` alone (one monitor for the whole block, stepped by
  hand once per step).

Rounds are interleaved and the order of the modes rotates every round; each round measures one
block of steps per mode with ``torch.utils.benchmark.Timer``. The ratio of a mode is the median
over rounds of (its step time / the unguarded step time of the same round), with the
interquartile range of those per-round ratios. Target: ``gradguard run`` <= 1.25x.

    python benchmarks/guard_overhead.py [--rounds N] [--block-time S] [--threads N] [--models ...]
                                        [--clock process|wall]

The default clock is the process's CPU time (``time.process_time``, one torch thread): on a
machine shared with other jobs it counts this process's work only, where wall time also counts
the waits for a core. ``--clock wall`` measures wall time.

The ResNet-18 is built from torch.nn (torchvision's PyPI build does not import beside torch
2.13.0 here); BERT and GPT-2 come from ``transformers`` configurations when it is installed, and
from torch.nn equivalents otherwise (the output says which).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
import warnings

import torch
from torch import nn
from torch.utils import benchmark

import gradguard as gg
from gradguard.runtime.session import Session

# -- models -------------------------------------------------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    """torchvision's resnet18 layout: 7x7 stem, four stages of two BasicBlocks, 11.7 M parameters."""

    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
        )
        layers, cin = [], 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.layers(self.stem(x)).mean((2, 3)))


def resnet18():
    model = ResNet18()
    x, y = torch.randn(8, 3, 64, 64), torch.randint(0, 1000, (8,))
    return model, lambda m: nn.functional.cross_entropy(m(x), y), "torch.nn ResNet-18, batch 8x3x64x64"


class _TinyEncoder(nn.Module):
    def __init__(self, causal: bool) -> None:
        super().__init__()
        self.causal = causal
        self.embed = nn.Embedding(1000, 128)
        self.pos = nn.Embedding(128, 128)
        layer = nn.TransformerEncoderLayer(128, 2, 512, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(128, 1000 if causal else 2)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens) + self.pos(torch.arange(tokens.shape[1]))
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1]) if self.causal else None
        h = self.encoder(h, mask=mask, is_causal=self.causal)
        return self.head(h if self.causal else h[:, 0])


def small_bert():
    tokens, labels = torch.randint(0, 1000, (8, 128)), torch.randint(0, 2, (8,))
    try:
        from transformers import BertConfig, BertForSequenceClassification
    except ImportError:
        model = _TinyEncoder(causal=False)
        return model, lambda m: nn.functional.cross_entropy(m(tokens), labels), "torch.nn encoder (no transformers)"
    config = BertConfig(
        vocab_size=1000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024
    )
    model = BertForSequenceClassification(config)
    return model, lambda m: m(input_ids=tokens, labels=labels).loss, "transformers BERT 4 layers x 256, batch 8x128"


def small_gpt2():
    tokens = torch.randint(0, 1000, (8, 128))
    try:
        from transformers import GPT2Config, GPT2LMHeadModel
    except ImportError:
        model = _TinyEncoder(causal=True)

        def loss(m: nn.Module) -> torch.Tensor:
            return nn.functional.cross_entropy(m(tokens)[:, :-1].reshape(-1, 1000), tokens[:, 1:].reshape(-1))

        return model, loss, "torch.nn causal encoder (no transformers)"
    config = GPT2Config(
        vocab_size=1000, n_positions=128, n_embd=256, n_layer=4, n_head=4, bos_token_id=0, eos_token_id=0
    )
    model = GPT2LMHeadModel(config)
    return model, lambda m: m(input_ids=tokens, labels=tokens).loss, "transformers GPT-2 4 layers x 256, batch 8x128"


MODELS = {"resnet18": resnet18, "bert": small_bert, "gpt2": small_gpt2}

# -- modes --------------------------------------------------------------------------------------


class _ManualMonitor:
    """One LeakMonitor for the block, stepped by hand once per step."""

    def __init__(self) -> None:
        self.monitor = gg.LeakMonitor(patience=10**9)

    def __enter__(self) -> "_ManualMonitor":
        self.monitor.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.monitor.__exit__(*exc)


def _anomaly() -> contextlib.AbstractContextManager:
    return torch.autograd.detect_anomaly(check_nan=True)


MODES = {
    "none": contextlib.nullcontext,
    "detect_anomaly": _anomaly,
    "gradguard run": Session,
    "SavedTensorGuard": gg.SavedTensorGuard,
    "LeakMonitor": _ManualMonitor,
}


def make_step(model: nn.Module, loss_fn, current: dict):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss_fn(model).backward()
        opt.step()
        manual = current.get("context")
        if isinstance(manual, _ManualMonitor):
            manual.monitor.step()

    return step


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--block-time", type=float, default=0.5, help="seconds per block (default 0.5)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: " + ", ".join(MODES))
    parser.add_argument("--clock", choices=("process", "wall"), default="process", help="default: process CPU time")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    warnings.simplefilter("ignore")  # detect_anomaly warns that it is slow, on every entry
    modes = [m.strip() for m in args.modes.split(",")]
    print(
        f"torch {torch.__version__}, {args.threads} thread(s), {args.clock} clock, {args.rounds} interleaved rounds, "
        "order rotated each round; ratio = median over rounds of (mode / none) in the same round, "
        "[IQR of the per-round ratios]"
    )
    print(f"{'model':<10} {'mode':<17} {'median step':>12} {'ratio':>7} {'IQR':>15}")
    for model_name in [m.strip() for m in args.models.split(",")]:
        torch.manual_seed(0)
        model, loss_fn, description = MODELS[model_name]()
        model.train()
        current: dict = {}
        step = make_step(model, loss_fn, current)
        for _ in range(2):
            step()  # warm-up
        clock = time.process_time if args.clock == "process" else time.perf_counter
        timer = benchmark.Timer(stmt="step()", globals={"step": step}, num_threads=args.threads, timer=clock)
        number = max(1, round(args.block_time / timer.timeit(2).median))
        times: dict[str, list[float]] = {name: [] for name in modes}
        for round_index in range(args.rounds):
            order = modes[round_index % len(modes) :] + modes[: round_index % len(modes)]
            for name in order:
                with MODES[name]() as context:
                    current["context"] = context
                    times[name].append(timer.timeit(number).median)
                current.clear()
        print(f"{model_name:<10} ({description}; {number} steps per block)")
        for name in modes:
            ratios = [t / b for t, b in zip(times[name], times["none"])]
            low, high = quartiles(ratios)
            target = "  <= 1.25x " + ("met" if statistics.median(ratios) <= 1.25 else "MISSED")
            print(
                f"{'':<10} {name:<17} {statistics.median(times[name]) * 1e3:>9.2f} ms "
                f"{statistics.median(ratios):>6.2f}x  [{low:.2f}-{high:.2f}]"
                + (target if name == "gradguard run" else "")
            )


if __name__ == "__main__":
    main()
