"""The checker's commands: ``gradguard check``, ``gradguard rules`` and ``gradguard explain``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TextIO

if TYPE_CHECKING:
    from gradguard.check.config import Config, ConfigFile, ConfigResolver
    from gradguard.check.rules.base import Rule
    from gradguard.check.run.pipeline import RunResult

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> list[str]:
    return [c.strip().upper() for c in value.split(",") if c.strip()]


def _selection(value: str) -> list[str]:
    """A ``--select``/``--extend-select`` value: at least one code."""
    codes = _codes(value)
    if not codes:
        raise argparse.ArgumentTypeError("needs at least one rule code or prefix (e.g. GG2), got an empty value")
    return codes


def _patterns(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value!r}")
    return jobs


FORMAT_ENV = "GRADGUARD_OUTPUT_FORMAT"


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``check``, ``rules`` and ``explain`` on the top-level subparsers."""
    from gradguard.check.report import FORMATS

    check = sub.add_parser("check", help="check files for gradient-control mistakes")
    check.add_argument("paths", nargs="*", default=None, help="files or directories (default: .)")
    rules = check.add_argument_group("rule selection")
    rules.add_argument("--select", type=_selection, default=None, help="codes or prefixes to enable, comma separated")
    rules.add_argument("--extend-select", type=_selection, default=[], help="codes to enable on top of the selection")
    rules.add_argument("--ignore", type=_codes, default=[], help="codes or prefixes to disable")
    fixing = check.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fixing.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff, apply unsafe fixes too")
    fixing.add_argument("--diff", action="store_true", help="print fixes as a unified diff; change nothing")
    fixing.add_argument(
        "--fix-only", action="store_true", help="apply fixes and report nothing about what is left (implies --fix)"
    )
    fixing.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a fix was applied")
    fixing.add_argument("--show-fixes", action="store_true", help="list the fixes applied, per file and code")
    fixing.add_argument(
        "--add-noqa", action="store_true", help="write `# noqa: CODE` comments for every finding, fix nothing"
    )
    fixing.add_argument("--ignore-noqa", action="store_true", help="report findings that `# noqa` suppresses")
    output = check.add_argument_group("output")
    output.add_argument(
        "--output-format",
        "--format",
        dest="format",
        default=None,
        help=f"output format: {', '.join(FORMATS)} (default: ${FORMAT_ENV}, else text)",
    )
    output.add_argument(
        "-o",
        "--output-file",
        type=Path,
        default=None,
        help="write the report to this file instead of standard output",
    )
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    output.add_argument(
        "--statistics", action="store_true", help="print the number of findings per code instead of the findings"
    )
    output.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    output.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (auto: on a terminal, unless NO_COLOR is set)",
    )
    output.add_argument(
        "--show-files",
        action="store_true",
        help="list the files a run would read (those that never import torch are then skipped), then exit",
    )
    output.add_argument(
        "--show-settings", action="store_true", help="print the configuration of the first path, then exit"
    )
    files = check.add_argument_group("files and configuration")
    files.add_argument("--config", type=Path, default=None, help="pyproject.toml to read instead of the nearest one")
    files.add_argument(
        "--extend-exclude", type=_patterns, default=[], help="patterns to exclude on top of the configuration's"
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply exclude and .gitignore to files named on the command line too (for pre-commit)",
    )
    files.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="skip files that .gitignore, .ignore and .git/info/exclude ignore (default: on)",
    )
    files.add_argument("--all-files", action="store_true", help="also check files that never import torch")
    files.add_argument(
        "--stdin-filename",
        default=None,
        help="read the source from standard input and report it under this name (its configuration applies)",
    )
    speed = check.add_argument_group("speed")
    speed.add_argument(
        "-j", "--jobs", type=_jobs, default=None, help="worker processes (default: the machine's CPUs; 1: no workers)"
    )
    speed.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    speed.add_argument(
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


def _warning(message: str) -> None:
    print(f"gradguard: warning: {message}", file=sys.stderr)


def resolver_from_args(args: argparse.Namespace) -> ConfigResolver:
    """The configuration of each file: ``[tool.gradguard]`` of its nearest pyproject.toml
    (or of ``--config``), overridden by the flags."""
    from gradguard.check.config import ConfigResolver, resolve
    from gradguard.check.rules import all_rules

    jobs = args.jobs or _default_jobs()
    fix = args.fix or args.fix_only

    def build(file: ConfigFile) -> Config:
        return resolve(
            all_rules(),
            file,
            select=args.select,
            ignore=args.ignore,
            extend_select=args.extend_select,
            all_files=args.all_files,
            force_exclude=args.force_exclude,
            fix=fix and not args.add_noqa,
            unsafe_fixes=args.unsafe_fixes,
            diff=args.diff,
            jobs=jobs,
            cache=not args.no_cache,
            cache_dir=args.cache_dir,
            extend_exclude=args.extend_exclude,
            respect_gitignore=args.respect_gitignore,
            ignore_noqa=args.ignore_noqa,
            add_noqa=args.add_noqa,
        )

    return ConfigResolver(build, config_path=args.config)


def config_from_args(args: argparse.Namespace, paths: list[str]) -> Config:
    """The configuration of the first path (what ``--show-settings`` prints)."""
    first = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
    return resolver_from_args(args).for_path(first)


def _check(args: argparse.Namespace) -> int:
    from gradguard.check.config import ConfigError
    from gradguard.check.report import FORMATS
    from gradguard.check.run.pipeline import run

    if args.format is None:
        args.format = os.environ.get(FORMAT_ENV) or "text"
    if args.format not in FORMATS:
        return _error(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    paths = args.paths or (["-"] if args.stdin_filename is not None else ["."])
    if "-" in paths and paths != ["-"]:
        return _error("'-' (standard input) cannot be combined with other paths")
    if args.config is not None and not args.config.is_file():
        return _error(f"config file not found: {args.config}")
    stdin = paths == ["-"]
    try:
        resolver = resolver_from_args(args)
        if stdin:
            name = args.stdin_filename or "-"
            config = resolver.for_path(Path(name) if args.stdin_filename else Path.cwd())
        else:
            config = resolver.for_path(Path(paths[0]))
        if args.show_settings:
            return _show_settings(config)
        if args.show_files:
            return _show_files(paths, config, resolver)
        if stdin:
            from gradguard.check.run.pipeline import check_stdin

            result = check_stdin(sys.stdin.buffer.read(), name, config)
        else:
            result = run(paths, config, resolver)
    except ConfigError as exc:
        return _error(str(exc))
    for path, reason in result.errors:
        print(f"gradguard: error: {path}: {reason}", file=sys.stderr)
    for warning in result.warnings:
        _warning(warning)
    for failure in result.internal_errors:
        print(f"gradguard: {failure}", file=sys.stderr)
    if not stdin and result.files_found == 0 and not result.errors:
        _warning("No Python files found under the given path(s)")
    # With --fix, source read from '-' is written back to stdout, so the report goes elsewhere.
    out = sys.stderr if stdin and (config.fix or config.add_noqa) else sys.stdout
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


def _show_settings(config: Config) -> int:
    print(f"config file: {config.config_file or '(none: defaults)'}")
    print(f"rules: {', '.join(config.rule_codes) or '(none)'}")
    print(f"exclude: {', '.join(config.exclude) or '(none)'}")
    for pattern, codes in config.per_file_ignores:
        print(f"per-file-ignores: {pattern} = {', '.join(codes)}")
    print(f"require-torch-import: {str(config.require_torch_import).lower()}")
    print(f"respect-gitignore: {str(config.respect_gitignore).lower()}")
    print(f"force-exclude: {str(config.force_exclude).lower()}")
    print(f"fix: {str(config.fix).lower()} (unsafe fixes: {str(config.unsafe_fixes).lower()})")
    print(f"jobs: {config.jobs}")
    cache = "off" if not config.cache else str(config.cache_dir or "(beside the config file)")
    print(f"cache: {cache}")
    return EXIT_OK


def _show_files(paths: list[str], config: Config, resolver: ConfigResolver) -> int:
    from gradguard.check.run.discovery import discover

    errors: list[tuple[str, str]] = []
    for path in discover(paths, config, errors=errors, config_for=lambda p: resolver.for_path(Path(p))):
        print(path)
    for path, reason in errors:
        print(f"gradguard: error: {path}: {reason}", file=sys.stderr)
    return EXIT_ERROR if errors else EXIT_OK


def _use_color(args: argparse.Namespace, out: TextIO) -> bool:
    if args.color == "always":
        return True
    if args.color == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(out, "isatty", lambda: False)())


def _report(args: argparse.Namespace, result: RunResult, out: TextIO) -> int:
    from gradguard.check.report import renderer
    from gradguard.check.report.text import render, render_fixed, render_statistics, statistics, summary_line

    fmt = args.format
    if args.diff:
        for diff in result.diffs:
            out.write(diff)
        if not args.quiet:
            n = result.fixed
            print(f"Would fix {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        if result.internal_errors:
            return EXIT_ERROR
        return EXIT_OK if args.exit_zero or not result.diffs else EXIT_FINDINGS
    if args.add_noqa:
        n = result.noqa_added
        print(f"Added {n} noqa directive{'s' if n != 1 else ''}.", file=sys.stderr)
        return EXIT_ERROR if result.internal_errors or result.errors else EXIT_OK
    if args.show_fixes:
        sys.stderr.write(render_fixed(result.fixed_codes))
    if args.fix_only:
        if not args.quiet:
            n = result.fixed
            print(f"Fixed {n} error{'s' if n != 1 else ''}.", file=sys.stderr)
        if result.internal_errors or result.errors:
            return EXIT_ERROR
        return EXIT_FINDINGS if args.exit_non_zero_on_fix and result.fixed and not args.exit_zero else EXIT_OK
    if args.statistics:
        if fmt in ("json", "json-lines"):
            import json

            rows = statistics(result.diagnostics)
            out.write(
                json.dumps(rows, indent=2) + "\n" if fmt == "json" else "".join(json.dumps(r) + "\n" for r in rows)
            )
        else:
            out.write(render_statistics(result.diagnostics))
    elif fmt in ("text", "concise"):
        out.write(render(result.diagnostics, color=_use_color(args, out)))
    else:
        out.write(renderer(fmt)(result.diagnostics))
        if fmt == "sarif":
            from gradguard.check.report.sarif import MAX_RESULTS, capped

            if len(result.diagnostics) > MAX_RESULTS:
                _warning(capped(len(result.diagnostics)))
    if fmt in ("text", "concise") and not args.quiet and not args.statistics:
        if result.diagnostics or result.fixed or not (result.errors or result.internal_errors):
            out.write(summary_line(result.diagnostics, result.fixed, fixing=bool(args.fix)) + "\n")
    if result.internal_errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_OK
    if result.errors and not result.diagnostics:
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    return EXIT_FINDINGS if result.diagnostics else EXIT_OK


def _default_jobs() -> int:
    from gradguard.check.run.executor import default_jobs

    return default_jobs()


def _rules() -> int:
    from gradguard.check.rules import PARSE_ERROR, PARSE_ERROR_SUMMARY, all_rules

    rows = [(PARSE_ERROR, "parse-error", "", "error", "on", PARSE_ERROR_SUMMARY)]
    for rule in all_rules():
        default = "on" if rule.default_enabled else "off"
        rows.append((rule.code, rule.name, rule.fix_availability.value, rule.severity.value, default, rule.summary))
    width = max(len(r[1]) for r in rows)
    print(f"{'code':6} {'name':{width}} {'fix':9} {'severity':8} {'default':7} summary")
    for code, name, fix, severity, default, summary in rows:
        print(f"{code:6} {name:{width}} {fix or '-':9} {severity:8} {default:7} {summary}")
    return EXIT_OK


def _explain(code: str) -> int:
    from gradguard.check import parse_error

    if code.upper() == parse_error.CODE:
        print(
            f"# {parse_error.CODE} ({parse_error.NAME})\n\nFix: no fix. Severity: error. Always on.\n\n{parse_error.DOCUMENTATION}"
        )
        return EXIT_OK
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
    severity = f"Severity: {rule.severity.value}"
    return (
        f"# {header}\n\n{rule.summary}\n\nFix: {fix}. {severity}. {default.capitalize()}.\n\n{rule.documentation()}\n"
    )
