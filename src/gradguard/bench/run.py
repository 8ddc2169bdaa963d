"""Runs a spec: builds the calls, measures them (``measure``) and returns results (``results``).

The order inside one model (or micro group) is the protocol's: every mode is run once and
its memory measured before any is timed; then all modes are timed in rotating rounds; then
each mode's per-round ratio to ``grad`` is taken. A mode that raises is recorded as
"cannot run" and the others go on; a model no mode can run is bad input.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import torch

from gradguard.bench import measure
from gradguard.bench.calls import forward_call, frozen_parameters, grad_context, prepared
from gradguard.bench.errors import BenchInputError
from gradguard.bench.models import count_parameters, load_model, make_inputs
from gradguard.bench.modes import BASELINE, Mode
from gradguard.bench.results import BenchResult, KernelPath, Memory, ModelInfo, Ratio, Row, Timing
from gradguard.bench.spec import ARTICLE_SIZE, MicroBench, ModelBench, TimingSpec
from gradguard.common.text import first_line

Progress = Callable[[str], None]


def _no_progress(_: str) -> None:
    pass


@dataclass
class Subject:
    """One mode of one model (or one micro case), ready to be measured and timed."""

    key: str  # the row's case
    mode: Mode
    call: Callable[[], Any]
    around: Callable[[], AbstractContextManager]
    timer: Any  # benchmark.Timer
    baseline: bool = False
    note: str = ""
    memory: Memory | None = None
    ops: tuple[str, ...] = ()
    error: str | None = None


def _measure_group(
    subjects: list[Subject],
    subject_name: str,
    size: int | None,
    device: torch.device,
    owned: set[measure.StorageId],
    inputs: set[measure.StorageId],
    params: list[torch.Tensor],
    timing: TimingSpec,
    progress: Progress,
) -> list[Row]:
    """Warm up and measure memory of every subject, then time the ones that ran, interleaved."""
    for s in subjects:
        progress(f"{subject_name}: {s.key}")
        try:
            with s.around():
                s.call()  # warm-up, and the check that the mode can run at all
                s.memory, s.ops = measure.measure_memory(
                    s.call, device, owned, inputs, backward_params=params if s.baseline else None
                )
        except Exception as exc:  # noqa: BLE001 - a mode that cannot run is a result, not a crash
            s.error = first_line(exc)
    working = [s for s in subjects if s.error is None]
    timings: dict[str, Timing] = {}
    if working:
        candidates = [measure.Candidate(s.key, s.timer, s.around) for s in working]
        try:
            timings = measure.time_interleaved(
                candidates,
                timing.min_run_time,
                timing.rounds,
                timing.threads,
                lambda label: progress(f"{subject_name}: {label}"),
            )
        except Exception as exc:  # noqa: BLE001 - a call that ran once but fails when repeated
            for s in working:
                s.error = s.error or first_line(exc)
    base = next((s for s in subjects if s.baseline and s.error is None), None)
    base_timing = timings.get(base.key) if base else None
    rows = []
    for s in subjects:
        t = timings.get(s.key) if s.error is None else None
        ratio = None
        if t is not None and base_timing is not None:
            ratio = Ratio((1.0,) * len(set(t.rounds))) if s is base else Ratio.between(t, base_timing)
        kernel = None
        if base is not None and s is not base and s.error is None:
            here, base_only = measure.kernel_difference(s.ops, base.ops)
            if here or base_only:
                kernel = KernelPath(here, base_only)
        rows.append(
            Row(
                subject=subject_name,
                case=s.key,
                mode=s.mode,
                size=size,
                baseline=s.baseline,
                timing=t,
                ratio=ratio,
                memory=s.memory if s.error is None else None,
                kernel_path=kernel,
                error=s.error,
                note=s.note,
            )
        )
    return rows


def _begin(device_name: str, dtype: str, threads: int, autocast: bool, pin: bool) -> measure.Environment:
    device = measure.check_device(device_name)
    actual = measure.set_threads(threads)
    malloc = measure.pin_malloc_thresholds() if pin else measure.unpinned("--no-pin-malloc")
    return measure.Environment(device, dtype, actual, autocast, malloc)


def _warnings(threads: int, malloc: measure.MallocState, pin: bool) -> list[str]:
    found = []
    warning = measure.threads_warning(threads)
    if warning:
        found.append(warning)
    if pin and not malloc.pinned:
        found.append(f"malloc thresholds not pinned ({malloc.reason}): the mode order may change page faults")
    return found


def run_model_bench(bench: ModelBench, progress: Progress = _no_progress) -> BenchResult:
    """Measure each model's forward under each mode."""
    if not bench.models:
        raise BenchInputError("no model to measure")
    if not bench.modes:
        raise BenchInputError("--modes: no mode named")
    dtype = measure.TORCH_DTYPES[bench.dtype]
    if bench.autocast and dtype == torch.float32:
        raise BenchInputError("--autocast needs --dtype bfloat16 or float16")
    env = _begin(bench.device, bench.dtype, bench.timing.threads, bench.autocast, bench.timing.pin_malloc)
    device = env.device
    autocast = (device.type, dtype) if bench.autocast else None
    result = BenchResult(
        kind="model",
        environment={},
        settings={
            "quick": bench.quick,
            "min_run_time_s": bench.timing.min_run_time,
            "rounds": bench.timing.rounds,
            "peak_memory_method": measure.peak_method(device.type),
            "modes": [m.value for m in bench.modes],
            "train_mode": bench.train,
        },
        rows=[],
        warnings=_warnings(env.threads, env.malloc, bench.timing.pin_malloc),
    )
    for spec in bench.models:
        torch.manual_seed(0)
        loaded = load_model(spec)
        try:
            model = loaded.module.to(device=device, dtype=None if autocast else dtype)
        except Exception as exc:  # noqa: BLE001 - user modules may refuse a device or dtype
            raise BenchInputError(
                f"model {spec.name!r} cannot move to {device} {bench.dtype}: {first_line(exc)}"
            ) from None
        model.train(bench.train)
        inputs = make_inputs(
            spec.inputs, loaded, spec.name, device, torch.float32 if autocast else dtype, measure.TORCH_DTYPES
        )
        params = list(model.parameters())
        owned = measure.storage_ids([*params, *model.buffers()])
        input_ids = measure.storage_ids(inputs.tensors())
        n_params, param_bytes = count_parameters(model)
        info = ModelInfo(
            name=spec.name,
            description=loaded.description,
            inputs=inputs.describe(),
            batch=inputs.batch,
            parameters=n_params,
            parameter_bytes=param_bytes,
            model_args=tuple((k, repr(v)) for k, v in spec.model_args),
        )
        subjects = []
        for mode in bench.modes:
            call = forward_call(mode, model, inputs.args, inputs.kwargs, autocast)
            subjects.append(
                Subject(
                    key=mode.value,
                    mode=mode,
                    call=call,
                    around=lambda mode=mode, params=params: prepared(mode, params),
                    timer=measure.call_timer(call, env.threads, spec.name, mode.value),
                    baseline=mode is BASELINE,
                )
            )
        rows = _measure_group(subjects, spec.name, None, device, owned, input_ids, params, bench.timing, progress)
        if all(r.error for r in rows):
            first = rows[0].error
            where = (
                f"input of shape {','.join(map(str, info.input_shape))} ({info.inputs[0].dtype})"
                if len(info.inputs) == 1 and info.inputs[0].name == "args[0]"
                else f"its inputs ({info.inputs_text})"
            )
            raise BenchInputError(f"model {spec.name!r} cannot run on {where} in any mode asked for: {first}")
        result.models.append(info)
        result.rows.extend(rows)
        del model, inputs, subjects, loaded
        gc.collect()
    result.environment = env.as_dict()
    return result


