"""What a run measured, as plain data (no torch), with the statistics derived from it.

The measuring side fills these; the renderers and ``gradguard bench report FILE.json`` read
them, the latter after ``from_dict`` on a saved JSON document. Statistics are computed here
from the raw times, so a saved run re-renders to the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gradguard.bench.modes import Mode

SCHEMA_ID = "gradguard-bench/2"

#: Spread above this (relative to the median) marks a figure as noisy: the IQR of the timed
#: blocks (the threshold ``torch.utils.benchmark`` uses), or the interquartile spread of
#: the per-round values (rounds disagree).
NOISE_THRESHOLD = 0.10
#: Fewer timed blocks than this and the IQR says nothing: the figure is flagged too.
MIN_RUNS = 3


def quantile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (``torch.quantile``'s default)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def relative_spread(values: Sequence[float]) -> float:
    """(75th - 25th percentile) / median; 0 for fewer than two values or a zero median."""
    if len(values) < 2:
        return 0.0
    median = quantile(values, 0.5)
    return (quantile(values, 0.75) - quantile(values, 0.25)) / median if median > 0 else 0.0


@dataclass(frozen=True)
class Timing:
    """Per-call times of the timed blocks of one row, with the round each block ran in."""

    times: tuple[float, ...]
    rounds: tuple[int, ...]  # round index of each entry of ``times``
    number_per_run: int
    threads: int
    page_faults_per_call: float | None  # None where the platform does not count them

    @property
    def median(self) -> float:
        return quantile(self.times, 0.5)

    @property
    def p25(self) -> float:
        return quantile(self.times, 0.25)

    @property
    def p75(self) -> float:
        return quantile(self.times, 0.75)

    @property
    def iqr(self) -> float:
        return self.p75 - self.p25

    @property
    def iqr_over_median(self) -> float:
        median = self.median
        return self.iqr / median if median > 0 else 0.0

    @property
    def round_medians(self) -> tuple[float, ...]:
        """Median per-call time in each round, in round order."""
        by_round: dict[int, list[float]] = {}
        for r, t in zip(self.rounds, self.times):
            by_round.setdefault(r, []).append(t)
        return tuple(quantile(by_round[r], 0.5) for r in sorted(by_round))

    @property
    def scattered(self) -> bool:
        """IQR/median of the blocks above the threshold."""
        return self.iqr_over_median > NOISE_THRESHOLD

    @property
    def few_runs(self) -> bool:
        return len(self.times) < MIN_RUNS


@dataclass(frozen=True)
class Ratio:
    """Time over the baseline's time, one value per round (both timed in the same round)."""

    rounds: tuple[float, ...]

    @classmethod
    def between(cls, timing: Timing, baseline: Timing) -> Ratio | None:
        """Per round, the row's median time over the baseline's median time in that round."""
        here = dict(zip(sorted(set(timing.rounds)), timing.round_medians))
        base = dict(zip(sorted(set(baseline.rounds)), baseline.round_medians))
        values = tuple(here[r] / base[r] for r in sorted(here) if r in base and base[r] > 0)
        return cls(values) if values else None

    @property
    def median(self) -> float:
        return quantile(self.rounds, 0.5)

    @property
    def low(self) -> float:
        return min(self.rounds)

    @property
    def high(self) -> float:
        return max(self.rounds)

    @property
    def p25(self) -> float:
        return quantile(self.rounds, 0.25)

    @property
    def p75(self) -> float:
        return quantile(self.rounds, 0.75)

    @property
    def disagree(self) -> bool:
        """The rounds disagree: their interquartile spread exceeds the threshold."""
        return relative_spread(self.rounds) > NOISE_THRESHOLD


@dataclass(frozen=True)
class Memory:
    """Bytes of one forward. Saved bytes count each storage once, split by who owns it."""

    saved_bytes: int
    saved_storages: int
    saved_param_bytes: int  # parameter and buffer storages: no extra memory
    saved_input_bytes: int  # storages of the inputs handed to the forward
    retained_bytes: int  # allocated in the forward, still alive after it, not the output itself
    peak_bytes: int
    output_requires_grad: bool
    peak_forward_backward_bytes: int | None = None  # the baseline only: forward + backward

    @property
    def saved_activation_bytes(self) -> int:
        """New tensors the forward made and autograd kept: the cost of the graph."""
        return self.saved_bytes - self.saved_param_bytes - self.saved_input_bytes


