"""Measuring: the timing protocol, bytes saved for backward, peak and retained memory.

Nothing here formats or decides what to measure.

- Time: ``torch.utils.benchmark.Timer``. Every candidate has run before any is timed (the
  caller's memory measurements do that); each gets a block size (calls per block) so that
  all rounds together take about ``min_run_time``; then rotating rounds time one block of
  each candidate per round, the order shifted by one each round (A B C, B C A, C A B ...),
  so that drift of the machine (load, frequency, allocator state) hits every candidate
  alike and a per-round ratio cancels it. Page faults per call are counted around each block.
- Bytes saved for backward: during one forward, ``torch.autograd.graph.saved_tensors_hooks``
  sees every tensor autograd saves; each distinct storage is counted once, with its full
  size, however many saved tensors (views, repeated saves) point into it; storages owned by
  parameters/buffers and by the inputs are reported apart from new activations.
- Peak memory during one forward, above the level before it. On CUDA: the caching
  allocator's peak (``torch.cuda.max_memory_allocated``). On CPU: every allocation and free
  made through PyTorch's CPU allocator during the forward is recorded by the PyTorch
  profiler (``profile_memory=True``); the peak is the largest running sum of those events
  in time order. It counts tensors and kernel scratch that go through the allocator,
  including memory freed before the forward returns, and not memory that libraries such as
  BLAS allocate on their own. The level at the end, less the output's own storages, is what
  the graph keeps alive after the forward (``retained``).
- Kernel path: the top-level aten ops of one forward, from the same profiler run.
"""

from __future__ import annotations

import ctypes
import datetime
import gc
import os
import platform
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils import benchmark

from gradguard._version import __version__
from gradguard.bench.calls import tensors_in
from gradguard.bench.errors import BenchInputError
from gradguard.bench.quiet import stderr_held
from gradguard.bench.results import Memory, Timing
from gradguard.common.storage import storage_key

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

CPU_PEAK_METHOD = "cpu-allocator-events"
CUDA_PEAK_METHOD = "cuda-max-memory-allocated"