# ----------------------------------------------------------------------------- micro


@dataclass(frozen=True)
class MicroCase:
    """A statement as written, the grad context it runs in, and why it saves what it saves."""

    statement: str  # an expression
    mode: Mode
    context: str | None = None  # "no_grad" / "inference_mode": the statement runs inside it
    #: The ``with`` is part of what is timed (the article's cases, as written there); else it
    #: is entered around each block, as a model's forward enters it once for all its ops.
    timed_context: bool = False
    frozen: bool = False  # w.requires_grad_(False) around it
    baseline: bool = False
    note: str = ""

    @property
    def label(self) -> str:
        if self.context and self.timed_context:
            return f"with torch.{self.context}(): {self.statement}"
        if self.context:
            return f"{self.statement}  (in torch.{self.context}())"
        if self.frozen:
            return f"{self.statement}  (w.requires_grad=False)"
        return self.statement

    @property
    def timer_stmt(self) -> str:
        if self.context and self.timed_context:
            return f"with torch.{self.context}():\n    {self.statement}"
        return self.statement

    def around(self, w: torch.Tensor | None) -> AbstractContextManager:
        """What is entered around each timed block (and each memory measurement)."""
        if self.frozen and w is not None:
            return frozen_parameters([w])
        if self.context and not self.timed_context:
            return grad_context(self.mode)
        return nullcontext()


def op_cases(op: str) -> list[MicroCase]:
    """One op on ``x`` (an activation that requires grad) and ``w`` (a weight) under each mode."""
    expr = {"mul": "x * w", "matmul": "x @ w"}[op]
    detached = {"mul": "x.detach() * w", "matmul": "x.detach() @ w"}[op]
    return [
        MicroCase(expr, Mode.GRAD, baseline=True),
        MicroCase(expr, Mode.NO_GRAD, context="no_grad"),
        MicroCase(expr, Mode.INFERENCE_MODE, context="inference_mode"),
        MicroCase(detached, Mode.DETACH_INPUT),
        MicroCase(expr, Mode.FROZEN, frozen=True),
    ]


