"""Reading, decoding and position bookkeeping for one source file."""

from __future__ import annotations

import ast
import bisect
import codecs
import io
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Optional

from gradguard.check.model import Position

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The file cannot be turned into text or an AST (reported as GG001)."""

    def __init__(self, message: str, row: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.row = row
        self.column = column


@dataclass
class SourceText:
    """Decoded text of a file plus what is needed to write it back byte-faithfully."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False
    _line_starts: Optional[list[int]] = field(default=None, repr=False)
    # A notebook's cells joined into one program: the row each cell after the first starts at.
    cell_starts: tuple[int, ...] = ()

    @classmethod
    def from_bytes(cls, data: bytes) -> "SourceText":
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            # what a PowerShell `>` redirect writes: Python reads source as UTF-8 and cannot run it
            raise SourceError("source is UTF-16 (byte-order mark); Python reads source as UTF-8: save it as UTF-8")
        if b"\x00" in data:
            raise SourceError("source contains NUL bytes (binary file?)")
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            raise SourceError(f"cannot detect encoding: {exc}") from None
        bom = data.startswith(codecs.BOM_UTF8)
        if bom:
            data = data[len(codecs.BOM_UTF8) :]
            encoding = "utf-8"
        elif encoding == "utf-8-sig":
            encoding = "utf-8"
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise SourceError(f"cannot decode as {encoding}: {exc}") from None
        return cls(text=text, encoding=encoding, bom=bom)

    def to_bytes(self, text: Optional[str] = None) -> bytes:
        data = (self.text if text is None else text).encode(self.encoding)
        return codecs.BOM_UTF8 + data if self.bom else data

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            text = self.text
            if "\r" in text:
                # The parser ends a line at "\r\n", "\n" and a lone "\r" alike.
                starts = [0] + [m.end() for m in _NEWLINE_RE.finditer(text)]
            else:
                # Each line's length plus its newline, summed up (no Python-level loop per line).
                starts = [0]
                starts.extend(accumulate(map((1).__add__, map(len, text.split("\n")[:-1]))))
            self._line_starts = starts
        return self._line_starts

    def line(self, lineno: int) -> str:
        starts = self.line_starts
        start = starts[lineno - 1]
        end = starts[lineno] if lineno < len(starts) else len(self.text)
        return self.text[start:end]

    def offset(self, lineno: int, byte_col: int) -> int:
        """Character offset of an AST position (1-based line, UTF-8 byte column)."""
        start = self.line_starts[lineno - 1]
        if byte_col == 0:
            return start
        line = self.line(lineno)
        if line.isascii():
            return start + byte_col
        return start + len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def position(self, offset: int) -> Position:
        row = bisect.bisect_right(self.line_starts, offset)
        return Position(row, offset - self.line_starts[row - 1] + 1)

    def node_start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def node_end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def segment(self, node: ast.AST) -> str:
        return self.text[self.node_start(node) : self.node_end(node)]

    @property
    def newline(self) -> str:
        """The file's line ending, used when a fix inserts new lines."""
        i = self.text.find("\n")
        if i > 0 and self.text[i - 1] == "\r":
            return "\r\n"
        return "\n"

    def indentation(self, lineno: int) -> str:
        line = self.line(lineno)
        return line[: len(line) - len(line.lstrip(" \t"))]


# Syntax a newer Python accepts: (the start of the line the error is on, what it is, the
# version that brought it). Compiled on the first syntax error.
_NEWER_SYNTAX = (
    (r"[ \t]*type[ \t]+\w+[ \t]*[=\[]", "`type` statements", (3, 12)),
    (r"[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[[^\]]*=", "type parameter defaults (PEP 696)", (3, 13)),
    (r"[ \t]*class[ \t]+\w+[ \t]*\[[^\]]*=", "type parameter defaults (PEP 696)", (3, 13)),
    (r"[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[", "generic functions (PEP 695)", (3, 12)),
    (r"[ \t]*class[ \t]+\w+[ \t]*\[", "generic classes (PEP 695)", (3, 12)),
    (r"[ \t]*except[ \t]*\*", "`except*`", (3, 11)),
    (r"[ \t]*except[ \t]+[^(\s:][^:]*,[^:]*:", "`except` without parentheses (PEP 758)", (3, 14)),
    # `f"{d["k"]}"`: an f-string's own quote inside a replacement field
    (
        r".*?(?<![\w\"'])(?:[fF][rR]?|[rR][fF])([\"'])(?:(?!\1).)*?\{[^}]*\1",
        "f-strings reusing their quote inside `{...}` (PEP 701)",
        (3, 12),
    ),
    # `f'loss: {` then `loss:.4f}'` on the next line: a replacement field spanning lines
    (
        r".*?(?<![\w\"'])(?:[fF][rR]?|[rR][fF])([\"'])(?!\1\1)(?:(?!\1)[^{])*"
        r"(?:\{(?:(?!\1)[^}])*\}(?:(?!\1)[^{])*)*\{(?:(?!\1)[^}])*$",
        "f-strings whose `{...}` spans lines (PEP 701)",
        (3, 12),
    ),
)

# Older parsers' own words for what PEP 701 allows in an f-string's `{...}`.
_NEWER_SYNTAX_MESSAGES = {
    "f-string expression part cannot include a backslash": "backslashes inside an f-string's `{...}` (PEP 701)",
    "f-string expression part cannot include '#'": "comments inside an f-string's `{...}` (PEP 701)",
}