@dataclass(frozen=True)
class KernelPath:
    """Top-level aten ops that differ from the baseline's (a different kernel path)."""

    not_in_baseline: tuple[str, ...]
    baseline_only: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One model (or micro case) under one mode."""

    subject: str  # model name; micro: "mul", "matmul" or "article"
    case: str  # model rows: the mode; micro rows: the statement timed
    mode: Mode
    size: int | None = None  # micro rows: operands are size x size
    baseline: bool = False  # the row the others' ratios are taken against
    timing: Timing | None = None
    ratio: Ratio | None = None
    memory: Memory | None = None
    kernel_path: KernelPath | None = None
    error: str | None = None  # "cannot run": the first line of what the mode raised
    note: str = ""

    @property
    def key(self) -> tuple[str, str, int | None]:
        return (self.subject, self.case, self.size)

    @property
    def rounds_disagree(self) -> bool:
        """Per-round ratios disagree; for the baseline, its per-round times do."""
        if self.ratio is not None and not self.baseline:
            return self.ratio.disagree
        if self.timing is not None:
            return relative_spread(self.timing.round_medians) > NOISE_THRESHOLD
        return False

    @property
    def noisy(self) -> bool:
        return self.timing is not None and (self.timing.scattered or self.rounds_disagree)

    @property
    def noise_reasons(self) -> list[str]:
        if self.timing is None:
            return []
        return [name for name, hit in (("scatter", self.timing.scattered), ("rounds", self.rounds_disagree)) if hit]


@dataclass(frozen=True)
class InputInfo:
    name: str  # "args[0]", "kwargs['mask']"
    shape: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class ModelInfo:
    name: str
    description: str
    inputs: tuple[InputInfo, ...]
    batch: int | None
    parameters: int
    parameter_bytes: int
    model_args: tuple[tuple[str, str], ...] = ()  # (key, repr of the value)

    @property
    def input_shape(self) -> tuple[int, ...]:
        return self.inputs[0].shape if self.inputs else ()

    @property
    def inputs_text(self) -> str:
        if len(self.inputs) == 1 and self.inputs[0].name == "args[0]":
            i = self.inputs[0]
            return f"{'x'.join(map(str, i.shape)) or 'scalar'} {i.dtype}"
        return ", ".join(f"{i.name} {'x'.join(map(str, i.shape)) or 'scalar'} {i.dtype}" for i in self.inputs)


@dataclass
class BenchResult:
    """Everything one run measured, plus the environment it ran in."""

    kind: str  # "model" or "micro"
    environment: dict[str, Any]
    settings: dict[str, Any]
    rows: list[Row]
    models: list[ModelInfo] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def baseline_of(self, row: Row) -> Row | None:
        for other in self.rows:
            if other.baseline and (other.subject, other.size) == (row.subject, row.size):
                return other
        return None

    def find(self, key: tuple[str, str, int | None]) -> Row | None:
        for row in self.rows:
            if row.key == key:
                return row
        return None


# ----------------------------------------------------------------------------- comparison


def _change(new: float | None, old: float | None) -> float | None:
    """Relative change new/old - 1 (None when either is missing or old is 0)."""
    if new is None or old is None or old == 0:
        return None
    return new / old - 1


@dataclass(frozen=True)
class RowChange:
    """One row of this run against the same row (subject, case, size) of an earlier run."""

    new: Row
    old: Row | None

    @property
    def time_change(self) -> float | None:
        if self.old is None or self.new.timing is None or self.old.timing is None:
            return None
        return _change(self.new.timing.median, self.old.timing.median)

    @property
    def ratio_change(self) -> float | None:
        if self.old is None or self.new.ratio is None or self.old.ratio is None:
            return None
        return _change(self.new.ratio.median, self.old.ratio.median)

    def memory_change(self, attribute: str) -> float | None:
        if self.old is None or self.new.memory is None or self.old.memory is None:
            return None
        return _change(getattr(self.new.memory, attribute), getattr(self.old.memory, attribute))

    @property
    def noisy(self) -> bool:
        return self.new.noisy or (self.old is not None and self.old.noisy)

    def over(self, threshold: float) -> list[str]:
        """What grew by more than ``threshold`` (a fraction). Time counts only when neither
        run flags the row as noisy; bytes always count (they do not depend on the load)."""
        found = []
        time = self.time_change
        if time is not None and time > threshold and not self.noisy:
            found.append(f"time {time:+.1%}")
        for attribute, label in (("saved_bytes", "saved"), ("peak_bytes", "peak")):
            change = self.memory_change(attribute)
            if change is not None and change > threshold:
                found.append(f"{label} {change:+.1%}")
        return found


@dataclass
class Comparison:
    against: str  # the earlier file, as given
    old_environment: dict[str, Any]
    changes: list[RowChange]

    def over(self, threshold: float) -> list[str]:
        found = []
        for change in self.changes:
            for what in change.over(threshold):
                row = change.new
                size = f" {row.size}x{row.size}" if row.size is not None else ""
                found.append(f"{row.subject}{size} {row.case}: {what}")
        return found


def compare(new: BenchResult, old: BenchResult, against: str) -> Comparison:
    if new.kind != old.kind:
        raise ResultFormatError(f"cannot compare a {new.kind} run with a {old.kind} run")
    return Comparison(against, dict(old.environment), [RowChange(row, old.find(row.key)) for row in new.rows])


def comparison_to_dict(comparison: Comparison) -> dict[str, Any]:
    rows = []
    for c in comparison.changes:
        old = c.old
        rows.append(
            {
                "subject": c.new.subject,
                "case": c.new.case,
                "size": c.new.size,
                "found": old is not None,
                "old_median_s": None if old is None or old.timing is None else old.timing.median,
                "time_change": c.time_change,
                "old_ratio_to_grad": None if old is None or old.ratio is None else old.ratio.median,
                "ratio_change": c.ratio_change,
                "old_saved_bytes": None if old is None or old.memory is None else old.memory.saved_bytes,
                "saved_change": c.memory_change("saved_bytes"),
                "old_peak_bytes": None if old is None or old.memory is None else old.memory.peak_bytes,
                "peak_change": c.memory_change("peak_bytes"),
                "noisy": c.noisy,
            }
        )
    return {
        "against": comparison.against,
        "old_timestamp": comparison.old_environment.get("timestamp"),
        "old_torch_version": comparison.old_environment.get("torch_version"),
        "rows": rows,
    }


# ----------------------------------------------------------------------------- JSON


def _timing_dict(t: Timing, row: Row) -> dict[str, Any]:
    return {
        "median_s": t.median,
        "p25_s": t.p25,
        "p75_s": t.p75,
        "iqr_s": t.iqr,
        "iqr_over_median": t.iqr_over_median,
        "noisy": row.noisy,
        "noise": row.noise_reasons,
        "few_runs": t.few_runs,
        "runs": len(t.times),
        "number_per_run": t.number_per_run,
        "threads": t.threads,
        "times_s": list(t.times),
        "rounds": list(t.rounds),
        "round_medians_s": list(t.round_medians),
        "page_faults_per_call": t.page_faults_per_call,
    }


_MEMORY_KEYS = (
    "saved_bytes",
    "saved_storages",
    "saved_param_bytes",
    "saved_input_bytes",
    "saved_activation_bytes",
    "retained_bytes",
    "peak_bytes",
    "peak_forward_backward_bytes",
    "output_requires_grad",
)


def row_to_dict(kind: str, row: Row) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if kind == "model":
        data["model"] = row.subject
    else:
        data.update({"op": row.subject, "statement": row.case, "size": row.size})
    data.update({"mode": row.mode.value, "baseline": row.baseline, "error": row.error})
    data["time"] = None if row.timing is None else _timing_dict(row.timing, row)
    ratio = row.ratio
    data["ratio_to_grad"] = None if ratio is None else ratio.median
    data["ratio_range"] = None if ratio is None else [ratio.low, ratio.high]
    data["ratio_iqr"] = None if ratio is None else [ratio.p25, ratio.p75]
    data["ratio_rounds"] = None if ratio is None else list(ratio.rounds)
    memory = row.memory
    for key in _MEMORY_KEYS:
        data[key] = None if memory is None else getattr(memory, key)
    data["kernel_path"] = (
        None
        if row.kernel_path is None
        else {"not_in_grad": list(row.kernel_path.not_in_baseline), "grad_only": list(row.kernel_path.baseline_only)}
    )
    if kind == "micro":
        data["note"] = row.note
    return data


def model_to_dict(m: ModelInfo) -> dict[str, Any]:
    return {
        "name": m.name,
        "description": m.description,
        "input_shape": list(m.input_shape),
        "inputs": [{"name": i.name, "shape": list(i.shape), "dtype": i.dtype} for i in m.inputs],
        "batch": m.batch,
        "parameters": m.parameters,
        "parameter_bytes": m.parameter_bytes,
        "model_args": dict(m.model_args),
    }


def to_dict(result: BenchResult, comparison: Comparison | None = None) -> dict[str, Any]:
    """The JSON document (see docs/bench-schema.json)."""
    doc: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "kind": result.kind,
        "environment": dict(result.environment),
        "settings": dict(result.settings),
        "warnings": list(result.warnings),
    }
    if result.kind == "model":
        doc["models"] = [model_to_dict(m) for m in result.models]
    doc["results"] = [row_to_dict(result.kind, row) for row in result.rows]
    if comparison is not None:
        doc["comparison"] = comparison_to_dict(comparison)
    return doc


class ResultFormatError(ValueError):
    """A JSON document that is not a gradguard bench result this version can read."""


def _row_from_dict(kind: str, data: dict[str, Any]) -> Row:
    timing = None
    if data.get("time") is not None:
        t = data["time"]
        timing = Timing(
            times=tuple(float(v) for v in t["times_s"]),
            rounds=tuple(int(v) for v in t["rounds"]),
            number_per_run=int(t["number_per_run"]),
            threads=int(t["threads"]),
            page_faults_per_call=None if t["page_faults_per_call"] is None else float(t["page_faults_per_call"]),
        )
    ratio = None if data.get("ratio_rounds") is None else Ratio(tuple(float(v) for v in data["ratio_rounds"]))
    memory = None
    if data.get("saved_bytes") is not None:
        memory = Memory(
            saved_bytes=int(data["saved_bytes"]),
            saved_storages=int(data["saved_storages"]),
            saved_param_bytes=int(data["saved_param_bytes"]),
            saved_input_bytes=int(data["saved_input_bytes"]),
            retained_bytes=int(data["retained_bytes"]),
            peak_bytes=int(data["peak_bytes"]),
            output_requires_grad=bool(data["output_requires_grad"]),
            peak_forward_backward_bytes=data.get("peak_forward_backward_bytes"),
        )
    kernel = data.get("kernel_path")
    return Row(
        subject=data["model"] if kind == "model" else data["op"],
        case=data["mode"] if kind == "model" else data["statement"],
        mode=Mode(data["mode"]),
        size=data.get("size"),
        baseline=bool(data["baseline"]),
        timing=timing,
        ratio=ratio,
        memory=memory,
        kernel_path=None if kernel is None else KernelPath(tuple(kernel["not_in_grad"]), tuple(kernel["grad_only"])),
        error=data.get("error"),
        note=data.get("note", ""),
    )


def _model_from_dict(data: dict[str, Any]) -> ModelInfo:
    return ModelInfo(
        name=data["name"],
        description=data["description"],
        inputs=tuple(InputInfo(i["name"], tuple(i["shape"]), i["dtype"]) for i in data["inputs"]),
        batch=data.get("batch"),
        parameters=int(data["parameters"]),
        parameter_bytes=int(data["parameter_bytes"]),
        model_args=tuple((str(k), str(v)) for k, v in (data.get("model_args") or {}).items()),
    )


def from_dict(doc: Any) -> BenchResult:
    """Rebuild a result from its JSON document; ``ResultFormatError`` says what is wrong."""
    if not isinstance(doc, dict) or "schema" not in doc:
        raise ResultFormatError("not a gradguard bench JSON document (no 'schema' key)")
    if doc["schema"] != SCHEMA_ID:
        raise ResultFormatError(
            f"schema {doc['schema']!r} is not {SCHEMA_ID!r}: written by another gradguard version, measure again"
        )
    kind = doc.get("kind")
    if kind not in ("model", "micro"):
        raise ResultFormatError(f"unknown kind {kind!r}")
    try:
        return BenchResult(
            kind=kind,
            environment=dict(doc["environment"]),
            settings=dict(doc["settings"]),
            rows=[_row_from_dict(kind, r) for r in doc["results"]],
            models=[_model_from_dict(m) for m in doc.get("models", [])],
            warnings=list(doc.get("warnings", [])),
        )
    except KeyError as exc:
        raise ResultFormatError(f"missing key {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise ResultFormatError(f"malformed value: {exc}") from None
