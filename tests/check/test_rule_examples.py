"""Tests generated from every rule's embedded examples and documentation code blocks."""

from __future__ import annotations

import ast

import pytest

from gradguard.check.rules import all_rules
from gradguard.check.rules.base import Finding, Invalid, Valid, example_text
from tests.check.helpers import findings, fixed_text

RULES = all_rules()


def _cases(kind: str):
    for rule in RULES:
        for index, example in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind}-{index}")


@pytest.mark.parametrize("rule,example", list(_cases("invalid")))
def test_invalid_example_is_flagged(rule, example):
    diags = sorted(findings(example.code, rule), key=lambda d: d.sort_key())
    assert diags, f"{rule.code} did not flag:\n{example.code}"
    assert {d.code for d in diags} == {rule.code}
    got = [Finding(d.start.row, d.start.column, d.message) for d in diags]
    assert got == list(example.findings), f"{rule.code}: findings differ from the example's line, column, message"
    if example.fixed is not None:
        assert fixed_text(example.code, rule, unsafe=example.unsafe) == example.fixed
        # A second application changes nothing.
        assert fixed_text(example.fixed, rule, unsafe=example.unsafe) == example.fixed
        ast.parse(example.fixed)


@pytest.mark.parametrize("rule,example", list(_cases("valid")))
def test_valid_example_is_not_flagged(rule, example):
    diags = findings(example.code, rule)
    assert not diags, f"{rule.code} flagged valid code: {[(d.start, d.message) for d in diags]}\n{example.code}"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_documentation_examples(rule):
    blocks = rule.doc_code_blocks()
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"## {heading}" in rule.documentation(), f"{rule.code} lacks the '{heading}' section"
    assert blocks.get("Example"), f"{rule.code} documentation has no Example code block"
    assert blocks.get("Use instead"), f"{rule.code} documentation has no 'Use instead' code block"
    for code in blocks["Example"]:
        assert findings(code, rule), f"{rule.code}: its documented Example is not flagged:\n{code}"
    for code in blocks["Use instead"]:
        assert not findings(code, rule), f"{rule.code}: its documented 'Use instead' is flagged:\n{code}"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_has_examples_both_ways(rule):
    assert len(rule.invalid) >= 2 and len(rule.valid) >= 2
    assert all(isinstance(example, Valid) for example in rule.valid)
    assert all(isinstance(example, Invalid) for example in rule.invalid)


def test_codes_and_names_are_unique():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(codes) == len(set(codes))
    assert len(names) == len(set(names))
    assert all(c.startswith("GG") and len(c) == 5 and c[2:].isdigit() for c in codes)


def test_one_rule_per_module():
    modules = [r.__module__ for r in RULES]
    assert len(modules) == len(set(modules))
    for rule in RULES:
        assert rule.code.lower() in rule.__module__


def test_example_text_is_dedented():
    written = """
        import torch
        with torch.no_grad():
            pass
        """
    assert example_text(written) == "import torch\nwith torch.no_grad():\n    pass\n"
    assert Valid(written).code == example_text(written)
    invalid = Invalid(written, line=2, column=6, message="m", fixed=written)
    assert invalid.code == invalid.fixed == example_text(written)
    assert invalid.findings == (Finding(2, 6, "m"),)
