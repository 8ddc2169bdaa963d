"""Where a check's time goes: the layers of ``gradguard check``, each side by side with a bare parse.

    python benchmarks/lint_breakdown.py [PATH ...] [--sample 400] [--rounds 3] [--top 10] [--marginal]
                                        [--rule CODE]

Default corpus: the installed torch package's sources (see ``tests/corpus.py``), every
``.py`` file (``--all-files``). CPU time of this process (``time.process_time``), modes
interleaved round by round, medians of the per-round ratio to a bare parse. Each mode adds
one layer to the one before it:

- ``engine, no rules``: read, decode, parse, import map (the floor of any check);
- ``file triggers and module code``: every rule, each handler replaced by a no-op and no
  function shown to any rule: the rules' file triggers, their ``active_in`` answers, and the
  walk of the code outside functions;
- ``triggers and walk``: the same with each rule's function triggers: the walk of the
  functions they let the rules see;
- ``walk, no function triggers``: the same with no function triggers (every function walked),
  to show what the function triggers cost against what they save;
- ``check 1 job``: every rule as it is (handlers, the semantic model's questions).

Then, from one more instrumented run: the CPU time spent answering the rules' questions to
the semantic model (``ctx.model``: its flows, summaries and instance attributes), per asking
rule; and the files whose check costs most above their own parse.

With ``--marginal``, each rule's marginal cost: the full check minus the check without that
rule, in the same rounds (each round times the full check once and every rule set less one
rule once; medians of the per-round differences, as a multiple of the round's bare parse).
Flows and summaries one rule computes serve the others: a rule's marginal cost is what the
check would save without it, not what it asks alone. With ``--rule CODE``, that rule's
marginal cost in layers, added to the check without it: its file triggers (no function
shown, no handler), its function triggers and the walk of the functions they show (handlers
no-ops), its handlers and the model's answers they ask for.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # tools.corpus: the shared corpus definition

from benchmarks.lint_speed import bare_parse  # noqa: E402
from gradguard.check.analysis import model as semantic_model  # noqa: E402
from gradguard.check.analysis.project import build_index, using  # noqa: E402
from gradguard.check.config import resolve  # noqa: E402
from gradguard.check.engine.run import check_bytes  # noqa: E402
from gradguard.check.rules import all_rules  # noqa: E402
from gradguard.check.run.pipeline import fewer_collections, run  # noqa: E402
from tools.corpus import corpus_files, default_corpus  # noqa: E402

# The model's questions a rule may ask (its public methods).
QUESTIONS = [
    name
    for name, member in vars(semantic_model.SemanticModel).items()
    if callable(member) and not name.startswith("_") and name not in ("close",)
]


def without_handlers(rule_class: type, function_triggers: bool = True, functions: bool = True) -> type:
    """The rule with every visit_/leave_ handler a no-op (and, if asked, no function triggers:
    it sees every function; or no function at all)."""
    members: dict = {
        name: (lambda self, node, ctx: None) for name in dir(rule_class) if name.startswith(("visit_", "leave_"))
    }
    if not function_triggers:
        members["function_triggers"] = None
    if not functions:
        members["function_triggers"] = ()  # no trigger can occur: no function is shown
        members["function_names"] = ()
    return type(rule_class.__name__ + "NoOp", (rule_class,), members)


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def model_time(files: list, rules: list) -> Counter:
    """CPU seconds inside the model's public questions, per asking module (outermost only)."""
    spent: Counter = Counter()
    depth = [0]
    originals = {}

    def timed(name, original):
        def question(self, *args, **kwargs):
            if depth[0]:
                return original(self, *args, **kwargs)
            asker = Path(sys._getframe(1).f_code.co_filename).stem.split("_")[0]
            depth[0] += 1
            start = time.process_time()
            try:
                return original(self, *args, **kwargs)
            finally:
                depth[0] -= 1
                spent[asker] += time.process_time() - start

        return question

    for name in QUESTIONS:
        originals[name] = getattr(semantic_model.SemanticModel, name)
        setattr(semantic_model.SemanticModel, name, timed(name, originals[name]))
    try:
        run(files, resolve(rules, all_files=True))
    finally:
        for name, original in originals.items():
            setattr(semantic_model.SemanticModel, name, original)
    return spent


