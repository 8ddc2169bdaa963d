"""The default output: one ``file:row:col: CODE message`` line per finding, then a summary.

``concise`` is the same lines (ruff's name for its one-line format). With colour (a terminal,
``--color``), the location is bold, the code red for an error and yellow for a warning, and
the ``[*]`` of a safe fix cyan.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gradguard.check.model import Diagnostic, Severity

BOLD, RED, YELLOW, CYAN, RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[0m"


def location_text(d: Diagnostic) -> str:
    if d.cell is not None:
        return f"{d.filename}:cell {d.cell}:{d.start.row}:{d.start.column}"
    return f"{d.filename}:{d.start.row}:{d.start.column}"


def render(diagnostics: list[Diagnostic], color: bool = False) -> str:
    from gradguard.check.report import severity_of

    lines = []
    for d in diagnostics:
        if color:
            code_color = YELLOW if severity_of(d.code) is Severity.WARNING else RED
            mark = f" {CYAN}[*]{RESET}" if d.fixable_safe else ""
            lines.append(f"{BOLD}{location_text(d)}{RESET}: {BOLD}{code_color}{d.code}{RESET} {d.message}{mark}")
        else:
            mark = " [*]" if d.fixable_safe else ""
            lines.append(f"{location_text(d)}: {d.code} {d.message}{mark}")
    return "\n".join(lines) + ("\n" if lines else "")


def summary_line(diagnostics: list[Diagnostic], fixed: int = 0, fixing: bool = False) -> str:
    """The last line of the text output. ``fixing``: the run applied fixes (``--fix``), so the
    findings left are those it could not fix, whatever fixes they carry."""
    n = len(diagnostics)
    fixable = sum(1 for d in diagnostics if d.fixable_safe)
    unsafe = sum(1 for d in diagnostics if d.fix is not None and not d.fixable_safe)
    if fixed or (fixing and n):
        total = n + fixed
        return f"Found {total} error{'s' if total != 1 else ''} ({fixed} fixed, {n} remaining)."
    if n == 0:
        return "All checks passed!"
    text = f"Found {n} error{'s' if n != 1 else ''}"
    parts = []
    if fixable:
        parts.append(f"{fixable} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} more fixable with --unsafe-fixes")
    if parts:
        text += f" ({', '.join(parts)})"
    return text + "."


def statistics(diagnostics: list[Diagnostic]) -> list[dict[str, Any]]:
    """Findings per code, most frequent first: code, name, count, whether a safe fix exists."""
    from gradguard.check.parse_error import NAME as PARSE_ERROR_NAME
    from gradguard.check.rules import rule_by_code

    counts = Counter(d.code for d in diagnostics)
    rows = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = rule_by_code(code)
        rows.append(
            {
                "code": code,
                "name": rule.name if rule else PARSE_ERROR_NAME,
                "count": count,
                "fixable": any(d.fixable_safe for d in diagnostics if d.code == code),
            }
        )
    return rows


def render_statistics(diagnostics: list[Diagnostic]) -> str:
    lines = [
        f"{row['count']:6d}\t{row['code']}\t{row['name']}{' [*]' if row['fixable'] else ''}"
        for row in statistics(diagnostics)
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def render_fixed(fixed_codes: list[tuple[str, str]]) -> str:
    """``--show-fixes``: what ``--fix`` fixed, per file and code (ruff's layout)."""
    from gradguard.check.rules import rule_by_code

    if not fixed_codes:
        return ""
    total = len(fixed_codes)
    lines = [f"Fixed {total} error{'s' if total != 1 else ''}:"]
    by_file: dict[str, Counter[str]] = {}
    for path, code in fixed_codes:
        by_file.setdefault(path, Counter())[code] += 1
    for path in sorted(by_file):
        lines.append(f"- {path}:")
        for code, count in sorted(by_file[path].items()):
            rule = rule_by_code(code)
            lines.append(f"    {count} × {code} ({rule.name if rule else code})")
    return "\n".join(lines) + "\n"
