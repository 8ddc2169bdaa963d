"""Fixture files: ``# expect: GG101`` comments mark every expected finding; ``.in.py`` files
are fixed and compared with their ``.out.py`` twins (``.unsafe.in.py``: unsafe fixes too)."""

from __future__ import annotations

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


@pytest.mark.parametrize("path", RULE_FIXTURES, ids=[p.name for p in RULE_FIXTURES])
def test_rule_fixture(path):
    text = path.read_text(encoding="utf-8")
    expected = _expected(text)
    got = {(d.start.row, d.code) for d in findings(text, filename=str(path))}
    missing = sorted(expected - got)
    unexpected = sorted(got - expected)
    assert not missing and not unexpected, f"missing: {missing}\nunexpected: {unexpected}"


@pytest.mark.parametrize("path", FIX_FIXTURES, ids=[p.name for p in FIX_FIXTURES])
def test_fix_fixture(path):
    text = path.read_text(encoding="utf-8")
    out_path = path.with_name(path.name.replace(".in.py", ".out.py"))
    unsafe = ".unsafe." in path.name
    result = fixed_text(text, unsafe=unsafe, filename=str(path))
    assert result == out_path.read_text(encoding="utf-8")
    assert fixed_text(result, unsafe=unsafe, filename=str(path)) == result
