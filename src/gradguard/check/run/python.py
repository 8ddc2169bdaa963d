"""The per-file adapter for Python source files (``.py``, ``.pyi`` and any named file)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from gradguard.check.engine.run import FileResult, check_bytes, check_source
from gradguard.check.fixes import apply_text_edits, fix_until_stable, unified_diff
from gradguard.check.model import Diagnostic
from gradguard.check.noqa import add_noqa_edits, noqa_rows
from gradguard.check.run.adapter import Checked, FindingFilter
from gradguard.check.source import SourceText

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule


class PythonDocument:
    """A Python file that parsed: fixes are applied to its text and re-checked."""

    def __init__(
        self, source: SourceText, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ):
        self.source = source
        self.path = path
        self.rules = rules
        self.require_torch_import = require_torch_import
        self.noqa = noqa
        self.original = source.text
        self.text = source.text
        self._remaining: Optional[list[Diagnostic]] = None

    def _check(self, text: str) -> list[Diagnostic]:
        source = SourceText(text, self.source.encoding, self.source.bom)
        return check_source(source, self.path, self.rules, self.require_torch_import, self.noqa).diagnostics

    def fix(self, keep: FindingFilter, unsafe: bool) -> int:
        new_text, applied, remaining = fix_until_stable(self.original, lambda text: keep(self._check(text)), unsafe)
        if not applied or new_text == self.original:
            return 0
        self.text = new_text
        self._remaining = remaining
        return applied

    def add_noqa(self, diagnostics: Sequence[Diagnostic]) -> int:
        edits = add_noqa_edits(self.original, noqa_rows(diagnostics))
        self.text = apply_text_edits(self.original, edits)
        self._remaining = []
        return len(edits)

    def diffs(self, path: str) -> list[str]:
        return [unified_diff(self.original, self.text, path)]

    def to_bytes(self) -> bytes:
        return self.source.to_bytes(self.text)

    def remaining(self, keep: FindingFilter) -> list[Diagnostic]:
        if self._remaining is None:
            return keep(self._check(self.text))
        return self._remaining  # already filtered by ``fix``


class PythonAdapter:
    suffixes = (".py", ".pyi")

    def check(
        self, data: bytes, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked:
        result = check_bytes(data, path, rules, require_torch_import, noqa)
        return self._checked(result, path, rules, require_torch_import, noqa)

    def check_text(
        self, text: str, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked:
        """Check text that is already decoded (an editor's buffer): positions are in this text."""
        result = check_source(SourceText(text), path, rules, require_torch_import, noqa)
        return self._checked(result, path, rules, require_torch_import, noqa)

    def _checked(
        self, result: FileResult, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool
    ) -> Checked:
        document = None
        if result.source is not None and result.error is None:
            document = PythonDocument(result.source, path, rules, require_torch_import, noqa)
        return Checked(result.diagnostics, result.skipped, result.internal_errors, document)
