"""Triggers: text whose presence lets a rule run on a file, or see a function.

A trigger is a substring or a compiled pattern. The substrings of a rule set that begin with
the same character are looked for together, in one pass of one pattern per character
(``.data``, ``.item()``, ``.step(`` ...: one pass over the text, not one per substring); a
substring alone of its kind is found with ``str.find``. A pattern that starts with a literal
word is searched for about as fast as that word (the pattern engine looks for the word first);
one that starts with a lookbehind or a set of characters is tried at every position of the
text, which on a large file costs far more.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Union

Trigger = Union[str, "re.Pattern[str]"]


@lru_cache(maxsize=64)
def _groups(substrings: frozenset[str]) -> dict[str, tuple[re.Pattern[str], tuple[str, ...]]]:
    """substring -> (a pattern matching where any substring of its group starts, the group),
    for the substrings that share their first character with another one."""
    by_first: dict[str, list[str]] = {}
    for substring in substrings:
        if substring:
            by_first.setdefault(substring[0], []).append(substring)
    out: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {}
    for first, members in by_first.items():
        if len(members) < 2:
            continue
        rests = sorted({m[1:] for m in members}, key=lambda r: (-len(r), r))
        # The first character, then a lookahead: each match consumes one character, so the
        # next search starts right after it and overlapping occurrences are all found.
        pattern = re.compile(re.escape(first) + "(?=" + "|".join(re.escape(r) for r in rests) + ")")
        group = (pattern, tuple(sorted(members)))
        for member in members:
            out[member] = group
    return out


def trigger_text(text: str) -> str:
    """The text triggers are looked for in: a call written with a space before its parenthesis
    (``torch.tensor (x)``, ``loss.backward ()``, ``opt.step ()``) reads as one without, the space
    moved after the parenthesis, so that every offset stays where it was in ``text`` (one pass;
    a call with two spaces or more before its parenthesis still reads as written)."""
    return text.replace(" (", "( ") if " (" in text else text


class TextSearch:
    """Where triggers occur in one text, found on demand and remembered (one per file).

    ``next_at(trigger, start)`` is the first occurrence at or after ``start``. ``vocabulary``
    names the substrings the file may be asked about (every rule's triggers): those sharing
    a first character are found together, in one pass (see the module docstring). Other
    questions move each trigger's search forward through the text as they come (the rules'
    file triggers, then each function as the walk reaches it), reading it at most about once.
    """

    def __init__(self, text: str, vocabulary: frozenset[str] = frozenset()):
        self.text = text
        self._groups = _groups(vocabulary)
        # trigger -> (start of the last search, where it found the trigger; -1: nowhere after)
        self._next: dict[Trigger, tuple[int, int]] = {}
        self._positions: dict[str, list[int]] = {}  # grouped substring -> every place it starts

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
            positions = self._positions.get(trigger)
            if positions is None and trigger in self._groups:
                self._scan_group(*self._groups[trigger])
                positions = self._positions[trigger]
            if positions is not None:
                i = bisect_left(positions, start)
                found = positions[i] if i < len(positions) else -1
            else:
                found = self.text.find(trigger, start)
        else:
            match = trigger.search(self.text, start)
            found = -1 if match is None else match.start()
        self._next[trigger] = (start, found)
        return found

    def _scan_group(self, pattern: re.Pattern[str], members: tuple[str, ...]) -> None:
        text = self.text
        startswith = text.startswith
        found: dict[str, list[int]] = {member: [] for member in members}
        lists = [(member, found[member]) for member in members]
        for match in pattern.finditer(text):
            at = match.start()
            for member, positions in lists:
                if startswith(member, at):
                    positions.append(at)
        self._positions.update(found)
