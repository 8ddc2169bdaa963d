"""Functions whose text holds no active rule's function trigger are not walked.

The skipping must never change a finding: every rule example, fixture and bundled example
gives the same diagnostics with skipping on and off.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gradguard.check.engine.run as engine
from gradguard.check.engine.run import check_source
from gradguard.check.rules import all_rules
from gradguard.check.rules.base import Rule
from gradguard.check.source import SourceText
from gradguard.check.triggers import trigger_text

ROOT = Path(__file__).resolve().parents[2]


class CallRecorder(Rule):
    """Records the name of every function call it is shown."""

    code = "GG999"
    name = "call-recorder"
    summary = "test probe"
    function_triggers = ("marker",)
    function_names = ("torch.no_grad",)

    def __init__(self):
        self.calls = []

    def visit_Call(self, node, ctx):
        if isinstance(node.func, ast.Name):
            self.calls.append(node.func.id)


class SeesEverything(CallRecorder):
    code = "GG998"
    function_triggers = None


def run(code: str, *rules) -> engine.FileResult:
    return check_source(SourceText(code), "t.py", list(rules), require_torch_import=False)


def test_function_without_trigger_is_not_walked():
    probe = CallRecorder()
    run("def a():\n    skipped()\n\ndef b():\n    marker()\n\nat_module_level()\n", probe)
    assert probe.calls == ["marker", "at_module_level"]


class FileTriggered(CallRecorder):
    """Sees, besides its static triggers, the functions that call the file's own `helper`."""

    code = "GG997"

    def file_function_triggers(self, ctx):
        return ("helper(",) if "def helper" in ctx.source.text else ()


def test_a_trigger_the_file_gives_counts_in_that_file_only():
    probe = FileTriggered()
    run("def helper(x):\n    pass\n\ndef a():\n    helper(seen())\n\ndef b():\n    skipped()\n", probe)
    assert probe.calls == ["helper", "seen"]
    # twin: without its definition, the same call is no trigger
    probe = FileTriggered()
    run("def a():\n    helper(skipped())\n", probe)
    assert probe.calls == []


def test_trigger_in_decorator_or_signature_counts():
    probe = CallRecorder()
    run("@marker()\ndef a():\n    seen_a()\n\ndef b(marker=1):\n    seen_b()\n", probe)
    assert probe.calls == ["marker", "seen_a", "seen_b"]


def test_nested_function_is_skipped_on_its_own():
    probe = CallRecorder()
    run("def outer():\n    marker()\n    def inner():\n        hidden()\n    return inner\n", probe)
    assert probe.calls == ["marker"]


def test_alias_of_a_listed_name_counts_as_trigger():
    probe = CallRecorder()
    run(
        "from torch import no_grad as ng\n\ndef a():\n    with ng():\n        seen()\n\ndef b():\n    hidden()\n", probe
    )
    assert probe.calls == ["ng", "seen"]


def test_rule_without_function_triggers_sees_every_function():
    probe, everything = CallRecorder(), SeesEverything()
    run("def a():\n    f()\n\ndef b():\n    marker()\n", probe, everything)
    assert everything.calls == ["f", "marker"]
    assert probe.calls == ["marker"]  # walked for the other rule, but not shown to this one


class OtherMarker(CallRecorder):
    code = "GG997"
    function_triggers = ("other",)
    function_names = ()


def test_each_rule_sees_only_the_functions_holding_its_own_triggers():
    marker, other = CallRecorder(), OtherMarker()
    code = (
        "def a():\n    marker()\n\n"
        "def b():\n    other()\n\n"
        "def c():\n    marker()\n    def inner():\n        other()\n    return inner\n"
    )
    run(code, marker, other)
    assert marker.calls == ["marker", "marker"]  # `a` and `c`; `inner` is judged on its own text
    assert other.calls == ["other", "marker", "other"]  # `b`, and `c`, whose text holds `inner`


def test_skipped_functions_are_listed_for_rules():
    seen = {}

    class Lister(CallRecorder):
        def leave_Module(self, node, ctx):
            seen["skipped"] = [f.name for f in ctx.skipped_functions]

    run("def a():\n    pass\n\ndef b():\n    marker()\n\nclass C:\n    def m(self):\n        pass\n", Lister())
    assert seen["skipped"] == ["a", "m"]


def test_gg201_counts_calls_made_in_skipped_functions():
    # `evaluate` is called under no_grad in `main`, but also from `report`, which holds no
    # trigger and is not walked: that call runs with grad on, so the finding stays.
    code = (
        "import torch\n\n"
        "def evaluate(model, val_loader):\n    model.eval()\n    for x in val_loader:\n        model(x)\n\n"
        "def main(model, val_loader):\n    with torch.no_grad():\n        evaluate(model, val_loader)\n\n"
        "def report(model, data):\n    evaluate(model, data)\n"
    )
    rules = [r() for r in all_rules() if r.code == "GG201"]
    assert [d.code for d in run(code, *rules).diagnostics] == ["GG201"]
    only_no_grad = code.rsplit("def report", 1)[0]
    assert run(only_no_grad, *rules).diagnostics == []


