"""Renderers for findings. They format; they never check."""

from __future__ import annotations

import json
from collections import Counter

from gradguard.check.model import Diagnostic


def location_text(d: Diagnostic) -> str:
    if d.cell is not None:
        return f"{d.filename}:cell {d.cell}:{d.start.row}:{d.start.column}"
    return f"{d.filename}:{d.start.row}:{d.start.column}"


def render_text(diagnostics: list, **_) -> str:
    lines = []
    for d in diagnostics:
        mark = " [*]" if d.fixable_safe else ""
        lines.append(f"{location_text(d)}: {d.code} {d.message}{mark}")
    return "\n".join(lines) + ("\n" if lines else "")


def summary_line(diagnostics: list, fixed: int = 0) -> str:
    n = len(diagnostics)
    fixable = sum(1 for d in diagnostics if d.fixable_safe)
    unsafe = sum(1 for d in diagnostics if d.fix is not None and not d.fixable_safe)
    if fixed:
        total = n + fixed
        return f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {n} remaining)."
    if n == 0:
        return "All checks passed!"
    text = f"Found {n} error{'s' if n != 1 else ''}"
    parts = []
    if fixable:
        parts.append(f"{fixable} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} more with --unsafe-fixes")
    if parts:
        text += f" ({', '.join(parts)})"
    return text + "."


def render_statistics(diagnostics: list, **_) -> str:
    from gradguard.check.rules import rule_by_code

    counts = Counter(d.code for d in diagnostics)
    lines = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = rule_by_code(code)
        name = rule.name if rule else "parse-error"
        fixable = " [*]" if rule and any(d.fixable_safe for d in diagnostics if d.code == code) else ""
        lines.append(f"{count:6d}\t{code}\t{name}{fixable}")
    return "\n".join(lines) + ("\n" if lines else "")


def _position_json(source_pos) -> dict:
    return {"row": source_pos.row, "column": source_pos.column}


def diagnostic_json(d: Diagnostic) -> dict:
    """One finding in ruff's JSON shape."""
    fix = None
    if d.fix is not None:
        positions = d.extra.get("edit_positions") or [(None, None)] * len(d.fix.edits)
        fix = {
            "applicability": d.fix.applicability.value,
            "message": d.fix.message,
            "edits": [
                {
                    "content": e.content,
                    "location": _position_json(start) if start else None,
                    "end_location": _position_json(end) if end else None,
                }
                for e, (start, end) in zip(d.fix.edits, positions)
            ],
        }
    out = {
        "code": d.code,
        "message": d.message,
        "filename": d.filename,
        "location": _position_json(d.start),
        "end_location": _position_json(d.end),
        "fix": fix,
        "url": d.url,
        "noqa_row": d.start.row,
    }
    if d.cell is not None:
        out["cell"] = d.cell
    return out


def render_json(diagnostics: list, **_) -> str:
    return json.dumps([diagnostic_json(d) for d in diagnostics], indent=2) + "\n"


def render_sarif(diagnostics: list, **kwargs) -> str:
    from gradguard.check.report.sarif import render_sarif as render

    return render(diagnostics, **kwargs)


def render_github(diagnostics: list, **kwargs) -> str:
    from gradguard.check.report.github import render_github as render

    return render(diagnostics, **kwargs)


FORMATS: dict = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
