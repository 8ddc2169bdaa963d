"""What to measure: plain data, no torch objects, so a spec can be printed, compared and tested."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradguard.bench.modes import ALL_MODES, Mode

#: The built-in models (made in ``models``; named here so that the command line needs no torch).
BUILTIN_MODEL_NAMES = ("mlp", "cnn", "transformer")
DTYPES = ("float32", "bfloat16", "float16")
INPUT_DTYPES = (*DTYPES, "float64", "int64", "int32", "bool")
INTEGER_INPUT_DTYPES = ("int64", "int32")
DEVICES = ("cpu", "cuda")
#: ``bench micro`` groups: two ops under each mode, and the seed article's ``x * 2`` cases.
MICRO_OPS = ("mul", "matmul", "article")
#: The article's tensor: ``torch.randn(1000, 1000, requires_grad=True)``.
ARTICLE_SIZE = 1000
#: Batch size handed to an ``--inputs`` hook when ``--batch`` is not given.
DEFAULT_HOOK_BATCH = 8

#: Seconds of timing per mode, spread over the rounds.
DEFAULT_MIN_RUN_TIME = 2.0
QUICK_MIN_RUN_TIME = 0.25
#: Rotating rounds per measurement: each round times every mode once, in a rotated order.
DEFAULT_ROUNDS = 20
QUICK_ROUNDS = 5
#: Timing runs on one torch thread unless told otherwise: on a shared machine more threads
#: than idle cores make every figure depend on the neighbours.
DEFAULT_THREADS = 1


@dataclass(frozen=True)
class TimingSpec:
    """How long and how: the protocol's knobs."""

    min_run_time: float = DEFAULT_MIN_RUN_TIME
    rounds: int = DEFAULT_ROUNDS
    threads: int = DEFAULT_THREADS
    #: Pin glibc's malloc thresholds so that the order in which modes first run cannot change
    #: the page faults (and time) of the others.
    pin_malloc: bool = True


@dataclass(frozen=True)
class InputSpec:
    """Where a model's inputs come from: a random tensor of ``shape``, or a user hook."""

    shape: tuple[int, ...] | None = None
    dtype: str | None = None  # None: the run's --dtype
    low: float | None = None  # --input-range LOW,HIGH (integers: HIGH excluded)
    high: float | None = None
    hook: str | None = None  # pkg.module:make_inputs, called with the batch size
    batch: int | None = None


@dataclass(frozen=True)
class ModelSpec:
    """One model: a built-in name or ``pkg.module:factory`` with keyword arguments."""

    name: str
    inputs: InputSpec = field(default_factory=InputSpec)
    model_args: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class ModelBench:
    """``bench model``: each model's forward under each mode."""

    models: tuple[ModelSpec, ...]
    modes: tuple[Mode, ...] = ALL_MODES
    device: str = "cpu"
    dtype: str = "float32"
    autocast: bool = False
    train: bool = False
    timing: TimingSpec = field(default_factory=TimingSpec)
    quick: bool = False


@dataclass(frozen=True)
class MicroBench:
    """``bench micro``: single ops on square operands under each mode, and the article's cases."""

    sizes: tuple[int, ...] = (64, 256, 1024)
    ops: tuple[str, ...] = MICRO_OPS
    modes: tuple[Mode, ...] = ALL_MODES
    device: str = "cpu"
    dtype: str = "float32"
    timing: TimingSpec = field(default_factory=TimingSpec)
    quick: bool = False
