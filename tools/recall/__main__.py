"""Recall and precision of ``gradguard check`` on the labelled corpus.

    python -m tools.recall [--split dev|holdout|all] [--corpus /work/corpus]
                           [--gradguard-json FILE] [--save-json FILE] [--rules GG101,...]
                           [--missed] [--noisy] [--unlabelled]

Runs ``gradguard check --select ALL --format json --exit-zero --no-cache REPO`` from the
corpus root on each repository of the split (or reads the findings saved by an earlier run
with ``--save-json``, or any such JSON run from the corpus root), matches the findings to the
labels (see ``matching.py``) and prints, per rule and for user and library code apart: bugs
labelled, found (recall), look-alikes labelled ("ok"), quiet (specificity), precision on the
labelled sites it flags, and unlabelled findings. ``--missed`` lists the missed bugs,
``--noisy`` the flagged ok sites, ``--unlabelled`` the findings no label covers. Exits 0
unless the labels, the manifest or the checker's output cannot be read.

The corpus folders are made by ``python -m tools.recall.materialize``. Do not read the
holdout labels while developing: ``--split dev`` never opens them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tools.recall.labels import (
    LABEL_DIR,
    MANIFEST,
    NEW_CODES,
    LabelError,
    load_labels,
    load_manifest,
    locate_problems,
    stray_label_files,
)
from tools.recall.matching import FindingsError, Outcome, Tally, match, parse_findings, tally

DEFAULT_CORPUS = os.environ.get("GRADGUARD_RECALL_CORPUS", "/work/corpus")
CHECK_ARGS = ["check", "--select", "ALL", "--format", "json", "--exit-zero", "--no-cache"]


def run_checker(corpus_root: str, repo: str) -> list:
    """The checker's JSON findings for one repository, run from the corpus root."""
    command = [sys.executable, "-m", "gradguard", *CHECK_ARGS, repo]
    result = subprocess.run(command, check=False, cwd=corpus_root, capture_output=True, text=True)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise FindingsError(f"gradguard check failed on {repo} (exit {result.returncode}): {tail[0]}")
    try:
        return json.loads(result.stdout or "[]")
    except json.JSONDecodeError as exc:
        raise FindingsError(f"gradguard check on {repo} did not print JSON: {exc}") from None


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def format_table(rows: list) -> str:
    header = ["rule", "side", "bugs", "found", "recall", "ok", "quiet", "specificity", "precision", "unlabelled"]
    lines = [header]
    for name, side, t in rows:
        lines.append(
            [
                name,
                side,
                str(t.bugs),
                str(t.found),
                _pct(t.recall),
                str(t.oks),
                str(t.quiet),
                _pct(t.specificity),
                _pct(t.precision),
                str(t.unlabelled),
            ]
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = []
    for n, row in enumerate(lines):
        cells = [c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def default_off_codes() -> set:
    """Codes of the checker's rules that are off by default (left out of the totals)."""
    try:
        from gradguard.check.rules import all_rules
    except ImportError:  # pragma: no cover - the checker is installed wherever this runs
        return set()
    return {rule.code for rule in all_rules() if not getattr(rule, "default_enabled", True)}


def superseding_codes() -> dict:
    """Code -> the codes whose finding at the same site replaces it (``Rule.superseded_by``)."""
    try:
        from gradguard.check.rules import all_rules
    except ImportError:  # pragma: no cover - the checker is installed wherever this runs
        return {}
    return {rule.code: tuple(rule.superseded_by) for rule in all_rules() if getattr(rule, "superseded_by", ())}


def summary_rows(outcome: Outcome, sides: dict, off: set = frozenset()) -> list:
    """Rows per rule and side, then totals for the existing rules, the new ones and all.

    Rules that are off by default get their own row, marked, and stay out of the totals."""
    by_rule = tally(outcome, lambda item: (item.code, sides[item.repo]))
    rows = [(code + (" (off)" if code in off else ""), side, by_rule[(code, side)]) for code, side in sorted(by_rule)]
    for title, keep in (
        ("existing rules", lambda code: code not in NEW_CODES and code not in off),
        ("new rules (issue 13)", lambda code: code in NEW_CODES),
        ("all rules", lambda code: code not in off),
    ):
        for side in ("user", "library"):
            total = Tally()
            for (code, s), t in by_rule.items():
                if s == side and keep(code):
                    total.add(t)
            if total.bugs or total.oks or total.unlabelled:
                rows.append((title, side, total))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.recall", description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="dev")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="folder holding one folder per repository")
    parser.add_argument("--gradguard-json", help="read findings from this JSON file instead of running the checker")
    parser.add_argument("--save-json", help="write the findings of this run to this JSON file")
    parser.add_argument("--rules", default="", help="only these codes, comma separated")
    parser.add_argument("--missed", action="store_true", help="list the bugs the checker missed")
    parser.add_argument("--noisy", action="store_true", help="list the ok sites the checker flags")
    parser.add_argument("--unlabelled", action="store_true", help="list findings that no label covers")
    parser.add_argument("--by-repo", action="store_true", help="also print the totals of each repository")
    parser.add_argument("--manifest", default=str(MANIFEST), help=argparse.SUPPRESS)
    parser.add_argument("--labels-dir", default=str(LABEL_DIR), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    try:
        corpus = load_manifest(Path(args.manifest))
        repos = corpus.in_split(args.split)
        labels = [label for repo in repos for label in load_labels(repo, Path(args.labels_dir))]
    except LabelError as exc:
        print(f"tools.recall: error: {exc}", file=sys.stderr)
        return 2
    names = {r.name for r in repos}
    sides = {r.name: r.side for r in corpus.repos.values()}
    for path in stray_label_files(corpus, Path(args.labels_dir)):
        print(f"tools.recall: warning: {path} belongs to no repository of that split in corpus.toml", file=sys.stderr)

    raw = []
    try:
        if args.gradguard_json:
            try:
                with open(args.gradguard_json, encoding="utf-8") as handle:
                    raw = json.load(handle)
            except (OSError, json.JSONDecodeError) as exc:
                print(f"tools.recall: error: cannot read {args.gradguard_json}: {exc}", file=sys.stderr)
                return 2
        else:
            missing = [name for name in sorted(names) if not os.path.isdir(os.path.join(args.corpus, name))]
            if missing:
                print(
                    f"tools.recall: error: {len(missing)} repositories are not under {args.corpus} "
                    f"(first: {missing[0]}); make them with python -m tools.recall.materialize",
                    file=sys.stderr,
                )
                return 2
            for name in sorted(names):
                raw.extend(run_checker(args.corpus, name))
        findings = parse_findings(raw, names)
    except FindingsError as exc:
        print(f"tools.recall: error: {exc}", file=sys.stderr)
        return 2
    if args.save_json:
        Path(args.save_json).write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")

    if os.path.isdir(args.corpus):
        for problem in locate_problems(labels, args.corpus):
            print(f"tools.recall: warning: label not in the corpus: {problem}", file=sys.stderr)

    codes = {c.strip().upper() for c in args.rules.split(",") if c.strip()}
    if codes:
        labels = [label for label in labels if label.code in codes]
        findings = [f for f in findings if f.code in codes]
    outcome = match(labels, findings, superseding_codes())

    user = sum(1 for r in repos if r.side == "user")
    print(
        f"split {args.split}: {len(repos)} repositories ({user} user, {len(repos) - user} library), "
        f"{len(labels)} labels, {len(findings)} findings"
    )
    off = default_off_codes()
    print(format_table(summary_rows(outcome, sides, off)))
    if args.by_repo:
        totals: dict = {}
        for (repo, code), t in tally(outcome, lambda item: (item.repo, item.code)).items():
            if code not in off:
                totals.setdefault(repo, Tally()).add(t)
        print()
        print(format_table([(name, sides[name], totals[name]) for name in sorted(totals)]).replace("rule", "repo", 1))
    if args.missed:
        print("\nmissed bugs:")
        for label in sorted(outcome.missed, key=lambda lab: (lab.code, lab.where)):
            print(f"  {label.code} {label.where}  {label.note}")
    if args.noisy:
        print("\nflagged ok sites:")
        for label in sorted(outcome.noisy, key=lambda lab: (lab.code, lab.where)):
            print(f"  {label.code} {label.where}  {label.note}")
    if args.unlabelled:
        print("\nunlabelled findings:")
        for finding in sorted(outcome.unlabelled, key=lambda f: (f.repo, f.path, f.cell or 0, f.line, f.code)):
            print(f"  {finding.code} {finding.where}  {finding.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
