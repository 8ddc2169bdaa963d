"""Renderers: table, JSON, CSV and PNG plot of a ``BenchResult``. They never measure and never
import torch, so ``gradguard bench report FILE.json`` works from a saved run alone."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from gradguard.bench.results import (
    MIN_RUNS,
    NOISE_THRESHOLD,
    BenchResult,
    Comparison,
    Row,
    to_dict,
)
from gradguard.common.text import format_bytes

PEAK_METHOD_NOTES = {
    "cpu-allocator-events": (
        "peak: CPU allocator bytes in use during the call above the level before it, "
        "from the PyTorch profiler's allocation events"
    ),
    "cuda-max-memory-allocated": "peak: torch.cuda.max_memory_allocated during the call above the level before it",
}


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_change(change: float | None) -> str:
    return "-" if change is None else f"{change:+.1%}"


def format_ratio(ratio: float) -> str:
    """Two decimals; two significant digits below 0.1 (``x.detach()`` against a product)."""
    return f"{ratio:.2f}" if ratio >= 0.1 else f"{ratio:.2g}"


def _noise_mark(row: Row) -> str:
    return (" !" if row.noisy else "") + (" ?" if row.timing is not None and row.timing.few_runs else "")


# ----------------------------------------------------------------------------- JSON


def render_json(result: BenchResult, comparison: Comparison | None = None) -> str:
    return json.dumps(to_dict(result, comparison), indent=2) + "\n"


# ----------------------------------------------------------------------------- CSV

_ENV_COLUMNS = ("torch_version", "device", "device_name", "threads", "dtype", "autocast", "timestamp")


def render_csv(result: BenchResult, comparison: Comparison | None = None) -> str:
    """One row per measurement; environment columns repeated so each row stands alone."""
    inputs = {m.name: m.inputs_text for m in result.models}
    columns = [
        "kind",
        "subject",
        "case",
        "inputs",
        "size",
        "mode",
        "baseline",
        "error",
        "median_s",
        "p25_s",
        "p75_s",
        "iqr_over_median",
        "noisy",
        "noise",
        "runs",
        "number_per_run",
        "page_faults_per_call",
        "ratio_to_grad",
        "ratio_min",
        "ratio_max",
        "saved_bytes",
        "saved_param_bytes",
        "saved_input_bytes",
        "saved_activation_bytes",
        "retained_bytes",
        "peak_bytes",
        "peak_forward_backward_bytes",
        "peak_method",
        "output_requires_grad",
        "kernel_path_differs",
        *_ENV_COLUMNS,
    ]
    if comparison is not None:
        columns += ["old_median_s", "time_change", "old_ratio_to_grad", "saved_change", "peak_change"]
    changes = {c.new.key: c for c in comparison.changes} if comparison else {}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in result.rows:
        t, r, m = row.timing, row.ratio, row.memory
        record: dict[str, Any] = {
            "kind": result.kind,
            "subject": row.subject,
            "case": row.case,
            "inputs": inputs.get(row.subject, ""),
            "size": "" if row.size is None else row.size,
            "mode": row.mode.value,
            "baseline": row.baseline,
            "error": row.error or "",
            "median_s": "" if t is None else repr(t.median),
            "p25_s": "" if t is None else repr(t.p25),
            "p75_s": "" if t is None else repr(t.p75),
            "iqr_over_median": "" if t is None else f"{t.iqr_over_median:.4f}",
            "noisy": row.noisy,
            "noise": "+".join(row.noise_reasons),
            "runs": "" if t is None else len(t.times),
            "number_per_run": "" if t is None else t.number_per_run,
            "page_faults_per_call": ""
            if t is None or t.page_faults_per_call is None
            else f"{t.page_faults_per_call:g}",
            "ratio_to_grad": "" if r is None else f"{r.median:.4f}",
            "ratio_min": "" if r is None else f"{r.low:.4f}",
            "ratio_max": "" if r is None else f"{r.high:.4f}",
            "peak_method": result.settings.get("peak_memory_method", ""),
            "kernel_path_differs": row.kernel_path is not None,
            **{key: result.environment.get(key, "") for key in _ENV_COLUMNS},
        }
        for key in (
            "saved_bytes",
            "saved_param_bytes",
            "saved_input_bytes",
            "saved_activation_bytes",
            "retained_bytes",
            "peak_bytes",
            "peak_forward_backward_bytes",
            "output_requires_grad",
        ):
            value = None if m is None else getattr(m, key)
            record[key] = "" if value is None else value
        if comparison is not None:
            c = changes.get(row.key)
            old = c.old if c else None
            record.update(
                {
                    "old_median_s": "" if old is None or old.timing is None else repr(old.timing.median),
                    "time_change": "" if c is None or c.time_change is None else f"{c.time_change:.4f}",
                    "old_ratio_to_grad": "" if old is None or old.ratio is None else f"{old.ratio.median:.4f}",
                    "saved_change": _csv_change(c.memory_change("saved_bytes") if c else None),
                    "peak_change": _csv_change(c.memory_change("peak_bytes") if c else None),
                }
            )
        writer.writerow(record)
    return buffer.getvalue()


def _csv_change(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


# ----------------------------------------------------------------------------- table


def _without(header: list[str], rows: list[list[str]], name: str) -> tuple[list[str], list[list[str]]]:
    """The table less one column (error rows, shorter than the header, keep their cells)."""
    i = header.index(name)
    return header[:i] + header[i + 1 :], [r[:i] + r[i + 1 :] if len(r) == len(header) else r for r in rows]


def _grid(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows] if i < len(r)) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        if len(cells) < len(header):  # an error row: its message runs on past the columns
            fixed = [c.ljust(widths[i]) for i, c in enumerate(cells[:-1])]
            return "  ".join([*fixed, cells[-1]]).rstrip()
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    return [line(header), line(["-" * w for w in widths]), *map(line, rows)]


def _time_cells(row: Row) -> list[str]:
    t, r = row.timing, row.ratio
    assert t is not None
    return [
        format_seconds(t.median),
        f"{100 * t.iqr_over_median:.1f}%",
        "-" if r is None else f"{format_ratio(r.median)}{_noise_mark(row)}",
        "-" if r is None or row.baseline else f"{format_ratio(r.low)}-{format_ratio(r.high)}",
        "-" if t.page_faults_per_call is None else f"{t.page_faults_per_call:,.0f}",
    ]


def _bytes_or_dash(value: int | None) -> str:
    return "-" if value is None else format_bytes(value)


def _header_lines(result: BenchResult) -> list[str]:
    env, settings = result.environment, result.settings
    malloc = env.get("malloc", {})
    lines = [
        f"gradguard bench {result.kind}: torch {env['torch_version']}, {env['device']} "
        f"({env['device_name']}), threads={env['threads']}, {env['dtype']}"
        + (", autocast" if env.get("autocast") else "")
        + (", train()" if settings.get("train_mode") else (", eval()" if result.kind == "model" else ""))
        + (", malloc thresholds pinned" if malloc.get("pinned") else ", malloc thresholds not pinned"),
    ]
    before, after = env.get("load_average_before"), env.get("load_average_after")
    if before and after:
        lines.append(
            f"load average {before[0]:.2f} before, {after[0]:.2f} after, on {env.get('cpu_count', '?')} cores; "
            f"{settings.get('rounds', '?')} rotating rounds, {settings.get('min_run_time_s', '?')} s per mode"
        )
    return lines


def _kernel_lines(rows: list[Row]) -> list[str]:
    """One line per distinct kernel-path difference, naming the modes that share it."""
    groups: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for row in rows:
        if row.kernel_path is not None:
            kp = row.kernel_path
            groups.setdefault((kp.not_in_baseline, kp.baseline_only), []).append(row.mode.value)
    lines = []
    for (here, base_only), modes in groups.items():

        def names(ops: tuple[str, ...]) -> str:
            shown = ", ".join(ops[:3])
            return shown + (f" and {len(ops) - 3} more" if len(ops) > 3 else "")

        parts = []
        if here:
            parts.append(f"run {names(here)}, which grad does not")
        if base_only:
            parts.append(f"grad runs {names(base_only)}, which they do not")
        lines.append(
            f"kernel path: {', '.join(modes)} {'; '.join(parts)} (top-level ops, from the profiler): "
            "their time differs partly by kernel, not only by autograd"
        )
    return lines


_MODEL_HEADER = [
    "mode",
    "median",
    "IQR/med",
    "x grad",
    "rounds",
    "faults/call",
    "saved",
    "=params",
    "+inputs",
    "+new",
    "kept",
    "peak",
    "peak f+b",
    "graph",
]


def _model_row_cells(row: Row) -> list[str]:
    if row.error is not None:
        return [row.mode.value, f"cannot run: {row.error}"]
    m = row.memory
    assert m is not None
    return [
        row.mode.value,
        *_time_cells(row),
        format_bytes(m.saved_bytes),
        format_bytes(m.saved_param_bytes),
        format_bytes(m.saved_input_bytes),
        format_bytes(m.saved_activation_bytes),
        format_bytes(m.retained_bytes),
        format_bytes(m.peak_bytes),
        _bytes_or_dash(m.peak_forward_backward_bytes),
        "yes" if m.output_requires_grad else "no",
    ]


_MICRO_HEADER = [
    "size",
    "statement",
    "mode",
    "median",
    "IQR/med",
    "x grad",
    "rounds",
    "faults/call",
    "saved",
    "=w",
    "+x",
    "peak",
    "graph",
]


def _micro_row_cells(row: Row) -> list[str]:
    if row.error is not None:
        return [f"{row.size}x{row.size}", row.case, row.mode.value, f"cannot run: {row.error}"]
    m = row.memory
    assert m is not None
    return [
        f"{row.size}x{row.size}",
        row.case,
        row.mode.value,
        *_time_cells(row),
        format_bytes(m.saved_bytes),
        format_bytes(m.saved_param_bytes),
        format_bytes(m.saved_input_bytes),
        format_bytes(m.peak_bytes),
        "yes" if m.output_requires_grad else "no",
    ]


def render_table(result: BenchResult, comparison: Comparison | None = None) -> str:
    lines = _header_lines(result)
    show_faults = any(r.timing is not None and (r.timing.page_faults_per_call or 0) >= 0.5 for r in result.rows)
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    if result.kind == "model":
        for model in result.models:
            rows = [row for row in result.rows if row.subject == model.name]
            lines.append("")
            lines.append(
                f"model {model.name} ({model.description}): input {model.inputs_text}, "
                f"{model.parameters:,} parameters ({format_bytes(model.parameter_bytes)})"
            )
            header, cells = _MODEL_HEADER, [_model_row_cells(r) for r in rows]
            if not show_faults:
                header, cells = _without(header, cells, "faults/call")
            lines.extend(_grid(header, cells, set(range(1, len(header) - 1))))
            lines.extend(_kernel_lines(rows))
        lines.append("")
        lines.append(
            "saved: bytes autograd saved for backward, each storage once = params (parameters and buffers, "
            "no extra memory) + inputs (the tensors passed in) + new (activations the forward made)"
        )
        lines.append(
            "kept: bytes the forward allocated that are still alive after it, apart from the output: "
            "what the graph holds until the output is dropped"
        )
        lines.append("peak f+b: grad only, peak of the forward plus backward() of the sum of the outputs")
    else:
        groups = list(dict.fromkeys(row.subject for row in result.rows))
        for group in groups:
            rows = [row for row in result.rows if row.subject == group]
            lines.append("")
            if group == "article":
                lines.append(
                    f"the article's comparison: x = torch.randn({rows[0].size}, {rows[0].size}, requires_grad=True)"
                    "; x grad is the ratio to x * 2 with grad enabled"
                )
            else:
                lines.append(f"{group}: x (an activation) and w (a weight) both require grad")
            header, cells = _MICRO_HEADER, [_micro_row_cells(r) for r in rows]
            if not show_faults:
                header, cells = _without(header, cells, "faults/call")
            lines.extend(_grid(header, cells, set(range(3, len(header) - 1))))
            if group == "article":
                width = max(len(r.case) for r in rows)
                for r in rows:
                    if r.note:
                        lines.append(f"  {r.case.ljust(width)}  {r.note}")
        lines.append("")
        lines.append("saved: bytes autograd saved for backward, each storage once; =w: of it, w's; +x: of it, x's")
    lines.append("rounds: lowest and highest per-round ratio to grad (both timed in the same round)")
    if show_faults:
        lines.append("faults/call: page faults per call while timed (fresh pages from the system)")
    elif any(r.timing is not None and r.timing.page_faults_per_call is not None for r in result.rows):
        lines.append("page faults per call while timed: 0 for every row")
    note = PEAK_METHOD_NOTES.get(result.settings.get("peak_memory_method", ""))
    if note:
        lines.append(note)
    if any(row.noisy for row in result.rows):
        lines.append(
            f"! noisy: IQR/median of the timed blocks above {NOISE_THRESHOLD:.0%}, or rounds that disagree "
            f"(their interquartile spread above {NOISE_THRESHOLD:.0%} of the median): do not trust the figure closely"
        )
    if any(row.timing is not None and row.timing.few_runs for row in result.rows):
        lines.append(f"? fewer than {MIN_RUNS} timed blocks: the IQR means little; use more --rounds")
    if comparison is not None:
        lines.extend(_comparison_lines(result, comparison))
    return "\n".join(lines) + "\n"


def _comparison_lines(result: BenchResult, comparison: Comparison) -> list[str]:
    old_env = comparison.old_environment
    lines = [
        "",
        (
            f"compared with {comparison.against} ({old_env.get('timestamp', '?')}, torch "
            f"{old_env.get('torch_version', '?')}, threads={old_env.get('threads', '?')}):"
        ),
    ]
    header = ["subject", "case", "median old", "new", "change", "x grad old", "new", "saved change", "peak change"]
    rows = []
    for c in comparison.changes:
        row, old = c.new, c.old
        subject = row.subject if row.size is None else f"{row.subject} {row.size}x{row.size}"
        if old is None:
            rows.append([subject, row.case, "not in the earlier run"])
            continue
        rows.append(
            [
                subject,
                row.case,
                "-" if old.timing is None else format_seconds(old.timing.median),
                "-" if row.timing is None else format_seconds(row.timing.median),
                format_change(c.time_change) + (" !" if c.noisy else ""),
                "-" if old.ratio is None else format_ratio(old.ratio.median),
                "-" if row.ratio is None else format_ratio(row.ratio.median),
                format_change(c.memory_change("saved_bytes")),
                format_change(c.memory_change("peak_bytes")),
            ]
        )
    lines.extend(_grid(header, rows, {2, 3, 4, 5, 6, 7, 8}))
    if any(c.noisy for c in comparison.changes):
        lines.append("! noisy in one of the runs: the time change is not a measured regression")
    return lines


# ----------------------------------------------------------------------------- plot

_SAVED_PARTS = (
    ("saved_param_bytes", "saved: parameters", "#c6dbef"),
    ("saved_input_bytes", "saved: inputs", "#6baed6"),
    ("saved_activation_bytes", "saved: new activations", "#08519c"),
)


def write_plot(result: BenchResult, path: str) -> None:
    """PNG with time (median, 25th-75th percentile bar, noise mark) and memory per mode."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    env = result.environment
    load = env.get("load_average_before")
    subtitle = (
        f"torch {env['torch_version']}, {env['device']} ({env['device_name']}), threads={env['threads']}, "
        f"{env['dtype']}" + (f", load average {load[0]:.2f} before" if load else "")
    )
    fig = _plot_models(plt, result) if result.kind == "model" else _plot_micro(plt, result)
    fig.suptitle(f"gradguard bench {result.kind}\n{subtitle}", fontsize=10)
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def _time_panel(ax: Any, rows: list[Row], title: str) -> None:
    """Horizontal bars: median, whiskers at the 25th and 75th percentiles, labels with the ratio."""
    labels = [r.case if len(r.case) < 28 else r.case[:25] + "..." for r in rows]
    ys = list(range(len(rows)))
    timed = [r for r in rows if r.timing is not None]
    scale, unit = _time_scale(max((r.timing.p75 for r in timed), default=1.0))  # type: ignore[union-attr]
    for y, r in zip(ys, rows):
        if r.timing is None:
            ax.annotate(f"  cannot run: {r.error}"[:60], (0, y), va="center", fontsize=7, color="tab:red")
            continue
        t = r.timing
        median = t.median / scale
        ax.barh(
            y,
            median,
            xerr=[[median - t.p25 / scale], [t.p75 / scale - median]],
            color="tab:gray" if r.noisy else "tab:blue",
            hatch="//" if r.noisy else None,
            edgecolor="white",
            capsize=3,
        )
        text = f" {median:.3g} {unit}"
        if r.ratio is not None:
            text += f"  x{format_ratio(r.ratio.median)}"
            if not r.baseline:
                text += f" [{format_ratio(r.ratio.low)}-{format_ratio(r.ratio.high)}]"
        if r.noisy:
            text += "  ! noisy"
        ax.annotate(text, (t.p75 / scale, y), va="center", fontsize=7)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.invert_yaxis()
    ax.margins(x=0.45)
    ax.set_xlim(left=0)
    ax.set_xlabel(f"time per call, {unit} (median; bar 25th-75th percentile; x = ratio to grad [rounds])", fontsize=8)
    ax.set_title(title, fontsize=9)


