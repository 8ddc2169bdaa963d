"""Check (and fix) a set of files: the orchestration every front end shares."""

from __future__ import annotations

import difflib
import gc
import os
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gradguard.check.config import Settings, select_rules
from gradguard.check.engine.errors import internal_error
from gradguard.check.engine.run import check_bytes, check_source
from gradguard.check.fixes import fix_until_stable, write_atomic
from gradguard.check.model import Diagnostic, Position
from gradguard.check.rules import all_rules
from gradguard.check.run.discovery import discover


@dataclass
class RunOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    select: Optional[list] = None
    ignore: list = field(default_factory=list)
    extend_select: list = field(default_factory=list)
    jobs: int = 1  # worker processes; the command line defaults to the machine's CPUs
    cache: bool = False  # use the result cache (the command line turns it on)
    cache_dir: Optional[Path] = None  # default: .gradguard_cache beside the configuration


@dataclass
class RunResult:
    diagnostics: list = field(default_factory=list)
    fixed: int = 0  # fixes applied (or that would be, with --diff)
    files_checked: int = 0
    diffs: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # (path, message) for unreadable paths
    internal_errors: list = field(default_factory=list)  # engine.InternalError: bugs in gradguard
    warnings: list = field(default_factory=list)  # problems that change no result (e.g. no cache)


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
    result.internal_errors.extend(file_result.internal_errors)
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
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path)
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
        from gradguard.check.run.notebook import check_notebook_bytes

        return check_notebook_bytes
    return check_file_bytes


def merge(total: RunResult, part: RunResult) -> None:
    total.diagnostics.extend(part.diagnostics)
    total.fixed += part.fixed
    total.files_checked += part.files_checked
    total.diffs.extend(part.diffs)
    total.errors.extend(part.errors)
    total.internal_errors.extend(part.internal_errors)
    total.warnings.extend(part.warnings)


_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_regular_file(path: str) -> Optional[str]:
    """What ``path`` is when it is not a regular file (reading a FIFO would block forever)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # process_file reports why it cannot be read
    if stat.S_ISREG(mode):
        return None
    for test, kind in _FILE_KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def guarded_process_file(path: str, rules: list, settings: Settings, options: RunOptions) -> RunResult:
    """``process_file`` that never raises: a bug becomes an InternalError, the run goes on."""
    kind = _not_a_regular_file(path)
    if kind is not None:
        result = RunResult()
        result.diagnostics.append(
            Diagnostic("GG001", f"File could not be read: it is {kind}", path, Position(1, 1), Position(1, 1))
        )
        return result
    try:
        return process_file(path, rules, settings, options)
    except Exception as exc:
        result = RunResult()
        result.internal_errors.append(internal_error("engine", path, exc))
        return result


def check_task(path: str, key: Optional[str], rules: list, settings: Settings, options: RunOptions, cache) -> RunResult:
    """Check one file and, when ``key`` is given, store what can be reused next time."""
    result = guarded_process_file(path, rules, settings, options)
    if key is not None and cache is not None and _cacheable(result):
        cache.store(key, path, result.files_checked > 0, result.diagnostics)
    return result


def _cacheable(result: RunResult) -> bool:
    # Internal errors must show again; a rewritten file has new content (and a new key).
    return not result.internal_errors and not result.errors and not result.fixed and not result.diffs


def _has_applicable_fix(diagnostics: list, options: RunOptions) -> bool:
    return any(d.fix is not None and d.fix.applies(options.unsafe_fixes) for d in diagnostics)


def open_cache(settings: Settings, options: RunOptions, rules: list, result: RunResult):
    """The run's ResultCache, or None (disabled, or the folder cannot be used: a warning)."""
    if not options.cache:
        return None
    from gradguard.check.run.cache import CacheError, ResultCache, default_cache_dir

    root = options.cache_dir if options.cache_dir is not None else default_cache_dir(settings)
    try:
        return ResultCache.open(root, [r.code for r in rules], settings.require_torch_import)
    except CacheError as exc:
        result.warnings.append(str(exc))
        return None


def lookup_cached(path: str, cache, settings: Settings, options: RunOptions):
    """(cached RunResult or None, key or None) for one file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None, None  # checked normally, which reports the error
    key = cache.key(path, data, settings.ignored_for(path))
    hit = cache.load(key, path)
    if hit is None:
        return None, key
    checked, diagnostics = hit
    # --fix / --diff reuse an entry only when it holds nothing to fix.
    if (options.fix or options.diff) and _has_applicable_fix(diagnostics, options):
        return None, key
    return RunResult(diagnostics=diagnostics, files_checked=int(checked)), key


# Checking allocates millions of short-lived objects (syntax trees) and leaves no reference
# cycles (the engine undoes its parent links after each file), so the cyclic collector's
# default first-generation threshold of 700 allocations only makes it run thousands of times
# for nothing. A run raises it and puts it back afterwards; worker processes keep it.
GC_THRESHOLD = 100_000


@contextmanager
def fewer_collections():
    """Raise the garbage collector's first-generation threshold for the duration of a run."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run(paths: list, settings: Settings, options: RunOptions) -> RunResult:
    """Check every file under ``paths``: cached results first, the rest in parallel."""
    with fewer_collections():
        return _run(paths, settings, options)


def _run(paths: list, settings: Settings, options: RunOptions) -> RunResult:
    from gradguard.check.run.executor import map_tasks

    rules = resolve_rules(settings, options)
    result = RunResult()
    files = list(discover(paths, settings, errors=result.errors))
    cache = open_cache(settings, options, rules, result)
    parts: list = [None] * len(files)
    tasks: list = []
    positions: list = []
    for i, path in enumerate(files):
        if cache is not None and _not_a_regular_file(path) is None:
            hit, key = lookup_cached(path, cache, settings, options)
            if hit is not None:
                parts[i] = hit
                continue
        else:
            key = None
        tasks.append((path, key))
        positions.append(i)
    for i, part in zip(positions, map_tasks(tasks, rules, settings, options, cache, options.jobs)):
        parts[i] = part
    for part in parts:
        merge(result, part)
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
