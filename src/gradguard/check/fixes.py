"""Applying fixes: minimal text edits, re-checked until stable, shown as diffs, written atomically."""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
import warnings
from typing import Callable, Iterable, Optional, Sequence

from gradguard.check.model import Diagnostic, Edit, Fix

MAX_PASSES = 10


def chosen_fixes(diagnostics: Iterable[Diagnostic], unsafe: bool) -> list[Fix]:
    return [d.fix for d in diagnostics if d.fix is not None and d.fix.applies(unsafe)]


def apply_edits(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply non-overlapping fixes (all edits of a fix or none). Returns (text, applied)."""
    ordered = sorted(fixes, key=lambda f: min(e.start for e in f.edits) if f.edits else 0)
    taken: list[tuple[int, int]] = []
    applied = 0
    for fix in ordered:
        if not fix.edits:
            continue
        spans = [(e.start, e.end) for e in fix.edits]
        if any(_collide(a, b) for i, a in enumerate(spans) for b in spans[i + 1 :]):
            continue  # a fix whose own edits collide has no single meaning: never applied
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue  # picked up in the next pass
        taken.extend(spans)
        applied += 1
    edits: list[Edit] = []
    for fix in ordered:
        if fix.edits and all((e.start, e.end) in taken for e in fix.edits):
            edits.extend(fix.edits)
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.content + text[edit.end :]
    return text, applied


def apply_text_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (offsets into ``text``)."""
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: e.start] + e.content + text[e.end :]
    return text


def _collide(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two edits of one fix that cannot both apply: they share replaced text, or one inserts
    inside the other's replaced text, or both insert at one point (in no defined order). An
    insertion where a replacement starts or ends goes before or after it."""
    return a[0] < b[1] and b[0] < a[1] or a[0] == a[1] == b[0] == b[1]


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a == b:
        return True
    # Touching insertions at the same point conflict; adjacent replacements do not.
    return a[0] < b[1] and b[0] < a[1] or (a[0] == a[1] == b[0]) or (b[0] == b[1] == a[0])


def fix_until_stable(
    text: str,
    check: Callable[[str], list[Diagnostic]],
    unsafe: bool,
    parses: Optional[Callable[[str], bool]] = None,
) -> tuple[str, int, list[Diagnostic]]:
    """Apply fixes, re-check, repeat. Returns (new_text, fixes_applied, remaining_diagnostics).

    A pass whose result no longer parses (``parses``: as Python, by default) is done again one
    fix at a time, keeping each fix whose result parses: one broken fix does not hold back the
    others.
    """
    if parses is None:
        parses = parses_as_python
    total = 0
    diagnostics = check(text)
    for _ in range(MAX_PASSES):
        fixes = chosen_fixes(diagnostics, unsafe)
        if not fixes:
            break
        new_text, applied = apply_edits(text, fixes)
        if applied == 0 or new_text == text:
            break
        if not parses(new_text):
            kept: list[Fix] = []
            new_text, applied = text, 0
            for fix in fixes:
                candidate, count = apply_edits(text, [*kept, fix])
                if count > applied and parses(candidate):
                    kept.append(fix)
                    new_text, applied = candidate, count
            if applied == 0:
                break
        text = new_text
        total += applied
        diagnostics = check(text)
    return text, total, diagnostics


def parses_as_python(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings about the user's code
            compile(text, "<fix>", "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def unified_diff(old: str, new: str, path: str) -> str:
    """What ``--diff`` prints for one file (or notebook cell): a unified diff that ``patch``
    and ``git apply`` accept; a last line without a newline is marked as ``diff`` marks it."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=path, tofile=path
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_atomic(path: str, data: bytes, durable: bool = True) -> None:
    """Replace a file's bytes in one rename, keeping its permission bits.

    A reader sees the old bytes or the new ones, never a part. ``durable`` flushes the data
    to disk before the rename (fixed source files); the result cache, which can always be
    rebuilt, skips that cost.
    """
    directory = os.path.dirname(os.path.abspath(path))
    real = os.path.realpath(path)
    try:
        mode: Optional[int] = stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=".gradguard-", suffix=".tmp", dir=os.path.dirname(real) or directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
