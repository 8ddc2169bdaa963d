"""SARIF 2.1.0 output, the format GitHub code scanning and other CI dashboards ingest.

One run; ``tool.driver.rules`` lists every rule of the catalogue (plus GG001) with its
documentation, and each finding becomes a result with its region and, when it has one, its
fix. Columns are counted in Unicode code points (``columnKind``), as gradguard counts them.
Findings in notebook cells point at the notebook file's line that holds the cell's source
line (when the notebook's JSON layout lets that be known) and name the cell in
``logicalLocations`` and ``properties``.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from gradguard.check.model import DOCS_URL, PROJECT_URL, Diagnostic

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = PROJECT_URL


def artifact_uri(filename: str) -> str:
    """A relative path as a relative URI reference (what code scanning resolves against the
    repository root); an absolute path as a file URI."""
    if os.path.isabs(filename):
        return PurePath(filename).as_uri()
    return quote(PurePath(filename).as_posix())


def _rule_descriptors() -> list[dict[str, Any]]:
    from gradguard.check.rules import PARSE_ERROR, PARSE_ERROR_SUMMARY, all_rules

    descriptors = [
        {
            "id": PARSE_ERROR,
            "name": "parse-error",
            "shortDescription": {"text": PARSE_ERROR_SUMMARY},
            "fullDescription": {"text": PARSE_ERROR_SUMMARY},
            "help": {"text": PARSE_ERROR_SUMMARY, "markdown": PARSE_ERROR_SUMMARY},
            "helpUri": DOCS_URL.format(code=PARSE_ERROR.lower()),
            "defaultConfiguration": {"enabled": True, "level": "error"},
        }
    ]
    for rule in all_rules():
        doc = rule.documentation()
        descriptors.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": doc.split("\n", 1)[0]},
                "help": {"text": doc, "markdown": doc},
                "helpUri": DOCS_URL.format(code=rule.code.lower()),
                "defaultConfiguration": {"enabled": bool(rule.default_enabled), "level": "error"},
                "properties": {"fix": rule.fix_availability.value},
            }
        )
    return descriptors


def _region(d: Diagnostic) -> dict[str, Any]:
    file_row = d.extra.get("file_row")
    if d.cell is not None:
        # A notebook: only the file line is meaningful in the notebook's JSON text.
        return {"startLine": file_row or 1}
    return {
        "startLine": d.start.row,
        "startColumn": d.start.column,
        "endLine": d.end.row,
        "endColumn": d.end.column,
    }


def _fixes(d: Diagnostic, uri: str) -> list[dict[str, Any]]:
    if d.fix is None or d.cell is not None:
        # Notebook fixes are edits of a cell's source, not of the notebook file's text.
        return []
    positions = d.extra.get("edit_positions")
    if not positions or len(positions) != len(d.fix.edits):
        return []
    replacements = [
        {
            "deletedRegion": {
                "startLine": start.row,
                "startColumn": start.column,
                "endLine": end.row,
                "endColumn": end.column,
            },
            "insertedContent": {"text": edit.content},
        }
        for edit, (start, end) in zip(d.fix.edits, positions)
    ]
    return [
        {
            "description": {"text": d.fix.message},
            "artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}],
        }
    ]


def _result(d: Diagnostic, rule_index: dict[str, int]) -> dict[str, Any]:
    uri = artifact_uri(d.filename)
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": _region(d)}}
    message = d.message
    result: dict[str, Any] = {"ruleId": d.code, "level": "error", "message": {"text": message}}
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    if d.cell is not None:
        where = f"cell {d.cell}, line {d.start.row}, column {d.start.column}"
        result["message"]["text"] = f"{where}: {message}"
        location["logicalLocations"] = [{"name": f"cell {d.cell}", "kind": "module"}]
        result["properties"] = {
            "cell": d.cell,
            "cellRegion": {
                "startLine": d.start.row,
                "startColumn": d.start.column,
                "endLine": d.end.row,
                "endColumn": d.end.column,
            },
        }
    result["locations"] = [location]
    fixes = _fixes(d, uri)
    if fixes:
        result["fixes"] = fixes
    return result


def sarif_log(diagnostics: list[Diagnostic]) -> dict[str, Any]:
    from gradguard._version import __version__

    rules = _rule_descriptors()
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gradguard",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, rule_index) for d in diagnostics],
            }
        ],
    }


def render(diagnostics: list[Diagnostic]) -> str:
    return json.dumps(sarif_log(diagnostics), indent=2) + "\n"
