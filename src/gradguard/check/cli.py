"""The checker's commands: ``gradguard check``, ``gradguard rules`` and ``gradguard explain``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TextIO

if TYPE_CHECKING:
    from gradguard.check.config import Config
    from gradguard.check.rules.base import Rule
    from gradguard.check.run.pipeline import RunResult

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return jobs


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``check``, ``rules`` and ``explain`` on the top-level subparsers."""
    check = sub.add_parser("check", help="check files for gradient-control mistakes")
    check.add_argument("paths", nargs="*", default=None, help="files or directories (default: .)")
    check.add_argument("--select", type=_codes, default=None, help="codes or prefixes to enable, comma separated")
    check.add_argument("--extend-select", type=_codes, default=[], help="codes to enable on top of the selection")
    check.add_argument("--ignore", type=_codes, default=[], help="codes or prefixes to disable")
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    check.add_argument("--diff", action="store_true", help="print fixes as a unified diff; change nothing")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per code")
    check.add_argument("--format", default="text", help="output format: text, json, sarif, github")
    check.add_argument(
        "--output-file", type=Path, default=None, help="write the report to this file instead of standard output"
    )
    check.add_argument("--config", type=Path, default=None, help="pyproject.toml to read instead of the nearest one")
    check.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude to files named on the command line too (for pre-commit)",
    )
    check.add_argument("--all-files", action="store_true", help="also check files that never import torch")
    check.add_argument("--stdin-filename", default=None, help="name to report for source read from '-'")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument(
        "-j", "--jobs", type=_jobs, default=None, help="worker processes (default: the machine's CPUs; 1: no workers)"
    )
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    check.add_argument(
        "--cache-dir", type=Path, default=None, help="result cache folder (default: .gradguard_cache beside the config)"
    )

    sub.add_parser("rules", help="list every rule")

    explain = sub.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", help="rule code, e.g. GG101")
    explain.add_argument("--run", action="store_true", help="run the rule's demonstration on the installed torch")


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed ``check``, ``rules`` or ``explain`` command (``explain --run`` is the caller's)."""
    if args.command == "check":
        return _check(args)
    if args.command == "rules":
        return _rules()
    return _explain(args.code)


def _error(message: str) -> int:
    print(f"gradguard: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def config_from_args(args: argparse.Namespace, paths: list[str]) -> Config:
    """The run's one configuration: ``[tool.gradguard]`` overridden by the flags."""
    from gradguard.check.config import read_config_file, resolve
    from gradguard.check.rules import all_rules

    file = read_config_file(Path(paths[0]) if paths[0] != "-" else Path.cwd(), args.config)
    return resolve(
        all_rules(),
        file,
        select=args.select,
        ignore=args.ignore,
        extend_select=args.extend_select,
        all_files=args.all_files,
        force_exclude=args.force_exclude,
        fix=args.fix,
        unsafe_fixes=args.unsafe_fixes,
        diff=args.diff,
        jobs=args.jobs or _default_jobs(),
        cache=not args.no_cache,
        cache_dir=args.cache_dir,
    )


def _check(args: argparse.Namespace) -> int:
    from gradguard.check.config import ConfigError
    from gradguard.check.report import FORMATS
    from gradguard.check.run.pipeline import run

    if args.format not in FORMATS:
        return _error(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    paths = args.paths or ["."]
    if args.config is not None and not args.config.is_file():
        return _error(f"config file not found: {args.config}")
    try:
        config = config_from_args(args, paths)
        if paths == ["-"]:
            from gradguard.check.run.pipeline import check_stdin

            result = check_stdin(sys.stdin.buffer.read(), args.stdin_filename or "-", config)
        else:
            if "-" in paths:
                return _error("'-' (standard input) cannot be combined with other paths")
            result = run(paths, config)
    except ConfigError as exc:
        return _error(str(exc))
    for path, reason in result.errors:
        print(f"gradguard: error: {path}: {reason}", file=sys.stderr)
    for warning in result.warnings:
        print(f"gradguard: warning: {warning}", file=sys.stderr)
    for failure in result.internal_errors:
        print(f"gradguard: {failure}", file=sys.stderr)
    # With --fix, source read from '-' is written back to stdout, so the report goes elsewhere.
    out = sys.stderr if paths == ["-"] and args.fix else sys.stdout
    if args.output_file is not None:
        try:
            out = open(args.output_file, "w", encoding="utf-8")
        except OSError as exc:
            return _error(f"cannot write {args.output_file}: {exc.strerror or exc}")
    try:
        return _report(args, result, out)
    finally:
        if args.output_file is not None:
            out.close()


def _report(args: argparse.Namespace, result: RunResult, out: TextIO) -> int:
    from gradguard.check.report import renderer
    from gradguard.check.report.text import render_statistics, summary_line

    if args.diff:
        for diff in result.diffs:
            out.write(diff)
        if not args.quiet:
            n = result.fixed
            print(f"Would fix {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        if result.internal_errors:
            return EXIT_ERROR
        return EXIT_OK if args.exit_zero or not result.diffs else EXIT_FINDINGS
    fmt = args.format
    text = renderer(fmt)(result.diagnostics)
    out.write(text)
    if args.statistics and fmt == "text":
        out.write(render_statistics(result.diagnostics))
    if fmt == "text" and not args.quiet:
        out.write(summary_line(result.diagnostics, result.fixed) + "\n")
    if result.internal_errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    if result.errors and not result.diagnostics:
        return EXIT_ERROR
    return EXIT_FINDINGS if result.diagnostics else EXIT_OK


def _default_jobs() -> int:
    from gradguard.check.run.executor import default_jobs

    return default_jobs()


def _rules() -> int:
    from gradguard.check.rules import PARSE_ERROR, PARSE_ERROR_SUMMARY, all_rules

    rows = [(PARSE_ERROR, "parse-error", "", "on", PARSE_ERROR_SUMMARY)]
    for rule in all_rules():
        rows.append(
            (rule.code, rule.name, rule.fix_availability.value, "on" if rule.default_enabled else "off", rule.summary)
        )
    width = max(len(r[1]) for r in rows)
    print(f"{'code':6} {'name':{width}} {'fix':9} {'default':7} summary")
    for code, name, fix, default, summary in rows:
        print(f"{code:6} {name:{width}} {fix or '-':9} {default:7} {summary}")
    return EXIT_OK


def _explain(code: str) -> int:
    rule = rule_by_code(code)
    if rule is None:
        return _error(f"unknown rule code: {code} (see 'gradguard rules')")
    print(render_rule_doc(rule))
    return EXIT_OK


def rule_by_code(code: str) -> Optional[type[Rule]]:
    from gradguard.check.rules import rule_by_code as find

    return find(code)


def render_rule_doc(rule: type[Rule]) -> str:
    header = f"{rule.code} ({rule.name})"
    fix = rule.fix_availability.label
    default = "on by default" if rule.default_enabled else "off by default"
    return f"# {header}\n\n{rule.summary}\n\nFix: {fix}. {default.capitalize()}.\n\n{rule.documentation()}\n"
