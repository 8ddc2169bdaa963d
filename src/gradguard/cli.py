"""``gradguard`` command line: check, rules, explain, bench."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _codes(value: str) -> list:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return jobs


def build_parser() -> argparse.ArgumentParser:
    from gradguard import __version__

    parser = _Parser(prog="gradguard", description="Find and prevent gradient-control bugs in PyTorch code.")
    parser.add_argument("--version", action="version", version=f"gradguard {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

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
    check.add_argument("--output-file", type=Path, default=None, help="write the report to this file instead of standard output")
    check.add_argument("--config", type=Path, default=None, help="pyproject.toml to read instead of the nearest one")
    check.add_argument("--force-exclude", action="store_true", help="apply exclude to files named on the command line too (for pre-commit)")
    check.add_argument("--all-files", action="store_true", help="also check files that never import torch")
    check.add_argument("--stdin-filename", default=None, help="name to report for source read from '-'")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument("-j", "--jobs", type=_jobs, default=None, help="worker processes (default: the machine's CPUs; 1: no workers)")
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    check.add_argument("--cache-dir", type=Path, default=None, help="result cache folder (default: .gradguard_cache beside the config)")

    sub.add_parser("rules", help="list every rule")

    explain = sub.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("code", help="rule code, e.g. GG101")
    explain.add_argument("--run", action="store_true", help="run the rule's demonstration on the installed torch")

    sub.add_parser("bench", help="measure gradient-control costs (needs torch)", add_help=False)
    return parser


def main(argv: Optional[list] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return _bench(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "rules":
            return _rules()
        if args.command == "explain":
            return _explain(args.code, args.run)
        parser.print_help()
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gradguard: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_ERROR


def _error(message: str) -> int:
    print(f"gradguard: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _check(args) -> int:
    from gradguard.config import ConfigError, load_settings
    from gradguard.output import FORMATS
    from gradguard.runner import RunOptions, run

    if args.format not in FORMATS:
        return _error(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    paths = args.paths or ["."]
    if args.config is not None and not args.config.is_file():
        return _error(f"config file not found: {args.config}")
    try:
        settings = load_settings(Path(paths[0]) if paths[0] != "-" else Path.cwd(), args.config)
        if args.all_files:
            settings.require_torch_import = False
        settings.force_exclude = args.force_exclude
        options = RunOptions(
            fix=args.fix,
            unsafe_fixes=args.unsafe_fixes,
            diff=args.diff,
            select=args.select,
            ignore=args.ignore,
            extend_select=args.extend_select,
            jobs=args.jobs or _default_jobs(),
            cache=not args.no_cache,
            cache_dir=args.cache_dir,
        )
        if paths == ["-"]:
            from gradguard.runner import check_stdin

            result = check_stdin(sys.stdin.buffer.read(), args.stdin_filename or "-", settings, options)
        else:
            if "-" in paths:
                return _error("'-' (standard input) cannot be combined with other paths")
            result = run(paths, settings, options)
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


def _report(args, result, out) -> int:
    from gradguard.output import FORMATS, render_statistics, summary_line

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
    text = FORMATS[fmt](result.diagnostics)
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
    from gradguard.parallel import default_jobs

    return default_jobs()


def _rules() -> int:
    from gradguard.rules import PARSE_ERROR, PARSE_ERROR_SUMMARY, all_rules

    rows = [(PARSE_ERROR, "parse-error", "", "on", PARSE_ERROR_SUMMARY)]
    for rule in all_rules():
        rows.append((rule.code, rule.name, rule.fix_availability, "on" if rule.default_enabled else "off", rule.summary))
    width = max(len(r[1]) for r in rows)
    print(f"{'code':6} {'name':{width}} {'fix':9} {'default':7} summary")
    for code, name, fix, default, summary in rows:
        print(f"{code:6} {name:{width}} {fix or '-':9} {default:7} {summary}")
    return EXIT_OK


def _explain(code: str, run_demo: bool) -> int:
    from gradguard.rules import rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        return _error(f"unknown rule code: {code} (see 'gradguard rules')")
    if not run_demo:
        print(render_rule_doc(rule))
        return EXIT_OK
    try:
        from gradguard.runtime.demos import run_demo as demo
    except ImportError as exc:
        return _error(f"--run needs torch (pip install 'gradguard[torch]'): {exc}")
    try:
        print(demo(rule.code))
    except KeyError:
        return _error(f"{rule.code} has no run-time demonstration: its consequence shows only in the code")
    return EXIT_OK


def render_rule_doc(rule) -> str:
    header = f"{rule.code} ({rule.name})"
    fix = {"none": "no fix", "safe": "safe fix", "unsafe": "unsafe fix", "sometimes": "fix sometimes available"}[rule.fix_availability]
    default = "on by default" if rule.default_enabled else "off by default"
    return f"# {header}\n\n{rule.summary}\n\nFix: {fix}. {default.capitalize()}.\n\n{rule.documentation()}\n"


def _bench(argv: list) -> int:
    try:
        from gradguard.bench.cli import main as bench_main
    except ImportError as exc:
        return _error(f"bench needs torch, matplotlib and tqdm (pip install 'gradguard[bench]'): {exc}")
    return bench_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
