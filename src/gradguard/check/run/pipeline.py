"""Check (and fix) a set of files: the orchestration every front end shares.

One per-file pipeline for every kind of file: read the bytes, let the kind's adapter
(``run.python``, ``run.notebook``) check them, keep the findings the configuration selects,
apply or preview fixes through the adapter's document, write the result atomically. Files
are checked in parallel by the generic executor, with the result cache in front.
"""

from __future__ import annotations

import gc
import os
import re
import stat
import sys
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from gradguard.check.analysis.imports import mentions_torch_import
from gradguard.check.analysis.project import ProjectIndex, build_index, star_imports_give_torch, using
from gradguard.check.config import Config, ConfigResolver
from gradguard.check.engine.errors import InternalError, internal_error
from gradguard.check.fixes import write_atomic
from gradguard.check.model import Diagnostic, Position
from gradguard.check.run.adapter import Adapter, Document, FindingFilter
from gradguard.check.run.discovery import discover
from gradguard.check.run.executor import map_parallel
from gradguard.check.run.notebook import notebook_program
from gradguard.check.run.python import PythonAdapter

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule
    from gradguard.check.run.cache import ResultCache


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixed: int = 0  # findings fixed (with --diff: findings the fixes would clear)
    files_checked: int = 0
    diffs: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, message) for unreadable paths
    internal_errors: list[InternalError] = field(default_factory=list)  # bugs in gradguard
    warnings: list[str] = field(default_factory=list)  # problems that change no result (e.g. no cache)
    files_found: int = 0  # files discovery found (checked, skipped or served from the cache)
    noqa_added: int = 0  # lines given a noqa comment or a new code in one (--add-noqa)
    fixed_codes: list[tuple[str, str]] = field(default_factory=list)  # (path, code) of each fix applied

    def merge(self, part: RunResult) -> None:
        self.diagnostics.extend(part.diagnostics)
        self.fixed += part.fixed
        self.noqa_added += part.noqa_added
        self.fixed_codes.extend(part.fixed_codes)
        self.files_checked += part.files_checked
        self.diffs.extend(part.diffs)
        self.errors.extend(part.errors)
        self.internal_errors.extend(part.internal_errors)
        self.warnings.extend(part.warnings)


class SelectedFindings:
    """Keeps a file's findings that the run selects and per-file-ignores does not drop."""

    def __init__(self, ignored: Sequence[str], selected_codes: set[str]):
        self.ignored = tuple(ignored)
        self.selected_codes = selected_codes

    def __call__(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        out = []
        for d in diagnostics:
            if d.code == "GG001":
                if any("GG001".startswith(c) for c in self.ignored):
                    continue
                out.append(d)
                continue
            if d.code not in self.selected_codes:
                continue
            if any(d.code.startswith(c) for c in self.ignored):
                continue
            out.append(d)
        return out


_PYTHON = PythonAdapter()


def adapter_for(path: str) -> Adapter:
    """The notebook adapter for ``.ipynb`` files, the Python one for every other file."""
    if path.endswith(".ipynb"):
        from gradguard.check.run.notebook import NotebookAdapter  # imported only when a notebook is met

        return NotebookAdapter()
    return _PYTHON


def check_file_data(
    data: bytes, path: str, rules: list[Rule], config: Config, result: RunResult, change: bool = True
) -> Optional[bytes]:
    """Check one file's bytes; apply or preview fixes (or ``# noqa`` comments). Returns the
    new bytes, or None. ``change=False``: report only (the file cannot be written)."""
    keep = SelectedFindings(config.ignored_for(path), {r.code for r in rules})
    checked = adapter_for(path).check(data, path, rules, config.require_torch_import, not config.ignore_noqa)
    result.internal_errors.extend(checked.internal_errors)
    if checked.skipped:
        return None
    result.files_checked += 1
    diagnostics = keep(checked.diagnostics)
    new_bytes = None
    document = checked.document
    if config.add_noqa and change and document is not None and not config.diff:
        added = document.add_noqa(diagnostics)
        if added:
            result.noqa_added += added
            new_bytes = document.to_bytes()
            diagnostics = [d for d in diagnostics if d.code == "GG001"]
    elif (config.fix or config.diff) and change and document is not None:
        applied = document.fix(keep, config.unsafe_fixes)
        if applied:
            remaining = document.remaining(keep)
            # Findings fixed, not fixes applied: one fix can clear several findings (one
            # `no_grad` block around two lines; GG105's `.item()` also clears GG101's `.data`).
            # --diff counts what --fix would report.
            left = Counter(d.code for d in remaining)
            cleared = [
                (path, code)
                for code, count in Counter(d.code for d in diagnostics).items()
                for _ in range(max(count - left.get(code, 0), 0))
            ]
            result.fixed += len(cleared)
            if config.diff:
                result.diffs.extend(document.diffs(path))
            else:
                new_bytes = document.to_bytes()
                result.fixed_codes.extend(cleared)
                diagnostics = remaining
    result.diagnostics.extend(diagnostics)
    return new_bytes


def _unreadable(path: str, reason: str) -> RunResult:
    result = RunResult()
    result.diagnostics.append(
        Diagnostic("GG001", f"File could not be read: {reason}", path, Position(1, 1), Position(1, 1))
    )
    return result


def _writable(path: str) -> bool:
    """Whether the file may be rewritten: it has a write permission bit and this process may
    write it (a file without any write bit is read-only even for root, who could write it)."""
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) and os.access(real, os.W_OK)