TORCH_DTYPES = {
    "float32": torch.float32,
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float64": torch.float64,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}

#: glibc ``mallopt`` parameters, and the values pinned: the largest mmap threshold glibc's
#: own dynamic adjustment can reach on 64-bit, and a trim threshold no forward reaches.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
PINNED_MMAP_THRESHOLD = 32 * 2**20
PINNED_TRIM_THRESHOLD = 2**30

#: Top-level ops that only move tensor headers: a different set of these is not a different
#: kernel path (``detach_input`` adds ``aten::detach``).
_HEADER_OPS = frozenset({"aten::detach", "aten::alias", "aten::lift_fresh", "aten::requires_grad_", "aten::view"})

StorageId = tuple[str, int]


# ----------------------------------------------------------------------------- timing


@dataclass
class Candidate:
    """One thing to time: a ``Timer``, and the state it needs around its blocks."""

    key: Any
    timer: benchmark.Timer
    around: Callable[[], AbstractContextManager] = nullcontext


def call_timer(call: Callable[[], Any], threads: int, label: str = "", sub_label: str = "") -> benchmark.Timer:
    return benchmark.Timer(stmt="call()", globals={"call": call}, num_threads=threads, label=label, sub_label=sub_label)


def stmt_timer(stmt: str, env: dict[str, Any], threads: int, label: str = "") -> benchmark.Timer:
    """Time a statement as written (no wrapping function call), e.g. ``x.detach()``."""
    return benchmark.Timer(stmt=stmt, globals=env, num_threads=threads, label=label)


def page_faults() -> int | None:
    """Minor plus major page faults of this process so far (None where unknown)."""
    if resource is None:
        return None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_minflt + usage.ru_majflt


def block_size(timer: benchmark.Timer, target: float) -> int:
    """Calls per block so that one block takes about ``target`` seconds."""
    number = 1
    while True:
        elapsed = timer.timeit(number).times[0] * number
        if elapsed >= min(0.2 * target, 0.05) or number >= 10**7:
            break
        number *= 10
    return max(1, round(number * target / max(elapsed, 1e-9)))


def time_interleaved(
    candidates: Sequence[Candidate],
    min_run_time: float,
    rounds: int,
    threads: int,
    progress: Callable[[str], None] | None = None,
) -> dict[Any, Timing]:
    """Time each candidate in ``rounds`` rotating rounds; per-call times with their round."""
    if not candidates:
        return {}
    target = min_run_time / rounds
    numbers = {}
    for c in candidates:
        with c.around():
            numbers[c.key] = block_size(c.timer, target)
    times: dict[Any, list[float]] = {c.key: [] for c in candidates}
    round_of: dict[Any, list[int]] = {c.key: [] for c in candidates}
    faults: dict[Any, list[int]] = {c.key: [] for c in candidates}
    for r in range(rounds):
        if progress is not None:
            progress(f"round {r + 1}/{rounds}")
        shift = r % len(candidates)
        for c in [*candidates[shift:], *candidates[:shift]]:
            with c.around():
                before = page_faults()
                measurement = c.timer.timeit(numbers[c.key])
                after = page_faults()
            times[c.key].append(float(measurement.times[0]))
            round_of[c.key].append(r)
            if before is not None and after is not None:
                faults[c.key].append(after - before)
    return {
        c.key: Timing(
            times=tuple(times[c.key]),
            rounds=tuple(round_of[c.key]),
            number_per_run=numbers[c.key],
            threads=threads,
            page_faults_per_call=(sum(faults[c.key]) / (numbers[c.key] * rounds)) if faults[c.key] else None,
        )
        for c in candidates
    }


# ----------------------------------------------------------------------------- memory


@dataclass(frozen=True)
class Saved:
    bytes: int
    storages: int
    param_bytes: int
    input_bytes: int
    output_requires_grad: bool


def storage_id(t: torch.Tensor) -> StorageId:
    device, ptr, _ = storage_key(t)
    return (device, ptr)


def storage_ids(tensors: Iterator[torch.Tensor] | Sequence[torch.Tensor]) -> set[StorageId]:
    return {storage_id(t) for t in tensors}


def saved_for_backward(
    call: Callable[[], Any], owned: set[StorageId] | None = None, inputs: set[StorageId] | None = None
) -> Saved:
    """Run ``call()`` once and count the storages autograd saves for backward.

    ``owned`` holds the storages of parameters and buffers, ``inputs`` those of the inputs:
    saving either costs no new memory, so they are reported apart.
    """
    seen: dict[StorageId, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        device, ptr, nbytes = storage_key(t)
        seen.setdefault((device, ptr), nbytes)
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        out = call()
    requires_grad = any(t.requires_grad for t in tensors_in(out))
    del out  # pack returning the tensor itself can leave cycles; the peak measurement collects them
    owned = owned or set()
    inputs = inputs or set()
    return Saved(
        bytes=sum(seen.values()),
        storages=len(seen),
        param_bytes=sum(n for key, n in seen.items() if key in owned),
        input_bytes=sum(n for key, n in seen.items() if key in inputs and key not in owned),
        output_requires_grad=requires_grad,
    )


@contextmanager
def _gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class ForwardProfile:
    peak_bytes: int
    end_bytes: int  # still in use at the end, the output alive
    top_level_ops: tuple[str, ...]


def _top_level_ops(events: list[tuple[int, int, str]]) -> tuple[str, ...]:
    """Names of the aten ops not nested in another one, from (start, end, name) events."""
    names: list[str] = []
    end_of_current = -1
    for start, end, name in sorted(events):
        if start >= end_of_current:
            names.append(name)
            end_of_current = end
    return tuple(dict.fromkeys(names))


def profile_forward(call: Callable[[], Any], keep: list[Any] | None = None) -> ForwardProfile:
    """One ``call()`` under the PyTorch profiler: CPU allocator peak and end level, top-level ops.

    The output is kept alive until the recording stops, so what the forward returns (and the
    graph it holds) counts, as it would for the caller. ``keep`` receives the output.
    """
    from torch.profiler import ProfilerActivity, profile

    # Garbage freed by a collection inside the window would lower the running sum and hide
    # allocations made after it: collect first, and keep the collector off meanwhile. The
    # young generations hold what the previous calls left (cycles through saved tensors); a
    # full collection costs a quarter of a second once torch is imported, for nothing.
    gc.collect(1)
    prof = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
    with _gc_paused():
        with stderr_held():  # the profiler backend prints start/stop lines on fd 2
            prof.start()
        try:
            out = call()
        finally:
            with stderr_held():
                prof.stop()
    cpu = torch._C._autograd.DeviceType.CPU
    memory: list[tuple[int, int]] = []
    ops: list[tuple[int, int, str]] = []
    for e in prof.profiler.kineto_results.events():
        name = e.name()
        if name == "[memory]":
            if e.device_type() == cpu:
                memory.append((e.start_ns(), e.nbytes()))
        elif name.startswith("aten::"):
            ops.append((e.start_ns(), e.start_ns() + e.duration_ns(), name))
    if keep is not None:
        keep.append(out)
    del out
    level = peak = 0
    for _, nbytes in sorted(memory):
        level += nbytes
        peak = max(peak, level)
    return ForwardProfile(peak_bytes=peak, end_bytes=level, top_level_ops=_top_level_ops(ops))


def cuda_peak_and_end(call: Callable[[], Any], device: torch.device, keep: list[Any] | None = None) -> tuple[int, int]:
    """Peak of the CUDA caching allocator during ``call()`` and its level at the end, above before."""
    gc.collect(1)
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    with _gc_paused():
        out = call()
        torch.cuda.synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - base
    end = torch.cuda.memory_allocated(device) - base
    if keep is not None:
        keep.append(out)
    del out
    return max(0, peak), max(0, end)


def new_output_bytes(out: Any, existing: set[StorageId]) -> int:
    """Bytes of the output's own storages that were not there before the call."""
    seen: dict[StorageId, int] = {}
    for t in tensors_in(out):
        device, ptr, nbytes = storage_key(t)
        if (device, ptr) not in existing:
            seen.setdefault((device, ptr), nbytes)
    return sum(seen.values())


def _scalar_loss(out: Any) -> torch.Tensor | None:
    parts = [t.float().sum() for t in tensors_in(out) if t.requires_grad and t.is_floating_point()]
    return torch.stack(parts).sum() if parts else None


def forward_backward_peak(call: Callable[[], Any], params: list[torch.Tensor], device: torch.device) -> int | None:
    """Peak above the level before of one forward plus ``backward()`` of the sum of its outputs.

    Parameter gradients are cleared before and after: the peak includes allocating them, as
    the first step of a training loop does. None when the output carries no graph.
    """

    def step() -> Any:
        out = call()
        loss = _scalar_loss(out)
        if loss is None:
            return None
        loss.backward()
        return out

    def clear() -> None:
        for p in params:
            p.grad = None

    clear()
    if step() is None:  # warm-up of the backward, and the check that there is one
        return None
    clear()
    if device.type == "cuda":
        peak, _ = cuda_peak_and_end(step, device)
    else:
        peak = profile_forward(step).peak_bytes
    clear()
    return peak


def measure_memory(
    call: Callable[[], Any],
    device: torch.device,
    owned: set[StorageId],
    inputs: set[StorageId],
    backward_params: list[torch.Tensor] | None = None,
) -> tuple[Memory, tuple[str, ...]]:
    """Saved, retained and peak bytes of one forward, and its top-level ops."""
    saved = saved_for_backward(call, owned, inputs)
    existing = owned | inputs
    kept: list[Any] = []
    if device.type == "cuda":
        peak, end = cuda_peak_and_end(call, device, kept)
        ops = profile_forward(call).top_level_ops
    else:
        prof = profile_forward(call, kept)
        peak, end, ops = prof.peak_bytes, prof.end_bytes, prof.top_level_ops
    output_bytes = new_output_bytes(kept[0], existing)
    kept.clear()
    fwd_bwd = forward_backward_peak(call, backward_params, device) if backward_params is not None else None
    return (
        Memory(
            saved_bytes=saved.bytes,
            saved_storages=saved.storages,
            saved_param_bytes=saved.param_bytes,
            saved_input_bytes=saved.input_bytes,
            retained_bytes=max(0, end - output_bytes),
            peak_bytes=peak,
            output_requires_grad=saved.output_requires_grad,
            peak_forward_backward_bytes=fwd_bwd,
        ),
        ops,
    )


def kernel_difference(ops: Sequence[str], baseline_ops: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Top-level ops run here and not by the baseline, and the reverse (header-only ops aside)."""
    here, base = set(ops) - _HEADER_OPS, set(baseline_ops) - _HEADER_OPS
    return tuple(o for o in ops if o in here - base), tuple(o for o in baseline_ops if o in base - here)


def peak_method(device: str) -> str:
    return CUDA_PEAK_METHOD if device == "cuda" else CPU_PEAK_METHOD


# ----------------------------------------------------------------------------- the process


@dataclass
class MallocState:
    pinned: bool
    mmap_threshold: int | None = None
    trim_threshold: int | None = None
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"pinned": self.pinned}
        if self.pinned:
            data.update(mmap_threshold=self.mmap_threshold, trim_threshold=self.trim_threshold)
        else:
            data["reason"] = self.reason
        return data


def pin_malloc_thresholds() -> MallocState:
    """Fix glibc's mmap and trim thresholds for the rest of the process.

    By default glibc raises its mmap threshold when a large mmapped block is freed, so
    whichever mode runs first decides whether the others' large tensors come from fresh
    mmapped pages (a page fault per 4 KiB touched, every call) or from reused heap memory:
    measured on the cnn, about 3,600 faults per call for grad when grad runs first and
    10,000 for both modes when no_grad does. Pinned, every mode reuses the heap after its
    first call, whatever the order. Tensors over 32 MiB are still mmapped every call.
    """
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return MallocState(False, reason="not glibc: thresholds left as they are")
    try:
        libc = ctypes.CDLL("libc.so.6")
        ok = libc.mallopt(M_MMAP_THRESHOLD, PINNED_MMAP_THRESHOLD) == 1
        ok = libc.mallopt(M_TRIM_THRESHOLD, PINNED_TRIM_THRESHOLD) == 1 and ok
    except (OSError, AttributeError) as exc:
        return MallocState(False, reason=f"mallopt unavailable: {exc}")
    if not ok:
        return MallocState(False, reason="mallopt refused the thresholds")
    return MallocState(True, PINNED_MMAP_THRESHOLD, PINNED_TRIM_THRESHOLD)


def unpinned(reason: str) -> MallocState:
    return MallocState(False, reason=reason)


def load_average() -> list[float] | None:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def threads_warning(threads: int) -> str | None:
    """A warning when the timing threads exceed the cores other processes leave idle."""
    load = load_average()
    cores = os.cpu_count() or 1
    if load is None:
        return None
    idle = max(0.0, cores - load[0])
    if threads <= idle:
        return None
    return (
        f"{threads} torch thread{'s' if threads > 1 else ''} and about {idle:.1f} idle "
        f"core{'s' if idle != 1 else ''} (load average {load[0]:.2f} on {cores}): the times "
        "depend on the other processes; the ratios, measured side by side, less so"
    )


def check_device(device: str) -> torch.device:
    if device not in ("cpu", "cuda"):
        raise BenchInputError(f"unknown device {device!r}: use cpu or cuda")
    if device == "cuda" and not torch.cuda.is_available():
        raise BenchInputError("--device cuda asked for, but torch sees no CUDA device here")
    return torch.device(device)


def set_threads(threads: int) -> int:
    if threads < 1:
        raise BenchInputError(f"--threads must be at least 1, got {threads}")
    torch.set_num_threads(threads)
    return torch.get_num_threads()


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


@dataclass
class Environment:
    """Where and how the figures were measured; the load is read before and after."""

    device: torch.device
    dtype: str
    threads: int
    autocast: bool
    malloc: MallocState
    load_before: list[float] | None = field(default_factory=load_average)

    def as_dict(self) -> dict[str, Any]:
        return {
            "gradguard_version": __version__,
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "platform": platform.platform(),
            "device": self.device.type,
            "device_name": device_name(self.device),
            "cpu_count": os.cpu_count() or 0,
            "threads": self.threads,
            "dtype": self.dtype,
            "autocast": self.autocast,
            "malloc": self.malloc.as_dict(),
            "load_average_before": self.load_before,
            "load_average_after": load_average(),
            "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
