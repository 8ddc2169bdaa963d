"""What the per-file pipeline needs from each kind of file (a Python file, a notebook).

An adapter checks a file's bytes and hands back the findings plus, when the file can be
fixed, a ``Document``: the file's text that fixes are applied to, re-checked until stable,
and written back (or shown as a diff). The pipeline does the rest the same way for every
kind: filtering, counting, diffs, writing, caching.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional, Protocol, Sequence

from gradguard.check.engine.errors import InternalError
from gradguard.check.model import Diagnostic

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule

# Keeps the findings a run reports for one file (its selection and per-file ignores).
FindingFilter = Callable[[list[Diagnostic]], list[Diagnostic]]


class Document(Protocol):
    """A checked file that fixes can be applied to."""

    def fix(self, keep: FindingFilter, unsafe: bool) -> int:
        """Apply fixes until stable (``keep`` filters each re-check's findings); the number
        applied, 0 when the text did not change."""
        ...

    def add_noqa(self, diagnostics: Sequence[Diagnostic]) -> int:
        """Write ``# noqa: CODE`` comments that suppress these findings (``--add-noqa``);
        the number of lines given a comment or a new code."""
        ...

    def diffs(self, path: str) -> list[str]:
        """Unified diffs from the original text to the fixed one."""
        ...

    def to_bytes(self) -> bytes:
        """The fixed file's bytes, in the original's encoding and layout."""
        ...

    def remaining(self, keep: FindingFilter) -> list[Diagnostic]:
        """The findings left in the fixed file, positioned in the fixed file."""
        ...


@dataclass
class Checked:
    """One file's check: its findings (not yet filtered), or ``skipped``."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: bool = False  # not checked (does not import torch, or not a Python notebook)
    internal_errors: list[InternalError] = field(default_factory=list)
    document: Optional[Document] = None  # None: the file cannot be fixed (it does not parse)


class Adapter(Protocol):
    """Checks one kind of file."""

    @property
    def suffixes(self) -> tuple[str, ...]: ...

    def check(
        self, data: bytes, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked: ...
