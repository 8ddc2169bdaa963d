"""How every wing writes sizes, exceptions and code excerpts in one line, and finds text in text."""

from __future__ import annotations

from typing import Iterator


def format_bytes(n: int) -> str:
    """``1536`` -> ``1.5 KiB``: binary units, one decimal."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value:.1f} PiB"


def first_line(exc: BaseException) -> str:
    """``TypeError: first line of the message`` (the type alone for an empty message)."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def short(text: str, limit: int = 40) -> str:
    """Whitespace runs collapsed to one space, cut to ``limit`` characters with ``...``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def occurrences(text: str, needle: str) -> Iterator[int]:
    """Offsets where ``needle`` occurs in ``text``, overlapping ones too (``str.find``: fast on
    large files)."""
    find = text.find
    i = find(needle)
    while i >= 0:
        yield i
        i = find(needle, i + 1)
