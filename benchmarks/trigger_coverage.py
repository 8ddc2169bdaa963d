"""How much of the code could a check skip if it visited only the lines where a trigger occurs?

    python benchmarks/trigger_coverage.py [PATH ...] [--sample 400]

Default corpus: the installed torch package's sources (see ``tools/corpus.py``). For every
file: the lines on which one of the rules' triggers (file or function triggers, the substrings
and the patterns) occurs, and the AST nodes of the simple statements (not ``def``, ``class``,
``if``, loops, ``with``, ``try``) that span such a line. Prints both as a share of all lines and
of all nodes of simple statements: an upper bound on what a walk directed by triggers would
still visit, for the design question in docs/performance.md (rules that look at every call of a
function they see, as GG201 does, would need triggers by line first).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tools.corpus: the shared corpus definition

from gradguard.check.rules import all_rules  # noqa: E402
from tools.corpus import corpus_files, default_corpus  # noqa: E402

_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
)


def trigger_patterns() -> tuple[re.Pattern[str], list[re.Pattern[str]]]:
    """One pattern for every rule's substring triggers, and the rules' own patterns."""
    substrings: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    for rule in all_rules():
        for trigger in (*(rule.triggers or ()), *(rule.function_triggers or ())):
            if isinstance(trigger, str):
                substrings.add(trigger)
            else:
                patterns.append(trigger)
    union = re.compile("|".join(re.escape(s) for s in sorted(substrings, key=len, reverse=True)))
    return union, patterns


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=400, help="an evenly spaced sample of N files (0: all)")
    args = parser.parse_args(argv)
    files = [os.path.abspath(f) for f in corpus_files(args.paths or default_corpus(), args.sample or None)]
    union, patterns = trigger_patterns()
    lines = hit_lines = nodes = hit_nodes = 0
    for path in files:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        rows = text.splitlines()
        hits = {i for i, row in enumerate(rows, 1) if union.search(row) or any(p.search(row) for p in patterns)}
        lines += len(rows)
        hit_lines += len(hits)
        try:
            tree = ast.parse(text, path)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND):
                size = sum(1 for _ in ast.walk(node))
                nodes += size
                if any(row in hits for row in range(node.lineno, (node.end_lineno or node.lineno) + 1)):
                    hit_nodes += size
    print(f"files: {len(files)}")
    print(f"lines with a trigger: {hit_lines} of {lines} ({hit_lines / max(lines, 1):.1%})")
    print(f"nodes of simple statements on such lines: {hit_nodes} of {nodes} ({hit_nodes / max(nodes, 1):.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