def _time_scale(largest: float) -> tuple[float, str]:
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if largest >= scale:
            return scale, unit
    return 1e-9, "ns"


def _memory_panel(ax: Any, rows: list[Row], title: str, with_kept: bool = True) -> None:
    """Saved bytes stacked by owner; what the graph keeps after the forward; peaks."""
    ys = list(range(len(rows)))
    height = 0.22 if with_kept else 0.35
    mib = 2**20
    offsets = (-height, 0.0, height) if with_kept else (-height / 2, height / 2)
    for y, r in zip(ys, rows):
        m = r.memory
        if m is None:
            continue
        left = 0.0
        for attribute, label, color in _SAVED_PARTS:
            value = getattr(m, attribute) / mib
            ax.barh(y + offsets[0], value, height, left=left, color=color, label=label)
            left += value
        ax.annotate(f" {format_bytes(m.saved_bytes)}", (left, y + offsets[0]), va="center", fontsize=6)
        if with_kept:
            ax.barh(y + offsets[1], m.retained_bytes / mib, height, color="tab:orange", label="kept after forward")
            ax.annotate(f" {format_bytes(m.retained_bytes)}", (m.retained_bytes / mib, y), va="center", fontsize=6)
        ax.barh(y + offsets[-1], m.peak_bytes / mib, height, color="tab:green", label="peak during forward")
        ax.annotate(f" {format_bytes(m.peak_bytes)}", (m.peak_bytes / mib, y + offsets[-1]), va="center", fontsize=6)
        if m.peak_forward_backward_bytes is not None:
            fb = m.peak_forward_backward_bytes / mib
            ax.plot([fb], [y + offsets[-1]], marker="D", color="black", label="peak forward+backward (grad)")
            ax.annotate(
                f" f+b {format_bytes(m.peak_forward_backward_bytes)}",
                (fb, y + offsets[-1] + height * 0.9),
                va="center",
                fontsize=6,
            )
    ax.set_yticks(ys, [r.case if len(r.case) < 28 else r.case[:25] + "..." for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.margins(x=0.25)
    ax.set_xlabel("MiB", fontsize=8)
    ax.set_title(title, fontsize=9)


def _legend(fig: Any, axes: Any) -> None:
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)


def _plot_models(plt: Any, result: BenchResult) -> Any:
    names = [m.name for m in result.models]
    fig, axes = plt.subplots(len(names), 2, figsize=(14, 3.2 * len(names) + 1.6), squeeze=False)
    for (ax_time, ax_mem), name in zip(axes, names):
        rows = [r for r in result.rows if r.subject == name]
        note = " (kernel path differs for some modes)" if any(r.kernel_path for r in rows) else ""
        _time_panel(ax_time, rows, f"{name}: forward time{note}")
        _memory_panel(ax_mem, rows, f"{name}: memory")
    _legend(fig, [ax for pair in axes for ax in pair])
    fig.tight_layout(rect=(0, 0.07, 1, 0.94))
    return fig


def _plot_micro(plt: Any, result: BenchResult) -> Any:
    ops = [s for s in dict.fromkeys(r.subject for r in result.rows) if s != "article"]
    article = [r for r in result.rows if r.subject == "article"]
    panels = len(ops) + (2 if article else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.8), squeeze=False)
    for ax, op in zip(axes[0], ops):
        rows = [r for r in result.rows if r.subject == op and r.timing is not None]
        for mode in dict.fromkeys(r.mode for r in rows):
            series = [r for r in rows if r.mode is mode]
            sizes = [r.size for r in series]
            med = [r.timing.median * 1e6 for r in series]  # type: ignore[union-attr]
            low = [m - r.timing.p25 * 1e6 for m, r in zip(med, series)]  # type: ignore[union-attr]
            high = [r.timing.p75 * 1e6 - m for m, r in zip(med, series)]  # type: ignore[union-attr]
            line = ax.errorbar(sizes, med, yerr=[low, high], marker="o", capsize=3, label=mode.value)
            for s, m, r in zip(sizes, med, series):
                if r.noisy:
                    ax.annotate(
                        "!", (s, m), color=line[0].get_color(), fontsize=9, xytext=(3, 3), textcoords="offset points"
                    )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (operands n x n)", fontsize=8)
        ax.set_ylabel("time per call, us (median, bar 25th-75th pct; ! noisy)", fontsize=8)
        ax.set_title(f"{op}: " + ("x * w" if op == "mul" else "x @ w"), fontsize=9)
        ax.legend(fontsize=7)
    if article:
        size = article[0].size
        _time_panel(axes[0][len(ops)], article, f"the article's cases, x: {size}x{size}")
        _memory_panel(axes[0][len(ops) + 1], article, "the article's cases: memory", with_kept=False)
        _legend(fig, [axes[0][len(ops) + 1]])
    fig.tight_layout(rect=(0, 0.08 if article else 0, 1, 0.9))
    return fig


RENDERERS = {"table": render_table, "json": render_json, "csv": render_csv}
