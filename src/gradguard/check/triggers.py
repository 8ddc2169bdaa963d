"""Triggers: text whose presence lets a rule run on a file, or see a function.

A trigger is a substring, a compiled pattern, or an ``AnchoredPattern``: a pattern every
match of which starts with one of a few substrings. Substrings are found with ``str.find``;
an anchored pattern is tried only where one of its substrings starts, which costs far less
than letting the pattern engine try every position of a large file.
"""

from __future__ import annotations

import re
from typing import Union


class AnchoredPattern:
    """A pattern whose every match starts with one of ``starts`` (the caller's promise,
    checked by the tests of the rule that uses it)."""

    __slots__ = ("pattern", "starts")

    def __init__(self, pattern: re.Pattern[str], starts: tuple[str, ...]):
        self.pattern = pattern
        self.starts = starts

    def __repr__(self) -> str:
        return f"AnchoredPattern({self.pattern.pattern!r}, {self.starts!r})"


Trigger = Union[str, "re.Pattern[str]", AnchoredPattern]


def substring_positions(text: str, substring: str) -> list[int]:
    """Where ``substring`` starts in ``text``, in order (overlapping occurrences included)."""
    out = []
    find = text.find
    at = find(substring)
    while at >= 0:
        out.append(at)
        at = find(substring, at + 1)
    return out


def anchored_positions(text: str, trigger: AnchoredPattern) -> list[int]:
    """Where a match of the pattern starts in ``text``, in order."""
    match = trigger.pattern.match
    found = {at for start in trigger.starts for at in substring_positions(text, start) if match(text, at) is not None}
    return sorted(found)


def occurs(text: str, trigger: Trigger) -> bool:
    """Whether the trigger occurs anywhere in ``text``."""
    if isinstance(trigger, str):
        return trigger in text
    if isinstance(trigger, AnchoredPattern):
        match = trigger.pattern.match
        find = text.find
        for start in trigger.starts:
            at = find(start)
            while at >= 0:
                if match(text, at) is not None:
                    return True
                at = find(start, at + 1)
        return False
    return trigger.search(text) is not None
