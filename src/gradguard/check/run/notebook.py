"""Jupyter notebooks: check the code cells as one program, write fixes back into the cells.

The code cells are joined in order into one Python program, so names imported or bound in
one cell are known in the next, and the one engine checks it. IPython syntax that is not
Python (line magics ``%time x``, also without their ``%`` as IPython's automagic runs them:
``pip install x``, ``matplotlib inline``, ``ls -al out/``; shell escapes ``!pip ...`` and ``files = !ls``, help
``obj?``, and cells opened by a cell magic such as ``%%bash``) is replaced by ``pass`` lines,
one per line, so every other line keeps its number and columns. The bodies of
``%%time``, ``%%timeit``, ``%%capture`` and ``%%prun`` cells are Python and are checked.

Findings are reported as ``notebook.ipynb:cell N:line:col`` where N counts every cell of
the notebook from 1 (code, markdown and raw alike), the number Jupyter's own cell order
shows, and line/column are counted within the cell. A code cell that does not parse on its
own is reported as GG001 and left out of the program; one that parses only with IPython's
top-level ``await`` is left out silently.

``--fix`` rewrites only the ``source`` values of the changed cells in the notebook's JSON
text; every other byte of the file (indentation, key order, metadata, outputs, escapes,
trailing newline) stays as it was, and a ``source`` kept as a list of lines stays a list.
"""

from __future__ import annotations

import ast
import bisect
import io
import json
import json.decoder
import json.scanner
import re
import tokenize
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

from gradguard.check.analysis.imports import mentions_torch_import
from gradguard.check.analysis.project import package_star_import_gives_torch
from gradguard.check.engine.errors import InternalError
from gradguard.check.engine.run import check_source
from gradguard.check.fixes import MAX_PASSES, apply_edits, apply_text_edits, unified_diff
from gradguard.check.model import Diagnostic, Edit, Fix, Position
from gradguard.check.noqa import add_noqa_edits, noqa_rows
from gradguard.check.run.adapter import Checked, FindingFilter
from gradguard.check.source import SourceError, SourceText, parse

if TYPE_CHECKING:
    from gradguard.check.rules.base import Rule

NOTEBOOK_SUFFIX = ".ipynb"
# Cell magics whose body IPython runs as Python in the notebook's namespace.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun"}

_LINE_MAGIC_RE = re.compile(
    r"[ \t]*(?:[%!]|[\w.]+[ \t]*=[ \t]*[%!]"
    # IPython's automagic: a line magic without its `%` (`pip install torchviz`, `matplotlib inline`)
    # (an option, `ls -al out/`, is a dash then a letter; `ls - x` is arithmetic)
    r"|(?:pip|conda|cd|ls|pwd|mkdir|env|set_env|matplotlib|load_ext|reload_ext|autoreload)[ \t]+"
    r"(?:-[A-Za-z\-]|(?![=(\[.,:+\-*/%<>!&|^])\S)"
    # a path (`cd /content/drive/YOLOv6/`, `ls ../data`, `cd ..`): `cd / 2` is arithmetic
    r"|cd[ \t]+(?:(?:~|\.{1,2})?/(?![ \t=])|\.{1,2}[ \t]*$)"
    r"|(?:ls|mkdir)[ \t]+(?:~|\.{1,2})?/(?![ \t=]))"
)
# `obj?`, `??obj`, and IPython's wildcard search `torch.*Tensor?` (`%psearch`).
_HELP_RE = re.compile(r"[ \t]*(?:\?{1,2}[\w.*]+|[\w.*]+\?{1,2})[ \t]*$")


