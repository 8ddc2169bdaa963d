"""Two (or more) checkouts of gradguard side by side: CPU time of the same in-process check.

    python benchmarks/compare_engines.py TREE [TREE ...] [--sample 400] [--rounds 4]

Each TREE is a source checkout (its ``src/`` goes first on ``PYTHONPATH``), such as a
``git worktree add /tmp/before <commit>``. Every round runs each tree once, in turn, in a
fresh subprocess: all default rules, every file of an evenly spaced sample of the installed
torch sources (as ``lint_speed.py``), no cache. Prints the median CPU seconds of each tree
and its ratio to the first one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import os, sys, time
sys.path.insert(0, {repo!r})
from tools.corpus import corpus_files, default_corpus
import gradguard
from gradguard.check.config import resolve
from gradguard.check.rules import all_rules
from gradguard.check.run.pipeline import run
files = [os.path.abspath(f) for f in corpus_files(default_corpus()[:1], {sample})]
config = resolve(all_rules(), all_files=True)
start = time.process_time()
run(files, config)
print(time.process_time() - start, gradguard.__file__)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--sample", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees]
    for tree in trees:
        if not (tree / "src" / "gradguard").is_dir():
            raise SystemExit(f"{tree}: not a gradguard checkout (no src/gradguard)")
    code = CHILD.format(repo=str(REPO), sample=args.sample)
    seconds: dict = {tree: [] for tree in trees}
    for round_no in range(args.rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=str(tree / "src"))
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            cpu, imported = out.stdout.split()
            if not imported.startswith(str(tree)):
                raise SystemExit(f"{tree}: gradguard was imported from {imported}")
            seconds[tree].append(float(cpu))
        print(f"  round {round_no + 1}: " + ", ".join(f"{t.name} {seconds[t][-1]:.2f}" for t in trees), flush=True)
    base = statistics.median(seconds[trees[0]])
    for tree in trees:
        median = statistics.median(seconds[tree])
        print(f"{str(tree):40s} {median:7.3f} s CPU  {median / base:6.3f}x")


if __name__ == "__main__":
    main()
