"""The report a guarded run prints at exit: findings grouped by rule code (text or JSON)."""

from __future__ import annotations

import json
from typing import Any

from gradguard._version import __version__
from gradguard.common.text import format_bytes

from .session import RULE_TITLES, Finding


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def by_code(findings: list[Finding]) -> dict[str, list[Finding]]:
    groups: dict[str, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.code, []).append(finding)
    return dict(sorted(groups.items()))


def render_text(findings: list[Finding], summary: dict, *, target: str = "") -> str:
    steps, calls = summary.get("optimizer_steps", 0), summary.get("backward_calls", 0)
    watched = f"{steps} optimizer step{'s' if steps != 1 else ''}, {calls} backward call{'s' if calls != 1 else ''}"
    who = f" rank {summary['rank']}" if summary.get("rank") not in (None, "") else ""
    head = f"gradguard run{who}{': ' + target if target else ''}"
    if not findings:
        return f"{head}: no findings ({watched} watched)\n"
    n = len(findings)
    lines = [f"{head}: {n} finding{'s' if n != 1 else ''} ({watched} watched)"]
    for code, group in by_code(findings).items():
        count = sum(f.count for f in group)
        nbytes = sum(f.bytes for f in group)
        size = f", {format_bytes(nbytes)}" if nbytes else ""
        lines.append(f"{code} {RULE_TITLES.get(code, '')}: {_times(count)}{size}")
        for finding in group:
            extra = f" ({_times(finding.count)}{', ' + format_bytes(finding.bytes) if finding.bytes else ''})"
            lines.append(f"  {finding.where}{extra if finding.count > 1 or finding.bytes else ''}")
            if finding.library:
                lines.append(f"    in {finding.library}")
            lines.append(f"    {finding.message}")
    return "\n".join(lines) + "\n"


def render_json(findings: list[Finding], summary: dict, *, target: str = "", exit_code: Any = None) -> str:
    groups = {
        code: {
            "title": RULE_TITLES.get(code, ""),
            "count": sum(f.count for f in group),
            "bytes": sum(f.bytes for f in group),
            "sites": [f.where for f in group],
        }
        for code, group in by_code(findings).items()
    }
    payload = {
        "gradguard": __version__,
        "target": target,
        "exit_code": exit_code,
        "summary": summary,
        "by_code": groups,
        "findings": [f.to_json() for f in findings],
    }
    return json.dumps(payload, indent=2) + "\n"