class NotebookError(Exception):
    """The file is not a notebook gradguard can read (reported as GG001)."""

    def __init__(self, message: str, row: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.row = row
        self.column = column


class _Located(str):
    """A JSON string value that remembers where it was in the notebook's text."""

    start: int
    end: int


def _load_with_positions(text: str) -> Any:
    # The pure-Python scanner's hooks (undocumented, absent from the type stubs) let every
    # string value carry its offsets.
    decoder = json.JSONDecoder()
    scan_string = json.decoder.scanstring  # type: ignore[attr-defined]

    def parse_string(s: str, end: int, strict: bool) -> tuple[_Located, int]:
        value, new_end = scan_string(s, end, strict)
        located = _Located(value)
        located.start, located.end = end - 1, new_end
        return located, new_end

    decoder.parse_string = parse_string  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder.decode(text)


@dataclass
class CodeCell:
    number: int  # 1-based among all cells
    raw: Union[_Located, list[_Located]]  # the ``source`` value as parsed
    text: str  # the cell's source text
    python: str = ""  # the text with IPython syntax replaced, same line count
    replaced_rows: set[int] = field(default_factory=set)  # 1-based rows replaced by ``pass``
    included: bool = True  # part of the checked program
    shifts: dict[int, int] = field(default_factory=dict)  # row -> leading characters removed

    @property
    def lines(self) -> list[str]:
        return _split_lines(self.text)


@dataclass
class Notebook:
    text: str  # the notebook file's JSON text (without a BOM)
    bom: bool
    cells: list[CodeCell]
    is_python: bool = True

    def to_bytes(self, new_sources: dict[int, str]) -> bytes:
        """The notebook's bytes with the given cells' sources replaced (cell number -> text)."""
        ensure_ascii = self.text.isascii()
        splices = []
        for cell in self.cells:
            if cell.number in new_sources and new_sources[cell.number] != cell.text:
                splices.append(_source_splice(self.text, cell, new_sources[cell.number], ensure_ascii))
        out = self.text
        for start, end, content in sorted(splices, reverse=True):
            out = out[:start] + content + out[end:]
        data = out.encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.bom else data

    def file_row(self, cell: CodeCell, row: int) -> Optional[int]:
        """The notebook file's line holding a cell's source line, when the layout shows it."""
        raw = cell.raw
        if isinstance(raw, list):
            last = raw[-1] if raw else ""
            one_line_each = all(item.count("\n") == 1 and item.endswith("\n") for item in raw[:-1])
            one_line_each = one_line_each and last.count("\n") == last.endswith("\n")
            if 1 <= row <= len(raw) and one_line_each:
                return self.text.count("\n", 0, raw[row - 1].start) + 1
            return None
        if raw.start < 0:
            return None  # a notebook built from cells (an editor's), not read from a file
        return self.text.count("\n", 0, raw.start) + 1


def notebook_from_cells(cells: Sequence[tuple[int, str]], is_python: bool = True) -> Notebook:
    """A notebook made of its code cells' texts, as ``(cell number, text)`` in cell order:
    what an editor holds (LSP notebook documents), with no JSON file behind it."""
    code_cells = []
    for number, text in cells:
        raw = _Located("")
        raw.start = raw.end = -1
        code_cells.append(CodeCell(number, raw, text))
    return Notebook("", False, code_cells, is_python)


def _split_lines(text: str) -> list[str]:
    return [line for line in re.split(r"(?<=\n)", text) if line]


def _source_splice(text: str, cell: CodeCell, new_text: str, ensure_ascii: bool) -> tuple[int, int, str]:
    raw = cell.raw
    if not isinstance(raw, list):
        return raw.start, raw.end, json.dumps(new_text, ensure_ascii=ensure_ascii)
    old_raw: dict[str, str] = {}
    for item in raw:
        old_raw.setdefault(str(item), text[item.start : item.end])
    items = [old_raw.get(line) or json.dumps(line, ensure_ascii=ensure_ascii) for line in _split_lines(new_text)]
    if len(raw) >= 2:
        separator = text[raw[0].end : raw[1].start]
    else:
        line_start = text.rfind("\n", 0, raw[0].start) + 1
        indent = text[line_start : raw[0].start]
        newline = "\r\n" if text[max(line_start - 2, 0) : line_start] == "\r\n" else "\n"
        separator = f",{newline}{indent}" if not indent.strip() else ", "
    return raw[0].start, raw[-1].end, separator.join(items)


def _position_of(text: str, index: int) -> tuple[int, int]:
    row = text.count("\n", 0, index) + 1
    return row, index - (text.rfind("\n", 0, index) + 1) + 1


def load_notebook(data: bytes) -> Notebook:
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError(f"Notebook is not UTF-8 text: {exc}") from None
    try:
        document = _load_with_positions(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"Notebook is not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise NotebookError("Notebook is not valid JSON: nesting too deep") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and "worksheets" in document:
            raise NotebookError("Notebook format 3 is not supported; convert it with `jupyter nbconvert --to notebook`")
        raise NotebookError("Not a Jupyter notebook: no list of `cells`")
    cells = []
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"Not a Jupyter notebook: cell {number} has no `cell_type`")
        if cell["cell_type"] != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            cell_text = "".join(source)
        elif isinstance(source, str):
            cell_text = source
        else:
            raise NotebookError(f"Not a Jupyter notebook: cell {number} `source` is not text")
        if isinstance(source, list) and not source:
            source = _Located("")
            source.start = source.end = -1  # never spliced: an empty cell has nothing to fix
        cells.append(CodeCell(number, source, cell_text))
    return Notebook(text, bom, cells, _is_python(document.get("metadata")))


def notebook_program(path: str) -> Optional[str]:
    """A Python notebook's code cells as one text, for the project index (what its code calls);
    None where the file cannot be read as one."""
    try:
        with open(path, "rb") as handle:
            notebook = load_notebook(handle.read())
    except (OSError, NotebookError):
        return None
    if not notebook.is_python:
        return None
    return "\n".join(ipython_to_python(cell.text)[0] for cell in notebook.cells)


def _is_python(metadata: object) -> bool:
    if not isinstance(metadata, dict):
        return True
    for key, inner in (("kernelspec", "language"), ("language_info", "name")):
        table = metadata.get(key)
        if isinstance(table, dict) and isinstance(table.get(inner), str):
            return table[inner].lower() in ("python", "python3", "ipython", "ipython3")
    return True


def _complete(logical_line: str) -> bool:
    """Whether the lines gathered so far end a logical line (no open bracket or string)."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO(logical_line).readline):
            pass
    except tokenize.TokenError:
        return False
    except (SyntaxError, ValueError):
        return True
    return True


def ipython_to_python(text: str) -> tuple[str, set[int]]:
    """Replace IPython-only lines by ``pass`` at the same indentation: (python_text, rows).

    Only lines that start a logical line count: a ``%`` continuing an open bracket is the
    modulo operator.
    """
    lines = _split_lines(text)
    replaced: set[int] = set()
    skip_all = False
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split(None, 1)
        skip_all = (magic[0] if magic else "") not in PYTHON_CELL_MAGICS
        replaced.add(1)
        if skip_all:
            replaced.update(range(1, len(lines) + 1))
    indents: dict[int, str] = {}  # replaced row -> indentation of the magic it belongs to
    if not replaced and not any(_LINE_MAGIC_RE.match(line) or _HELP_RE.match(line.rstrip("\r\n")) for line in lines):
        return text, replaced
    pending = ""  # lines of a logical line not yet complete
    continued = None  # indentation of the previous line's magic when it ended in a backslash
    for row, line in enumerate(lines, start=1):
        body = line.rstrip("\r\n")
        indent = body[: len(body) - len(body.lstrip(" \t"))]
        if row in replaced:
            indents[row] = "" if row == 1 else indents.get(1, "")
            continue
        if continued is not None or (not pending and (_LINE_MAGIC_RE.match(body) or _HELP_RE.match(body))):
            replaced.add(row)
            indents[row] = indent if continued is None else continued
            continued = indents[row] if body.endswith("\\") else None
            continue
        pending += line
        if _complete(pending):
            pending = ""
    if not replaced:
        return text, replaced
    out = []
    for row, line in enumerate(lines, start=1):
        if row in replaced:
            body = line.rstrip("\r\n")
            out.append(f"{indents[row]}pass{line[len(body) :]}")
        else:
            out.append(line)
    return "".join(out), replaced


# The line that opens a cell of a notebook kept as a `.py` script: the percent format of
# Jupytext, VS Code, Spyder and PyCharm (`# %%`, `#%% [markdown]`), or nbconvert's `# In[3]:`.
_SCRIPT_CELL_RE = re.compile(r"[ \t]*#[ \t]*(?:%%|In\[[ \d]*\]:)")


@dataclass
class ScriptCells:
    """A notebook kept as a script, with its IPython lines made Python (``script_to_python``)."""

    python: str  # the text, each IPython line replaced by ``pass`` (row for row)
    cell_starts: tuple[int, ...]  # the row each cell after the first starts at (its marker)
    replaced_rows: frozenset[int]  # rows of the file that hold IPython syntax


def script_to_python(text: str) -> Optional[ScriptCells]:
    """A ``.py`` file holding a notebook's cells (``# %%`` or ``# In[ ]:`` lines between
    them, or none) with IPython lines in them (``%matplotlib inline``, ``!pip install x``,
    a ``%%bash`` cell): its text with each cell's IPython lines replaced as a notebook
    cell's are (``ipython_to_python``, the marker line not part of the cell's code); None
    where no line is IPython's. Every row keeps its number."""
    lines = _split_lines(text)
    markers = [row for row, line in enumerate(lines, start=1) if _SCRIPT_CELL_RE.match(line)]
    bounds = sorted({1, *markers, len(lines) + 1})
    marked = set(markers)
    parts: list[str] = []
    replaced: set[int] = set()
    for start, end in zip(bounds, bounds[1:]):
        first = start + 1 if start in marked else start  # the cell's code starts after its marker
        parts.append("".join(lines[start - 1 : first - 1]))
        python, rows = ipython_to_python("".join(lines[first - 1 : end - 1]))
        parts.append(python)
        replaced.update(first - 1 + row for row in rows)
    if not replaced:
        return None
    return ScriptCells("".join(parts), tuple(row for row in markers if row > 1), frozenset(replaced))


