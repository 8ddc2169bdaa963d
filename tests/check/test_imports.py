"""Import rules that import-linter cannot express (the others are contracts in pyproject.toml).

- No module imports a private name (``_name``: a function, class or constant) from another
  module; private modules (``_version``, ``_hooks``) are the private_modules contract's.
- The checker wing never imports the ``gradguard`` package itself: its ``__init__`` is the
  runtime's lazy front door (it reads the version from ``gradguard._version``).
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import gradguard

PACKAGE = Path(gradguard.__file__).resolve().parent
ROOT = PACKAGE.parent

# Private names imported across modules today (none; add one here only with a reason).
# A crossing that disappears is reported as a warning, to be deleted here.
KNOWN_CROSSINGS: set = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_from(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module name an ``import from`` reads from."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def source_files() -> list:
    return sorted(PACKAGE.rglob("*.py"))


def private_name_imports() -> set:
    found = set()
    for path in source_files():
        importer = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = imported_from(node, importer, path.name == "__init__.py")
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__") and not is_module(f"{source}.{name}"):
                    if source != importer:
                        found.add((importer, source, name))
    return found


def test_no_private_name_is_imported_across_modules():
    crossings = private_name_imports()
    unexpected = sorted(crossings - KNOWN_CROSSINGS)
    assert not unexpected, f"private names imported from another module: {unexpected}"
    gone = sorted(KNOWN_CROSSINGS - crossings)
    if gone:
        warnings.warn(f"no longer imported, delete from KNOWN_CROSSINGS: {gone}", stacklevel=1)


def test_the_check_detects_a_private_import(tmp_path, monkeypatch):
    """The scan does see a private name imported from a sibling module."""
    package = tmp_path / "gradguard"
    (package / "check").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "check" / "__init__.py").write_text("")
    (package / "check" / "a.py").write_text("def _helper():\n    pass\n")
    (package / "check" / "b.py").write_text("from gradguard.check.a import _helper\nfrom . import a\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "PACKAGE", package)
    monkeypatch.setattr(__import__(__name__, fromlist=["x"]), "ROOT", tmp_path)
    assert private_name_imports() == {("gradguard.check.b", "gradguard.check.a", "_helper")}


def test_the_checker_wing_never_imports_the_package_init():
    offenders = []
    for path in sorted((PACKAGE / "check").rglob("*.py")) + [PACKAGE / "common" / "text.py"]:
        importer = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(alias.name == "gradguard" for alias in node.names):
                offenders.append(f"{importer}: import gradguard")
            elif isinstance(node, ast.ImportFrom):
                source = imported_from(node, importer, path.name == "__init__.py")
                if source == "gradguard" and any(not is_module(f"gradguard.{a.name}") for a in node.names):
                    offenders.append(f"{importer}: from gradguard import ...")
    assert not offenders, offenders
