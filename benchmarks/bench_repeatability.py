"""Are ``gradguard bench`` ratios repeatable? Two back-to-back runs, side by side.

Runs ``gradguard bench model --model all --format json`` twice in a row (extra arguments are
passed on, e.g. ``--quick``) and prints, for each model, the no_grad/grad ratio of both runs
(median of the per-round ratios, with the lowest and highest round), whether the two
medians are within 10 % of each other, and whether the row is flagged noisy in both runs.
A row passes when its ratios agree within 10 % or it is flagged in both runs (the report
then says not to trust it). The load average before and after each run is printed too: the
machine may be shared.

    python benchmarks/bench_repeatability.py [--mode no_grad] [-- EXTRA BENCH ARGUMENTS]

Exit status 0 when every model passes, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

MODELS = ("mlp", "cnn", "transformer")
TOLERANCE = 0.10


def bench_once(extra: list[str], path: str) -> dict:
    command = [sys.executable, "-m", "gradguard.bench", "model", "--model", "all", "--format", "json", "-o", path]
    subprocess.run([*command, "--no-progress", *extra], check=True)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def row(doc: dict, model: str, mode: str) -> dict:
    return next(r for r in doc["results"] if r["model"] == model and r["mode"] == mode)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="no_grad", help="the mode whose ratio to grad is compared")
    parser.add_argument("extra", nargs="*", help="arguments passed on to gradguard bench model (after --)")
    args = parser.parse_args()
    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(2):
            docs.append(bench_once(args.extra, os.path.join(tmp, f"run{i}.json")))
    for i, doc in enumerate(docs, 1):
        env = doc["environment"]
        before, after = env["load_average_before"], env["load_average_after"]
        print(
            f"run {i}: load average {before[0]:.2f} before, {after[0]:.2f} after ({env['cpu_count']} cores), "
            f"threads={env['threads']}, malloc pinned={env['malloc']['pinned']}, {env['timestamp']}"
        )
    print()
    print(f"{'model':12} {'run 1 ' + args.mode + '/grad':>26} {'run 2':>26} {'change':>8}  verdict")
    failed = 0
    for model in MODELS:
        cells, noisy = [], []
        for doc in docs:
            r = row(doc, model, args.mode)
            if r["error"]:
                cells.append("cannot run")
                noisy.append(True)
                continue
            low, high = r["ratio_range"]
            mark = " !" if r["time"]["noisy"] else "  "
            cells.append(f"{r['ratio_to_grad']:.3f} [{low:.2f}-{high:.2f}]{mark}")
            noisy.append(r["time"]["noisy"])
        first, second = (row(doc, model, args.mode)["ratio_to_grad"] for doc in docs)
        change = second / first - 1 if first and second else float("nan")
        within = abs(change) <= TOLERANCE
        if within:
            verdict = "within 10 %"
        elif all(noisy):
            verdict = "differs, flagged noisy in both runs"
        else:
            verdict = "DIFFERS and not flagged in both runs"
            failed += 1
        print(f"{model:12} {cells[0]:>26} {cells[1]:>26} {change:>+8.1%}  {verdict}")
    print()
    print("ratio: median of the per-round ratios [lowest-highest round]; ! flagged noisy")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
