"""``# noqa`` and ``# noqa: GG101, GG2`` suppression comments, flake8-compatible."""

from __future__ import annotations

import re
from typing import Iterable, Union

from gradguard.check.model import Diagnostic
from gradguard.check.source import SourceText

_NOQA_RE = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.I)


def noqa_codes(line: str) -> Union[None, str, tuple[str, ...]]:
    """None when the line has no noqa, "all" for a bare noqa, else the codes it names."""
    if "#" not in line:
        return None
    match = _NOQA_RE.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return "all"
    return tuple(c.upper() for c in re.split(r"[,\s]+", codes.strip()) if c)


def apply_noqa(diagnostics: Iterable[Diagnostic], source: SourceText) -> list[Diagnostic]:
    kept = []
    cache: dict[int, Union[None, str, tuple[str, ...]]] = {}
    for diag in diagnostics:
        row = diag.start.row
        if row not in cache:
            cache[row] = noqa_codes(source.line(row))
        codes = cache[row]
        if codes is None:
            kept.append(diag)
        elif codes == "all":
            continue
        elif not any(diag.code == c or diag.code.startswith(c) for c in codes):
            kept.append(diag)
    return kept
