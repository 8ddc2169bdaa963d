"""Read a corpus repository's Python sources the way the checker addresses them.

A ``.py`` file is one unit; a notebook gives one unit per code cell, numbered as the checker
numbers cells (every cell of the notebook from 1, markdown and raw included), with IPython
lines (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``) and cell-magic cells blanked to ``pass``
so that lines keep their numbers. Standard library only.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "build", "dist", ".ipynb_checkpoints", "node_modules"}
_IPYTHON_LINE = re.compile(r"[ \t]*(?:[%!]|[\w.]+[ \t]*=[ \t]*[%!])")
_HELP_LINE = re.compile(r"[ \t]*(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})[ \t]*$")
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun"}


@dataclass
class Unit:
    """One piece of source that the checker reports positions in: a file or a notebook cell."""

    path: str  # relative to the repository root, with '/' separators
    cell: int | None  # 1-based cell number for notebooks, None for .py files
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:cell {self.cell}" if self.cell is not None else self.path

    def tree(self) -> ast.Module | None:
        try:
            return ast.parse(self.text)
        except (SyntaxError, ValueError):
            return None


def _opens_logical_line(pending: str) -> bool:
    """Whether the lines gathered so far end a logical line (no open bracket, string or backslash)."""
    if not pending:
        return True
    if pending.rstrip("\n").endswith("\\"):
        return False
    try:
        for _ in tokenize.generate_tokens(io.StringIO(pending).readline):
            pass
    except tokenize.TokenError:
        return False
    except (SyntaxError, ValueError):
        return True
    return True


def _python_cell_text(source: str) -> str:
    """The cell with IPython-only lines blanked; only a line that starts a logical line can be a
    magic (a ``%`` inside an open bracket or after a backslash is the modulo operator)."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        if magic not in PYTHON_CELL_MAGICS:
            return "\n".join("pass" for _ in lines)
        lines[0] = "pass"
    out, pending = [], ""
    for line in lines:
        if _opens_logical_line(pending) and (_IPYTHON_LINE.match(line) or _HELP_LINE.match(line)):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + "pass")
            pending = ""
            continue
        out.append(line)
        pending += line + "\n"
        if _opens_logical_line(pending):
            pending = ""
    return "\n".join(out)


def notebook_cells(path: str) -> Iterator[tuple]:
    """(cell number, python text) for each code cell of a notebook; nothing if unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return
    cells = data.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in data.get("worksheets", []) for c in ws.get("cells", [])]
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(source)
        yield number, _python_cell_text(source)


def iter_units(root: str) -> Iterator[Unit]:
    """Every .py file and notebook code cell under ``root``, in a stable order."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if name.endswith(".py"):
                try:
                    with open(full, encoding="utf-8", errors="replace") as handle:
                        yield Unit(rel, None, handle.read())
                except OSError:
                    continue
            elif name.endswith(".ipynb"):
                for number, text in notebook_cells(full):
                    yield Unit(rel, number, text)