_INDENT_RE = re.compile(r"[ \t]+")


def remove_leading_indent(text: str) -> tuple[str, dict[int, int]]:
    """What IPython does before running a cell whose first line is indented (its
    ``leading_indent`` transform): that indentation is removed from every line that starts
    with it. Returns (text, row -> characters removed), so positions map back to the cell."""
    lines = _split_lines(text)
    match = _INDENT_RE.match(lines[0]) if lines else None
    if match is None:
        return text, {}
    prefix = match.group(0)
    shifts: dict[int, int] = {}
    out = []
    for row, line in enumerate(lines, start=1):
        if line.startswith(prefix):
            out.append(line[len(prefix) :])
            shifts[row] = len(prefix)
        else:
            out.append(line)
    return "".join(out), shifts


class Program:
    """The included code cells joined into one program, with the way back to each cell."""

    def __init__(self, cells: list[CodeCell]):
        self.cells = [c for c in cells if c.included]
        parts = []
        self.row_cell: list[tuple[CodeCell, int]] = []  # program row - 1 -> (cell, cell row)
        starts = []
        for cell in self.cells:
            if self.row_cell:
                starts.append(len(self.row_cell) + 1)
            text = cell.python
            if text and not text.endswith("\n"):
                text += "\n"
            parts.append(text)
            for row in range(1, text.count("\n") + 1):
                self.row_cell.append((cell, row))
        self.text = "".join(parts)
        self.source = SourceText(self.text, cell_starts=tuple(starts))

    def locate(self, pos: Position) -> tuple[Optional[CodeCell], Position]:
        """(cell, position within the cell) of a program position."""
        if not self.row_cell:
            return None, pos
        index = min(max(pos.row, 1), len(self.row_cell)) - 1
        cell, row = self.row_cell[index]
        return cell, Position(row, pos.column + cell.shifts.get(row, 0))

    def cell_offset(self, offset: int, is_end: bool = False) -> Optional[tuple[CodeCell, int]]:
        """(cell, offset in the cell's original text) of a program offset; None when it falls
        in a replaced line or past the cell's own text."""
        starts = self.source.line_starts
        row = bisect.bisect_right(starts, offset)
        col = offset - starts[row - 1]
        if (
            col == 0
            and self.row_cell
            and (
                row > len(self.row_cell)
                or (is_end and row > 1 and self.row_cell[row - 2][0] is not self.row_cell[row - 1][0])
            )
        ):
            cell = self.row_cell[row - 2][0]  # the end of the previous cell
            return cell, len(cell.text)
        if row > len(self.row_cell):
            return None
        cell, cell_row = self.row_cell[row - 1]
        if cell_row in cell.replaced_rows:
            return None
        lines = cell.lines
        col += cell.shifts.get(cell_row, 0)
        if cell_row > len(lines) or col > len(lines[cell_row - 1]):
            return None
        return cell, sum(len(line) for line in lines[: cell_row - 1]) + col


