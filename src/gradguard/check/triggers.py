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


class TextSearch:
    """Where triggers occur in one text, found on demand and remembered (one per file).

    ``next_at(trigger, start)`` is the first occurrence at or after ``start``. Questions come
    in text order (the rules' file triggers, then each function as the walk reaches it), so
    each trigger's search moves forward through the text and reads it at most about once.
    """

    def __init__(self, text: str):
        self.text = text
        # trigger -> (start of the last search, where it found the trigger; -1: nowhere after)
        self._next: dict[Trigger, tuple[int, int]] = {}

    def occurs(self, trigger: Trigger) -> bool:
        """Whether the trigger occurs anywhere in the text."""
        return self.next_at(trigger, 0) >= 0

    def next_at(self, trigger: Trigger, start: int) -> int:
        """Where the trigger first occurs at or after ``start`` (-1: nowhere)."""
        cached = self._next.get(trigger)
        if cached is not None:
            since, found = cached
            if since <= start and (found < 0 or found >= start):
                return found
        if isinstance(trigger, str):
            found = self.text.find(trigger, start)
        elif isinstance(trigger, AnchoredPattern):
            found = self._next_anchored(trigger, start)
        else:
            match = trigger.search(self.text, start)
            found = -1 if match is None else match.start()
        self._next[trigger] = (start, found)
        return found

    def _next_anchored(self, trigger: AnchoredPattern, start: int) -> int:
        match = trigger.pattern.match
        text = self.text
        best = -1
        for substring in trigger.starts:
            at = self.next_at(substring, start)
            while at >= 0 and (best < 0 or at < best) and match(text, at) is None:
                at = self.next_at(substring, at + 1)
            if at >= 0 and (best < 0 or at < best):
                best = at
        return best


def occurs(text: str, trigger: Trigger) -> bool:
    """Whether the trigger occurs anywhere in ``text``."""
    return TextSearch(text).occurs(trigger)