def marginal_costs(files: list, rules: list, rounds: int) -> dict:
    """Rule code -> median over rounds of (full check - check without the rule) / bare parse."""
    differences: dict = {rule.code: [] for rule in rules}
    for _ in range(rounds):
        base = cpu(lambda: bare_parse(files))
        full = cpu(lambda: run(files, resolve(rules, all_files=True)))
        for rule in rules:
            others = [r for r in rules if r is not rule]
            without = cpu(lambda: run(files, resolve(others, all_files=True)))  # noqa: B023
            differences[rule.code].append((full - without) / base)
    return {code: statistics.median(values) for code, values in differences.items()}


def costly_files(files: list, rules: list, top: int) -> list:
    """(check CPU s minus parse CPU s, check s, parse s, path) of the costliest files."""
    instances = [rule() for rule in rules]
    rows = []
    with fewer_collections(), using(build_index(files)):
        for path in files:
            data = Path(path).read_bytes()
            parse = cpu(lambda: bare_parse([path]))  # noqa: B023
            check = cpu(lambda: check_bytes(data, path, instances, require_torch_import=False))  # noqa: B023
            rows.append((check - parse, check, parse, path))
    rows.sort(reverse=True)
    return rows[:top], sum(r[0] for r in rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--sample", type=int, default=400, help="an evenly spaced sample of N files (0: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=10, help="how many of the costliest files to list")
    parser.add_argument("--marginal", action="store_true", help="each rule's marginal cost (slow: a check per rule)")
    parser.add_argument("--rule", help="one rule's marginal cost in layers (its code, e.g. GG201)")
    args = parser.parse_args(argv)
    paths = args.paths or default_corpus()
    files = [os.path.abspath(f) for f in corpus_files(paths, args.sample or None)]
    rules = list(all_rules())
    modes = {
        "engine, no rules": [],
        "file triggers and module code": [without_handlers(r, functions=False) for r in rules],
        "triggers and walk": [without_handlers(r) for r in rules],
        "walk, no function triggers": [without_handlers(r, function_triggers=False) for r in rules],
        "check 1 job": rules,
    }
    if args.rule:
        chosen = [r for r in rules if r.code == args.rule]
        if not chosen:
            parser.error(f"unknown rule code: {args.rule}")
        others = [r for r in rules if r is not chosen[0]]
        modes[f"check without {args.rule}"] = others
        modes["  + file triggers"] = [*others, without_handlers(chosen[0], functions=False)]
        modes["  + function triggers, walk"] = [*others, without_handlers(chosen[0])]
    print(f"corpus: {', '.join(map(str, paths))}  files: {len(files)}  python: {sys.version.split()[0]}")
    bare_parse(files)  # warm the page cache
    ratios: dict = {name: [] for name in modes}
    bare: list = []
    for _ in range(args.rounds):
        base = cpu(lambda: bare_parse(files))
        bare.append(base)
        for name, mode_rules in modes.items():
            ratios[name].append(cpu(lambda: run(files, resolve(mode_rules, all_files=True))) / base)  # noqa: B023
    print(f"\nbare parse: {statistics.median(bare):.3f} s CPU (median of {args.rounds} rounds)")
    print("CPU / bare parse, median over rounds of the per-round ratio:")
    for name, values in ratios.items():
        print(f"  {name:30} {statistics.median(values):6.2f}x")
    base = statistics.median(bare)
    if args.marginal:
        marginal = marginal_costs(files, rules, args.rounds)
        print("\neach rule's marginal cost (check minus check without it) / bare parse, median over rounds:")
        for code, cost in sorted(marginal.items(), key=lambda item: -item[1]):
            print(f"  {code:8} {cost:6.3f}x")
    spent = model_time(files, rules)
    total = sum(spent.values())
    print(f"\nthe semantic model's questions: {total:.3f} s CPU ({total / base:.2f}x a bare parse), by asker:")
    for asker, seconds in spent.most_common(8):
        print(f"  {asker:10} {seconds:7.3f} s")
    rows, extra = costly_files(files, rules, args.top)
    print(f"\ncostliest files (check minus parse, CPU s; all files: {extra:.3f} s):")
    share = 0.0
    for over, check, parse, path in rows:
        share += over
        print(f"  {over:6.3f}  (check {check:.3f}, parse {parse:.3f}, {share / extra:4.0%} so far)  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
