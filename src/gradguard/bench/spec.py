"""What to measure: plain data, no torch objects, so a spec can be printed and compared."""

from __future__ import annotations

from dataclasses import dataclass

MODEL_MODES = ("grad", "no_grad", "inference_mode", "detach_input", "frozen")
DTYPES = ("float32", "bfloat16", "float16")
DEVICES = ("cpu", "cuda")
MICRO_OPS = ("mul", "matmul")
#: Ops whose cost is the call alone (metadata only), timed on their own in ``bench micro``.
CALL_ONLY_OPS = ("x.detach()", "x.data")

#: Seconds of timing per measurement (``blocked_autorange(min_run_time=...)``).
DEFAULT_MIN_RUN_TIME = 1.0
QUICK_MIN_RUN_TIME = 0.25


@dataclass(frozen=True)
class BenchSpec:
    """One model forward measured under each mode."""

    model: str
    input_shape: tuple[int, ...]
    device: str = "cpu"
    dtype: str = "float32"
    autocast: bool = False
    modes: tuple[str, ...] = MODEL_MODES
    min_run_time: float = DEFAULT_MIN_RUN_TIME
    threads: int | None = None


@dataclass(frozen=True)
class MicroSpec:
    """Single ops on square ``size x size`` operands, under each mode, plus call-only rows."""

    sizes: tuple[int, ...] = (64, 256, 1024)
    ops: tuple[str, ...] = MICRO_OPS
    modes: tuple[str, ...] = MODEL_MODES
    device: str = "cpu"
    dtype: str = "float32"
    min_run_time: float = DEFAULT_MIN_RUN_TIME
    threads: int | None = None
