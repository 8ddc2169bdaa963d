"""Helpers shared by the checker tests."""

from __future__ import annotations

from gradguard.check.engine.run import check_source
from gradguard.check.fixes import fix_until_stable
from gradguard.check.rules import all_rules
from gradguard.check.source import SourceText


def findings(text: str, rule_cls=None, codes=None, filename="example.py"):
    """Findings for ``text`` from one rule class (or every rule)."""
    rules = [rule_cls()] if rule_cls is not None else [r() for r in all_rules()]
    source = SourceText(text)
    result = check_source(source, filename, rules, require_torch_import=False)
    diags = result.diagnostics
    if codes is not None:
        diags = [d for d in diags if d.code in codes]
    return diags


def fixed_text(text: str, rule_cls=None, unsafe=False, filename="example.py") -> str:
    rules = [rule_cls()] if rule_cls is not None else [r() for r in all_rules()]

    def check(t: str):
        return check_source(SourceText(t), filename, rules, require_torch_import=False).diagnostics

    new_text, _, _ = fix_until_stable(text, check, unsafe)
    return new_text