#: The seed article compared ``x.detach()`` with ``x * 2`` under ``no_grad``; the fair
#: comparison does the same arithmetic in each case. ``x = torch.randn(1000, 1000,
#: requires_grad=True)``. The mode is the grad mode the statement runs in.
ARTICLE_CASES = (
    MicroCase(
        "x * 2",
        Mode.GRAD,
        baseline=True,
        note="graph recorded (MulBackward0), yet nothing saved: the gradient of x * 2 is the constant 2",
    ),
    MicroCase(
        "x.detach()",
        Mode.GRAD,
        note="no arithmetic: a new tensor header on x's storage; allocates and saves nothing",
    ),
    MicroCase(
        "x * 2",
        Mode.NO_GRAD,
        context="no_grad",
        timed_context=True,
        note="nothing recorded under no_grad; the same product is computed",
    ),
    MicroCase(
        "x.detach() * 2",
        Mode.GRAD,
        note="the operand needs no gradient, so nothing is recorded: the fair counterpart of no_grad",
    ),
    MicroCase(
        "x.data * 2",
        Mode.GRAD,
        note="as x.detach() * 2 (.data also skips the version counter, which only in-place writes notice)",
    ),
)


def _compile(case: MicroCase, env: dict[str, Any]) -> Callable[[], Any]:
    """The case's statement as a zero-argument call returning its value (for the memory figures)."""
    code = compile(case.statement, "<case>", "eval")
    context = (lambda: grad_context(case.mode)) if case.context and case.timed_context else nullcontext

    def call() -> Any:
        with context():
            return eval(code, env)  # our own fixed statements

    return call


def _micro_subjects(cases: list[MicroCase], env: dict[str, Any], w: torch.Tensor | None, threads: int) -> list[Subject]:
    subjects = []
    for case in cases:
        subjects.append(
            Subject(
                key=case.label,
                mode=case.mode,
                call=_compile(case, env),
                around=lambda case=case: case.around(w),
                timer=measure.stmt_timer(case.timer_stmt, env, threads, case.label),
                baseline=case.baseline,
                note=case.note,
            )
        )
    return subjects


def micro_steps(bench: MicroBench) -> int:
    """Progress steps of a micro run (a memory step per case, a step per round)."""
    ops = [op for op in bench.ops if op != "article"]
    per_op = len(bench.modes) + bench.timing.rounds
    article = len(ARTICLE_CASES) + bench.timing.rounds if "article" in bench.ops else 0
    return len(bench.sizes) * len(ops) * per_op + article


def run_micro_bench(bench: MicroBench, progress: Progress = _no_progress) -> BenchResult:
    """Single ops under each mode (``mul``, ``matmul``) and the article's cases."""
    if not bench.sizes or any(n < 1 for n in bench.sizes):
        raise BenchInputError("--sizes must be positive integers")
    if not bench.ops:
        raise BenchInputError("--ops: no op named")
    env = _begin(bench.device, bench.dtype, bench.timing.threads, False, bench.timing.pin_malloc)
    device, dtype = env.device, measure.TORCH_DTYPES[bench.dtype]
    result = BenchResult(
        kind="micro",
        environment={},
        settings={
            "quick": bench.quick,
            "min_run_time_s": bench.timing.min_run_time,
            "rounds": bench.timing.rounds,
            "peak_memory_method": measure.peak_method(device.type),
            "modes": [m.value for m in bench.modes],
            "sizes": list(bench.sizes),
            "ops": list(bench.ops),
        },
        rows=[],
        warnings=_warnings(env.threads, env.malloc, bench.timing.pin_malloc),
    )
    for size in bench.sizes:
        for op in (o for o in bench.ops if o != "article"):
            torch.manual_seed(0)
            x = torch.randn(size, size, device=device, dtype=dtype, requires_grad=True)
            w = torch.randn(size, size, device=device, dtype=dtype, requires_grad=True)
            cases = [c for c in op_cases(op) if c.mode in bench.modes]
            scope = {"x": x, "w": w, "torch": torch}
            subjects = _micro_subjects(cases, scope, w, env.threads)
            result.rows.extend(
                _measure_group(
                    subjects,
                    op,
                    size,
                    device,
                    {measure.storage_id(w)},
                    {measure.storage_id(x)},
                    [x, w],
                    bench.timing,
                    progress,
                )
            )
    if "article" in bench.ops:
        torch.manual_seed(0)
        x = torch.randn(ARTICLE_SIZE, ARTICLE_SIZE, device=device, dtype=dtype, requires_grad=True)
        scope = {"x": x, "torch": torch}
        subjects = _micro_subjects(list(ARTICLE_CASES), scope, None, env.threads)
        result.rows.extend(
            _measure_group(
                subjects,
                "article",
                ARTICLE_SIZE,
                device,
                set(),
                {measure.storage_id(x)},
                [x],
                bench.timing,
                progress,
            )
        )
    result.environment = env.as_dict()
    return result
