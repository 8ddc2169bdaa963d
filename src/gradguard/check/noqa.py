"""``# noqa`` suppression comments, with the placement rules of flake8 and ruff.

- ``# noqa`` or ``# noqa: GG101, GG2`` on the line a finding starts on suppresses it.
- A finding whose line is part of a longer physical range (a backslash continuation, a
  multi-line string) is also suppressed by a comment on any line of that range, as flake8
  does; ruff and ``--add-noqa`` put the comment on the range's last line, the first place
  where a comment can be written after a multi-line string.
- ``# gradguard: noqa`` on a line of its own suppresses every finding in the file, and
  ``# gradguard: noqa: GG101, GG2`` the findings of those codes (ruff's ``# ruff: noqa``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Iterable, Optional, Sequence, Union

from gradguard.check.model import Diagnostic, Edit
from gradguard.check.source import SourceText

_CODES = r"[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*"
_NOQA_RE = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>" + _CODES + "))?", re.I)
_FILE_NOQA_RE = re.compile(
    r"^[ \t]*#[ \t]*gradguard[ \t]*:[ \t]*noqa(?P<colon>[ \t]*:[ \t]*(?P<codes>" + _CODES + "))?[ \t]*$", re.I | re.M
)

NoqaCodes = Union[None, str, tuple[str, ...]]  # None: no noqa, "all": a bare noqa, else the codes


def noqa_codes(line: str) -> NoqaCodes:
    """None when the line has no noqa, "all" for a bare noqa, else the codes it names."""
    if "#" not in line:
        return None
    match = _NOQA_RE.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return "all"
    return _split_codes(codes)


def _split_codes(codes: str) -> tuple[str, ...]:
    return tuple(c.upper() for c in re.split(r"[,\s]+", codes.strip()) if c)


def file_noqa(text: str) -> NoqaCodes:
    """What ``# gradguard: noqa`` comments of the file exempt: None, "all", or codes."""
    if "gradguard" not in text:
        return None
    codes: list[str] = []
    for match in _FILE_NOQA_RE.finditer(text):
        if not match.group("codes"):
            return "all"
        codes.extend(_split_codes(match.group("codes")))
    return tuple(codes) if codes else None


def _suppresses(codes: NoqaCodes, code: str) -> bool:
    if codes is None:
        return False
    if codes == "all":
        return True
    return any(code == c or code.startswith(c) for c in codes)


def _child_statements(node: ast.AST) -> list[ast.AST]:
    children: list[ast.AST] = []
    for _, value in ast.iter_fields(node):
        if isinstance(value, list):
            for item in value:
                if isinstance(item, (ast.stmt, ast.ExceptHandler)):
                    children.append(item)
                elif isinstance(item, ast.match_case):
                    children.extend(item.body)
    return children


def _statement_start(tree: ast.Module, row: int) -> int:
    """The first line of the innermost statement that holds ``row`` (1 when none does):
    a line where tokenizing can start, never inside a string."""
    start = 1
    body: list[ast.AST] = list(tree.body)
    while True:
        found = None
        for stmt in body:
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])  # type: ignore[attr-defined]
            if first > row:
                break
            if row <= (stmt.end_lineno or first):  # type: ignore[attr-defined]
                found = stmt
                break
        if found is None:
            return start
        start = min([found.lineno] + [d.lineno for d in getattr(found, "decorator_list", ())])  # type: ignore[attr-defined]
        body = _child_statements(found)


