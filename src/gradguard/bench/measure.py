"""Measuring: forward time, bytes saved for backward, peak memory. Nothing here formats.

- Time: ``torch.utils.benchmark.Timer.blocked_autorange`` (it warms up, picks the number of
  calls per block, syncs CUDA when CUDA is available, and runs with a fixed thread count).
- Bytes saved for backward: during one forward, ``torch.autograd.graph.saved_tensors_hooks``
  sees every tensor autograd saves; each distinct storage is counted once, with its full
  size, however many saved tensors (views, repeated saves) point into it.
- Peak memory during one forward, above the level before it. On CUDA: the caching
  allocator's peak (``torch.cuda.max_memory_allocated``). On CPU: every allocation and free
  made through PyTorch's CPU allocator during the forward is recorded by the PyTorch
  profiler (``profile_memory=True``); the peak is the largest running sum of those events
  in time order. It counts tensors and kernel scratch that go through the allocator,
  including memory freed before the forward returns, and not memory that libraries such as
  BLAS allocate on their own.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import os
import platform
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.utils.benchmark as benchmark
from torch.autograd.graph import saved_tensors_hooks

import gradguard
from gradguard.bench import models as bench_models
from gradguard.bench.errors import BenchInputError
from gradguard.bench.modes import forward_call, model_forward, prepared
from gradguard.bench.spec import CALL_ONLY_OPS, BenchSpec, MicroSpec

#: IQR/median above this marks a measurement as noisy (the threshold torch.utils.benchmark uses).
NOISE_THRESHOLD = 0.10
#: Fewer timed blocks than this and the IQR says nothing: the figure is flagged too.
MIN_RUNS = 3

CPU_PEAK_METHOD = "cpu-allocator-events"
CUDA_PEAK_METHOD = "cuda-max-memory-allocated"

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass(frozen=True)
class Measurement:
    """Times of one call: raw per-call times (one per block) and their statistics."""

    times: tuple[float, ...]
    number_per_run: int
    median: float
    iqr: float
    threads: int

    @property
    def iqr_over_median(self) -> float:
        return self.iqr / self.median if self.median > 0 else 0.0

    @property
    def noisy(self) -> bool:
        """True when IQR/median exceeds 10 %: the median is not to be trusted closely."""
        return self.iqr_over_median > NOISE_THRESHOLD

    @property
    def few_runs(self) -> bool:
        """True when too few blocks were timed for the IQR to mean anything."""
        return len(self.times) < MIN_RUNS

    @classmethod
    def from_torch(cls, m: benchmark.Measurement, threads: int) -> Measurement:
        return cls(
            times=tuple(float(t) for t in m.times),
            number_per_run=int(m.number_per_run),
            median=float(m.median),
            iqr=float(m.iqr),
            threads=threads,
        )


@dataclass(frozen=True)
class SavedForBackward:
    """What autograd saved during one forward, counted once per storage."""

    bytes: int
    storages: int
    param_bytes: int  # of ``bytes``, storages owned by parameters/buffers (no extra memory)
    output_requires_grad: bool


@dataclass(frozen=True)
class ModeResult:
    """One model (or op) under one mode."""

    subject: str  # model name, or op name for micro rows
    mode: str  # a mode name, or "call only" for x.detach() / x.data rows
    time: Measurement
    saved: SavedForBackward
    peak_bytes: int
    size: int | None = None  # micro rows: operands are size x size

    @property
    def call_only(self) -> bool:
        return self.mode == "call only"


@dataclass(frozen=True)
class ModelInfo:
    name: str
    description: str
    input_shape: tuple[int, ...]
    parameters: int
    parameter_bytes: int


@dataclass
class BenchResult:
    """Everything one run measured, plus the environment it ran in."""

    kind: str  # "model" or "micro"
    environment: dict[str, Any]
    settings: dict[str, Any]
    results: list[ModeResult]
    models: list[ModelInfo] = field(default_factory=list)

    def ratio_to_grad(self, row: ModeResult) -> float | None:
        """Median time of ``row`` over the median of ``grad`` on the same model/op and size."""
        if row.call_only:
            return None
        for other in self.results:
            if (other.subject, other.size, other.mode) == (row.subject, row.size, "grad"):
                return row.time.median / other.time.median if other.time.median > 0 else None
        return None


# ----------------------------------------------------------------------------- primitives


def time_call(
    call: Callable[[], Any], min_run_time: float, threads: int, label: str = "", sub_label: str = ""
) -> Measurement:
    """Time ``call()`` with ``Timer.blocked_autorange``."""
    timer = benchmark.Timer(
        stmt="call()",
        globals={"call": call},
        num_threads=threads,
        label=label,
        sub_label=sub_label,
    )
    return Measurement.from_torch(timer.blocked_autorange(min_run_time=min_run_time), threads)


def time_stmt(stmt: str, env: dict[str, Any], min_run_time: float, threads: int, label: str = "") -> Measurement:
    """Time a statement itself (no wrapping function call), for metadata-only calls."""
    timer = benchmark.Timer(stmt=stmt, globals=env, num_threads=threads, label=label)
    return Measurement.from_torch(timer.blocked_autorange(min_run_time=min_run_time), threads)


def _storage_key(t: torch.Tensor) -> tuple[Any, int, int]:
    try:
        storage = t.untyped_storage()
        return (str(t.device), storage.data_ptr(), storage.nbytes())
    except (RuntimeError, NotImplementedError):  # tensors without a plain storage
        return (str(t.device), -id(t), t.numel() * t.element_size())


def any_requires_grad(value: Any) -> bool:
    """Whether any tensor in a (possibly nested) output requires grad."""
    if isinstance(value, torch.Tensor):
        return value.requires_grad
    if isinstance(value, dict):
        return any(any_requires_grad(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(any_requires_grad(v) for v in value)
    return False


def saved_for_backward(call: Callable[[], Any], owned: set[tuple[str, int]] | None = None) -> SavedForBackward:
    """Run ``call()`` once and count the storages autograd saves for backward.

    ``owned`` holds ``(device, data_ptr)`` of parameter and buffer storages: saving those
    costs no memory, so they are reported apart (``param_bytes``).
    """
    seen: dict[tuple[str, int], int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        device, ptr, nbytes = _storage_key(t)
        seen.setdefault((device, ptr), nbytes)
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        out = call()
    requires_grad = any_requires_grad(out)
    del out  # pack returning the tensor itself can leave cycles; peak_bytes collects them
    owned = owned or set()
    return SavedForBackward(
        bytes=sum(seen.values()),
        storages=len(seen),
        param_bytes=sum(n for key, n in seen.items() if key in owned),
        output_requires_grad=requires_grad,
    )


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """Silence fd 2 (the profiler backend prints start/stop lines there)."""
    try:
        sys.stderr.flush()
        saved_fd = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved_fd, 2)
        os.close(saved_fd)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def cpu_peak_bytes(call: Callable[[], Any]) -> int:
    """Peak of CPU-allocator bytes in use during ``call()``, above the level before it.

    The output is kept alive until the recording stops, so what the forward returns (and the
    graph it holds) counts, as it would for the caller.
    """
    from torch.profiler import ProfilerActivity, profile

    # Garbage freed by a collection inside the window would lower the running sum and hide
    # allocations made after it: collect first, and keep the collector off meanwhile.
    gc.collect()
    prof = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
    with _gc_paused():
        with _stderr_silenced():
            prof.start()
        try:
            out = call()
        finally:
            with _stderr_silenced():
                prof.stop()
    cpu = torch._C._autograd.DeviceType.CPU
    events = sorted(
        (e.start_ns(), e.nbytes())
        for e in prof.profiler.kineto_results.events()
        if e.name() == "[memory]" and e.device_type() == cpu
    )
    del out
    level = peak = 0
    for _, nbytes in events:
        level += nbytes
        peak = max(peak, level)
    return peak


def cuda_peak_bytes(call: Callable[[], Any], device: torch.device) -> int:
    """Peak of the CUDA caching allocator during ``call()``, above the level before it."""
    gc.collect()
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    with _gc_paused():
        out = call()
        torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - base
    del out
    return max(0, peak)


def peak_bytes(call: Callable[[], Any], device: torch.device) -> int:
    if device.type == "cuda":
        return cuda_peak_bytes(call, device)
    return cpu_peak_bytes(call)


def peak_method(device: str) -> str:
    return CUDA_PEAK_METHOD if device == "cuda" else CPU_PEAK_METHOD


# ----------------------------------------------------------------------------- environment


def check_device(device: str) -> torch.device:
    if device == "cuda" and not torch.cuda.is_available():
        raise BenchInputError("--device cuda asked for, but torch sees no CUDA device here")
    if device not in ("cpu", "cuda"):
        raise BenchInputError(f"unknown device {device!r}: use cpu or cuda")
    return torch.device(device)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def environment(device: torch.device, dtype: str, threads: int, autocast: bool) -> dict[str, Any]:
    """Where and how the figures were measured."""
    return {
        "gradguard_version": gradguard.__version__,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "device": device.type,
        "device_name": device_name(device),
        "cpu_count": os.cpu_count() or 0,
        "threads": threads,
        "dtype": dtype,
        "autocast": autocast,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


# ----------------------------------------------------------------------------- runs

Progress = Callable[[str], None]


def _no_progress(_: str) -> None:
    pass


def _set_threads(threads: int | None) -> int:
    if threads is not None:
        if threads < 1:
            raise BenchInputError(f"--threads must be at least 1, got {threads}")
        torch.set_num_threads(threads)
    return torch.get_num_threads()


def run_model_bench(specs: list[BenchSpec], quick: bool = False, progress: Progress = _no_progress) -> BenchResult:
    """Measure each spec's model under each of its modes."""
    if not specs:
        raise BenchInputError("no model to measure")
    first = specs[0]
    device = check_device(first.device)
    threads = _set_threads(first.threads)
    dtype = TORCH_DTYPES[first.dtype]
    autocast = (device.type, dtype) if first.autocast else None
    if first.autocast and dtype == torch.float32:
        raise BenchInputError("--autocast needs --dtype bfloat16 or float16")
    result = BenchResult(
        kind="model",
        environment=environment(device, first.dtype, threads, first.autocast),
        settings={
            "quick": quick,
            "min_run_time_s": first.min_run_time,
            "peak_memory_method": peak_method(device.type),
            "modes": list(first.modes),
            "train_mode": False,
        },
        results=[],
    )
    for spec in specs:
        torch.manual_seed(0)
        model, _ = bench_models.load_model(spec.model)
        model = model.to(device=device, dtype=None if autocast else dtype).eval()
        x = torch.randn(spec.input_shape, device=device, dtype=torch.float32 if autocast else dtype)
        try:
            with torch.no_grad():
                model_forward("grad", model, x, autocast)()
        except Exception as exc:
            raise BenchInputError(
                f"model {spec.model!r} cannot run on input of shape "
                f"{','.join(map(str, spec.input_shape))} ({first.dtype}): {_first_line(exc)}"
            ) from exc
        n_params, param_bytes = bench_models.count_parameters(model)
        builtin = bench_models.BUILTIN_MODELS.get(spec.model)
        result.models.append(
            ModelInfo(
                name=spec.model,
                description=builtin.description if builtin else "user model",
                input_shape=tuple(spec.input_shape),
                parameters=n_params,
                parameter_bytes=param_bytes,
            )
        )
        params = list(model.parameters())
        owned = {(str(t.device), t.untyped_storage().data_ptr()) for t in [*params, *model.buffers()]}
        for mode in spec.modes:
            progress(f"{spec.model}: {mode}")
            with prepared(mode, params):
                call = model_forward(mode, model, x, autocast)
                call()  # warm-up outside any recording
                saved = saved_for_backward(call, owned)
                peak = peak_bytes(call, device)
                time = time_call(call, spec.min_run_time, threads, spec.model, mode)
            result.results.append(ModeResult(spec.model, mode, time, saved, peak))
    return result


