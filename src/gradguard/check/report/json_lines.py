"""JSON Lines output: one finding per line, each in ruff's JSON shape (``--format json-lines``)."""

from __future__ import annotations

import json

from gradguard.check.model import Diagnostic
from gradguard.check.report.json import diagnostic_json


def render(diagnostics: list[Diagnostic]) -> str:
    return "".join(json.dumps(diagnostic_json(d)) + "\n" for d in diagnostics)
