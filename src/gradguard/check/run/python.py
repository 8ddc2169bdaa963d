"""The per-file adapter for Python source files (``.py``, ``.pyi`` and any named file).

A ``.py`` file that Python rejects only for its IPython lines (a notebook kept as a script:
``# %%`` cells with ``%matplotlib inline`` or ``!pip install x`` in them) is checked as the
notebook it is: those lines are read as a notebook cell's are, every other row keeps its
number and columns, and no fix that would rewrite one of them is offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from gradguard.check.engine.run import FileResult, check_bytes, check_source
from gradguard.check.fixes import apply_text_edits, fix_until_stable, parses_as_python, unified_diff
from gradguard.check.model import Diagnostic, Edit, Fix
from gradguard.check.noqa import add_noqa_edits, noqa_rows
from gradguard.check.run.adapter import Checked, FindingFilter
from gradguard.check.run.notebook import script_to_python
from gradguard.check.source import SourceText

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule


def check_python(
    source: SourceText, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
) -> FileResult:
    """``check_source``, and for a file that does not parse, the notebook it may hold."""
    result = check_source(source, path, rules, require_torch_import, noqa)
    return _as_notebook_script(result, rules, require_torch_import, noqa)


def _as_notebook_script(
    result: FileResult, rules: Sequence[Rule], require_torch_import: bool, noqa: bool
) -> FileResult:
    """The result of a file that does not parse, checked again with its IPython lines read as
    a notebook's (``script_to_python``) where that makes it parse; else the result as it is."""
    source = result.source
    if result.error is None or source is None:
        return result
    script = script_to_python(source.text)
    if script is None:
        return result
    python = SourceText(script.python, source.encoding, source.bom, cell_starts=script.cell_starts)
    retried = check_source(python, result.filename, rules, require_torch_import, noqa)
    retried.source = source
    if retried.error is not None:
        return retried  # a syntax error besides the IPython lines: GG001 where it is
    for diagnostic in retried.diagnostics:
        if diagnostic.fix is not None:
            diagnostic.fix = _fix_in_file(diagnostic.fix, python, source, script.replaced_rows)
    return retried


def _parses_as_script(text: str) -> bool:
    """Whether the text parses as Python, or as a notebook kept as a script (``script_to_python``)."""
    if parses_as_python(text):
        return True
    script = script_to_python(text)
    return script is not None and parses_as_python(script.python)


def _fix_in_file(fix: Fix, python: SourceText, source: SourceText, replaced_rows: frozenset[int]) -> Optional[Fix]:
    """A fix of the converted text as edits of the file's own text (rows and the columns of
    rows not replaced agree); None where an edit would span a replaced row."""
    edits = []
    for edit in fix.edits:
        start, end = python.position(edit.start), python.position(edit.end)
        if any(row in replaced_rows for row in range(start.row, end.row + 1)):
            return None
        edits.append(
            Edit(
                source.line_starts[start.row - 1] + start.column - 1,
                source.line_starts[end.row - 1] + end.column - 1,
                edit.content,
            )
        )
    return Fix(fix.applicability, fix.message, tuple(edits))


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
        return check_python(source, self.path, self.rules, self.require_torch_import, self.noqa).diagnostics

    def fix(self, keep: FindingFilter, unsafe: bool) -> int:
        new_text, applied, remaining = fix_until_stable(
            self.original, lambda text: keep(self._check(text)), unsafe, parses=_parses_as_script
        )
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
        result = _as_notebook_script(result, rules, require_torch_import, noqa)
        return self._checked(result, path, rules, require_torch_import, noqa)

    def check_text(
        self, text: str, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked:
        """Check text that is already decoded (an editor's buffer): positions are in this text."""
        result = check_python(SourceText(text), path, rules, require_torch_import, noqa)
        return self._checked(result, path, rules, require_torch_import, noqa)

    def _checked(
        self, result: FileResult, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool
    ) -> Checked:
        document = None
        if result.source is not None and result.error is None:
            document = PythonDocument(result.source, path, rules, require_torch_import, noqa)
        return Checked(result.diagnostics, result.skipped, result.internal_errors, document)
