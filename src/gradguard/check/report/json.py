"""JSON output: a list of findings in ruff's JSON shape (``--format json``)."""

from __future__ import annotations

import json
from typing import Any

from gradguard.check.model import Diagnostic, Position


def _position_json(source_pos: Position) -> dict[str, int]:
    return {"row": source_pos.row, "column": source_pos.column}


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
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
        "noqa_row": d.extra.get("noqa_row", d.start.row),
    }
    if d.cell is not None:
        out["cell"] = d.cell
    return out


def render(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([diagnostic_json(d) for d in diagnostics], indent=2) + "\n"