def _files() -> list:
    paths = sorted((ROOT / "tests" / "check" / "fixtures").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in paths]


def _cases() -> list:
    """Each rule alone (another rule's triggers must not hide a gap in its own) on its own
    examples and on every fixture and bundled example."""
    files = _files()
    out = []
    for rule in all_rules():
        for i, example in enumerate(rule.valid + rule.invalid):
            out.append(pytest.param(rule, example.code, id=f"{rule.code}-example-{i}"))
        for name, text in files:
            out.append(pytest.param(rule, text, id=f"{rule.code}-{name}"))
    return out


def _findings(rule, code: str) -> list:
    result = check_source(SourceText(code), "t.py", [rule()], require_torch_import=False)
    return [(d.code, d.start, d.end, d.message) for d in result.diagnostics]


@pytest.mark.parametrize(("rule", "code"), _cases())
def test_skipping_changes_no_finding(rule, code, monkeypatch):
    with_skipping = _findings(rule, code)
    monkeypatch.setattr(engine, "function_triggers", lambda *args: None)
    assert _findings(rule, code) == with_skipping


def test_gg201_walks_a_function_whose_loader_is_camel_case():
    # The file names a `loader` elsewhere, so GG201 runs; the function itself says only `Loader`.
    code = "import torch\n\nloader = None\n\ndef check(model, valLoader):\n    for x in valLoader:\n        model(x)\n"
    rules = [r() for r in all_rules() if r.code == "GG201"]
    assert [d.code for d in run(code, *rules).diagnostics] == ["GG201"]


def test_function_triggers_are_searched_within_the_stretch_only():
    import re

    from gradguard.check.engine.walker import FunctionTriggers
    from gradguard.check.triggers import TextSearch

    text = "def a():\n    pass\ndef b():\n    x.data\ndef c():\n    val_loader\n"
    lines = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    every = 0b111

    def triggers():
        # Rule 0 has substrings and a pattern, rule 1 only the pattern, rule 2 sees every function.
        return FunctionTriggers(
            TextSearch(text), [[".data", "oader", re.compile(r"val_")], [re.compile(r"val_")], None]
        )

    in_order = triggers()
    assert in_order.rules_in(lines[0], lines[2], every) == 0b100  # a: no trigger
    assert in_order.rules_in(lines[2], lines[4], every) == 0b101  # b: .data
    assert in_order.rules_in(lines[4], lines[6], every) == 0b111  # c: oader, and the pattern
    assert in_order.rules_in(lines[4], lines[6], 0b010) == 0b010  # only the rules asked about
    # Asked out of text order (or about a stretch holding others), the answers are the same.
    backwards = triggers()
    assert backwards.rules_in(lines[4], lines[6], every) == 0b111
    assert backwards.rules_in(lines[2], lines[4], every) == 0b101
    assert backwards.rules_in(lines[0], lines[2], every) == 0b100
    assert backwards.rules_in(lines[0], lines[6], 0b001) == 0b001


def test_text_search_finds_each_occurrence_in_turn():
    from gradguard.check.triggers import TextSearch

    search = TextSearch("ab ab ab")
    assert [search.next_at("ab", at) for at in (0, 1, 3, 4, 6, 7)] == [0, 3, 3, 6, 6, -1]
    assert search.next_at("ab", 2) == 3  # back again: searched anew
    assert search.occurs("ab") and not search.occurs("ba ")


SPACED_CALLS = """
import torch


def fit(model, loader, opt):
    for x, y in loader:
        loss = model (x).sub (y).pow (2).mean ()
        loss.backward ()
        opt.step ()
    seed = torch.tensor (torch.ones (3))
    return model (seed).numpy ()
"""


def test_a_call_written_with_a_space_before_its_parenthesis_still_triggers_its_rules():
    # `opt.step ()`, `torch.tensor (...)`, `.numpy ()`: the triggers `.step(`, `tensor(` and
    # `.numpy(` are looked for in a text where such a call reads as one without the space
    codes = {d.code for d in run(SPACED_CALLS, *(rule() for rule in all_rules())).diagnostics}
    assert {"GG103", "GG302", "GG303"} <= codes


def test_twin_the_same_calls_without_the_space_give_the_same_findings():
    spaced = run(SPACED_CALLS, *(rule() for rule in all_rules())).diagnostics
    plain = run(SPACED_CALLS.replace(" (", "("), *(rule() for rule in all_rules())).diagnostics
    assert sorted((d.code, d.start) for d in spaced) == sorted((d.code, d.start) for d in plain)


@pytest.mark.parametrize("text", ["torch.tensor (x)", "f (a) + g(b)", "if (a):\n    b ()", "plain(x)"])
def test_trigger_text_keeps_every_offset(text):
    searched = trigger_text(text)
    assert len(searched) == len(text)
    assert " (" not in searched
