"""``# noqa`` and ``# noqa: GG101, GG2`` suppression comments, flake8-compatible."""

from __future__ import annotations

import re
from typing import Union

_NOQA_RE = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.I)


def noqa_codes(line: str) -> Union[None, str, tuple]:
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
