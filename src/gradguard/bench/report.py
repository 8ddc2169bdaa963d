"""Renderers: table, JSON, CSV and PNG plot of a ``BenchResult``. They never measure."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from gradguard.bench.measure import MIN_RUNS, NOISE_THRESHOLD, BenchResult, ModeResult

SCHEMA_ID = "gradguard-bench/1"

PEAK_METHOD_NOTES = {
    "cpu-allocator-events": (
        "peak: CPU allocator bytes in use during one forward above the level before it, "
        "from the PyTorch profiler's allocation events"
    ),
    "cuda-max-memory-allocated": ("peak: torch.cuda.max_memory_allocated during one forward above the level before it"),
}


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value:.1f} PiB"


# ----------------------------------------------------------------------------- JSON


def _time_dict(row: ModeResult) -> dict[str, Any]:
    t = row.time
    return {
        "median_s": t.median,
        "iqr_s": t.iqr,
        "iqr_over_median": t.iqr_over_median,
        "noisy": t.noisy,
        "few_runs": t.few_runs,
        "runs": len(t.times),
        "number_per_run": t.number_per_run,
        "times_s": list(t.times),
    }


def _row_dict(result: BenchResult, row: ModeResult) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if result.kind == "model":
        data["model"] = row.subject
    else:
        data["op"] = row.subject
        data["size"] = row.size
        data["call_only"] = row.call_only
    data.update(
        {
            "mode": row.mode,
            "time": _time_dict(row),
            "ratio_to_grad": result.ratio_to_grad(row),
            "saved_bytes": row.saved.bytes,
            "saved_storages": row.saved.storages,
            "saved_param_bytes": row.saved.param_bytes,
            "peak_bytes": row.peak_bytes,
            "output_requires_grad": row.saved.output_requires_grad,
        }
    )
    return data


def to_dict(result: BenchResult) -> dict[str, Any]:
    """The JSON document (see docs/bench-schema.json)."""
    doc: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "kind": result.kind,
        "environment": dict(result.environment),
        "settings": dict(result.settings),
    }
    if result.kind == "model":
        doc["models"] = [
            {
                "name": m.name,
                "description": m.description,
                "input_shape": list(m.input_shape),
                "parameters": m.parameters,
                "parameter_bytes": m.parameter_bytes,
            }
            for m in result.models
        ]
    doc["results"] = [_row_dict(result, row) for row in result.results]
    return doc


def render_json(result: BenchResult) -> str:
    return json.dumps(to_dict(result), indent=2) + "\n"


# ----------------------------------------------------------------------------- CSV

_ENV_COLUMNS = ("torch_version", "device", "device_name", "threads", "dtype", "autocast", "timestamp")


def render_csv(result: BenchResult) -> str:
    """One row per measurement; environment columns repeated so each row stands alone."""
    shapes = {m.name: "x".join(map(str, m.input_shape)) for m in result.models}
    columns = [
        "kind",
        "subject",
        "input_shape",
        "size",
        "mode",
        "call_only",
        "median_s",
        "iqr_s",
        "iqr_over_median",
        "noisy",
        "runs",
        "number_per_run",
        "ratio_to_grad",
        "saved_bytes",
        "saved_storages",
        "saved_param_bytes",
        "peak_bytes",
        "peak_method",
        "output_requires_grad",
        *_ENV_COLUMNS,
    ]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in result.results:
        ratio = result.ratio_to_grad(row)
        writer.writerow(
            {
                "kind": result.kind,
                "subject": row.subject,
                "input_shape": shapes.get(row.subject, ""),
                "size": "" if row.size is None else row.size,
                "mode": row.mode,
                "call_only": row.call_only,
                "median_s": repr(row.time.median),
                "iqr_s": repr(row.time.iqr),
                "iqr_over_median": f"{row.time.iqr_over_median:.4f}",
                "noisy": row.time.noisy,
                "runs": len(row.time.times),
                "number_per_run": row.time.number_per_run,
                "ratio_to_grad": "" if ratio is None else f"{ratio:.4f}",
                "saved_bytes": row.saved.bytes,
                "saved_storages": row.saved.storages,
                "saved_param_bytes": row.saved.param_bytes,
                "peak_bytes": row.peak_bytes,
                "peak_method": result.settings.get("peak_memory_method", ""),
                "output_requires_grad": row.saved.output_requires_grad,
                **{key: result.environment.get(key, "") for key in _ENV_COLUMNS},
            }
        )
    return buffer.getvalue()


# ----------------------------------------------------------------------------- table


def _grid(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    return [line(header), line(["-" * w for w in widths]), *map(line, rows)]


def _time_cells(result: BenchResult, row: ModeResult) -> list[str]:
    ratio = result.ratio_to_grad(row)
    iqr = (
        f"{100 * row.time.iqr_over_median:.1f}%"
        + (" !" if row.time.noisy else "")
        + (" ?" if row.time.few_runs else "")
    )
    return [
        format_seconds(row.time.median),
        iqr,
        "-" if ratio is None else f"{ratio:.2f}",
    ]


def render_table(result: BenchResult) -> str:
    env = result.environment
    lines = [
        f"gradguard bench {result.kind}: torch {env['torch_version']}, {env['device']} "
        f"({env['device_name']}), threads={env['threads']}, {env['dtype']}"
        + (", autocast" if env.get("autocast") else ""),
    ]
    right = {1, 2, 3, 4, 5, 6}
    if result.kind == "model":
        header = ["mode", "median", "IQR/med", "x grad", "saved for bwd", "(params)", "peak mem", "out requires_grad"]
        for model in result.models:
            lines.append("")
            lines.append(
                f"model {model.name} ({model.description}): input "
                f"{'x'.join(map(str, model.input_shape))}, {model.parameters:,} parameters "
                f"({format_bytes(model.parameter_bytes)})"
            )
            rows = [
                [
                    row.mode,
                    *_time_cells(result, row),
                    format_bytes(row.saved.bytes),
                    format_bytes(row.saved.param_bytes),
                    format_bytes(row.peak_bytes),
                    "yes" if row.saved.output_requires_grad else "no",
                ]
                for row in result.results
                if row.subject == model.name
            ]
            lines.extend(_grid(header, rows, right))
    else:
        header = ["op", "size", "mode", "median", "IQR/med", "x grad", "saved for bwd", "peak mem", "out requires_grad"]
        rows = [
            [
                row.subject,
                f"{row.size}x{row.size}",
                row.mode,
                *_time_cells(result, row),
                format_bytes(row.saved.bytes),
                format_bytes(row.peak_bytes),
                "yes" if row.saved.output_requires_grad else "no",
            ]
            for row in result.results
        ]
        lines.append("")
        lines.extend(_grid(header, rows, {1, 3, 4, 5, 6, 7}))
        lines.append("")
        lines.append(
            "call only: x.detach() / x.data make a new tensor header on the same storage; "
            "their time is the call alone, independent of size, not comparable to an op."
        )
    lines.append("")
    lines.append(
        "saved for bwd: distinct storages autograd saved, each counted once; "
        "(params): of it, parameter/buffer storages, which cost no extra memory"
    )
    note = PEAK_METHOD_NOTES.get(result.settings.get("peak_memory_method", ""))
    if note:
        lines.append(note)
    if any(row.time.noisy for row in result.results):
        lines.append(
            f"! IQR/median above {NOISE_THRESHOLD:.0%}: noisy, rerun on a quieter "
            "machine or with a longer run before trusting the median"
        )
    if any(row.time.few_runs for row in result.results):
        lines.append(f"? fewer than {MIN_RUNS} timed blocks: the IQR means little; use a longer --min-run-time")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- plot


def write_plot(result: BenchResult, path: str) -> None:
    """PNG with time (median, IQR as error bar) and memory per mode side by side."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    env = result.environment
    subtitle = (
        f"torch {env['torch_version']}, {env['device']} ({env['device_name']}), "
        f"threads={env['threads']}, {env['dtype']}"
    )
    if result.kind == "model":
        fig = _plot_models(plt, result)
    else:
        fig = _plot_micro(plt, result)
    fig.suptitle(f"gradguard bench {result.kind}\n{subtitle}", fontsize=10)
    fig.tight_layout(rect=(0, 0.04 if result.kind == "model" else 0, 1, 1))
    fig.savefig(path, format="png", dpi=110)
    plt.close(fig)


