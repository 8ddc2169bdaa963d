"""Fixture files: ``# expect: GG101`` comments mark every expected finding, and each
``rules/ggNNN.py`` has a snapshot ``rules/ggNNN.snap`` of its findings (one
``line:column: CODE message`` line each); ``.in.py`` files are fixed and compared with their
``.out.py`` twins (``.unsafe.in.py``: unsafe fixes too).

``GRADGUARD_UPDATE_SNAPSHOTS=1 python -m pytest tests/check/test_fixtures.py`` rewrites the
snapshots from the current findings; review the diff before committing it.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest

from tests.check.helpers import findings, fixed_text

FIXTURES = Path(__file__).parent / "fixtures"
EXPECT_RE = re.compile(r"#.*\bexpect:\s*(?P<codes>GG\d{3}(?:\s*,\s*GG\d{3})*)")


def _expected(text: str) -> set:
    out = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        match = EXPECT_RE.search(line)
        if match:
            for code in re.split(r"\s*,\s*", match.group("codes")):
                out.add((lineno, code))
    return out


RULE_FIXTURES = sorted((FIXTURES / "rules").glob("*.py"))
FIX_FIXTURES = sorted((FIXTURES / "fixes").glob("*.in.py"))
UPDATE_SNAPSHOTS = os.environ.get("GRADGUARD_UPDATE_SNAPSHOTS", "") not in ("", "0")
SNAPSHOT_HEADER = "# Findings in {name}: line:column: code message (GRADGUARD_UPDATE_SNAPSHOTS=1 rewrites this file)\n"


def snapshot_text(name: str, diagnostics) -> str:
    lines = [
        f"{d.start.row}:{d.start.column}: {d.code} {d.message}\n"
        for d in sorted(diagnostics, key=lambda d: d.sort_key())
    ]
    return SNAPSHOT_HEADER.format(name=name) + "".join(lines)


@pytest.mark.parametrize("path", RULE_FIXTURES, ids=[p.name for p in RULE_FIXTURES])
def test_rule_fixture(path):
    text = path.read_text(encoding="utf-8")
    expected = _expected(text)
    got = {(d.start.row, d.code) for d in findings(text, filename=str(path))}
    missing = sorted(expected - got)
    unexpected = sorted(got - expected)
    assert not missing and not unexpected, f"missing: {missing}\nunexpected: {unexpected}"


@pytest.mark.parametrize("path", RULE_FIXTURES, ids=[p.name for p in RULE_FIXTURES])
def test_rule_fixture_snapshot(path):
    """Code, line, column and message of every finding, against ``ggNNN.snap``."""
    text = path.read_text(encoding="utf-8")
    snapshot = path.with_suffix(".snap")
    new = snapshot_text(path.name, findings(text, filename=str(path)))
    old = snapshot.read_text(encoding="utf-8") if snapshot.exists() else None
    if new == old:
        return
    if UPDATE_SNAPSHOTS:
        snapshot.write_text(new, encoding="utf-8")
        return
    diff = "".join(
        difflib.unified_diff(
            (old or "").splitlines(True), new.splitlines(True), f"rules/{snapshot.name}", "current findings"
        )
    )
    pytest.fail(
        f"{snapshot.name} {'is missing' if old is None else 'differs from the findings'}:\n{diff}\n"
        "If the change is intended, rewrite the snapshots with "
        "GRADGUARD_UPDATE_SNAPSHOTS=1 python -m pytest tests/check/test_fixtures.py and review the diff.",
        pytrace=False,
    )


def test_every_snapshot_has_its_fixture():
    fixtures = {p.with_suffix(".snap") for p in RULE_FIXTURES}
    stale = sorted(p.name for p in (FIXTURES / "rules").glob("*.snap") if p not in fixtures)
    assert not stale, f"snapshots without a fixture: {stale}"


@pytest.mark.parametrize("path", FIX_FIXTURES, ids=[p.name for p in FIX_FIXTURES])
def test_fix_fixture(path):
    text = path.read_text(encoding="utf-8")
    out_path = path.with_name(path.name.replace(".in.py", ".out.py"))
    unsafe = ".unsafe." in path.name
    result = fixed_text(text, unsafe=unsafe, filename=str(path))
    assert result == out_path.read_text(encoding="utf-8")
    assert fixed_text(result, unsafe=unsafe, filename=str(path)) == result
