"""Data objects shared by every front end: findings, fixes and text edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

Applicability = Literal["safe", "unsafe"]

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
    extra: dict = field(default_factory=dict)

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code.lower())

    @property
    def fixable_safe(self) -> bool:
        return self.fix is not None and self.fix.applicability == "safe"

    def sort_key(self):
        return (self.filename, self.cell or 0, self.start.row, self.start.column, self.code)
