"""``gradguard check`` on one file must start fast: no heavy module on that path.

The start-up time itself is measured by ``benchmarks/lint_speed.py`` (a timed unit test
would be noise on a shared machine); this test guards the cause: what gets imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "torch",
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "tqdm",
    "hypothesis",
    "hypothesmith",
    "libcst",
    "multiprocessing",
    "concurrent",
    "gradguard.runtime",
    "gradguard.bench",
    "pygls",
    "lsprotocol",
    "pathspec",
)

PROBE = """
import json, sys
from gradguard.cli import main
code = main(["check", *sys.argv[1:]])
print(json.dumps([code, sorted(sys.modules)]))
"""


def imported_by_check(*args) -> tuple:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True).stdout
    code, modules = json.loads(out.splitlines()[-1])
    return code, modules


def heavy(modules: list) -> list:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_one_file_check_imports_nothing_heavy(tmp_path):
    path = tmp_path / "train.py"
    path.write_text("import torch\nimport numpy as np\n\nwith torch.no_grad:\n    pass\n")
    for extra in ((), ("--no-cache",), ("--format", "json")):
        code, modules = imported_by_check(str(path), "--cache-dir", str(tmp_path / "cache"), *extra)
        assert code == 1  # it did check the file
        assert "gradguard.check.rules" in modules
        assert heavy(modules) == []


def test_heavy_filter():
    assert heavy(["numpy.core", "torch", "gradguard.check.rules", "torchvision", "concurrent.futures"]) == [
        "numpy.core",
        "torch",
        "concurrent.futures",
    ]


def test_type_checkers_see_every_lazy_runtime_name():
    """``gradguard/__init__`` imports the runtime names for type checkers only; the list must
    match the names it loads lazily (read from the source: importing them needs torch)."""
    import ast
    from pathlib import Path

    import gradguard

    tree = ast.parse(Path(gradguard.__file__).read_text(encoding="utf-8"))
    typed = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for sub in node.body
        if isinstance(sub, ast.ImportFrom) and sub.module == "gradguard.runtime"
        for alias in sub.names
    }
    assert typed == set(gradguard._RUNTIME_NAMES)