def process_file(path: str, rules: list[Rule], config: Config) -> RunResult:
    """Read, check and (with --fix or --add-noqa) rewrite one file; the unit of work of a run.

    A file that cannot be written is checked and reported, never changed (``os.replace``
    would replace a read-only file); a rewrite that fails counts no fix."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return _unreadable(path, exc.strerror or str(exc))
    result = RunResult()
    changes = (config.fix or config.add_noqa) and not config.diff
    writable = not changes or _writable(path)
    new_bytes = check_file_data(data, path, rules, config, result, change=writable)
    if not writable:
        result.errors.append((path, "not changed: the file is read-only"))
    if new_bytes is not None and changes:
        try:
            write_atomic(path, new_bytes)
        except OSError as exc:
            result = RunResult()
            check_file_data(data, path, rules, config, result, change=False)
            result.errors.append((path, f"not changed: could not write it: {exc.strerror or exc}"))
    return result


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


def guarded_process_file(path: str, rules: list[Rule], config: Config) -> RunResult:
    """``process_file`` that never raises: a bug becomes an InternalError, the run goes on."""
    kind = _not_a_regular_file(path)
    if kind is not None:
        return _unreadable(path, f"it is {kind}")
    try:
        return process_file(path, rules, config)
    except Exception as exc:
        result = RunResult()
        result.internal_errors.append(internal_error("engine", path, exc))
        return result


class Settings:
    """One configuration of a run with its rule instances and result cache."""

    def __init__(self, config: Config, cache: Optional[ResultCache]):
        self.config = config
        self.rules = config.make_rules()
        self.cache = cache


class FileTask:
    """Checks one ``(path, cache key, settings index)``: what the executor runs, in a worker
    or in-process.

    Picklable (rule instances of module-level classes, the configurations, the caches), so
    that it can be sent to spawned workers.
    """

    def __init__(self, settings: list[Settings], project: Optional[ProjectIndex] = None):
        self.settings = settings
        self.project = project

    def __call__(self, item: tuple[str, Optional[str], int]) -> RunResult:
        path, key, index = item
        settings = self.settings[index]
        with using(self.project):
            result = guarded_process_file(path, settings.rules, settings.config)
        if key is not None and settings.cache is not None and _cacheable(result):
            settings.cache.store(key, path, result.files_checked > 0, result.diagnostics)
        return result


def _cacheable(result: RunResult) -> bool:
    # Internal errors must show again; a rewritten file has new content (and a new key).
    return not result.internal_errors and not result.errors and not result.fixed and not result.diffs


def _has_applicable_fix(diagnostics: list[Diagnostic], config: Config) -> bool:
    return any(d.fix is not None and d.fix.applies(config.unsafe_fixes) for d in diagnostics)


def open_cache(config: Config, result: RunResult) -> Optional[ResultCache]:
    """The run's ResultCache, or None (disabled, or the folder cannot be used: a warning)."""
    if not config.cache or config.ignore_noqa:  # --ignore-noqa: a rare audit run, not cached
        return None
    from gradguard.check.run.cache import CacheError, ResultCache, default_cache_dir

    root = config.cache_dir if config.cache_dir is not None else default_cache_dir(config)
    try:
        return ResultCache.open(root, config.rule_codes, config.require_torch_import)
    except CacheError as exc:
        result.warnings.append(str(exc))
        return None


_STAR_IMPORT = re.compile(rb"import[ \t]+\*")


def _star_torch(path: str, data: bytes) -> str:
    """For a file that may take torch only through ``from X import *``: whether the module
    files it star-imports from give torch (read from disk: ``star_imports_give_torch``), a
    part of its cache key as the run's facts are. Empty for any other file."""
    if _STAR_IMPORT.search(data) is None:
        return ""
    text = data.decode("utf-8", "replace")
    if mentions_torch_import(text):
        return ""
    return ":star-torch" if star_imports_give_torch(path, text) else ":star-none"


def cache_key(cache: ResultCache, path: str, data: bytes, config: Config, project: str = "") -> str:
    """The key of a file's stored result: its bytes, the settings that apply to it, the run's
    facts about its project, and what its star imports give when they are read from disk.
    ``gradguard check`` and the editor's server look results up with the same key."""
    return cache.key(path, data, config.ignored_for(path), project + _star_torch(path, data))


