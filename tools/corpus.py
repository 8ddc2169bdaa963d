"""Run every rule over real PyTorch code and check the checker itself, not the code.

    python -m tools.corpus [PATH ...] [--sample N] [--jobs N] [--json findings.json]

Default corpus: the installed torch package's Python sources, plus every folder under
``scratch/corpus/`` (git-ignored; unpack sdists there, e.g. ``pip download --no-binary :all:
--no-deps timm`` then ``tar xf``), or the folder named by ``GRADGUARD_CORPUS_DIR``.

Asserts, and exits 1 unless all hold:
- zero internal errors (a rule or engine bug on any file);
- GG001 exactly on the files Python's own parser rejects (decoded the same way);
- on every file with fixes: each fix alone keeps the file parseable, fixing (safe and
  unsafe) converges, and a second fixing pass changes nothing.
Prints per-rule finding counts; ``--json`` dumps every finding (ruff's JSON shape) for
labelling precision.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import sys
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from gradguard.check.config import Config, resolve
from gradguard.check.engine.run import WALK_RECURSION_LIMIT, check_source
from gradguard.check.fixes import apply_edits, chosen_fixes, fix_until_stable
from gradguard.check.report.json import diagnostic_json
from gradguard.check.rules import all_rules
from gradguard.check.run.discovery import discover
from gradguard.check.run.pipeline import run
from gradguard.check.source import SourceError, SourceText

REPO = Path(__file__).resolve().parent.parent


def torch_source_dir() -> Path | None:
    """The installed torch package's folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def extra_corpus_dirs() -> list:
    bases = [REPO / "scratch" / "corpus"]
    if os.environ.get("GRADGUARD_CORPUS_DIR"):
        bases.insert(0, Path(os.environ["GRADGUARD_CORPUS_DIR"]))
    for base in bases:
        if base.is_dir():
            return sorted(p for p in base.iterdir() if p.is_dir())
    return []


def default_corpus() -> list:
    torch_dir = torch_source_dir()
    return ([torch_dir] if torch_dir else []) + extra_corpus_dirs()


def corpus_files(paths: list, sample: int | None = None) -> list:
    """Every ``.py`` file under ``paths`` (no exclusions but the defaults), or an evenly spaced
    deterministic sample of ``sample`` of them."""
    # scratch/ is git-ignored (it holds unpacked third-party code): walk it anyway.
    files = list(discover([str(p) for p in paths], Config(respect_gitignore=False)))
    if sample is not None and sample < len(files):
        files = [files[i * len(files) // sample] for i in range(sample)]
    return files


def reference_parse_error(data: bytes) -> str | None:
    """Why Python itself cannot parse these bytes (None if it can), decoded as the checker does."""
    try:
        text = SourceText.from_bytes(data).text
    except SourceError as exc:
        return exc.message
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, WALK_RECURSION_LIMIT))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        sys.setrecursionlimit(limit)
    return None


def fix_problems(path: str, text: str, rules: list) -> list:
    """What is wrong with the fixes offered on one file (empty: nothing)."""
    problems = []

    def check(t: str) -> list:
        return check_source(SourceText(t), path, rules, require_torch_import=False).diagnostics

    for diagnostic in check(text):
        if diagnostic.fix is not None:
            alone, _ = apply_edits(text, [diagnostic.fix])
            try:
                compile(alone, path, "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
            except (SyntaxError, ValueError):
                problems.append(f"{path}:{diagnostic.start.row}: {diagnostic.code} fix breaks the file")
    fixed, _, remaining = fix_until_stable(text, check, unsafe=True)
    if chosen_fixes(remaining, unsafe=True):
        problems.append(f"{path}: fixes do not converge")
    again, applied, _ = fix_until_stable(fixed, check, unsafe=True)
    if applied or again != fixed:
        problems.append(f"{path}: fixing twice changes the file again")
    return problems


@dataclass
class CorpusReport:
    files: int = 0
    lines: int = 0
    seconds: float = 0.0
    diagnostics: list = field(default_factory=list)
    internal_errors: list = field(default_factory=list)
    gg001_mismatches: list = field(default_factory=list)
    fix_problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.internal_errors or self.gg001_mismatches or self.fix_problems)

    def counts(self) -> Counter:
        return Counter(d.code for d in self.diagnostics)


def check_corpus(files: list, jobs: int = 1, check_fixes: bool = True) -> CorpusReport:
    """Every rule (on by default or not) on every file, whether it imports torch or not."""
    report = CorpusReport(files=len(files))
    config = resolve(all_rules(), select=["ALL"], all_files=True, jobs=jobs)
    start = time.perf_counter()
    result = run(files, config)
    report.seconds = time.perf_counter() - start
    report.diagnostics = result.diagnostics
    report.internal_errors = [str(e) for e in result.internal_errors] + [f"{p}: {m}" for p, m in result.errors]
    by_file: dict = {}
    for diagnostic in result.diagnostics:
        by_file.setdefault(diagnostic.filename, []).append(diagnostic)
    rules = [rule() for rule in all_rules()]
    for path in files:
        with open(path, "rb") as handle:
            data = handle.read()
        report.lines += data.count(b"\n")
        found = by_file.get(path, [])
        has_gg001 = any(d.code == "GG001" for d in found)
        expected = reference_parse_error(data)
        if has_gg001 != (expected is not None):
            report.gg001_mismatches.append(
                f"{path}: GG001 {'reported' if has_gg001 else 'missing'}; Python says: {expected or 'parses'}"
            )
        if check_fixes and not has_gg001 and any(d.fix is not None for d in found):
            report.fix_problems.extend(fix_problems(path, SourceText.from_bytes(data).text, rules))
    return report


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="folders or files (default: torch + scratch/corpus/*)")
    parser.add_argument("--sample", type=int, default=None, help="check an evenly spaced sample of N files")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--json", type=Path, default=None, help="write every finding to this file")
    parser.add_argument("--no-fixes", action="store_true", help="skip the fix soundness checks")
    args = parser.parse_args(argv)
    paths = args.paths or default_corpus()
    if not paths:
        print("corpus: nothing to check (torch is not installed and no paths given)", file=sys.stderr)
        return 2
    files = corpus_files(paths, args.sample)
    report = check_corpus(files, jobs=args.jobs, check_fixes=not args.no_fixes)
    print(f"corpus: {', '.join(str(p) for p in paths)}")
    print(f"files: {report.files}  lines: {report.lines}  check: {report.seconds:.1f} s ({args.jobs} jobs)")
    print("findings per rule:")
    counts = report.counts()
    for code in ["GG001"] + [rule.code for rule in all_rules()]:
        print(f"  {code}  {counts.get(code, 0)}")
    for title, items in (
        ("internal errors", report.internal_errors),
        ("GG001 mismatches", report.gg001_mismatches),
        ("fix problems", report.fix_problems),
    ):
        print(f"{title}: {len(items)}")
        for item in items[:50]:
            print(f"  {item}")
    if args.json is not None:
        args.json.write_text(json.dumps([diagnostic_json(d) for d in report.diagnostics], indent=1) + "\n")
        print(f"findings written to {args.json}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
