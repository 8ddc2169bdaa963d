"""The default output: one ``file:row:col: CODE message`` line per finding, then a summary."""

from __future__ import annotations

from collections import Counter

from gradguard.check.model import Diagnostic


def location_text(d: Diagnostic) -> str:
    if d.cell is not None:
        return f"{d.filename}:cell {d.cell}:{d.start.row}:{d.start.column}"
    return f"{d.filename}:{d.start.row}:{d.start.column}"


def render(diagnostics: list[Diagnostic]) -> str:
    lines = []
    for d in diagnostics:
        mark = " [*]" if d.fixable_safe else ""
        lines.append(f"{location_text(d)}: {d.code} {d.message}{mark}")
    return "\n".join(lines) + ("\n" if lines else "")


def summary_line(diagnostics: list[Diagnostic], fixed: int = 0) -> str:
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


def render_statistics(diagnostics: list[Diagnostic]) -> str:
    from gradguard.check.rules import rule_by_code

    counts = Counter(d.code for d in diagnostics)
    lines = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = rule_by_code(code)
        name = rule.name if rule else "parse-error"
        fixable = " [*]" if rule and any(d.fixable_safe for d in diagnostics if d.code == code) else ""
        lines.append(f"{count:6d}\t{code}\t{name}{fixable}")
    return "\n".join(lines) + ("\n" if lines else "")