ASYNC_INSTEAD = (
    "`async` is a keyword since Python 3.7: write `non_blocking=True` (the argument's name since PyTorch 0.4)"
)
PRINT_INSTEAD = "`print` is a function since Python 3: write `print(...)`"

# `x.cuda(async=True)` of PyTorch 0.3, the keyword argument alone (a `(` or `,` before it, `=`
# after it): `async` is a keyword since Python 3.7.
_ASYNC_KEYWORD_RE = re.compile(r"(?<=[(,])([ \t\r\n]*)async(?=[ \t]*=(?!=))")

# Syntax an older Python accepted, common in old PyTorch code: (a pattern found in the error's
# line, what to write instead).
_OLDER_SYNTAX = ((_ASYNC_KEYWORD_RE, ASYNC_INSTEAD),)
# Python 2's `print "loss", loss`: a statement of its own on one line, no comment, no `>>`, no
# continuation; `print` alone too.
_PRINT_STATEMENT_RE = re.compile(
    r"^([ \t]*)print(?:([ \t]+)(?![(\s=.,;)\]}])([^#\n\\]*?[^\s#\\,(\[{])?([ \t]*,)?)?[ \t]*$", re.M
)


def with_older_syntax_rewritten(text: str) -> Optional[tuple[str, list[tuple[int, int, str]]]]:
    """The text with what only an older Python accepted rewritten so that the rest of the file
    parses, every position before each line's end kept: each ``async=`` keyword argument of
    PyTorch 0.3 (``x.cuda(async=True)``) spelt ``_sync=``, the same length, and each Python 2
    ``print "loss", loss`` statement written as a call (``print("loss", loss)``: the space after
    ``print`` becomes ``(``, the ``)`` goes at the line's end); and the (row, column, what to
    write instead) of each. None where there is nothing to rewrite."""
    places: list[tuple[int, int, str]] = []
    source = SourceText(text)

    def place(offset: int, instead: str) -> None:
        row = bisect.bisect_right(source.line_starts, offset)
        places.append((row, offset - source.line_starts[row - 1] + 1, instead))

    def asynchronous(match: "re.Match[str]") -> str:
        place(match.start() + len(match.group(1)), ASYNC_INSTEAD)
        return str(match.group(1)) + "_sync"

    def printed(match: "re.Match[str]") -> str:
        indent, gap, body, comma = match.group(1), match.group(2), match.group(3), match.group(4)
        if gap is None:
            if match.group(0).strip() != "print":
                return str(match.group(0))
            place(match.start() + len(indent), PRINT_INSTEAD)
            return f"{indent}print()"
        if body is None:
            return str(match.group(0))
        place(match.start() + len(indent), PRINT_INSTEAD)
        return f"{indent}print({' ' * (len(gap) - 1)}{body}{comma or ''})"

    rewritten = _ASYNC_KEYWORD_RE.sub(asynchronous, text)
    rewritten = _PRINT_STATEMENT_RE.sub(printed, rewritten)
    if not places:
        return None
    return rewritten, sorted(places)


def older_syntax(line: str) -> Optional[str]:
    """What to write instead of a line's syntax that only an older Python accepted."""
    for pattern, instead in _OLDER_SYNTAX:
        if pattern.search(line):
            return instead
    return None


def newer_syntax(line: str) -> Optional[str]:
    """What newer Python a line's syntax needs, when the running one is older: "`type`
    statements need Python 3.12; this is Python 3.11"."""
    for pattern, what, version in _NEWER_SYNTAX:
        if sys.version_info[:2] < version and re.match(pattern, line):
            return _needs(what, version)
    return None


def _needs(what: str, version: tuple[int, int]) -> str:
    """``what`` needs Python ``version``, said against the running one."""
    running = sys.version_info[:2]
    return f"{what} need Python {version[0]}.{version[1]}; gradguard runs on Python {running[0]}.{running[1]}"


def parse(text: str, filename: str) -> ast.Module:
    """Parse text into an AST, turning every parser failure into a SourceError.

    The parser is given no file name: for a file name that exists, CPython reads the error's
    line from the disk to place the column, which is wrong for any text that is not the
    file's UTF-8 bytes (a latin-1 file, a notebook cell, an editor's buffer).
    """
    try:
        with warnings.catch_warnings():
            # SyntaxWarnings ("'int' object is not callable") are the user's compiler's business.
            warnings.simplefilter("ignore")
            return ast.parse(text, filename="<gradguard>", type_comments=False)
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        row = exc.lineno or 1
        source = SourceText(text)
        if msg in _NEWER_SYNTAX_MESSAGES and sys.version_info < (3, 12):
            msg = _needs(_NEWER_SYNTAX_MESSAGES[msg], (3, 12))
        elif 1 <= row <= len(source.line_starts):
            line = source.line(row)
            newer = newer_syntax(line)
            if newer is not None:
                msg = newer
            elif (older := older_syntax(line)) is not None:
                msg = f"{msg}; {older}"
        raise SourceError(f"SyntaxError: {msg}", row, exc.offset or 1) from None
    except MemoryError:
        # What CPython's parser raises when its own stack runs out (deeply nested code).
        raise SourceError("cannot parse: nested too deeply for the parser (MemoryError)") from None
    except (ValueError, RecursionError) as exc:
        raise SourceError(f"cannot parse: {type(exc).__name__}: {exc}") from None
