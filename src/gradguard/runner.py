"""Check (and fix) a set of files: the orchestration every front end shares."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Optional

from gradguard.config import Settings, select_rules
from gradguard.diagnostics import Diagnostic, Position
from gradguard.engine import FileResult, check_bytes, check_source
from gradguard.files import discover
from gradguard.fixes import fix_until_stable, write_atomic
from gradguard.rules import all_rules


@dataclass
class RunOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    select: Optional[list] = None
    ignore: list = field(default_factory=list)
    extend_select: list = field(default_factory=list)


@dataclass
class RunResult:
    diagnostics: list = field(default_factory=list)
    fixed: int = 0  # fixes applied (or that would be, with --diff)
    files_checked: int = 0
    diffs: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # (path, message) for unreadable paths


def resolve_rules(settings: Settings, options: RunOptions) -> list:
    select = options.select if options.select is not None else settings.select
    # A code selected on the command line wins over the configuration's ignore of it.
    cli_select = options.select or []
    ignore = list(options.ignore) + [c for c in settings.ignore if c not in cli_select]
    extend = list(settings.extend_select) + list(options.extend_select)
    return [rule() for rule in select_rules(all_rules(), select, ignore, extend)]


def _filter(diags: list, ignored: list, selected_codes: set) -> list:
    out = []
    for d in diags:
        if d.code == "GG001":
            if any("GG001".startswith(c) for c in ignored):
                continue
            out.append(d)
            continue
        if d.code not in selected_codes:
            continue
        if any(d.code.startswith(c) for c in ignored):
            continue
        out.append(d)
    return out


def check_file_bytes(data: bytes, path: str, rules: list, settings: Settings, options: RunOptions, result: RunResult):
    """Check one file's bytes; apply or preview fixes. Returns the new bytes, or None."""
    ignored = settings.ignored_for(path)
    codes = {r.code for r in rules}
    file_result = check_bytes(data, path, rules, settings.require_torch_import)
    if file_result.skipped:
        return None
    result.files_checked += 1
    diags = _filter(file_result.diagnostics, ignored, codes)
    new_bytes = None
    if (options.fix or options.diff) and file_result.source is not None and file_result.error is None:
        source = file_result.source

        def recheck(text: str) -> list:
            source.text = text
            source._line_starts = None
            return _filter(check_source(source, path, rules, settings.require_torch_import).diagnostics, ignored, codes)

        original = source.text
        new_text, applied, remaining = fix_until_stable(original, recheck, options.unsafe_fixes)
        source.text = original
        source._line_starts = None
        if applied and new_text != original:
            result.fixed += applied
            if options.diff:
                result.diffs.append(unified_diff(original, new_text, path))
            else:
                new_bytes = source.to_bytes(new_text)
                diags = remaining
    result.diagnostics.extend(diags)
    return new_bytes


def unified_diff(old: str, new: str, path: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path
        )
    )


def process_file(path: str, rules: list, settings: Settings, options: RunOptions) -> RunResult:
    """Read, check and (with --fix) rewrite one file; the unit of work of a run."""
    result = RunResult()
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        result.diagnostics.append(
            Diagnostic("GG001", f"File could not be read: {reason}", path, Position(1, 1), Position(1, 1))
        )
        return result
    new_bytes = _checker_for(path)(data, path, rules, settings, options, result)
    if new_bytes is not None and options.fix:
        try:
            write_atomic(path, new_bytes)
        except OSError as exc:
            result.errors.append((path, f"could not write fixes: {exc.strerror or exc}"))
    return result


def _checker_for(path: str):
    """``check_file_bytes``, or its notebook counterpart for ``.ipynb`` files."""
    if path.endswith(".ipynb"):
        from gradguard.notebooks import check_notebook_bytes

        return check_notebook_bytes
    return check_file_bytes


def merge(total: RunResult, part: RunResult) -> None:
    total.diagnostics.extend(part.diagnostics)
    total.fixed += part.fixed
    total.files_checked += part.files_checked
    total.diffs.extend(part.diffs)
    total.errors.extend(part.errors)


def run(paths: list, settings: Settings, options: RunOptions) -> RunResult:
    rules = resolve_rules(settings, options)
    result = RunResult()
    for path in discover(paths, settings, errors=result.errors):
        merge(result, process_file(path, rules, settings, options))
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def check_stdin(data: bytes, filename: str, settings: Settings, options: RunOptions) -> RunResult:
    """Check source given on standard input; with --fix the fixed source goes to stdout."""
    import sys

    rules = resolve_rules(settings, options)
    result = RunResult()
    new_bytes = _checker_for(filename)(data, filename, rules, settings, options, result)
    if options.fix:
        sys.stdout.buffer.write(new_bytes if new_bytes is not None else data)
        sys.stdout.flush()
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result