def _micro_operation(op: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    if op == "mul":
        return torch.mul
    if op == "matmul":
        return torch.matmul
    raise BenchInputError(f"unknown op {op!r}: use mul or matmul")


def micro_steps(spec: MicroSpec) -> int:
    return len(spec.sizes) * (len(spec.ops) * len(spec.modes) + len(CALL_ONLY_OPS))


def run_micro_bench(spec: MicroSpec, quick: bool = False, progress: Progress = _no_progress) -> BenchResult:
    """Single ops on ``x`` (an activation that requires grad) and ``w`` (a weight).

    ``detach_input`` detaches ``x``; ``frozen`` sets ``w.requires_grad_(False)``. The
    ``x.detach()`` and ``x.data`` rows time the call alone: it makes a new tensor header on
    the same storage and does no arithmetic, whatever the size.
    """
    device = check_device(spec.device)
    threads = _set_threads(spec.threads)
    dtype = TORCH_DTYPES[spec.dtype]
    if not spec.sizes or any(n < 1 for n in spec.sizes):
        raise BenchInputError("--sizes must be positive integers")
    result = BenchResult(
        kind="micro",
        environment=environment(device, spec.dtype, threads, False),
        settings={
            "quick": quick,
            "min_run_time_s": spec.min_run_time,
            "peak_memory_method": peak_method(device.type),
            "modes": list(spec.modes),
            "sizes": list(spec.sizes),
            "ops": list(spec.ops),
        },
        results=[],
    )
    for size in spec.sizes:
        torch.manual_seed(0)
        x = torch.randn(size, size, device=device, dtype=dtype, requires_grad=True)
        w = torch.randn(size, size, device=device, dtype=dtype, requires_grad=True)
        for op in spec.ops:
            fn = _micro_operation(op)
            for mode in spec.modes:
                progress(f"{op} {size}x{size}: {mode}")
                with prepared(mode, [w]):
                    call = forward_call(mode, fn, (x, w))
                    call()
                    saved = saved_for_backward(call)
                    peak = peak_bytes(call, device)
                    time = time_call(call, spec.min_run_time, threads, op, mode)
                result.results.append(ModeResult(op, mode, time, saved, peak, size=size))
        for stmt in CALL_ONLY_OPS:
            progress(f"{stmt} {size}x{size}")
            attr = stmt.split(".", 1)[1].rstrip("()")
            call = (lambda: x.detach()) if attr == "detach" else (lambda: x.data)  # noqa: B023 (called in this iteration)
            saved = saved_for_backward(call)
            peak = peak_bytes(call, device)
            time = time_stmt(stmt, {"x": x}, spec.min_run_time, threads, stmt)
            result.results.append(ModeResult(stmt, "call only", time, saved, peak, size=size))
    return result
