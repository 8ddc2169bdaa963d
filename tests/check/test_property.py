"""Property tests: the checker never raises, and fixes keep programs parseable and stable.

Programs come from three sources: ``hypothesmith`` (programs from Python's grammar, and
from libcst's node types), and mutations of real PyTorch snippets (the rules' embedded
examples and the fixture files: lines deleted, duplicated, swapped, re-indented or cut),
which reach far deeper into the rules than random programs do. Every rule in the catalogue
runs, including those off by default, and every fix, safe and unsafe, is applied.

Examples per test follow the Hypothesis profile (``tests/conftest.py``):
``GRADGUARD_HYPOTHESIS_PROFILE=long python -m pytest tests/test_property.py`` searches longer.
"""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import given, settings, strategies as st

from gradguard.check.engine.run import check_bytes, check_source
from gradguard.check.fixes import apply_edits, chosen_fixes, fix_until_stable
from gradguard.check.rules import all_rules
from gradguard.check.source import SourceText

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # hypothesmith compiles odd code

FIXTURES = Path(__file__).parent / "fixtures"
TORCH_HEADER = "import torch\nimport torch.nn as nn\nfrom torch import no_grad, inference_mode\n"


def _rules() -> list:
    return [rule() for rule in all_rules()]


def check_never_raises(text: str) -> list:
    """Diagnostics of every rule; fails on any internal error."""
    result = check_source(SourceText(text), "generated.py", _rules(), require_torch_import=False)
    assert result.internal_errors == [], [str(e) for e in result.internal_errors]
    return result.diagnostics


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def assert_fixes_sound(text: str) -> None:
    """Every fix (safe and unsafe) keeps the program parseable on its own; fixing converges
    (no fix left to apply) and is idempotent (a second run changes nothing)."""
    rules = _rules()

    def check(t: str) -> list:
        result = check_source(SourceText(t), "generated.py", rules, require_torch_import=False)
        assert result.internal_errors == [], [str(e) for e in result.internal_errors]
        return result.diagnostics

    for diagnostic in check(text):
        if diagnostic.fix is not None:
            alone, count = apply_edits(text, [diagnostic.fix])
            assert count == 1, (
                f"{diagnostic.code} fix at {diagnostic.start} has colliding edits: {diagnostic.fix.edits}"
            )
            assert _parses(alone), f"{diagnostic.code} fix at {diagnostic.start} breaks the program:\n{alone}"
    fixed, applied, remaining = fix_until_stable(text, check, unsafe=True)
    assert _parses(fixed)
    assert not chosen_fixes(remaining, unsafe=True), "fixes did not converge"
    again, applied_again, _ = fix_until_stable(fixed, check, unsafe=True)
    assert again == fixed and applied_again == 0, "fixing twice changed the program again"


@lru_cache(maxsize=1)
def snippets() -> tuple:
    """Real PyTorch code: every rule's examples and every fixture file."""
    out = []
    for rule in all_rules():
        out.extend(example.code for example in rule.valid)
        out.extend(example.code for example in rule.invalid)
        out.extend(example.fixed for example in rule.invalid if example.fixed)
    for path in sorted(FIXTURES.rglob("*.py")):
        out.append(path.read_text(encoding="utf-8"))
    return tuple(out)


def _mutate(text: str, ops: list) -> str:
    lines = text.splitlines(keepends=True) or [""]
    for op, a, b in ops:
        i, j = a % len(lines), b % len(lines)
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "indent":
            lines[i] = "    " + lines[i]
        elif op == "dedent":
            lines[i] = lines[i][4:] if lines[i].startswith("    ") else lines[i].lstrip()
        elif op == "cut":
            lines[i] = lines[i][: b % (len(lines[i]) + 1)]
        elif op == "splice":  # a line from another snippet
            others = snippets()
            donor = others[a % len(others)].splitlines(keepends=True) or [""]
            lines.insert(i, donor[b % len(donor)])
        elif op == "crlf":
            lines[i] = lines[i].replace("\n", "\r\n")
        if not lines:
            lines = [""]
    return "".join(lines)


_OPS = st.tuples(
    st.sampled_from(["delete", "duplicate", "swap", "indent", "dedent", "cut", "splice", "crlf"]),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
)
mutated_snippets = st.builds(_mutate, st.sampled_from(snippets()), st.lists(_OPS, max_size=6))


@given(hypothesmith.from_grammar())
def test_grammar_programs_never_crash(source):
    check_never_raises(TORCH_HEADER + source)
    assert_fixes_sound(TORCH_HEADER + source)


@settings(max_examples=max(10, settings().max_examples // 4))  # libcst-based: ~0.1 s each
@given(hypothesmith.from_node())
def test_node_programs_never_crash(source):
    check_never_raises(TORCH_HEADER + source)
    assert_fixes_sound(TORCH_HEADER + source)


@settings(max_examples=settings().max_examples * 3)
@given(mutated_snippets)
def test_mutated_snippets_never_crash_and_fix_soundly(text):
    check_never_raises(text)
    if _parses(text):
        assert_fixes_sound(text)


@given(st.binary(max_size=400) | st.builds(lambda t: t.encode("utf-8", "surrogatepass"), st.text(max_size=200)))
def test_arbitrary_bytes_never_crash(data):
    result = check_bytes(b"import torch\n" + data, "generated.py", _rules(), require_torch_import=False)
    assert result.internal_errors == []


def test_mutations_reach_the_rules():
    """The mutation strategy must produce programs the rules actually flag, or it tests little."""
    flagged = 0
    for text in snippets():
        if _parses(text) and any(d.code != "GG001" for d in check_never_raises(text)):
            flagged += 1
    assert flagged >= len(all_rules())
