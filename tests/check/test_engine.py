"""The engine's view of grad mode, scopes and imports, probed with a tiny rule."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import pytest

from gradguard.check.analysis.imports import ImportMap, mentions_torch_import
from gradguard.check.engine.run import check_source
from gradguard.check.source import SourceText


class Probe:
    """Records the grad state at every call of ``probe()``."""

    def __init__(self):
        self.states = []

    def applies_to(self, text, seen=None):
        return True

    def visit_Call(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "probe":
            self.states.append((ctx.grad_state(), ctx.in_inference_mode))


def states(code: str):
    probe = Probe()
    check_source(SourceText(code), "t.py", [probe], require_torch_import=False)
    return probe.states


@pytest.mark.parametrize(
    "code,expected",
    [
        ("import torch\nprobe()\n", [("enabled", False)]),
        ("import torch\nwith torch.no_grad():\n    probe()\nprobe()\n", [("disabled", False), ("enabled", False)]),
        ("import torch\nwith torch.inference_mode():\n    probe()\n", [("disabled", True)]),
        ("import torch\nwith torch.inference_mode(False):\n    probe()\n", [("enabled", False)]),
        ("import torch\nwith torch.inference_mode(mode=flag):\n    probe()\n", [("maybe", False)]),
        ("import torch\nwith torch.no_grad():\n    with torch.enable_grad():\n        probe()\n", [("enabled", False)]),
        ("import torch\nwith torch.set_grad_enabled(False):\n    probe()\n", [("disabled", False)]),
        ("import torch\nwith torch.set_grad_enabled(train):\n    probe()\n", [("maybe", False)]),
        ("import torch\n@torch.no_grad()\ndef f():\n    probe()\n", [("disabled", False)]),
        ("import torch\n@torch.no_grad\ndef f():\n    probe()\n", [("disabled", False)]),
        ("from torch import inference_mode as im\n@im()\ndef f():\n    probe()\n", [("disabled", True)]),
        ("import torch\nwith torch.no_grad():\n    def f():\n        probe()\n", [("maybe", False)]),
        ("import torch\n@torch.no_grad()\ndef f():\n    def g():\n        probe()\n", [("maybe", False)]),
        ("import torch\nwith self.maybe_no_grad():\n    probe()\n", [("maybe", False)]),
        ("import torch\nwith open(p) as fh:\n    probe()\n", [("enabled", False)]),
        (
            "import torch\ndef f():\n    torch.set_grad_enabled(False)\n    probe()\n    torch.set_grad_enabled(True)\n    probe()\nprobe()\n",
            [("disabled", False), ("enabled", False), ("enabled", False)],
        ),
        ("import torch as th\nwith th.autograd.no_grad():\n    probe()\n", [("disabled", False)]),
        ("import torch\nwith torch.no_grad():\n    f = lambda: probe()\n", [("maybe", False)]),
        # `and` yields its last operand, `or` its first: only that manager is entered
        ("import torch\nwith torch.no_grad() and torch.autocast('cuda'):\n    probe()\n", [("enabled", False)]),
        ("import torch\nwith torch.autocast('cuda') and torch.no_grad():\n    probe()\n", [("disabled", False)]),
        ("import torch\nwith torch.inference_mode() or amp():\n    probe()\n", [("disabled", True)]),
        ("import torch\nwith flag and torch.no_grad():\n    probe()\n", [("maybe", False)]),
    ],
)
def test_grad_state(code, expected):
    assert states(code) == expected


@pytest.mark.parametrize(
    "code,name",
    [
        ("import torch.nn as nn\nif __name__ == '__main__':\n    import torch\n", None),
        ("import torch.nn as nn\ndef f():\n    import torch\n", None),
        ("try:\n    import torch as T\nexcept ImportError:\n    T = None\n", "T"),
        ("import sys\nif sys.version_info > (3,):\n    import torch\n", "torch"),
        ("if __name__ == '__main__':\n    pass\nelse:\n    import torch\n", "torch"),
    ],
)
def test_torch_name_is_one_bound_whenever_the_module_runs(code, name):
    # what a fix writes (`with torch.no_grad():`) must exist when the module is imported
    assert ImportMap(ast.parse(code)).torch_name == name


def test_import_map_resolves_aliases():
    tree = ast.parse(
        "import torch as th\nimport torch.nn as nn\nfrom torch.autograd import Variable as V\n"
        "def f():\n    from torch import no_grad\n"
    )
    imports = ImportMap(tree)
    assert imports.imports_torch
    assert imports.torch_name == "th"
    q = imports.qualified_name
    assert q(ast.parse("th.no_grad", mode="eval").body) == "torch.no_grad"
    assert q(ast.parse("nn.functional.relu", mode="eval").body) == "torch.nn.functional.relu"
    assert q(ast.parse("V", mode="eval").body) == "torch.autograd.Variable"
    assert q(ast.parse("no_grad", mode="eval").body) == "torch.no_grad"
    assert q(ast.parse("numpy.array", mode="eval").body) is None


def test_import_map_resolves_the_names_a_star_import_of_torch_autograd_brings():
    imports = ImportMap(ast.parse("import torch\nfrom torch.autograd import *\n"))
    q = imports.qualified_name
    assert q(ast.parse("Variable", mode="eval").body) == "torch.autograd.Variable"
    assert q(ast.parse("no_grad", mode="eval").body) == "torch.autograd.no_grad"
    # twin: a name `torch.autograd` does not export stays unknown
    assert q(ast.parse("Parameter", mode="eval").body) is None


@pytest.mark.parametrize(
    "text,expected",
    [
        ("import torch\n", True),
        ("import os, torch.nn as nn\n", True),
        ("from torch.utils.data import DataLoader\n", True),
        ("    import torch  # lazily\n", True),
        ("import torchvision\n", True),  # a torch domain library: the file runs torch models
        ("from torchaudio import transforms\n", True),
        ("import torchmetrics\n", False),
        ("# import torch\n", False),
        ("x = 'from torch import nn'\n", False),
        ("import numpy\n", False),
    ],
)
def test_torch_import_prefilter(text, expected):
    assert mentions_torch_import(text) is expected


def test_a_file_importing_only_torchvision_is_checked_and_one_importing_neither_is_skipped():
    code = "with torch.no_grad:\n    pass\n"
    assert not check_source(SourceText("import torchvision\n" + code), "t.py", [], True).skipped
    assert check_source(SourceText("import torchmetrics\n" + code), "t.py", [], True).skipped


@pytest.mark.parametrize(
    "code",
    [
        "import torch\n",
        "import os\n\ndef f():\n    if x:\n        import torch.nn as nn\n    return nn\n",
        "try:\n    pass\nexcept ImportError:\n    from torch import no_grad as ng\n",
        "match x:\n    case 1:\n        from torch import autograd\n    case _:\n        import numpy as np\n",
        "class A:\n    def m(self):\n        from torch.nn import functional as F\n",
        "from torch import (\n    no_grad,\n    tensor as T,\n)\nx = 1  # import nothing\n",
        "x = 'import torch'\n",
        "x = 1\rdef f():\r    import torch\r",
        "x = 1\r\ndef f():\r\n    import torch\r\n",
    ],
)
def test_import_map_from_text_matches_full_scan(code):
    tree = ast.parse(code)
    with_text, full = ImportMap(tree, code), ImportMap(tree)
    assert with_text.names == full.names
    assert with_text.imports_torch == full.imports_torch


def test_statements_with_word_finds_every_class_definition():
    from gradguard.check.analysis.imports import iter_statements, statements_with_word

    code = (
        "@decorator\nclass A(nn.Module):\n    class Inner:\n        pass\n\n"
        "def f():\n    if x:\n        class B(A):\n            pass\n    return B\n\n"
        "try:\n    pass\nfinally:\n    class C:  # comment\n        pass\nx = 'no class here'\n"
    )
    tree = ast.parse(code)
    full = [n.name for n in iter_statements(tree.body) if isinstance(n, ast.ClassDef)]
    pruned = [n.name for n in statements_with_word(tree.body, code, "class") if isinstance(n, ast.ClassDef)]
    assert sorted(pruned) == sorted(full) == ["A", "B", "C", "Inner"]
    assert list(statements_with_word(tree.body, code, "zebra")) == []


@dataclass
class _Seen:
    calls: list = field(default_factory=list)


class StatefulProbe:
    """Records the lines of ``probe()`` calls in its per-file state."""

    code = "GG999"

    def __init__(self):
        self.states = []

    def applies_to(self, text, seen=None):
        return True

    def visit_Call(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "probe":
            state = ctx.state(_Seen)
            assert ctx.state(_Seen) is state
            state.calls.append(node.lineno)
            if not any(s is state for s in self.states):
                self.states.append(state)


class Boom:
    code = "GG998"

    def applies_to(self, text, seen=None):
        return True

    def visit_Call(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "boom":
            raise ValueError("boom")


def test_rule_state_is_fresh_for_every_file():
    probe = StatefulProbe()
    for _ in range(2):
        check_source(SourceText("probe()\nprobe()\n"), "t.py", [probe], require_torch_import=False)
    assert [s.calls for s in probe.states] == [[1, 2], [1, 2]]


def test_rule_state_is_fresh_after_a_failing_rule_is_dropped():
    """The walk restarts without the failing rule; the others' state starts over with it."""
    kept = StatefulProbe()
    result = check_source(SourceText("probe()\nboom()\n"), "t.py", [kept, Boom()], require_torch_import=False)
    assert [e.where for e in result.internal_errors] == ["GG998"]
    assert [s.calls for s in kept.states] == [[1], [1]]


