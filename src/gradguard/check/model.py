"""Data objects shared by every front end: findings, fixes and text edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Optional


class Applicability(str, Enum):
    """Whether a fix is applied by ``--fix`` alone (safe) or needs ``--unsafe-fixes``.

    A ``str`` enum: its value is what the JSON output and the result cache hold.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"


class FixAvailability(str, Enum):
    """What fixes a rule's findings carry (rule metadata, shown by ``gradguard rules``)."""

    NONE = "none"
    SAFE = "safe"  # every finding carries a safe fix
    UNSAFE = "unsafe"  # every finding carries an unsafe fix
    SOMETIMES = "sometimes"  # some findings carry a fix (safe or unsafe, see the rule's docs)

    @property
    def label(self) -> str:
        """The phrase used in the rule documentation ("safe fix", "no fix", ...)."""
        return {"none": "no fix", "sometimes": "fix sometimes available"}.get(self.value, f"{self.value} fix")


class Severity(str, Enum):
    """How bad a rule's findings are (rule metadata): what an editor shows and SARIF's level.

    ``ERROR``: the code always raises, or silently computes wrong gradients. ``WARNING``:
    wasted time or memory, or a legacy API that still works.
    """

    ERROR = "error"
    WARNING = "warning"


PROJECT_URL = "https://github.com/gradguard/gradguard"
# Where each rule is documented (docs/rules.md, rendered from the rule modules).
DOCS_URL = PROJECT_URL + "/blob/main/docs/rules.md#{code}"


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based row and a 1-based column counted in characters."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the characters ``start:end`` of the source (0-based offsets) by ``content``."""

    start: int
    end: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]

    def applies(self, unsafe: bool) -> bool:
        """Whether this fix is applied when unsafe fixes are (``unsafe``) or are not allowed."""
        return self.applicability is Applicability.SAFE or unsafe


@dataclass
class Diagnostic:
    code: str
    message: str
    filename: str
    start: Position
    end: Position
    fix: Optional[Fix] = None
    # Offsets into the checked source, used to map edits back to positions.
    cell: Optional[int] = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code.lower())

    @property
    def fixable_safe(self) -> bool:
        return self.fix is not None and self.fix.applies(unsafe=False)

    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.filename, self.cell or 0, self.start.row, self.start.column, self.code)