def _plot_models(plt: Any, result: BenchResult) -> Any:
    names = [m.name for m in result.models]
    fig, axes = plt.subplots(len(names), 2, figsize=(12, 3.6 * len(names) + 0.8), squeeze=False)
    for (ax_time, ax_mem), name in zip(axes, names):
        rows = [r for r in result.results if r.subject == name]
        modes = [r.mode for r in rows]
        ys = range(len(rows))
        medians = [r.time.median * 1e3 for r in rows]
        iqrs = [r.time.iqr * 1e3 / 2 for r in rows]
        ax_time.barh(ys, medians, xerr=iqrs, color="tab:blue", capsize=3)
        ax_time.set_yticks(list(ys), modes)
        ax_time.invert_yaxis()
        ax_time.set_xlabel("forward time, ms (median, bar = IQR; x = ratio to grad)")
        ax_time.margins(x=0.15)
        ax_time.set_title(f"{name}: time")
        for y, r in zip(ys, rows):
            ratio = result.ratio_to_grad(r)
            if ratio is not None:
                end = (r.time.median + r.time.iqr / 2) * 1e3  # right of the IQR bar
                ax_time.annotate(f"  x{ratio:.2f}", (end, y), va="center", fontsize=8)
        height = 0.4
        saved = [(r.saved.bytes - r.saved.param_bytes) / 2**20 for r in rows]
        peak = [r.peak_bytes / 2**20 for r in rows]
        ax_mem.barh(
            [y - height / 2 for y in ys],
            saved,
            height,
            label="saved for backward (activations, excl. params)",
            color="tab:orange",
        )
        ax_mem.barh([y + height / 2 for y in ys], peak, height, label="peak during forward", color="tab:green")
        ax_mem.set_yticks(list(ys), modes)
        ax_mem.invert_yaxis()
        ax_mem.set_xlabel("MiB")
        ax_mem.set_title(f"{name}: memory")
    handles, labels = axes[0][1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=9)
    fig.subplots_adjust(bottom=0.12)
    return fig


def _plot_micro(plt: Any, result: BenchResult) -> Any:
    subjects = list(dict.fromkeys(r.subject for r in result.results if not r.call_only))
    call_only = list(dict.fromkeys(r.subject for r in result.results if r.call_only))
    panels = [*subjects, *(["call only"] if call_only else [])]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.2), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        if panel == "call only":
            series = {s: [r for r in result.results if r.subject == s] for s in call_only}
        else:
            rows = [r for r in result.results if r.subject == panel]
            series = {m: [r for r in rows if r.mode == m] for m in dict.fromkeys(r.mode for r in rows)}
        for label, rows in series.items():
            ax.plot([r.size for r in rows], [r.time.median * 1e6 for r in rows], marker="o", label=label)
        ax.set_xscale("log")
        if panel == "call only":
            ax.set_ylim(bottom=0)
        else:
            ax.set_yscale("log")
        ax.set_xlabel("n (operands n x n)")
        ax.set_ylabel("median time, us")
        ax.set_title(panel if panel == "call only" else f"{panel}(x, w)")
        ax.legend(fontsize=8)
    return fig


RENDERERS = {"table": render_table, "json": render_json, "csv": render_csv}
