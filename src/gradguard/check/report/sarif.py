"""SARIF 2.1.0 output, the format GitHub code scanning and other CI dashboards ingest.

One run; ``tool.driver.rules`` lists every rule of the catalogue (plus GG001) with its
documentation, and each finding becomes a result with its region and, when it has one, its
fix. Columns are counted in Unicode code points (``columnKind``), as gradguard counts them.
Findings in notebook cells point at the notebook file's line that holds the cell's source
line (when the notebook's JSON layout lets that be known) and name the cell in
``logicalLocations`` and ``properties``.

For GitHub code scanning: paths below the current folder are relative to ``%SRCROOT%``
(``uriBaseId``); each result's ``partialFingerprints`` hash its code, file and the text of
its line (plus a count among equal ones), not the line number, so an alert keeps its
identity when lines above it move; each rule's level is its severity (``error`` for code
that always raises or corrupts gradients, ``warning`` for waste and legacy API). GitHub
rejects a run of more than 25,000 results: the first 25,000 are written, with a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from gradguard.check.model import DOCS_URL, PROJECT_URL, Diagnostic

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = PROJECT_URL
SRCROOT = "%SRCROOT%"
MAX_RESULTS = 25_000  # GitHub code scanning rejects a run with more


def relative_path(filename: str) -> str:
    """The path relative to the current folder when it is below it, else as given (POSIX)."""
    if os.path.isabs(filename):
        try:
            return Path(filename).relative_to(Path.cwd()).as_posix()
        except ValueError:
            return PurePath(filename).as_posix()
    return PurePath(os.path.normpath(filename)).as_posix()


def fingerprints(diagnostics: list[Diagnostic]) -> list[str]:
    """One fingerprint per finding, stable when lines move: a hash of the file, the code, the
    cell and the finding's line text (its message when the line is unknown), then ``:n``
    counting the equal ones before it."""
    seen: dict[str, int] = {}
    out = []
    for d in diagnostics:
        what = d.extra.get("line_text") or d.message
        key = f"{relative_path(d.filename)}\0{d.code}\0{d.cell or ''}\0{what}"
        digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
        seen[digest] = seen.get(digest, 0) + 1
        out.append(f"{digest}:{seen[digest]}")
    return out


def artifact_location(filename: str) -> dict[str, str]:
    """A path below the current folder as a URI relative to ``%SRCROOT%`` (what code scanning
    resolves against the repository root); any other path as a file URI."""
    path = relative_path(filename)
    if os.path.isabs(path) or path.startswith("../"):
        return {"uri": Path(os.path.abspath(filename)).as_uri()}
    return {"uri": quote(path), "uriBaseId": SRCROOT}


def _rule_descriptors() -> list[dict[str, Any]]:
    from gradguard.check.report import severity_of
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
                "defaultConfiguration": {
                    "enabled": bool(rule.default_enabled),
                    "level": severity_of(rule.code).value,
                },
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


def _fixes(d: Diagnostic, location: dict[str, str]) -> list[dict[str, Any]]:
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
            "artifactChanges": [{"artifactLocation": location, "replacements": replacements}],
        }
    ]


def _result(d: Diagnostic, rule_index: dict[str, int], fingerprint: str) -> dict[str, Any]:
    from gradguard.check.report import severity_of

    artifact = artifact_location(d.filename)
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact, "region": _region(d)}}
    message = d.message
    result: dict[str, Any] = {"ruleId": d.code, "level": severity_of(d.code).value, "message": {"text": message}}
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
    result["partialFingerprints"] = {"primaryLocationLineHash": fingerprint}
    fixes = _fixes(d, artifact)
    if fixes:
        result["fixes"] = fixes
    return result


def sarif_log(diagnostics: list[Diagnostic]) -> dict[str, Any]:
    from gradguard._version import __version__

    rules = _rule_descriptors()
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    kept = diagnostics[:MAX_RESULTS]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if len(diagnostics) > MAX_RESULTS:
        invocation["toolExecutionNotifications"] = [{"level": "warning", "message": {"text": capped(len(diagnostics))}}]
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
                "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
                "invocations": [invocation],
                "results": [_result(d, rule_index, p) for d, p in zip(kept, fingerprints(kept))],
            }
        ],
    }


def capped(found: int) -> str:
    return (
        f"SARIF output holds the first {MAX_RESULTS:,} of {found:,} results: "
        "GitHub code scanning rejects a run with more"
    )


def render(diagnostics: list[Diagnostic]) -> str:
    return json.dumps(sarif_log(diagnostics), indent=2) + "\n"