class LineRanges:
    """Physical line ranges joined into one for ``# noqa`` (flake8's rule): the lines between
    two newline tokens, that is a backslash continuation or a multi-line string with the
    lines around it. Computed on demand, a statement at a time."""

    def __init__(self, source: SourceText, tree: Optional[ast.Module]):
        self.source = source
        self.tree = tree
        self.known: dict[int, tuple[int, int]] = {}
        self._joins: Optional[bool] = None

    def range_of(self, row: int) -> tuple[int, int]:
        """(first, last) row of the range holding ``row``; (row, row) when it stands alone."""
        if row in self.known:
            return self.known[row]
        if not self._may_join(row):
            return row, row
        tree = self.tree
        if tree is None:
            try:
                tree = self.tree = ast.parse(self.source.text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                return row, row
        self._tokenize_from(_statement_start(tree, row), row)
        return self.known.get(row, (row, row))

    def _may_join(self, row: int) -> bool:
        # A file without a triple quote or a backslash has no multi-line string and no
        # backslash continuation: every line stands alone.
        if self._joins is None:
            text = self.source.text
            self._joins = '"""' in text or "'''" in text or "\\" in text
        return self._joins

    def _tokenize_from(self, start: int, row: int) -> None:
        starts = self.source.line_starts
        if start > len(starts):
            return
        readline = io.StringIO(self.source.text[starts[start - 1] :]).readline
        first, last = 10**9, -1
        try:
            for token in tokenize.generate_tokens(readline):
                if token.type in (tokenize.ENDMARKER, tokenize.DEDENT, tokenize.INDENT):
                    continue
                first = min(first, token.start[0] + start - 1)
                last = max(last, token.end[0] + start - 1)
                if token.type in (tokenize.NL, tokenize.NEWLINE):
                    for r in range(first, last + 1):
                        self.known[r] = (first, last)
                    if last >= row:
                        return
                    first, last = 10**9, -1
        except (tokenize.TokenError, SyntaxError):
            return


def apply_noqa(
    diagnostics: Iterable[Diagnostic], source: SourceText, tree: Optional[ast.Module] = None
) -> list[Diagnostic]:
    """The findings no ``# noqa`` comment suppresses. Each kept finding whose comment would go
    on a later line than its first (``--add-noqa``, JSON ``noqa_row``) records that line in
    ``extra["noqa_row"]``."""
    file_codes = file_noqa(source.text)
    ranges = LineRanges(source, tree)
    cache: dict[int, NoqaCodes] = {}

    def codes_on(row: int) -> NoqaCodes:
        if row not in cache:
            cache[row] = noqa_codes(source.line(row)) if 1 <= row <= len(source.line_starts) else None
        return cache[row]

    kept = []
    for diag in diagnostics:
        if _suppresses(file_codes, diag.code):
            continue
        row = diag.start.row
        if _suppresses(codes_on(row), diag.code):
            continue
        first, last = ranges.range_of(row)
        if any(_suppresses(codes_on(r), diag.code) for r in range(first, last + 1) if r != row):
            continue
        if last != row:
            diag.extra["noqa_row"] = last
        kept.append(diag)
    return kept


def noqa_row(diag: Diagnostic) -> int:
    """The line a ``# noqa`` comment for this finding goes on."""
    row: int = diag.extra.get("noqa_row", diag.start.row)
    return row


def noqa_rows(diagnostics: Sequence[Diagnostic]) -> dict[int, list[str]]:
    """The codes a ``# noqa`` comment must name on each line to suppress these findings
    (GG001 cannot be suppressed: a file that does not parse has no findings to keep)."""
    rows: dict[int, list[str]] = {}
    for d in diagnostics:
        if d.code != "GG001":
            rows.setdefault(noqa_row(d), []).append(d.code)
    return rows


def add_noqa_edits(text: str, rows: dict[int, list[str]]) -> list[Edit]:
    """Edits that write ``# noqa: CODES`` on each given line (row -> codes), adding to an
    existing ``# noqa: ...`` comment rather than writing a second one."""
    source = SourceText(text)
    edits = []
    for row, codes in sorted(rows.items()):
        if not 1 <= row <= len(source.line_starts):
            continue
        line = source.line(row)
        body = line.rstrip("\r\n")
        line_start = source.line_starts[row - 1]
        match = _NOQA_RE.search(body) if "#" in body else None
        if match is not None and match.group("codes"):
            present = _split_codes(match.group("codes"))
            new = [c for c in dict.fromkeys(codes) if not any(c == p or c.startswith(p) for p in present)]
            if new:
                edits.append(
                    Edit(line_start + match.end("codes"), line_start + match.end("codes"), ", " + ", ".join(new))
                )
            continue
        if match is not None:
            continue  # a bare noqa already suppresses everything on the line
        content = body.rstrip()
        separator = "  " if content else ""
        edits.append(
            Edit(
                line_start + len(content),
                line_start + len(body),
                f"{separator}# noqa: {', '.join(dict.fromkeys(codes))}",
            )
        )
    return edits