def lookup_cached(
    path: str, cache: ResultCache, config: Config, project: str = ""
) -> tuple[Optional[RunResult], Optional[str]]:
    """(cached RunResult or None, key or None) for one file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None, None  # checked normally, which reports the error
    key = cache_key(cache, path, data, config, project)
    hit = cache.load(key, path)
    if hit is None:
        return None, key
    checked, diagnostics = hit
    # --fix / --diff reuse an entry only when it holds nothing to fix, --add-noqa when it
    # holds no finding.
    if (config.fix or config.diff) and _has_applicable_fix(diagnostics, config):
        return None, key
    if config.add_noqa and any(d.code != "GG001" for d in diagnostics):
        return None, key
    return RunResult(diagnostics=diagnostics, files_checked=int(checked)), key


# Checking allocates millions of short-lived objects (syntax trees) and leaves no reference
# cycles (the engine undoes its parent links after each file), so the cyclic collector's
# default first-generation threshold of 700 allocations only makes it run thousands of times
# for nothing. A run raises it and puts it back afterwards; worker processes keep it.
GC_THRESHOLD = 100_000


def raise_gc_threshold() -> None:
    """Raise the collector's first-generation threshold to GC_THRESHOLD (a worker's set-up)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the garbage collector's first-generation threshold for the duration of a run."""
    old = gc.get_threshold()
    raise_gc_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run(paths: Sequence[str], config: Config, resolver: Optional[ConfigResolver] = None) -> RunResult:
    """Check every file under ``paths``: cached results first, the rest in parallel.

    ``config`` holds the run's options; with ``resolver``, each file is checked with the
    configuration of its nearest pyproject.toml (``resolver.for_path``), so the result of a
    file never depends on which other paths the run was given. Raises ConfigError for a
    configuration that cannot be read."""
    with fewer_collections():
        return _run(paths, config, resolver)


def _run(paths: Sequence[str], config: Config, resolver: Optional[ConfigResolver]) -> RunResult:
    result = RunResult()
    config_for = (lambda path: resolver.for_path(Path(path))) if resolver is not None else None
    files = list(discover(paths, config, errors=result.errors, config_for=config_for))
    result.files_found = len(files)
    settings: list[Settings] = []
    index_of: dict[int, int] = {}  # id(config) -> index in settings
    project = build_index(files, read_notebook=notebook_program) if len(files) > 1 else None
    digest = project.digest() if project is not None else ""
    parts: list[Optional[RunResult]] = [None] * len(files)
    tasks: list[tuple[str, Optional[str], int]] = []
    positions: list[int] = []
    for i, path in enumerate(files):
        file_config = config_for(path) if config_for is not None else config
        index = index_of.get(id(file_config))
        if index is None:
            index = index_of[id(file_config)] = len(settings)
            settings.append(Settings(file_config, open_cache(file_config, result)))
        cache = settings[index].cache
        key = None
        if cache is not None and _not_a_regular_file(path) is None:
            hit, key = lookup_cached(path, cache, file_config, digest)
            if hit is not None:
                parts[i] = hit
                continue
        tasks.append((path, key, index))
        positions.append(i)
    jobs = config.jobs
    done = map_parallel(FileTask(settings, project), tasks, jobs, worker_setup=raise_gc_threshold)
    for i, checked in zip(positions, done):
        parts[i] = checked
    for part in parts:
        assert part is not None  # every file is a cache hit or a task
        result.merge(part)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


@dataclass
class BufferCheck:
    """An editor buffer's check: the findings the configuration keeps (positions in the
    buffer's text, or in each cell's), and the document its fixes are applied to."""

    diagnostics: list[Diagnostic]
    keep: FindingFilter
    document: Optional[Document] = None
    internal_errors: list[InternalError] = field(default_factory=list)
    skipped: bool = False


def finding_filter(path: str, config: Config, rules: Sequence[Rule]) -> FindingFilter:
    """Keeps the findings of ``path`` that the run selects and per-file-ignores does not drop."""
    return SelectedFindings(config.ignored_for(path), {r.code for r in rules})


def check_buffer(
    path: str,
    config: Config,
    rules: Sequence[Rule],
    text: Optional[str] = None,
    cells: Optional[Sequence[tuple[int, str]]] = None,
) -> BufferCheck:
    """Check text an editor holds: one Python ``text``, or a notebook's code ``cells`` as
    ``(cell number, text)`` in cell order (checked as one program). Same adapters, same
    selection and per-file-ignores as a file read from disk; nothing is read or written."""
    keep = finding_filter(path, config, rules)
    if cells is not None:
        from gradguard.check.run.notebook import NotebookAdapter, notebook_from_cells

        notebook = notebook_from_cells(cells)
        checked = NotebookAdapter().check_notebook(
            notebook, path, rules, config.require_torch_import, not config.ignore_noqa
        )
    else:
        checked = _PYTHON.check_text(text or "", path, rules, config.require_torch_import, not config.ignore_noqa)
    if checked.skipped:
        return BufferCheck([], keep, internal_errors=checked.internal_errors, skipped=True)
    return BufferCheck(keep(checked.diagnostics), keep, checked.document, checked.internal_errors)


def check_stdin(data: bytes, filename: str, config: Config) -> RunResult:
    """Check source given on standard input; with --fix the fixed source goes to stdout."""
    rules = config.make_rules()
    result = RunResult()
    new_bytes = check_file_data(data, filename, rules, config, result)
    if config.fix or config.add_noqa:
        sys.stdout.buffer.write(new_bytes if new_bytes is not None else data)
        sys.stdout.flush()
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result
