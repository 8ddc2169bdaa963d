"""The checker's data objects: fix applicability and the rules' fix availability."""

from __future__ import annotations

import json

import pytest

from gradguard.check.model import Applicability, Diagnostic, Edit, Fix, FixAvailability, Position
from gradguard.check.rules import all_rules


@pytest.mark.parametrize(
    "applicability,unsafe,expected",
    [
        (Applicability.SAFE, False, True),
        (Applicability.SAFE, True, True),
        (Applicability.UNSAFE, False, False),
        (Applicability.UNSAFE, True, True),
    ],
)
def test_fix_applies(applicability, unsafe, expected):
    fix = Fix(applicability, "m", (Edit(0, 1, "x"),))
    assert fix.applies(unsafe) is expected


def test_fixable_safe_follows_applicability():
    def diagnostic(fix):
        return Diagnostic("GG101", "m", "f.py", Position(1, 1), Position(1, 2), fix)

    assert diagnostic(Fix(Applicability.SAFE, "m", ())).fixable_safe
    assert not diagnostic(Fix(Applicability.UNSAFE, "m", ())).fixable_safe
    assert not diagnostic(None).fixable_safe


def test_enums_keep_their_string_values():
    """The JSON output and the result cache hold the plain strings."""
    assert json.dumps([Applicability.SAFE, Applicability.UNSAFE]) == '["safe", "unsafe"]'
    assert Applicability("unsafe") is Applicability.UNSAFE
    assert [a.value for a in FixAvailability] == ["none", "safe", "unsafe", "sometimes"]


def test_fix_availability_labels():
    assert FixAvailability.NONE.label == "no fix"
    assert FixAvailability.SAFE.label == "safe fix"
    assert FixAvailability.UNSAFE.label == "unsafe fix"
    assert FixAvailability.SOMETIMES.label == "fix sometimes available"


def test_every_rule_declares_a_fix_availability():
    assert all(isinstance(rule.fix_availability, FixAvailability) for rule in all_rules())