_ZERO_DIM_DATA_INDEX = """\
import torch.nn as nn
criterion = nn.MSELoss()
def f(model, x, y):
    loss = criterion(model(x), y)
    loss.backward()
    return loss.data[0]{noqa}
"""


def _codes(text: str, rules) -> list[tuple[int, str]]:
    result = check_source(SourceText(text), "example.py", [rule() for rule in rules], require_torch_import=False)
    return [(d.start.row, d.code) for d in result.diagnostics]


def test_a_finding_another_rule_supersedes_at_its_site_is_dropped():
    from gradguard.check.rules.gg101_tensor_data_read import TensorDataRead
    from gradguard.check.rules.gg105_zero_dim_index import ZeroDimIndex

    text = _ZERO_DIM_DATA_INDEX.format(noqa="")
    # `loss.data[0]`: GG105's `.item()` is the one finding when both rules run ...
    assert _codes(text, [TensorDataRead, ZeroDimIndex]) == [(6, "GG105")]
    # ... GG101 reports it (with the `.item()` advice) when it runs without GG105 ...
    alone = check_source(SourceText(text), "example.py", [TensorDataRead()], require_torch_import=False)
    assert [(d.code, d.message.endswith("use `loss.item()`")) for d in alone.diagnostics] == [("GG101", True)]
    # ... and one `# noqa` for the site's one finding leaves nothing.
    assert _codes(_ZERO_DIM_DATA_INDEX.format(noqa="  # noqa: GG105"), [TensorDataRead, ZeroDimIndex]) == []


def test_superseding_leaves_no_trace_in_a_finding():
    from gradguard.check.rules.gg101_tensor_data_read import TensorDataRead

    text = _ZERO_DIM_DATA_INDEX.format(noqa="")
    result = check_source(SourceText(text), "example.py", [TensorDataRead()], require_torch_import=False)
    assert all("superseded_by" not in d.extra for d in result.diagnostics)