_LINE_REFERENCE_RE = re.compile(r"\bline (\d+)\b")


def _cell_line_references(program: Program, message: str, cell: CodeCell) -> str:
    """Messages name other lines by program row ("the `with` on line 2122"): say the cell's row."""

    def cell_row(match: re.Match[str]) -> str:
        other, pos = program.locate(Position(int(match.group(1)), 1))
        if other is None or int(match.group(1)) > len(program.row_cell):
            return match.group(0)
        return f"line {pos.row}" if other is cell else f"cell {other.number}, line {pos.row}"

    return _LINE_REFERENCE_RE.sub(cell_row, message)


@dataclass
class NotebookCheck:
    diagnostics: list[Diagnostic]
    skipped: bool = False
    error: bool = False  # the notebook itself could not be read (GG001)
    notebook: Optional[Notebook] = None
    internal_errors: list[InternalError] = field(default_factory=list)


def _gg001(filename: str, message: str, row: int, column: int, cell: Optional[int] = None) -> Diagnostic:
    pos = Position(max(row, 1), max(column, 1))
    return Diagnostic("GG001", message, filename, pos, pos, cell=cell)


def _parses_with_top_level_await(text: str, filename: str) -> bool:
    try:
        compile(text, filename, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def check_notebook(
    notebook: Notebook, filename: str, rules: Sequence[Rule], require_torch_import: bool = True, noqa: bool = True
) -> NotebookCheck:
    """Check a loaded notebook's code cells; positions are mapped back to cells."""
    if not notebook.is_python:
        return NotebookCheck([], skipped=True, notebook=notebook)
    diagnostics = []
    for cell in notebook.cells:
        cell.python, cell.replaced_rows = ipython_to_python(cell.text)
        cell.python, cell.shifts = remove_leading_indent(cell.python)
        cell.included = True
    if require_torch_import:
        code = "\n".join(c.python for c in notebook.cells)
        if not (mentions_torch_import(code) or package_star_import_gives_torch(code)):
            return NotebookCheck([], skipped=True, notebook=notebook)
        # The notebook imports torch, maybe in a cell that does not parse and is left out.
        require_torch_import = False
    program = Program(notebook.cells)
    result = check_source(program.source, filename, rules, require_torch_import, noqa)
    if result.error is not None:
        # Jupyter runs each cell on its own: report the cells that do not parse and check
        # the others without them.
        for cell in notebook.cells:
            try:
                parse(cell.python, filename)
            except SourceError as exc:
                cell.included = False
                if not _parses_with_top_level_await(cell.python, filename):
                    diagnostics.append(
                        _gg001(
                            filename,
                            f"File could not be parsed: {exc.message}",
                            exc.row,
                            exc.column + cell.shifts.get(exc.row, 0),
                            cell.number,
                        )
                    )
        program = Program(notebook.cells)
        result = check_source(program.source, filename, rules, require_torch_import, noqa)
    if result.skipped and not diagnostics:
        return NotebookCheck([], skipped=True, notebook=notebook)
    for d in result.diagnostics:
        in_cell, start = program.locate(d.start)
        end_cell, end = program.locate(d.end)
        d.start, d.end = start, end if end_cell is in_cell else start
        if "noqa_row" in d.extra:
            noqa_cell, noqa_pos = program.locate(Position(d.extra["noqa_row"], 1))
            if noqa_cell is in_cell:
                d.extra["noqa_row"] = noqa_pos.row
            else:
                del d.extra["noqa_row"]
        if in_cell is not None:
            d.cell = in_cell.number
            d.message = _cell_line_references(program, d.message, in_cell)
            row = notebook.file_row(in_cell, start.row)
            if row is not None:
                d.extra["file_row"] = row
        d.extra.pop("edit_positions", None)
        if d.fix is not None:
            mapped = _cell_fix(program, d.fix)
            d.extra["cell_fix"] = mapped
            if mapped is None:
                d.fix = None  # it could not be applied to the cell's text
            else:
                # Edit positions, like the finding's, are counted within the cell.
                cell_source = SourceText(next(c.text for c in program.cells if c.number == mapped[0]))
                d.extra["edit_positions"] = [
                    (cell_source.position(e.start), cell_source.position(e.end)) for e in mapped[1].edits
                ]
        diagnostics.append(d)
    diagnostics.sort(key=Diagnostic.sort_key)
    return NotebookCheck(diagnostics, notebook=notebook, internal_errors=result.internal_errors)


def _cell_fix(program: Program, fix: Fix) -> Optional[tuple[int, Fix]]:
    """(cell number, Fix with offsets into that cell's text), or None if it cannot be mapped."""
    cell_number = None
    edits = []
    for edit in fix.edits:
        start = program.cell_offset(edit.start)
        # An insertion belongs where it starts: at a cell's first line, in that cell (a
        # decorator before a `def` that opens a cell), not at the end of the cell before.
        end = start if edit.end == edit.start else program.cell_offset(edit.end, is_end=True)
        if start is None or end is None or start[0] is not end[0]:
            return None
        if cell_number not in (None, start[0].number):
            return None
        cell_number = start[0].number
        edits.append(Edit(start[1], end[1], edit.content))
    if cell_number is None:
        return None
    return cell_number, Fix(fix.applicability, fix.message, tuple(edits))


def fix_cells(
    notebook: Notebook, check: Callable[[], list[Diagnostic]], unsafe: bool
) -> tuple[dict[int, str], int, list[Diagnostic]]:
    """Apply fixes cell by cell, re-checking the notebook after each pass.

    ``check()`` re-checks ``notebook`` (whose cells' text the passes update) and returns the
    findings. Returns (new sources by cell number, fixes applied, remaining findings).
    """
    original = {c.number: c.text for c in notebook.cells}
    total = 0
    diagnostics = check()
    for _ in range(MAX_PASSES):
        by_cell: dict[int, list[Fix]] = {}
        for d in diagnostics:
            mapped = d.extra.get("cell_fix")
            if mapped is not None and (mapped[1].applies(unsafe)):
                by_cell.setdefault(mapped[0], []).append(mapped[1])
        changed = 0
        for cell in notebook.cells:
            fixes = by_cell.get(cell.number)
            if not fixes:
                continue
            new_text, applied = apply_edits(cell.text, fixes)
            if applied and new_text != cell.text:
                python, _ = ipython_to_python(new_text)
                try:
                    parse(remove_leading_indent(python)[0], "<fix>")
                except SourceError:
                    continue  # a fix that breaks the cell is dropped
                cell.text = new_text
                changed += applied
        if not changed:
            break
        total += changed
        diagnostics = check()
    sources = {c.number: c.text for c in notebook.cells if c.text != original[c.number]}
    for cell in notebook.cells:
        cell.text = original[cell.number]
    return sources, total, diagnostics


class NotebookDocument:
    """A notebook whose cells fixes are applied to, cell by cell."""

    def __init__(
        self, notebook: Notebook, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ):
        self.notebook = notebook
        self.path = path
        self.rules = rules
        self.require_torch_import = require_torch_import
        self.noqa = noqa
        self.sources: dict[int, str] = {}  # cell number -> fixed text, for the cells that changed

    def _check(self, notebook: Notebook) -> list[Diagnostic]:
        return check_notebook(notebook, self.path, self.rules, self.require_torch_import, self.noqa).diagnostics

    def fix(self, keep: FindingFilter, unsafe: bool) -> int:
        sources, applied, _ = fix_cells(self.notebook, lambda: keep(self._check(self.notebook)), unsafe)
        if not applied or not sources:
            return 0
        self.sources = sources
        return applied

    def add_noqa(self, diagnostics: Sequence[Diagnostic]) -> int:
        added = 0
        for cell in self.notebook.cells:
            in_cell = [d for d in diagnostics if d.cell == cell.number]
            edits = add_noqa_edits(cell.text, noqa_rows(in_cell)) if in_cell else []
            if edits:
                self.sources[cell.number] = apply_text_edits(cell.text, edits)
                added += len(edits)
        return added

    def diffs(self, path: str) -> list[str]:
        out = []
        for cell in self.notebook.cells:
            if cell.number in self.sources:
                diff = unified_diff(cell.text, self.sources[cell.number], f"{path}:cell {cell.number}")
                out.append(diff if diff.endswith("\n") else diff + "\n")
        return out

    def to_bytes(self) -> bytes:
        return self.notebook.to_bytes(self.sources)

    def remaining(self, keep: FindingFilter) -> list[Diagnostic]:
        # Checked again from the rewritten bytes: positions in the rewritten notebook.
        return keep(self._check(load_notebook(self.to_bytes())))


class NotebookAdapter:
    suffixes = (NOTEBOOK_SUFFIX,)

    def check_notebook(
        self, notebook: Notebook, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked:
        """Check a notebook that is already loaded (an editor's cells, ``notebook_from_cells``)."""
        checked = check_notebook(notebook, path, rules, require_torch_import, noqa)
        if checked.skipped:
            return Checked(skipped=True, internal_errors=checked.internal_errors)
        document = NotebookDocument(notebook, path, rules, require_torch_import, noqa)
        return Checked(checked.diagnostics, internal_errors=checked.internal_errors, document=document)

    def check(
        self, data: bytes, path: str, rules: Sequence[Rule], require_torch_import: bool, noqa: bool = True
    ) -> Checked:
        try:
            notebook = load_notebook(data)
        except NotebookError as exc:
            return Checked([_gg001(path, exc.message, exc.row, exc.column)])
        return self.check_notebook(notebook, path, rules, require_torch_import, noqa)
