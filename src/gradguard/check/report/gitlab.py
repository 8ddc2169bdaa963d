"""GitLab Code Quality output (``--format gitlab``): a JSON list of issues, each with a
description, the rule code, a fingerprint that survives line moves, a severity and the
file and lines. GitLab shows it in merge requests."""

from __future__ import annotations

import json
from typing import Any

from gradguard.check.model import Diagnostic, Severity
from gradguard.check.report.sarif import fingerprints, relative_path


def issue(d: Diagnostic, fingerprint: str) -> dict[str, Any]:
    from gradguard.check.report import severity_of

    if d.cell is not None:
        row = d.extra.get("file_row") or 1
        begin, end = row, row
        description = f"cell {d.cell}, line {d.start.row}: {d.message}"
    else:
        begin, end = d.start.row, d.end.row
        description = d.message
    return {
        "description": description,
        "check_name": d.code,
        "fingerprint": fingerprint,
        "severity": "minor" if severity_of(d.code) is Severity.WARNING else "major",
        "location": {"path": relative_path(d.filename), "lines": {"begin": begin, "end": end}},
    }


def render(diagnostics: list[Diagnostic]) -> str:
    prints = fingerprints(diagnostics)
    return json.dumps([issue(d, p) for d, p in zip(diagnostics, prints)], indent=2) + "\n"
